"""Before and after a change: the same workloads on two source trees, in the same minute.

Each tree is measured in its own Python process (``PYTHONPATH=TREE``), taking turns, so the
machine's load falls on both alike. The workloads use only the public API that every version
of nugar has had (``new_game``, ``legal_actions``, ``push_action``, ``undo``, ``perft``,
``make_agent(...).analyse``), so an old checkout can be measured against the working tree:

    git archive REV src | tar -x -C /tmp/old
    python benchmarks/bench_compare_trees.py /tmp/old/src src --rounds 3

Figures are per CPU-second of the measuring process (steadier than wall-clock time on a
shared machine); the first round of each tree compiles its kernels and is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: what one measuring process runs; prints one JSON object
WORKLOAD = r"""
import json, random, sys, time
import nugar
from nugar.ai import Limits, make_agent

def cpu():
    return time.process_time()

out = {}
for rules in ("dara", "dala", "kalah", "dracala"):  # load the kernels before timing
    game = nugar.new_game(rules)
    game.push_action(game.legal_actions()[0])
    game.undo()
    nugar.perft(game, 2)
for rules in ("dara", "dala", "kalah", "dracala"):
    rng = random.Random(1)
    start, moves = cpu(), 0
    for _ in range(GAMES):
        game = nugar.new_game(rules)
        while not game.is_over and moves < 10**9:
            actions = game.legal_actions()
            game.push_action(actions[rng.randrange(len(actions))])
            moves += 1
        while game.move_stack:
            game.undo()
    out[f"api moves/s {rules}"] = moves / (cpu() - start)
for rules, depth in (("kalah", 6), ("dara", 3)):
    start = cpu()
    nodes = nugar.perft(nugar.new_game(rules), depth)
    out[f"perft nodes/s {rules} d{depth}"] = nodes / (cpu() - start)
for rules in ("dara", "kalah"):
    agent = make_agent("alphabeta")
    start = cpu()
    found = agent.analyse(nugar.new_game(rules), Limits(time=SEARCH))
    out[f"alphabeta nodes/s {rules}"] = found.nodes / (cpu() - start)
print(json.dumps(out))
"""


def measure(tree: str, games: int, search: float) -> dict[str, float]:
    code = WORKLOAD.replace("GAMES", str(games)).replace("SEARCH", str(search))
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the workload failed on {tree}:\n{done.stderr[-2000:]}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the 'before' source folder (holds the nugar package)")
    parser.add_argument("new", help="the 'after' source folder")
    parser.add_argument("--rounds", type=int, default=3, help="measured rounds per tree")
    parser.add_argument("--games", type=int, default=40, help="random games per rule set")
    parser.add_argument("--search", type=float, default=0.5, help="seconds per search")
    args = parser.parse_args(argv)
    for tree in (args.old, args.new):
        if not (Path(tree) / "nugar" / "__init__.py").is_file():
            parser.error(f"{tree} holds no nugar package")
    load = os.getloadavg()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, "
          f"{os.cpu_count()} CPUs, Python {platform.python_version()}, load average "
          f"{load[0]:.2f} before")
    print(f"# command: python benchmarks/bench_compare_trees.py {args.old} {args.new} "
          f"--rounds {args.rounds} --games {args.games} --search {args.search}")
    for tree in (args.old, args.new):  # compile both (not counted)
        measure(tree, 2, 0.05)
    runs: dict[str, list[dict[str, float]]] = {args.old: [], args.new: []}
    for i in range(args.rounds):
        order = (args.old, args.new) if i % 2 == 0 else (args.new, args.old)
        for tree in order:
            runs[tree].append(measure(tree, args.games, args.search))
    print(f"{'measure (per CPU-second, median)':38} {'old':>14} {'new':>14} {'new/old':>8}")
    for key in runs[args.old][0]:
        old = statistics.median(r[key] for r in runs[args.old])
        new = statistics.median(r[key] for r in runs[args.new])
        print(f"{key:38} {old:14,.0f} {new:14,.0f} {new / old:8.2f}")
    print(f"# load average {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    sys.exit(main())
