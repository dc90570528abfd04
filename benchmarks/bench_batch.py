"""Throughput of the batched simulator (``nugar.envs.batch``), in environment steps per second.

One environment step = one decision applied in one game, with its legal-action mask, its
observation, rewards and automatic reset computed, as an RL or self-play loop receives them.
Two loops are timed for each batch size (the pgx benchmark's way of showing throughput
against batch size):

- ``compiled``: ``BatchSimulator.run_random``, random legal actions picked and applied in
  compiled code, all on one thread (numba does not parallelise these kernels);
- ``python``: ``sim.step(sim.random_actions(seed))`` called from Python once per batch step,
  as a learning loop written in Python would.

Run: ``python benchmarks/bench_batch.py`` (add ``--quick`` for a short run,
``--games kalah dara`` to choose the rule sets, ``--sizes 1 256``). Compilation is done
before timing. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time

import numba
import numpy as np

from nugar.envs.batch import BatchSimulator


def compiled_rate(sim: BatchSimulator, seconds: float) -> float:
    """Steps per second of ``sim.run_random`` (the compiled loop, one thread), measured for
    about ``seconds`` after a first call that compiles it (``bench_jax.py`` measures its
    numba column with it too)."""
    n = sim.num_envs
    sim.run_random(1, seed=0)  # compile
    steps = max(1, 2000 // n)
    total, elapsed = 0, 0.0
    while elapsed < seconds:
        start = time.perf_counter()
        sim.run_random(steps, seed=total)
        elapsed += time.perf_counter() - start
        total += steps
        steps = min(steps * 2, max(1, 2_000_000 // n))
    return total * n / elapsed


def _rate(sim: BatchSimulator, loop: str, seconds: float) -> float:
    """Steps per second of ``loop`` on ``sim``, measured for about ``seconds``."""
    sim.reset()
    n = sim.num_envs
    if loop == "compiled":
        return compiled_rate(sim, seconds)
    sim.step(sim.random_actions(0))  # compile
    total, elapsed = 0, 0.0
    while elapsed < seconds:
        start = time.perf_counter()
        for _ in range(100):
            sim.step(sim.random_actions(total))
            total += 1
        elapsed += time.perf_counter() - start
    return total * n / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kalah", "dracala", "dara", "dala"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 16, 256, 4096])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--quick", action="store_true", help="0.3 s per measurement")
    args = parser.parse_args()
    seconds = 0.3 if args.quick else args.seconds
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"python {platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}")
    print(f"command: python {shlex.join(sys.argv)}")
    print(f"load average (1, 5, 15 min) before: {_load()}")
    print()
    print("| rule set | batch size | compiled loop, steps/s | Python loop, steps/s |")
    print("| --- | ---: | ---: | ---: |")
    best: dict[str, tuple[float, int]] = {}
    for rules in args.games:
        for size in args.sizes:
            sim = BatchSimulator(rules, size)
            compiled = _rate(sim, "compiled", seconds)
            python = _rate(sim, "python", seconds)
            print(f"| {rules} | {size} | {compiled:,.0f} | {python:,.0f} |", flush=True)
            if compiled > best.get(rules, (0.0, 0))[0]:
                best[rules] = (compiled, size)
    print()
    for rules, (rate, size) in best.items():
        target = TARGETS.get(rules)
        verdict = "" if target is None else (
            f" (target {target:,}: {'met' if rate >= target else 'not met'})")
        print(f"best {rules}: {rate:,.0f} steps/s at batch size {size}{verdict}")
    print(f"load average (1, 5, 15 min) after: {_load()}")


#: targets of the performance issue, steps per second on one core at the best batch size
TARGETS = {"dara": 3_000_000, "kalah": 8_000_000}


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


if __name__ == "__main__":
    main()
