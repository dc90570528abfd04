"""Speed of the AI: alpha-beta nodes per second, MCTS playouts per second, how closely the
time limit is kept, and the memory a search uses.

Run: ``python benchmarks/bench_ai.py [--seconds 1.0] [--presets dara,kalah] [--repeat 3]``.
Prints a Markdown table (paste it into ``docs/benchmarks.md``, section "AI search").
Positions: each preset after a fixed random opening (seeded), so runs are comparable.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import shlex
import statistics
import sys
import time

import numba

import nugar
from nugar.ai import Limits, make_agent
from nugar.ai.search_setup import warm_up
from nugar.rules.base import Game

PRESETS = ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]
#: alpha-beta targets of the performance issue, nodes per second on one core
NODE_TARGETS = {"dara": 2_000_000, "kalah": 2_000_000, "dala": 1_500_000}


def position(rules: str, opening: int, seed: int) -> Game:
    rng = random.Random(seed)
    while True:
        game = nugar.new_game(rules)
        for _ in range(opening):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        # a position with a real choice (Dracala and pending captures often force one move)
        if not game.is_over and len(game.legal_moves()) >= 3:
            return game


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def bench_alphabeta(rules: str, seconds: float, repeat: int) -> tuple[float, float, int]:
    """Median nodes per wall-clock second and per CPU second of the searching thread (the
    second is what a core gives when the machine is shared), and the deepest depth."""
    rates = []
    cpu_rates = []
    depth = 0
    for i in range(repeat):
        game = position(rules, 8 if "ala" in rules or "ara" in rules else 4, 100 + i)
        agent = make_agent("alphabeta")
        cpu = time.thread_time()
        a = agent.analyse(game, Limits(time=seconds))
        cpu = time.thread_time() - cpu
        rates.append(a.nodes / a.seconds)
        cpu_rates.append(a.nodes / max(cpu, 1e-9))
        depth = max(depth, a.depth)
    return statistics.median(rates), statistics.median(cpu_rates), depth


def bench_mcts(rules: str, seconds: float, repeat: int) -> tuple[float, float]:
    rates = []
    cpu_rates = []
    for i in range(repeat):
        game = position(rules, 4, 200 + i)
        cpu = time.thread_time()
        a = make_agent(f"mcts:seed={i}").analyse(game, Limits(time=seconds))
        cpu = time.thread_time() - cpu
        rates.append(a.nodes / a.seconds)
        cpu_rates.append(a.nodes / max(cpu, 1e-9))
    return statistics.median(rates), statistics.median(cpu_rates)


def bench_time_limits(rules: str, limits: list[float], tries: int) -> dict[float, float]:
    """Worst wall time of ``analyse`` as a fraction of the limit."""
    worst: dict[float, float] = {}
    agent = make_agent("alphabeta")
    for limit in limits:
        ratios = []
        for i in range(tries):
            game = position(rules, 10, 300 + i)
            start = time.perf_counter()
            agent.analyse(game, Limits(time=limit))
            ratios.append((time.perf_counter() - start) / limit)
        worst[limit] = max(ratios)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--limit-tries", type=int, default=5)
    parser.add_argument("--quick", action="store_true",
                        help="a first look: 0.3 s searches, 1 position per preset, 1 try per "
                             "time limit")
    args = parser.parse_args()
    if args.quick:
        args.seconds, args.repeat, args.limit_tries = 0.3, 1, 1
    presets = [p for p in args.presets.split(",") if p]
    start = time.perf_counter()
    warm_up(nugar.new_game("kalah"))
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"machine: {platform.machine()}, {platform.processor() or '?'}, "
          f"Python {platform.python_version()}, numba {numba.__version__}; "
          f"kernel load/compile {time.perf_counter() - start:.1f}s")
    print(f"command: python {shlex.join(sys.argv)}")
    print()
    print("| preset | alpha-beta nodes/s (wall) | nodes/CPU-s | depth in "
          f"{args.seconds:g}s | MCTS playouts/s (wall) | playouts/CPU-s |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    verdicts: list[str] = []
    for rules in presets:
        nps, cpu_nps, depth = bench_alphabeta(rules, args.seconds, args.repeat)
        pps, cpu_pps = bench_mcts(rules, args.seconds, args.repeat)
        print(f"| {rules} | {nps:,.0f} | {cpu_nps:,.0f} | {depth} | {pps:,.0f} | "
              f"{cpu_pps:,.0f} |", flush=True)
        verdicts.append(f"alpha-beta {rules}: {nps:,.0f} nodes/s" + (
            "" if rules not in NODE_TARGETS else
            f" (target {NODE_TARGETS[rules]:,}: "
            f"{'met' if nps >= NODE_TARGETS[rules] else 'not met'})"))
    print()
    print("\n".join(verdicts))
    print(f"load average after the searches: {os.getloadavg()[0]:.1f}")
    print()
    before = rss_mb()
    worst = bench_time_limits("dara", [0.05, 0.2, 1.0], args.limit_tries)
    print("| time limit (dara) | worst wall time / limit |")
    print("| ---: | ---: |")
    for limit, ratio in worst.items():
        print(f"| {limit:g}s | {ratio:.3f} |")
    print()
    print(f"peak resident memory: {rss_mb():.0f} MB (before the time-limit runs: {before:.0f} "
          "MB); transposition table: 256 MB reserved per alpha-beta agent, committed only "
          "as touched")


if __name__ == "__main__":
    main()
