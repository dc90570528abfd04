"""Speed-up of a match on Ray from 1 to N CPUs (docs/scaling.md).

    python benchmarks/bench_ray.py                       # 1 and 2 CPUs, 24 games
    python benchmarks/bench_ray.py --cpus 1 2 4 --games 48 --agent alphabeta:nodes=20000

For each CPU count it starts a local Ray instance with that many CPUs (``ray.init(num_cpus=
N)``), plays the same match (``--seed``: the same games every time, the searches are bounded
by nodes) as Ray tasks, and prints one Markdown row: CPUs, games, wall-clock seconds, games
per second, speed-up over the first row, CPU-seconds held per game (CPUs x wall / games: the
task size a cluster schedules), and the load average before the run. Needs
``pip install -e ".[ray]"``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from nugar.ai.base import Limits
from nugar.ai.tournament import run_match


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cpus", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--rules", default="dara")
    parser.add_argument("--agent", default="alphabeta:nodes=20000")
    parser.add_argument("--other", default="alphabeta:nodes=5000")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    import ray

    from nugar.scale.ray_runner import RayRunner, connect

    print("| CPUs | games | seconds | games/s | speed-up | CPU s per game | load before |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    first = None
    for cpus in args.cpus:
        connect("local", num_cpus=cpus)
        # warm the workers (compiled kernels loaded) outside the timed run
        run_match(args.agent, args.other, args.rules, 2 * cpus, Limits(), seed=1,
                  runner=RayRunner())
        load = (Path("/proc/loadavg").read_text().split()[:3]
                if Path("/proc/loadavg").exists() else ["?"])
        start = time.perf_counter()
        run_match(args.agent, args.other, args.rules, args.games, Limits(), seed=args.seed,
                  runner=RayRunner())
        wall = time.perf_counter() - start
        first = first or wall
        print(f"| {cpus} | {args.games} | {wall:.1f} | {args.games / wall:.2f} | "
              f"{first / wall:.2f} | {cpus * wall / args.games:.2f} | {' '.join(load)} |",
              flush=True)
        ray.shutdown()


if __name__ == "__main__":
    main()
