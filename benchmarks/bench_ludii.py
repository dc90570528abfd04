"""Kalah level 8 against Ludii's Kalah AI (issue 37: at least 80% at 0.5 s a move from 4-ply
openings on a fresh install).

    python benchmarks/bench_ludii.py --ludii-jar ~/Ludii.jar                  # 20 games, 0.5 s
    python benchmarks/bench_ludii.py --ludii-jar Ludii.jar --games 100 --time 0.5 --opening 4
    python benchmarks/bench_ludii.py --ludii-jar Ludii.jar --ludii-ai UCT --agent level:7

Ludii (https://ludii.games, the general game system of the Digital Ludeme Project) is not
part of nugar: download its JAR and name it with ``--ludii-jar``; Java 11 or later runs it.
The script compiles ``LudiiKalahBridge.java`` (beside it) with ``javac -cp Ludii.jar`` into a
temporary folder and starts it; the bridge plays Ludii's own "Kalah.lud" and answers one line
per command on its standard output:

- ``START``: a new game at the starting position, ``OK``;
- ``STATE``: ``STATE mover=M over=0|1 counts=C0,C1,... legal=S,S,... result=-|0|1|2``: the
  player to move, whether the game is over, the seeds on every site of Ludii's board, the
  sites of the legal moves (a Kalah move is the hole it sows from) and, at the end, the
  winner (0: a draw);
- ``TRY S``: ``COUNTS C0,C1,...``, the seeds on every site after the move from site ``S``
  (the game itself is left as it was);
- ``PLAY S``: plays the move from site ``S``, ``OK``;
- ``THINK T``: ``MOVE S``, the move Ludii's AI chooses for the player to move within ``T``
  seconds (not played);
- ``QUIT``; an error is answered ``ERR`` and a message.

This side never assumes how Ludii numbers its sites: at the start it tries every first move
of each player and reads from the seeds each one sows which site is which of nugar's holes
and stores (:func:`infer_layout`). Every game is played in step in Ludii and in
``nugar.new_game("kalah(end=mover_empty)")`` (Ludii's Kalah ends when the player to move has
no seeds, each player keeping the seeds on his side: tests/fixtures/README.md): before every
decision the player to move, the legal moves and the seeds on every site must agree, every
move Ludii's AI chooses must be legal in nugar, and at the end the winner must agree; any
difference stops the match with the position and both sides' view.

Each pair of games starts from the same random opening of ``--opening`` decisions (default
4) with the colours swapped. It prints the W-D-L of nugar's agent, its score and the Elo
difference with its 95% interval (``nugar.ai.tournament.elo_interval``). No Ludii was
available where this was written: docs/strength.md says so and gives this command.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import nugar
from nugar.ai import Limits, make_agent
from nugar.ai.base import Agent
from nugar.ai.tournament import elo_interval
from nugar.kernels import sowing
from nugar.rules.base import Move
from nugar.rules.sowing import SowingGame

#: nugar's rule set of Ludii's Kalah
RULES = "kalah(end=mover_empty)"

BRIDGE_SOURCE = Path(__file__).resolve().parent / "LudiiKalahBridge.java"


class LudiiError(RuntimeError):
    """The bridge failed, or Ludii and nugar disagree about the game."""


@dataclass(frozen=True)
class BridgeState:
    """One ``STATE`` answer."""

    mover: int
    over: bool
    counts: tuple[int, ...]
    legal: frozenset[int]
    result: int | None  # the winner at the end (0: a draw)

    @classmethod
    def parse(cls, line: str) -> BridgeState:
        words = line.split()
        if not words or words[0] != "STATE":
            raise LudiiError(f"the bridge answered {line!r} to STATE")
        fields = dict(word.split("=", 1) for word in words[1:])
        try:
            result = fields["result"]
            return cls(int(fields["mover"]), fields["over"] == "1", _numbers(fields["counts"]),
                       frozenset(_numbers(fields["legal"])),
                       None if result == "-" else int(result))
        except (KeyError, ValueError) as err:
            raise LudiiError(f"cannot read the bridge's state {line!r}: {err}") from None


def _numbers(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in text.split(",") if x)


class Bridge:
    """The bridge process (Ludii's side), one command at a time."""

    def __init__(self, command: Sequence[str]) -> None:
        self.command = list(command)
        self._process = subprocess.Popen(self.command, stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True, bufsize=1)
        ready = self._read()
        if not ready.startswith("READY"):
            raise LudiiError(f"the bridge started with {ready!r}, not READY")
        fields = dict(word.split("=", 1) for word in ready.split()[1:] if "=" in word)
        self.sites = int(fields.get("sites", "0"))
        self.ai = fields.get("ai", "?").replace("_", " ")

    def _pipes(self) -> tuple[IO[str], IO[str]]:
        stdin, stdout = self._process.stdin, self._process.stdout
        assert stdin is not None and stdout is not None
        return stdin, stdout

    def _read(self) -> str:
        line = self._pipes()[1].readline()
        if not line:
            errors = self._process.stderr.read() if self._process.stderr else ""
            raise LudiiError(f"the bridge ({' '.join(self.command)}) stopped: "
                             f"{errors.strip()[-2000:] or 'no message'}")
        return line.strip()

    def ask(self, line: str) -> str:
        stdin = self._pipes()[0]
        stdin.write(line + "\n")
        stdin.flush()
        answer = self._read()
        if answer.startswith("ERR"):
            raise LudiiError(f"the bridge refused {line!r}: {answer[3:].strip()}")
        return answer

    def start(self) -> None:
        self.ask("START")

    def state(self) -> BridgeState:
        return BridgeState.parse(self.ask("STATE"))

    def try_move(self, site: int) -> tuple[int, ...]:
        answer = self.ask(f"TRY {site}")
        if not answer.startswith("COUNTS "):
            raise LudiiError(f"the bridge answered {answer!r} to TRY")
        return _numbers(answer.split(" ", 1)[1])

    def play(self, site: int) -> None:
        self.ask(f"PLAY {site}")

    def think(self, seconds: float) -> int:
        answer = self.ask(f"THINK {seconds:g}")
        if not answer.startswith("MOVE "):
            raise LudiiError(f"the bridge answered {answer!r} to THINK")
        return int(answer.split()[1])

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self.ask("QUIT")
            except (LudiiError, OSError):
                pass
            try:
                self._process.wait(5)
            except subprocess.TimeoutExpired:
                self._process.kill()


# --- which site is which hole -------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Ludii's sites of nugar's cells: each player's holes, hole 1 (the mover's left, where
    his sowing starts) first, and his store."""

    holes: dict[int, tuple[int, ...]]
    stores: dict[int, int]

    def site_of(self, player: int, hole: int) -> int:
        return self.holes[player][hole - 1]

    def hole_of(self, player: int, site: int) -> int:
        """nugar's hole number (1..P) of ``player``'s move from Ludii's ``site``."""
        try:
            return self.holes[player].index(site) + 1
        except ValueError:
            raise LudiiError(f"site {site} is not a hole of player {player} "
                             f"(his holes are sites {self.holes[player]})") from None

    def counts_of(self, game: SowingGame) -> tuple[int, ...]:
        """The seeds of every Ludii site in ``game``'s position."""
        sites = [0] * (2 * len(self.holes[1]) + 2)
        for player in (1, 2):
            first = sowing.holes_at(game.pits, player)
            for hole, site in enumerate(self.holes[player]):
                sites[site] = int(game.state[first + hole])
            sites[self.stores[player]] = int(game.state[sowing.store_at(game.pits, player)])
        return tuple(sites)


