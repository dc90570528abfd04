"""Speed-up of a match on Ray from 1 to N CPUs (docs/scaling.md).

    python benchmarks/bench_ray.py                       # 1 and 2 CPUs, 24 games
    python benchmarks/bench_ray.py --cpus 1 2 4 --games 48 --agent alphabeta:nodes=20000

For each CPU count it starts a local Ray instance with that many CPUs (``ray.init(num_cpus=
N)``), plays the same match (``--seed``: the same games every time, the searches are bounded
by nodes) as Ray tasks, and prints one Markdown row: CPUs, games, wall-clock seconds, games
per second, speed-up over the first row, the mean CPU seconds and wall-clock seconds of a game
task (the task size; on a busy machine a task's wall-clock time exceeds its CPU time), the
CPU seconds the tasks got as a share of what the CPUs could give in that time (1.0: every
CPU busy with a game all the time), and the load average before the run. Needs
``pip install -e ".[ray]"``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from nugar.ai.base import Limits
from nugar.ai.tournament import GameSpec, match_specs, play_game, run_match


def timed_play(spec: GameSpec) -> tuple[float, float]:
    """Play one game; the CPU seconds and wall-clock seconds the task took."""
    cpu, wall = time.process_time(), time.perf_counter()
    play_game(spec)
    return time.process_time() - cpu, time.perf_counter() - wall


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

    from nugar.scale.ray_runner import RayRunner, connect, map_tasks

    print("| CPUs | games | seconds | games/s | speed-up | task CPU s (mean) | task wall s "
          "(mean) | CPU used / CPUs x wall | load before |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    first = None
    for cpus in args.cpus:
        connect("local", num_cpus=cpus)
        # warm the workers (compiled kernels loaded) outside the timed run
        run_match(args.agent, args.other, args.rules, 2 * cpus, Limits(), seed=1,
                  runner=RayRunner())
        load = (Path("/proc/loadavg").read_text().split()[:3]
                if Path("/proc/loadavg").exists() else ["?"])
        specs = match_specs(args.agent, args.other, args.rules, args.games, Limits(),
                            seed=args.seed)
        start = time.perf_counter()
        times = list(map_tasks(timed_play, specs, lambda s: s.index).values())
        wall = time.perf_counter() - start
        first = first or wall
        cpu = sum(c for c, _ in times)
        print(f"| {cpus} | {args.games} | {wall:.1f} | {args.games / wall:.2f} | "
              f"{first / wall:.2f} | {cpu / len(times):.2f} | "
              f"{sum(w for _, w in times) / len(times):.2f} | {cpu / (cpus * wall):.2f} | "
              f"{' '.join(load)} |", flush=True)
        ray.shutdown()


if __name__ == "__main__":
    main()
