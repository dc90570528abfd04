"""Strength of the levels: the matches of docs/strength.md, as one command.

    python benchmarks/bench_strength.py                      # every preset, 200 games a match
    python benchmarks/bench_strength.py --rules dala kalah --games 200 --workers 8
    python benchmarks/bench_strength.py --rules dracala --level8-time 0.2

For each rule set it plays level N against level N-1 (N = 2..7) at ``--time`` (levels 1 to
7 stop at node budgets, so the machine does not matter), then level 8 against level 7,
level 6 and ``random`` at ``--level8-time`` (level 8 uses its time: give it free cores).
Each match is ``nugar match`` with ``--seed`` (default 7) and 2 random opening decisions
(``--opening 2``), except in Dracala, which is played from the start (``--opening 0``: its
levels make their own random choices, and two random decisions there decide the
theoretical result of about half the games; docs/strength.md). Each prints one Markdown
row (opening, W-D-L of the first agent, its score, the target, whether the row meets it,
and the wall-clock seconds) for docs/strength.md. The targets are those
of the AI issue: every level 65% over the one below, level 8 99% against random and 90%
against level 6.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from nugar.ai.base import Limits
from nugar.ai.tournament import run_match

PRESETS = ("dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala")

#: random opening decisions of each pair of games, by preset (default 2)
OPENING = {"dracala": 0}


def matches(level8_time: float, time_limit: float) -> list[tuple[str, str, float, float]]:
    """(agent A, agent B, seconds per decision, target score of A) of one rule set."""
    out = [(f"level:{n}", f"level:{n - 1}", time_limit, 0.65) for n in range(2, 8)]
    out += [("level:8", "level:7", level8_time, 0.65), ("level:8", "level:6", level8_time, 0.90),
            ("level:8", "random", level8_time, 0.99)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=list(PRESETS))
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--time", type=float, default=0.2, help="levels 1 to 7 (default 0.2)")
    ap.add_argument("--level8-time", type=float, default=0.1, help="level 8 (default 0.1)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--opening", type=int, default=None,
                    help="random opening decisions (default: 2, in Dracala 0)")
    args = ap.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs; "
          f"{args.games} games a match, --seed {args.seed}, --workers {args.workers}\n")
    print("| rules | opening | A | B | s/decision | W-D-L | score | target | met | wall s |")
    print("| --- | ---: | --- | --- | ---: | --- | ---: | ---: | --- | ---: |")
    for rules in args.rules:
        opening = OPENING.get(rules, 2) if args.opening is None else args.opening
        for a, b, seconds, target in matches(args.level8_time, args.time):
            start = time.perf_counter()
            t = run_match(a, b, rules, args.games, Limits(time=seconds), args.workers,
                          opening=opening, seed=args.seed)
            print(f"| {rules} | {opening} | {a} | {b} | {seconds:g} | "
                  f"{t.wins}-{t.draws}-{t.losses} | {100 * t.score:.1f}% | {100 * target:.0f}% | "
                  f"{'yes' if t.score >= target else 'no'} | "
                  f"{time.perf_counter() - start:.0f} |", flush=True)


if __name__ == "__main__":
    main()
