"""Puzzle mining on Ray: the runner behind ``nugar puzzles build RULES --ray ADDRESS``.

Each batch of :mod:`nugar.puzzles.build` (a rule set, a count, a seed, a time) is one Ray
task running :func:`nugar.puzzles.build.run_batch`, the function local processes run, so a
seed mines the same puzzles wherever it runs; the driver merges the answers by id and writes
the file. Kalah and Dracala need nothing on the workers but nugar; Dara and Dala read the
tablebases, which must be built at the same path (``--db-dir``) on every node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..puzzles.build import BatchSpec, run_batch
from ..puzzles.mine import Batch
from . import ray_runner

#: memory a batch declares to Ray's scheduler, in MB (worker, kernels, the solver's table)
TASK_MEMORY_MB = 512


def ray_batches(specs: Sequence[BatchSpec], done: Callable[[Batch], None]) -> None:
    """Every batch a task on the connected cluster (:func:`ray_runner.connect` first)."""
    keyed = list(enumerate(specs))
    ray_runner.map_tasks(_keyed_batch, keyed, lambda item: item[0], done,
                         memory_mb=TASK_MEMORY_MB, keep=False)


def _keyed_batch(item: tuple[int, BatchSpec]) -> Batch:
    return run_batch(item[1])
