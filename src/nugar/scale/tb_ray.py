"""Dara and Dala tablebase builds on Ray: the driver behind ``nugar solve RULES --build-tb N
--ray ADDRESS``.

The build is the local one of :mod:`nugar.solver.tablebase` with each layer's moves phase
(generating every position's turns through the rules kernels, most of a build's work)
farmed out: the layer's ranges of positions, split as the local build splits them
(``tablebase.move_ranges``), run as Ray tasks of ``tablebase.generate_range``, the same
function the local threads run. Everything else stays in the driver, layer by layer from the
fewest pieces up, as locally: the files kept when sound (so a build resumes by material),
the classes marked and listed, the edges reversed, the retrograde passes, the files written.

What a task reads (the rules' params, the index tables, the layer's class bitmaps and the
lower tables a capture leads to) goes into the object store once per layer; a task's own
input is its range's boards, its answer the range's edges, without the unused slots, and
exits. No file is read or written by a task, so the workers need no shared file system; the
files are byte for byte those of a local build, since a position's turns do not depend on
who generates them. A task whose worker or node is lost runs again (``ray_runner``), and
its range is placed once.

Memory: the driver holds a layer as a local build does (about 140 bytes per stored
position, docs/solving.md); a task its range's arrays (``stride + 4`` 4-byte words a
position) and maps the shared inputs from the object store.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

from ..rules.options import RuleSet
from ..solver import tablebase as tb
from . import ray_runner

#: memory a range task declares to Ray's scheduler, in MB (worker, compiled kernels, range)
TASK_MEMORY_MB = 256

#: a task's answer: (lo, hi, the edges of each position in order, outdeg, ewin, edraw, eloss)
RangeAnswer = tuple[int, int, npt.NDArray[np.int32], npt.NDArray[np.int32],
                    npt.NDArray[np.int32], npt.NDArray[np.uint8], npt.NDArray[np.int32]]


def _range_task(work: tb.LayerWork,
                item: tuple[int, int, npt.NDArray[np.int64], npt.NDArray[np.int64]]
                ) -> RangeAnswer:
    """One task: the turns of positions ``lo..hi-1``, the edges packed (the slots a
    position does not use left out)."""
    lo, hi, movers, others = item
    out = tb.generate_range(work, lo, hi, movers, others)
    used = np.arange(work.stride)[None, :] < out.outdeg[:, None]
    edges = out.edges.reshape(hi - lo, work.stride)[used]
    return lo, hi, edges, out.outdeg, out.ewin, out.edraw, out.eloss


def run_ranges_on_ray(work: tb.LayerWork, movers: npt.NDArray[np.int64],
                         others: npt.NDArray[np.int64], ranges: list[tuple[int, int]],
                         out: tb.RangeMoves, done: Callable[[int, int], None]) -> None:
    """A ``tablebase.RangeRunner`` on the connected Ray cluster: every range one task, its
    answer placed in ``out`` as it comes."""
    stride = work.stride

    def place(answer: RangeAnswer) -> None:
        lo, hi, edges, outdeg, ewin, edraw, eloss = answer
        view = out.view(lo, hi, stride)
        used = np.arange(stride)[None, :] < outdeg[:, None]
        view.edges.reshape(hi - lo, stride)[used] = edges
        view.outdeg[:] = outdeg
        view.ewin[:] = ewin
        view.edraw[:] = edraw
        view.eloss[:] = eloss
        done(lo, hi)

    items = [(lo, hi, np.ascontiguousarray(movers[lo:hi]), np.ascontiguousarray(others[lo:hi]))
             for lo, hi in ranges]
    ray_runner.map_tasks(functools.partial(_range_task, work), items, lambda it: it[0], place,
                         memory_mb=TASK_MEMORY_MB, keep=False)


def build_on_ray(rules: RuleSet, max_pieces: int, *, root: Path | None = None,
                 workers: int = 2, progress: Callable[[tuple[int, int], str, int, int, float],
                                                      None] | None = None,
                 layer_done: Callable[[tb.LayerResult], None] | None = None
                 ) -> list[tb.LayerResult]:
    """Make sure the tables of every material of at most ``max_pieces`` pieces are on disk
    and sound, generating the missing layers' turns as Ray tasks on the connected cluster
    (:func:`ray_runner.connect` first); the driver's own phases run in ``workers`` threads.
    Reports as :func:`tablebase.build` does."""
    return tb.build(rules, max_pieces, root=root, workers=workers, progress=progress,
                    layer_done=layer_done, runner=run_ranges_on_ray)
