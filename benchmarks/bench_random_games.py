"""Random games per second: nugar's public API and compiled core, against OpenSpiel's C++ Kalah.

Run:  python benchmarks/bench_random_games.py [--seconds 1] [--repeats 5] [--presets kalah ...]
      python benchmarks/bench_random_games.py --quick     (about 20 s: a first look)

Every path plays whole games of uniformly random legal decisions, from the start to the end.

Peer comparison (Kalah with 6 holes and 4 seeds), when OpenSpiel is installed:

- nugar compiled: the kernel ``random_playout`` plays one whole game per Python call;
- OpenSpiel C++: ``pyspiel.evaluate_bots`` plays one whole game per Python call with two C++
  uniform random bots (``make_uniform_random_bot``), OpenSpiel's fastest path for whole random
  games from Python; the bots are built once per batch of games, not once per game;
- both again driven from Python one decision at a time (nugar's ``Game`` API; OpenSpiel's
  ``legal_actions`` and ``apply_action`` on its C++ state), the way user code usually plays.

OpenSpiel's ``mancala`` has no parameters; nugar's ``kalah`` preset plays the same rules (a lap
also sows the emptied starting hole, no capture when the facing hole is empty, the game ends as
soon as either side is empty, seeds left in holes go to their owner). Before timing, the script
plays random games on both engines side by side and stops if any legal-move list, player to
move, ending or winner differs.

The four peer paths are measured in turn, in an order reversed at every repetition, so changes
in machine load fall on all of them alike; each figure is the median over the repetitions. The
per-preset table interleaves its two paths the same way. One process, one thread throughout.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import platform
import random
import shlex
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numba
import numpy as np

import nugar
from nugar.kernels import dispatch
from nugar.kernels.common import OUTCOME_DRAW, OUTCOME_FIRST, OUTCOME_SECOND
from nugar.rules.family import family_of

PRESETS = ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]
PEER_RULES = "kalah"      # the nugar preset whose rules are OpenSpiel's mancala
PEER_GAME = "mancala"     # OpenSpiel's Kalah(6, 4)
CHUNK_SECONDS = 0.02      # a batch of games grows until it takes at least this long
MAX_PLIES = 10**9         # no random game of a preset comes near (every preset has an end)


@dataclass
class Tally:
    """Whole games played and how they ended; ``decisions`` is 0 where a path does not count."""

    games: int = 0
    first: int = 0
    second: int = 0
    draws: int = 0
    decisions: int = 0

    def merge(self, other: Tally) -> None:
        self.games += other.games
        self.first += other.first
        self.second += other.second
        self.draws += other.draws
        self.decisions += other.decisions

    def shares(self) -> str:
        """First-player wins / second-player wins / draws, in percent."""
        n = max(self.games, 1)
        return (f"{100 * self.first / n:.0f} / {100 * self.second / n:.0f} / "
                f"{100 * self.draws / n:.0f}")


# play(games, seed) plays exactly ``games`` whole games and returns their tally.
Play = Callable[[int, int], Tally]


def _tally_codes(codes: Sequence[int], decisions: int = 0) -> Tally:
    """Tally of nugar outcome codes; any other code (a game not finished) is an error."""
    counts = Counter(codes)
    unknown = set(counts) - {OUTCOME_FIRST, OUTCOME_SECOND, OUTCOME_DRAW}
    if unknown:
        raise RuntimeError(f"nugar games ended with unexpected outcome codes {sorted(unknown)}")
    return Tally(len(codes), counts[OUTCOME_FIRST], counts[OUTCOME_SECOND], counts[OUTCOME_DRAW],
                 decisions)


def _tally_returns(returns: Sequence[Sequence[float]], decisions: int = 0) -> Tally:
    """Tally of OpenSpiel returns; anything but (1, -1), (-1, 1) or (0, 0) is an error."""
    counts = Counter(tuple(r) for r in returns)
    unknown = set(counts) - {(1.0, -1.0), (-1.0, 1.0), (0.0, 0.0)}
    if unknown:
        raise RuntimeError(f"OpenSpiel games returned unexpected values {sorted(unknown)}")
    return Tally(len(returns), counts[(1.0, -1.0)], counts[(-1.0, 1.0)], counts[(0.0, 0.0)],
                 decisions)


# --- the paths ---------------------------------------------------------------------------------


def nugar_api(rules: str) -> Play:
    """nugar's public ``Game`` API: Python asks for the legal actions and plays one each time."""

    def play(games: int, seed: int) -> Tally:
        rng = random.Random(seed)
        winners: list[int | None] = []
        decisions = 0
        for _ in range(games):
            game = nugar.new_game(rules)
            while not game.is_over:
                game.push_action(rng.choice(game.legal_actions()))
                decisions += 1
            outcome = game.outcome
            assert outcome is not None
            winners.append(outcome.winner)
        codes = [OUTCOME_DRAW if w is None else OUTCOME_FIRST if w == 1 else OUTCOME_SECOND
                 for w in winners]
        return _tally_codes(codes, decisions)

    return play


