"""Alpha-beta nodes at a fixed depth, per preset: the check that a speed-up left the search
unchanged (the same tree gives the same counts; run it on the old and the new tree).

Run: ``python benchmarks/node_counts.py [--depth 7] [--presets dara,kalah]``. Positions: those
of ``bench_ai.py`` (each preset after a seeded random opening of 4 decisions, seeds 100-102).
"""

from __future__ import annotations

import argparse

from bench_ai import PRESETS, position
from nugar.ai import Limits, make_agent


def nodes(rules: str, depth: int) -> int:
    """Nodes of depth-``depth`` searches from the three benchmark positions, added up."""
    return sum(make_agent("alphabeta").analyse(position(rules, 4, 100 + i),
                                               Limits(depth=depth)).nodes
               for i in range(3))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--presets", default=",".join(PRESETS))
    args = parser.parse_args()
    for rules in args.presets.split(","):
        print(f"{rules}: {nodes(rules, args.depth)} nodes at depth {args.depth}", flush=True)


if __name__ == "__main__":
    main()
