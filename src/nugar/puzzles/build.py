"""Mining many puzzles: batches of :func:`.mine.mine`, each with its own seed, run here (in
processes) or by a runner a caller gives (Ray tasks: :mod:`nugar.scale.puzzles_ray`), merged
by id with the puzzles a file already holds.
"""

from __future__ import annotations

import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .mine import Batch, mine
from .model import Puzzle


@dataclass(frozen=True)
class BatchSpec:
    """One batch to mine: the rule set's text, how many puzzles, its seed, its time."""

    rules: str
    count: int
    seed: int
    seconds: float | None
    tb_root: str | None


#: runs every batch and hands each finished one to the callback, in any order
Runner = Callable[[Sequence[BatchSpec], Callable[[Batch], None]], None]


def run_batch(spec: BatchSpec) -> Batch:
    """One batch (what a process or a Ray task runs)."""
    return mine(spec.rules, spec.count, spec.seed, seconds=spec.seconds,
                tb_root=None if spec.tb_root is None else Path(spec.tb_root))


def local_runner(workers: int) -> Runner:
    """Batches in ``workers`` forked processes (one: in this process)."""
    def run(specs: Sequence[BatchSpec], done: Callable[[Batch], None]) -> None:
        if workers <= 1:
            for spec in specs:
                done(run_batch(spec))
            return
        with ProcessPoolExecutor(max_workers=workers,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            for batch in pool.map(run_batch, specs):
                done(batch)
    return run


@dataclass(frozen=True)
class Built:
    """What a build made: every puzzle (the old ones kept), the new ones among them, the
    positions tried and the wall-clock seconds."""

    puzzles: list[Puzzle]
    new: int
    positions: int
    seconds: float


def build(rules: str, count: int, *, seed: int = 0, batches: int = 1,
          seconds: float | None = None, tb_root: Path | None = None,
          runner: Runner | None = None, keep: Sequence[Puzzle] = (),
          on_batch: Callable[[Batch], None] | None = None) -> Built:
    """About ``count`` new puzzles of ``rules`` in ``batches`` batches (seeds ``seed``,
    ``seed + 1``, ...; each at most ``seconds``), merged with ``keep`` by id."""
    per = -(-count // batches)
    specs = [BatchSpec(rules, per, seed + i, seconds, None if tb_root is None else str(tb_root))
             for i in range(batches)]
    merged = {p.id: p for p in keep}
    before = len(merged)
    tried = 0
    start = time.monotonic()

    def done(batch: Batch) -> None:
        nonlocal tried
        tried += batch.positions
        for p in batch.puzzles:
            merged.setdefault(p.id, p)
        if on_batch is not None:
            on_batch(batch)

    (runner or local_runner(1))(specs, done)
    out = sorted(merged.values(), key=lambda p: (p.rating, p.id))
    return Built(out, len(merged) - before, tried, time.monotonic() - start)