def nugar_compiled(rules: str) -> Play:
    """nugar's compiled core: one ``random_playout`` call plays a whole game."""
    rule_set = nugar.parse_rules(rules)
    params = nugar.new_game(rule_set).params
    fam = family_of(rule_set).parts.code
    start = dispatch.fam_initial_state(fam, params)
    playout = dispatch.random_playout

    def play(games: int, seed: int) -> Tally:
        # the kernel plays on its own copy and leaves ``start`` as it is
        return _tally_codes([playout(fam, params, start, seed + i, MAX_PLIES)
                             for i in range(games)])

    return play


def _pyspiel() -> Any:
    """The ``pyspiel`` module, or ``None`` where OpenSpiel is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    return pyspiel


def openspiel_cpp() -> Play:
    """OpenSpiel's C++ mancala played by two C++ uniform random bots, one
    ``evaluate_bots`` call per whole game; the bots are built once per call of ``play``."""
    pyspiel = _pyspiel()
    game = pyspiel.load_game(PEER_GAME)
    evaluate = pyspiel.evaluate_bots
    make_bot = pyspiel.make_uniform_random_bot

    def play(games: int, seed: int) -> Tally:
        bots = [make_bot(0, seed), make_bot(1, seed + 1)]
        return _tally_returns([evaluate(game.new_initial_state(), bots, seed + i)
                               for i in range(games)])

    return play


def openspiel_python() -> Play:
    """OpenSpiel's C++ mancala driven from Python one decision at a time (no legality check,
    like nugar's ``push_action``)."""
    pyspiel = _pyspiel()
    game = pyspiel.load_game(PEER_GAME)

    def play(games: int, seed: int) -> Tally:
        rng = random.Random(seed)
        returns: list[list[float]] = []
        decisions = 0
        for _ in range(games):
            state = game.new_initial_state()
            while not state.is_terminal():
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
            returns.append(state.returns())
        return _tally_returns(returns, decisions)

    return play


def bot_pair_seconds(pairs: int = 500, tries: int = 5) -> float:
    """Seconds to build one pair of OpenSpiel C++ uniform random bots from Python: the best of
    ``tries`` timed batches, so that other jobs on the machine inflate it as little as possible."""
    make_bot = _pyspiel().make_uniform_random_bot
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        for s in range(pairs):
            make_bot(0, s)
            make_bot(1, s + 1)
        best = min(best, (time.perf_counter() - start) / pairs)
    return best


# --- the same rules on both engines ------------------------------------------------------------


class RulesDiffer(RuntimeError):
    """nugar's rule set and OpenSpiel's mancala disagreed on a position."""


