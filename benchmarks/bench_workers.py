"""Start-up of match worker processes, and a match's speed-up with workers kept (docs/scaling.md).

    python benchmarks/bench_workers.py                        # 2 workers, 24 games
    python benchmarks/bench_workers.py --workers 16 --games 160   # the 16-core measurement

Plays the same match (``--seed``: the same games every time, searches bounded by nodes) in
this process, then in ``--workers`` processes three ways, and prints one Markdown row each:

- ``1 process``: the reference time (this process loads the kernels before it starts the
  clock, as a kept worker has);
- ``cold pool``: a new pool (``WorkerPool``) started for the match, so the match pays every
  worker's start-up (Python, numba, the compiled kernels loaded from the cache), as each
  ``nugar match --workers N`` did before the pool was kept;
- ``kept pool``: the same match again on the pool ``worker_pool`` keeps: no start-up.

Then it prints the start-up itself: the seconds from creating a pool until every worker
answered (``WorkerPool.wait_ready``). The speed-up column is over ``1 process``; the
difference between the cold and the kept row is the start-up the kept pool no longer pays.
"""

from __future__ import annotations

import argparse
import os
import time

from nugar.ai.base import Limits
from nugar.ai.tournament import WorkerPool, _warm_worker, close_pools, run_match


def _match(agents: list[str], rules: str, games: int, workers: int, seed: int) -> float:
    start = time.perf_counter()
    run_match(agents[0], agents[1], rules, games, Limits(), workers, seed=seed)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--rules", default="kalah")
    parser.add_argument("--agents", nargs=2, default=["alphabeta:nodes=20000",
                                                      "alphabeta:nodes=10000"])
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    _warm_worker()
    t1 = _match(args.agents, args.rules, args.games, 1, args.seed)
    rows.append(("1 process", t1))
    close_pools()
    rows.append(("cold pool", _match(args.agents, args.rules, args.games, args.workers,
                                     args.seed)))
    rows.append(("kept pool", _match(args.agents, args.rules, args.games, args.workers,
                                     args.seed)))
    close_pools()
    print(f"{args.agents[0]} vs {args.agents[1]}, {args.rules}, {args.games} games, "
          f"{args.workers} workers, {os.cpu_count()} CPUs, load {load:.2f}")
    print("| run | seconds | speed-up |")
    print("|---|---:|---:|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} | {t1 / seconds:.2f}x |")
    pool = WorkerPool(args.workers)
    startup = pool.wait_ready()
    again = time.perf_counter()
    pool.wait_ready()
    print(f"start-up of {args.workers} workers: {startup:.2f} s; a kept pool answers in "
          f"{time.perf_counter() - again:.2f} s (0.4 s of it the probe's own pauses)")
    pool.close()


if __name__ == "__main__":
    main()
