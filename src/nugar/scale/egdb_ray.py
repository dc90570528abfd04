"""Kalah endgame database builds on Ray: the driver behind ``nugar solve RULES --build-db K
--ray ADDRESS``.

The build is the local one of :mod:`nugar.solver.egdb` with its ranges farmed out. For each
level ``n``, lowest first (a barrier per level: level ``n`` reads every lower one):

1. the driver checks the level's file and keeps it when it is sound, as a local build does;
2. otherwise it makes the level's empty ``.part`` file (:func:`egdb.prepare_level`);
3. the level's index ranges run as Ray tasks of :func:`egdb.build_range` (one CPU each, run
   again by Ray when their worker or node is lost: a range computed twice writes the same
   bytes, since a position's value does not depend on who computes it);
4. the driver checks, checksums and renames the file (:func:`egdb.finish_level`).

The files are therefore byte for byte those of a local build (the header holds no time or
host). Every task maps the database directory itself, so that directory must be on a file
system every node sees at the same path (a shared file system such as NFS; a single-machine
cluster trivially). A write a node's file cache has not passed on by the time the level is
finished is not silently lost: :func:`egdb.finish_level` refuses a level with an entry left
unknown, and the next ``--build-db`` builds that level again.

Memory: a task maps the lower levels and its level's file (shared file pages, not private
memory) and keeps one search stack; it declares ``TASK_MEMORY_MB`` to Ray's scheduler.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from ..rules import parse_rules
from ..rules.options import RuleSet
from ..solver import egdb
from . import ray_runner

#: memory a range task declares to Ray's scheduler, in MB (worker, compiled kernels, stack)
TASK_MEMORY_MB = 256


def _range_task(rules_text: str, n: int, root: str,
                span: tuple[int, int]) -> tuple[int, int, int, float]:
    """One task: positions ``span`` of level ``n``; returns (start, stop, steps, CPU s)."""
    c0 = time.process_time()
    start, stop = span
    steps = egdb.build_range(parse_rules(rules_text), n, start, stop, root=Path(root))
    return start, stop, steps, time.process_time() - c0


def _cluster_cpus() -> int:
    ray = ray_runner._ray()
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def build_on_ray(rules: RuleSet, seeds: int, *, root: Path | None = None,
                 range_size: int | None = None,
                 progress: egdb.ProgressFn | None = None,
                 level_done: Callable[[egdb.LevelReport], None] | None = None
                 ) -> list[egdb.LevelReport]:
    """Make sure levels ``0..seeds`` of ``rules``' database are on disk and sound, building
    the missing or unsound ones as Ray tasks on the connected cluster (:func:`ray_runner.
    connect` first). ``range_size`` positions per task (default: as the local build splits
    a level for the cluster's CPU count). Reports as :func:`egdb.build` does, and holds the
    folder's build lock as it does; a level's ``cpu_seconds`` sums its tasks' CPU time."""
    egdb._check_rules(rules, seeds)
    if range_size is not None and range_size < 1:
        raise ValueError(f"range_size must be >= 1, not {range_size}")
    directory = egdb.db_directory(rules, root)
    directory.mkdir(parents=True, exist_ok=True)
    pits = rules.sowing_options.pits
    cpus = _cluster_cpus()
    # the tasks get the folder as the driver sees it, not as their own environment would
    where = (root if root is not None else egdb.data_dir()).resolve()
    with egdb.build_lock(directory):  # one build of the folder at a time (egdb.build)
        reports: list[egdb.LevelReport] = []
        for n in range(seeds + 1):
            count = egdb.level_count(pits, n)
            why = egdb.check_level(rules, directory, n)
            if why is None:
                report = egdb.LevelReport(n, count, egdb.HEADER_BYTES + count, 0.0, 0.0, 0, "kept")
            else:
                if why != "missing":
                    egdb.level_path(directory, n).unlink(missing_ok=True)
                t0 = time.monotonic()
                egdb.prepare_level(rules, n, root=root)
                if range_size is None:
                    spans = egdb._ranges(count, cpus)
                else:
                    spans = [(a, min(a + range_size, count)) for a in range(0, count, range_size)]
                done = [0, 0, 0.0]   # positions, steps, CPU s

                def finished(result: tuple[int, int, int, float], n: int = n,
                             count: int = count, t0: float = t0,
                             done: list[float] = done) -> None:
                    a, b, steps, cpu = result
                    done[0] += b - a
                    done[1] += steps
                    done[2] += cpu
                    if progress is not None:
                        progress(n, int(done[0]), count, time.monotonic() - t0)

                task = functools.partial(_range_task, rules.text, n, str(where))
                ray_runner.map_tasks(task, spans, lambda s: s[0], finished,
                                     memory_mb=TASK_MEMORY_MB)
                egdb.finish_level(rules, n, root=root)
                report = egdb.LevelReport(n, count, egdb.HEADER_BYTES + count,
                                          time.monotonic() - t0, float(done[2]), int(done[1]),
                                          "built" if why == "missing"
                                          else f"rebuilt: it {why}")
            reports.append(report)
            if level_done is not None:
                level_done(report)
        return reports
