"""A test double of ``benchmarks/LudiiKalahBridge.java``: it speaks the bridge's line
protocol (``benchmarks/bench_ludii.py``) but plays with nugar's own Kalah rules and a random
"AI", so that the Ludii-free parts of the Ludii benchmark (reading the board's layout,
translating moves, the game loop and its checks) can be tested without Ludii. It says
nothing about Ludii's strength.

    python fake_ludii_bridge.py [--shuffle SEED] [--seed SEED] [--illegal N] [--miscount N]

Sites are numbered as Ludii's "Kalah.lud" numbers them (the second player's store 0, the
first player's holes 1..6 and store 13, the second player's holes 12 down to 7), or in a
random order (``--shuffle``); ``--illegal N`` makes the N-th THINK answer a site that is not
a legal move, ``--miscount N`` makes the N-th STATE report one seed too many.
"""

from __future__ import annotations

import argparse
import random
import sys

import nugar
from nugar.kernels import sowing
from nugar.rules.base import Move
from nugar.rules.sowing import SowingGame

RULES = "kalah(end=mover_empty)"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shuffle", type=int, default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--illegal", type=int, default=0)
    ap.add_argument("--miscount", type=int, default=0)
    args = ap.parse_args()
    pits = 6
    cells = [*range(1, 7), 13, *range(12, 6, -1), 0]  # nugar's cell order -> site
    if args.shuffle is not None:
        random.Random(args.shuffle).shuffle(cells)
    rng = random.Random(args.seed)
    game = nugar.new_game(RULES)
    thinks = states = 0

    def counts(position: SowingGame) -> str:
        sites = [0] * len(cells)
        for cell, site in enumerate(cells):
            sites[site] = int(position.state[sowing.holes_at(pits, 1) + cell])
        return ",".join(map(str, sites))

    def site_of(position: SowingGame, move: Move) -> int:
        first = 0 if position.to_move == 1 else pits + 1
        return int(cells[first + move.hole - 1])

    def move_at(position: SowingGame, site: int) -> Move:
        for move in position.legal_moves():
            if site_of(position, move) == site:
                return move
        raise ValueError(f"no legal move from site {site}")

    print(f"READY sites={len(cells)} ai=Fake_random", flush=True)
    for line in sys.stdin:
        words = line.split()
        try:
            assert isinstance(game, SowingGame)
            if words[0] == "QUIT":
                break
            if words[0] == "START":
                game = nugar.new_game(RULES)
                answer = "OK"
            elif words[0] == "STATE":
                states += 1
                shown = counts(game)
                if states == args.miscount:
                    values = shown.split(",")
                    values[0] = str(int(values[0]) + 1)
                    shown = ",".join(values)
                over = game.outcome is not None
                legal = [] if over else [site_of(game, m) for m in game.legal_moves()]
                winner = {"1-0": "1", "0-1": "2"}.get(game.result or "", "0") if over else "-"
                answer = (f"STATE mover={game.to_move} over={int(over)} counts={shown} "
                          f"legal={','.join(map(str, legal))} result={winner}")
            elif words[0] == "TRY":
                after = game.copy()
                assert isinstance(after, SowingGame)
                after.push(move_at(game, int(words[1])))
                answer = "COUNTS " + counts(after)
            elif words[0] == "PLAY":
                game.push(move_at(game, int(words[1])))
                answer = "OK"
            elif words[0] == "THINK":
                thinks += 1
                legal_sites = {site_of(game, m) for m in game.legal_moves()}
                if thinks == args.illegal:
                    answer = f"MOVE {min(set(range(len(cells))) - legal_sites)}"
                else:
                    answer = f"MOVE {rng.choice(sorted(legal_sites))}"
            else:
                raise ValueError(f"unknown command {words[0]}")
        except (ValueError, IndexError) as err:
            answer = f"ERR {err}"
        print(answer, flush=True)


if __name__ == "__main__":
    main()
