"""Alpha-beta speed of two source trees on the same fixed-depth searches, in turns a search set
apart: for a change of a few percent on a shared machine.

Run: ``python benchmarks/bench_search_pair.py OLD_SRC NEW_SRC [--presets kalah:13,dara:7]
[--processes 5] [--turns 15]``. Each tree gets a worker process (``PYTHONPATH=TREE``; set
``NUGAR_CACHE_DIR`` per tree with ``--old-cache``/``--new-cache``, else both share one) that
holds one agent and the three positions of ``node_counts.py``; the two workers search them in
turns (old, new, new, old, ...), and each turn's new/old ratio of nodes per CPU-second of the
searching thread is kept. Turns a fraction of a second apart see the same load, so their
ratio is far steadier than rates measured minutes apart (``bench_ai.py``, ``node_counts.py
--speed``). A process's own layout in memory can move its speed by a few percent, so the
pairs of workers are started ``--processes`` times afresh; the median ratio of each pair is
printed, and the median of all turns. The searches of both trees must count the same nodes
(the same tree searched), or the script stops.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: one worker: answers each line on stdin with "nodes/CPU-s nodes" of one search set
WORKER = r"""
import sys, time
sys.path.insert(0, BENCHMARKS)
from bench_ai import position
from nugar.ai import Limits, make_agent
rules, depth = sys.argv[1], int(sys.argv[2])
games = [position(rules, 4, 100 + i) for i in range(3)]
agent = make_agent("alphabeta")
agent.analyse(games[0], Limits(depth=depth))  # load the compiled search, touch the table
print("ready", flush=True)
for _ in sys.stdin:
    count, cpu = 0, 0.0
    for game in games:
        agent.reset()  # the tree a new agent searches
        start = time.thread_time()
        count += agent.analyse(game, Limits(depth=depth)).nodes
        cpu += time.thread_time() - start
    print(count / max(cpu, 1e-9), count, flush=True)
"""


class Worker:
    """One tree's worker process for one preset and depth."""

    def __init__(self, tree: str, cache: str | None, rules: str, depth: int) -> None:
        env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
        if cache:
            env["NUGAR_CACHE_DIR"] = cache
        code = WORKER.replace("BENCHMARKS", repr(str(Path(__file__).resolve().parent)))
        self.proc = subprocess.Popen([sys.executable, "-c", code, rules, str(depth)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        if self._line() != "ready":
            raise SystemExit(f"the worker of {tree} failed to start")

    def _line(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline().strip()

    def search(self) -> tuple[float, int]:
        assert self.proc.stdin is not None
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        rate, nodes = self._line().split()
        return float(rate), int(nodes)

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def compare(args: argparse.Namespace, rules: str, depth: int) -> str:
    per_pair: list[float] = []
    ratios: list[float] = []
    olds: list[float] = []
    news: list[float] = []
    counts: set[int] = set()
    for _ in range(args.processes):
        old = Worker(args.old, args.old_cache, rules, depth)
        new = Worker(args.new, args.new_cache, rules, depth)
        turns: list[float] = []
        for i in range(args.turns):
            first, second = (old, new) if i % 2 == 0 else (new, old)
            a, count_a = first.search()
            b, count_b = second.search()
            counts |= {count_a, count_b}
            o, n = (a, b) if first is old else (b, a)
            olds.append(o)
            news.append(n)
            turns.append(n / o)
        old.close()
        new.close()
        if len(counts) != 1:
            raise SystemExit(f"{rules}: the trees searched different node counts {counts}")
        per_pair.append(statistics.median(turns))
        ratios += turns
    return (f"| {rules} | {depth} | {counts.pop():,} | {statistics.median(olds):,.0f} | "
            f"{statistics.median(news):,.0f} | {statistics.median(ratios):.3f} | "
            f"{', '.join(f'{r:.3f}' for r in per_pair)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the 'before' source folder (holds the nugar package)")
    parser.add_argument("new", help="the 'after' source folder")
    parser.add_argument("--old-cache", help="NUGAR_CACHE_DIR of the old tree's workers")
    parser.add_argument("--new-cache", help="NUGAR_CACHE_DIR of the new tree's workers")
    parser.add_argument("--presets", default="dara:7,dala:7,kalah:13,dracala:19",
                        help="preset:depth, comma separated")
    parser.add_argument("--processes", type=int, default=5, help="worker pairs started")
    parser.add_argument("--turns", type=int, default=15, help="search sets per worker pair")
    args = parser.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.2f} before")
    print("| preset | depth | nodes | old nodes/CPU-s | new nodes/CPU-s | new/old (all turns) "
          "| new/old by worker pair |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    for item in args.presets.split(","):
        rules, depth = item.split(":")
        print(compare(args, rules, int(depth)), flush=True)
    print(f"# load average {os.getloadavg()[0]:.2f} after")


if __name__ == "__main__":
    main()