def _sown(before: Sequence[int], after: Sequence[int]) -> set[int]:
    return {site for site, (b, a) in enumerate(zip(before, after, strict=True)) if a > b}


def mover_cells(before: Sequence[int], tries: Mapping[int, Sequence[int]]
                ) -> tuple[tuple[int, ...], int]:
    """The mover's holes in sowing order and his store, read from the seeds each of his
    moves sows (``tries``: the counts after the move from each of his holes) in a position
    where every hole of his holds a seed: no hole of his is sown by a hole after it, and
    the store is the one site beyond his holes that the hole sowing exactly up to it
    reaches."""
    sown = {site: _sown(before, after) for site, after in tries.items()}
    left = set(tries)
    order: list[int] = []
    while left:
        first = [h for h in left if not any(h in sown[o] for o in left if o != h)]
        if len(first) != 1:
            raise LudiiError(f"cannot order the holes {sorted(tries)} by what they sow "
                             f"({ {h: sorted(s) for h, s in sown.items()} })")
        order.append(first[0])
        left.remove(first[0])
    beyond = [sown[h] - set(tries) for h in order]
    stores = {next(iter(b)) for b in beyond if len(b) == 1}
    if len(stores) != 1:
        raise LudiiError(f"cannot tell the store from what the holes {order} sow")
    return tuple(order), stores.pop()


