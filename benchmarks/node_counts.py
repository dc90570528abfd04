"""Alpha-beta nodes at a fixed depth, per preset: the check that a speed-up left the search
unchanged (the same tree gives the same counts; run it on the old and the new tree).

Run: ``python benchmarks/node_counts.py [--depth 7] [--presets dara,kalah] [--speed 5]``.
Positions: those of ``bench_ai.py`` (each preset after a seeded random opening of 4
decisions, seeds 100-102). With ``--speed R`` it also times the same searches ``R`` times
(a fresh agent each time, so the same tree) and prints the best nodes per CPU-second of the
searching thread: the speed of exactly the same work, steadier than ``bench_ai.py``'s timed
searches on a shared machine, where contention only ever slows a run down.
"""

from __future__ import annotations

import argparse
import time

from bench_ai import PRESETS, position
from nugar.ai import Limits, make_agent


def nodes(rules: str, depth: int) -> int:
    """Nodes of depth-``depth`` searches from the three benchmark positions, added up."""
    return sum(make_agent("alphabeta").analyse(position(rules, 4, 100 + i),
                                               Limits(depth=depth)).nodes
               for i in range(3))


def best_speed(rules: str, depth: int, repeat: int, expected: int) -> float:
    """The best of ``repeat`` timings of :func:`nodes`'s searches, in nodes per CPU-second
    of this thread (the search runs in it). One agent, reset before each search (the same
    tree as a new agent's: ``expected`` nodes), so its table's pages are not first touched
    inside the timing."""
    games = [position(rules, 4, 100 + i) for i in range(3)]
    agent = make_agent("alphabeta")
    agent.analyse(games[0], Limits(depth=depth))  # load the compiled search, touch the table
    best = 0.0
    for _ in range(repeat):
        count = 0
        cpu = 0.0
        for game in games:
            agent.reset()
            start = time.thread_time()
            count += agent.analyse(game, Limits(depth=depth)).nodes
            cpu += time.thread_time() - start
        if count != expected:
            raise SystemExit(f"{rules}: a reset agent searched {count} nodes, a new one "
                             f"{expected}")
        best = max(best, count / max(cpu, 1e-9))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--speed", type=int, default=0, metavar="R",
                        help="also time the searches R times: best nodes per CPU-second")
    args = parser.parse_args()
    for rules in args.presets.split(","):
        count = nodes(rules, args.depth)
        line = f"{rules}: {count} nodes at depth {args.depth}"
        if args.speed > 0:
            line += f", {best_speed(rules, args.depth, args.speed, count):,.0f} nodes/CPU-s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