def compare_with_openspiel(rules: str, games: int, seed: int = 0) -> int:
    """Play ``games`` random games of ``rules`` on nugar and of mancala on OpenSpiel with the
    same decisions, comparing the player to move, the legal moves, the end and the winner after
    every decision; return the number of decisions compared, or raise :class:`RulesDiffer`.

    nugar's action ``a`` (hole ``a + 1`` of the mover) is OpenSpiel's pit ``a + 1`` for the
    first player and ``a + 8`` for the second (OpenSpiel counts pits from the second player's
    store)."""
    pyspiel = _pyspiel()
    game = pyspiel.load_game(PEER_GAME)
    rng = random.Random(seed)
    compared = 0
    for g in range(games):
        ours = nugar.new_game(rules)
        theirs = game.new_initial_state()
        while True:
            where = f"{rules} against OpenSpiel {PEER_GAME}, game {g}, decision {compared}"
            if ours.is_over != theirs.is_terminal():
                raise RulesDiffer(f"{where}: nugar over={ours.is_over}, "
                                  f"OpenSpiel terminal={theirs.is_terminal()}")
            if ours.is_over:
                break
            mover = ours.to_move
            offset = 1 if mover == 1 else 8
            legal = ours.legal_actions()
            if (theirs.current_player() != mover - 1
                    or sorted(a + offset for a in legal) != sorted(theirs.legal_actions())):
                raise RulesDiffer(f"{where}: nugar player {mover} may play {legal}, OpenSpiel "
                                  f"player {theirs.current_player() + 1} {theirs.legal_actions()}")
            action = rng.choice(legal)
            ours.push_action(action)
            theirs.apply_action(action + offset)
            compared += 1
        outcome = ours.outcome
        assert outcome is not None
        expected = {1: [1.0, -1.0], 2: [-1.0, 1.0], None: [0.0, 0.0]}[outcome.winner]
        if theirs.returns() != expected:
            raise RulesDiffer(f"{rules} against OpenSpiel {PEER_GAME}, game {g}: nugar winner "
                              f"{outcome.winner}, OpenSpiel returns {theirs.returns()}")
    return compared


# --- measuring ---------------------------------------------------------------------------------


@dataclass
class Sample:
    """One timed stretch of whole games."""

    tally: Tally
    wall: float
    cpu: float

    @property
    def rate(self) -> float:
        return self.tally.games / self.wall

    @property
    def cpu_rate(self) -> float:
        return self.tally.games / self.cpu if self.cpu > 0 else float("nan")


def measure(play: Play, seconds: float, seed: int = 1) -> Sample:
    """Play whole games for about ``seconds``, in batches that double until one takes
    ``CHUNK_SECONDS`` (so the clock is read rarely and every timed game is finished)."""
    total = Tally()
    chunk = 1
    cpu0 = time.process_time()
    start = now = time.perf_counter()
    while True:
        before = now
        total.merge(play(chunk, seed + total.games))
        now = time.perf_counter()
        if now - start >= seconds:
            break
        if now - before < CHUNK_SECONDS:
            chunk *= 2
    return Sample(total, now - start, time.process_time() - cpu0)


@dataclass
class Series:
    """Repeated samples of one path."""

    label: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(s.rate for s in self.samples)

    @property
    def cpu_median(self) -> float:
        return statistics.median(s.cpu_rate for s in self.samples)

    @property
    def spread(self) -> str:
        rates = [s.rate for s in self.samples]
        return f"{min(rates):,.0f} to {max(rates):,.0f}"

    @property
    def tally(self) -> Tally:
        total = Tally()
        for s in self.samples:
            total.merge(s.tally)
        return total


def interleaved(paths: dict[str, Play], labels: dict[str, str], seconds: float,
                repeats: int) -> dict[str, Series]:
    """Measure every path ``repeats`` times, in turn, reversing the order each repetition."""
    for play in paths.values():
        play(3, 0)  # compile, load caches, warm up
    series = {name: Series(labels[name]) for name in paths}
    names = list(paths)
    for rep in range(repeats):
        for name in names if rep % 2 == 0 else names[::-1]:
            series[name].samples.append(measure(paths[name], seconds, seed=1 + rep * 1_000_003))
    return series


def paired_ratios(a: Series, b: Series) -> list[float]:
    """Per-repetition ratios of ``a`` to ``b`` (measured next to each other)."""
    return [x.rate / y.rate for x, y in zip(a.samples, b.samples, strict=True)]