def infer_layout(bridge: Bridge) -> Layout:
    """Ludii's site of every hole and store, from the first moves of each player (then the
    bridge is back at the start)."""
    holes: dict[int, tuple[int, ...]] = {}
    stores: dict[int, int] = {}
    bridge.start()
    state = bridge.state()
    for player in (1, 2):
        if state.mover != player:
            raise LudiiError(f"expected player {player} to move at the start of the "
                             f"calibration, Ludii says player {state.mover}")
        tries = {site: bridge.try_move(site) for site in sorted(state.legal)}
        holes[player], stores[player] = mover_cells(state.counts, tries)
        if player == 2:
            break
        for site in holes[player]:  # a first move that hands the turn over
            bridge.play(site)
            state = bridge.state()
            if state.mover == 2:
                break
            bridge.start()
            state = bridge.state()
    bridge.start()
    layout = Layout(holes, stores)
    used = [*holes[1], *holes[2], stores[1], stores[2]]
    if sorted(used) != list(range(bridge.sites or len(used))) or len(holes[1]) != len(holes[2]):
        raise LudiiError(f"the sites read ({layout}) are not one board of {bridge.sites} sites")
    return layout


# --- the games ------------------------------------------------------------------------------------


def _check(game: SowingGame, state: BridgeState, layout: Layout, where: str) -> None:
    """Raise ``LudiiError`` where Ludii's view of the position differs from nugar's."""
    running = game.outcome is None
    ours = {layout.site_of(game.to_move, m.hole) for m in game.legal_moves()} if running \
        else set()
    problems = []
    if state.over != (game.outcome is not None):
        problems.append(f"over: Ludii {state.over}, nugar {game.outcome is not None}")
    if not state.over and state.mover != game.to_move:
        problems.append(f"to move: Ludii player {state.mover}, nugar player {game.to_move}")
    if state.counts != layout.counts_of(game):
        problems.append(f"seeds by site: Ludii {state.counts}, nugar {layout.counts_of(game)}")
    if not state.over and set(state.legal) != ours:
        problems.append(f"legal sites: Ludii {sorted(state.legal)}, nugar {sorted(ours)} "
                        f"(the mover's holes are sites {layout.holes[game.to_move]})")
    if problems:
        raise LudiiError(f"{where}: Ludii and nugar disagree ({'; '.join(problems)}) in\n"
                         f"{game.position_text()}")


def play_game(bridge: Bridge, layout: Layout, agent: Agent, nugar_player: int,
              opening: Sequence[int], seconds: float, where: str) -> float:
    """One game, ``agent`` playing ``nugar_player``, from the opening (nugar's hole numbers,
    decision by decision); nugar's points (1, 0.5 or 0)."""
    bridge.start()
    game = nugar.new_game(RULES)
    assert isinstance(game, SowingGame)
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()
    for hole in opening:
        bridge.play(layout.site_of(game.to_move, hole))
        game.push(Move.sow(hole))
    decision = len(opening)
    while game.outcome is None:
        _check(game, bridge.state(), layout, f"{where}, decision {decision}")
        mover = game.to_move
        if mover == nugar_player:
            move = agent.analyse(game, Limits(time=seconds)).move
            site = layout.site_of(mover, move.hole)
        else:
            site = bridge.think(seconds)
            move = Move.sow(layout.hole_of(mover, site))
            if move not in game.legal_moves():
                raise LudiiError(f"{where}, decision {decision}: Ludii's AI chose site {site} "
                                 f"(hole {move.hole}), which nugar finds illegal in\n"
                                 f"{game.position_text()}")
        bridge.play(site)
        game.push(move)
        decision += 1
    final = bridge.state()
    _check(game, final, layout, f"{where}, the end")
    winner = {"1-0": 1, "0-1": 2}.get(game.result or "", 0)
    if final.result != winner:
        raise LudiiError(f"{where}: Ludii's winner is {final.result}, nugar's {winner}")
    return 1.0 if winner == nugar_player else 0.5 if winner == 0 else 0.0


def openings(pairs: int, decisions: int, seed: int) -> list[list[int]]:
    """A random opening of ``decisions`` decisions for each pair of games (a line that ends
    the game is drawn again)."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    while len(out) < pairs:
        game = nugar.new_game(RULES)
        line = []
        for _ in range(decisions):
            if game.outcome is not None:
                break
            move = rng.choice(game.legal_moves())
            line.append(move.hole)
            game.push(move)
        if game.outcome is None:
            out.append(line)
    return out


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    def add(self, points: float) -> None:
        if points == 1.0:
            self.wins += 1
        elif points == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + self.draws / 2) / self.games if self.games else 0.0


def play_match(bridge: Bridge, agent_spec: str, games: int, seconds: float, opening: int,
               seed: int, report: IO[str] | None = None) -> Score:
    """``games`` games (pairs with the colours swapped) of ``agent_spec`` against the
    bridge's AI."""
    layout = infer_layout(bridge)
    agent = make_agent(agent_spec)
    score = Score()
    for pair, line in enumerate(openings((games + 1) // 2, opening, seed)):
        for nugar_player in (1, 2):
            if score.games == games:
                break
            points = play_game(bridge, layout, agent, nugar_player, line, seconds,
                               f"game {score.games + 1} (opening {line})")
            score.add(points)
            if report is not None:
                print(f"game {score.games}: pair {pair + 1}, nugar player {nugar_player}, "
                      f"{points:g} point(s)", file=report, flush=True)
    return score


def compile_bridge(jar: Path, build: Path) -> list[str]:
    """Compile the Java bridge against ``jar`` into ``build``; the command that runs it."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        raise SystemExit("bench_ludii: javac and java (JDK 11 or later) are needed on PATH")
    if not jar.is_file():
        raise SystemExit(f"bench_ludii: no Ludii JAR at {jar} (download it from "
                         f"https://ludii.games and give its path with --ludii-jar)")
    done = subprocess.run([javac, "-cp", str(jar), "-d", str(build), str(BRIDGE_SOURCE)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench_ludii: compiling {BRIDGE_SOURCE.name} against {jar} "
                         f"failed:\n{done.stderr.strip()}")
    return [java, "-cp", f"{jar}{os.pathsep}{build}", "LudiiKalahBridge"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ludii-jar", type=Path, required=True, metavar="PATH")
    ap.add_argument("--ludii-ai", default="", metavar="NAME",
                    help="one of Ludii's AI names (UCT, Alpha-Beta, ...); default: the AI "
                         "Ludii's metadata chooses for Kalah")
    ap.add_argument("--agent", default="level:8", help="nugar's player (default level:8)")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--time", type=float, default=0.5, help="seconds a move, both sides")
    ap.add_argument("--opening", type=int, default=4)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    if args.games < 1 or args.time <= 0 or args.opening < 0:
        raise SystemExit("bench_ludii: --games must be at least 1, --time above 0, "
                         "--opening at least 0")
    with tempfile.TemporaryDirectory(prefix="nugar-ludii-") as build:
        command = compile_bridge(args.ludii_jar, Path(build))
        if args.ludii_ai:
            command.append(args.ludii_ai)
        bridge = Bridge(command)
        try:
            start = time.perf_counter()
            score = play_match(bridge, args.agent, args.games, args.time, args.opening,
                               args.seed, sys.stderr)
        finally:
            bridge.close()
    elo, low, high = elo_interval(score.wins, score.draws, score.losses)
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"load {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{args.agent} against Ludii's {bridge.ai} ({RULES}), {args.time:g} s a move, "
          f"{args.opening}-decision openings, --seed {args.seed}: "
          f"{score.wins}-{score.draws}-{score.losses}, score {100 * score.score:.1f}%, "
          f"Elo {elo:+.0f} [{low:+.0f}, {high:+.0f}], {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