# --- report ------------------------------------------------------------------------------------


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory() -> str:
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return f"{int(line.split()[1]) / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return "memory unknown"


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def header(argv: Sequence[str]) -> list[str]:
    return [
        f"date: {datetime.now(UTC).strftime('%Y-%m-%d %H:%M UTC')}",
        f"machine: {platform.node()}, {platform.machine()}, {platform.platform()}",
        f"CPU: {_cpu_model()}, {os.cpu_count()} logical cores, {_memory()}",
        f"versions: Python {platform.python_version()}, numpy {np.__version__}, "
        f"numba {numba.__version__}, open_spiel {_version('open_spiel')}, "
        f"nugar {nugar.__version__}",
        f"command: python {shlex.join(argv)}",
        f"load average (1, 5, 15 min) before: {_load()}",
    ]


def peer_section(seconds: float, repeats: int,
                 check_games: int) -> tuple[list[str], Series, Series, Series]:
    """The Kalah comparison with OpenSpiel; also returns nugar's two Kalah series and
    OpenSpiel's C++ one."""
    lines = [f"## Kalah(6,4): nugar `{PEER_RULES}` against OpenSpiel C++ `{PEER_GAME}`", ""]
    if check_games > 0:
        compared = compare_with_openspiel(PEER_RULES, check_games)
        lines.append(f"same rules: {check_games} random games played on both engines side by "
                     f"side, {compared:,} decisions, identical legal moves, player to move, "
                     f"ending and winner")
    pair = bot_pair_seconds()
    paths: dict[str, Play] = {
        "nugar_compiled": nugar_compiled(PEER_RULES),
        "openspiel_cpp": openspiel_cpp(),
        "nugar_api": nugar_api(PEER_RULES),
        "openspiel_python": openspiel_python(),
    }
    labels = {
        "nugar_compiled": "nugar compiled: `random_playout`, one call per game",
        "openspiel_cpp": "OpenSpiel C++: `evaluate_bots` + C++ uniform random bots, "
                         "one call per game",
        "nugar_api": "nugar Python `Game` API, one call per decision",
        "openspiel_python": "OpenSpiel Python loop over its C++ state, one call per decision",
    }
    series = interleaved(paths, labels, seconds, repeats)
    game_seconds = 1 / series["openspiel_cpp"].cpu_median
    lines += [
        f"OpenSpiel bot pair construction: {pair * 1e6:.1f} us (best of 5 batches), "
        f"{100 * pair / game_seconds:.0f}% of the CPU time of one game; the bots are built once "
        f"per batch of games (batches grow to {CHUNK_SECONDS * 1e3:.0f} ms), not per game",
        "",
        f"| path | games/s, median of {repeats} | range | games per CPU-second | "
        "wins first / second / draws, % |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for s in series.values():
        lines.append(f"| {s.label} | {s.median:,.0f} | {s.spread} | {s.cpu_median:,.0f} | "
                     f"{s.tally.shares()} |")
    for ours, theirs, what in (("nugar_compiled", "openspiel_cpp", "one call per whole game"),
                               ("nugar_api", "openspiel_python", "one Python call per decision")):
        a, b = series[ours], series[theirs]
        ratios = paired_ratios(a, b)
        lines.append(f"\n{what}: nugar / OpenSpiel = {statistics.median(ratios):.2f}x (median of "
                     f"the {len(ratios)} ratios of back-to-back measurements, "
                     f"{min(ratios):.2f}x to {max(ratios):.2f}x; ratio of the medians "
                     f"{a.median / b.median:.2f}x; per CPU-second "
                     f"{a.cpu_median / b.cpu_median:.2f}x)")
    return lines, series["nugar_api"], series["nugar_compiled"], series["openspiel_cpp"]


#: targets of the performance issue, one core: alignment presets in games per second, sowing
#: presets as a multiple of OpenSpiel's C++ mancala measured in the same run
GAMES_TARGET = 50_000
PEER_MULTIPLE = 5.0


def target_text(rules: str, compiled: Series, peer: Series | None) -> tuple[str, str]:
    """The target of ``rules`` and whether the compiled median meets it ("-" without a peer)."""
    if family_of(nugar.parse_rules(rules)).parts.code == dispatch.FAM_SOWING:
        if peer is None:
            return f">= {PEER_MULTIPLE:g}x OpenSpiel", "-"
        ratio = compiled.median / peer.median
        return (f">= {PEER_MULTIPLE:g}x OpenSpiel",
                "met" if ratio >= PEER_MULTIPLE else "not met")
    return (f">= {GAMES_TARGET:,}/s", "met" if compiled.median >= GAMES_TARGET else "not met")


def presets_section(presets: Sequence[str], seconds: float, repeats: int,
                    kalah: tuple[Series, Series] | None,
                    peer: Series | None = None) -> list[str]:
    """Per preset: the public API and the compiled core, and the compiled core against
    OpenSpiel's C++ mancala (``peer``, measured in the Kalah section of the same run)."""
    lines = ["## Every preset: public API against the compiled core", "",
             "| rule set | decisions/game | API games/s | compiled games/s | compiled games "
             "per CPU-second | compiled/API | compiled / OpenSpiel C++ mancala | target | |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |"]
    for rules in presets:
        if rules == PEER_RULES and kalah is not None:
            api, compiled = kalah  # measured above, interleaved with OpenSpiel
        else:
            series = interleaved({"api": nugar_api(rules), "compiled": nugar_compiled(rules)},
                                 {"api": "API", "compiled": "compiled"}, seconds, repeats)
            api, compiled = series["api"], series["compiled"]
        length = api.tally.decisions / api.tally.games
        versus = f"{compiled.median / peer.median:.2f}x" if peer is not None else "-"
        target, met = target_text(rules, compiled, peer)
        lines.append(f"| `{rules}` | {length:.0f} | {api.median:,.0f} | {compiled.median:,.0f} | "
                     f"{compiled.cpu_median:,.0f} | {compiled.median / api.median:.0f}x | "
                     f"{versus} | {target} | {met} |")
    if peer is not None:
        lines.append(f"\nOpenSpiel C++ mancala in this run: {peer.median:,.0f} games/s (median), "
                     f"{peer.cpu_median:,.0f} per CPU-second; a sowing preset's target is "
                     f"{PEER_MULTIPLE:g}x that, {PEER_MULTIPLE * peer.median:,.0f} games/s")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="time per measurement (default 1)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="measurements per path; figures are medians (default 5)")
    parser.add_argument("--presets", nargs="*", default=PRESETS, choices=PRESETS,
                        help="rule sets of the per-preset table (none: skip the table)")
    parser.add_argument("--check-games", type=int, default=200,
                        help="random games played on both engines to check the rules agree "
                             "(0: skip; default 200)")
    parser.add_argument("--quick", action="store_true",
                        help="a first look: 0.3 s per measurement, 3 repetitions, 20 games "
                             "of rules check (overrides those three options)")
    args = parser.parse_args(args_list)
    if args.quick:
        args.seconds, args.repeats, args.check_games = 0.3, 3, 20
    if args.seconds <= 0 or args.repeats < 1 or args.check_games < 0:
        parser.error("--seconds must be > 0, --repeats >= 1 and --check-games >= 0")
    for line in header([sys.argv[0], *args_list]):
        print(line, flush=True)
    print()
    kalah = None
    peer = None
    if _pyspiel() is None:
        print("OpenSpiel is not installed (pip install open_spiel): no peer figures.\n")
    else:
        try:
            lines, api, compiled, peer = peer_section(args.seconds, args.repeats,
                                                      args.check_games)
        except RulesDiffer as exc:
            sys.exit(f"no peer figures, the rules differ: {exc}")
        kalah = (api, compiled)
        print("\n".join(lines) + "\n", flush=True)
    if args.presets:
        print("\n".join(presets_section(args.presets, args.seconds, args.repeats, kalah,
                                         peer)))
        print()
    print(f"load average (1, 5, 15 min) after: {_load()}")


if __name__ == "__main__":
    main()
