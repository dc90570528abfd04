"""Games as Ray tasks: the runner behind ``nugar match/tournament/selfplay --ray ADDRESS``.

Every game is one task (one CPU) keyed by its index in the match. A task is a pure function
of its spec: it plays the game and returns its result, it writes nothing shared, so running
it twice does no harm. Ray retries a task whose worker or node died (``max_retries``); the
driver keeps one result per index and hands each to ``on_result`` once, so no game is ever
counted twice, whatever Ray re-executes. Results come back as they finish (the progress bar
moves game by game) and are returned in index order, exactly as a local run returns them.

Memory: a task's search agents keep one transposition table each of at most
``TASK_TABLE_MB`` (the alpha-beta default, ``DEFAULT_TABLE_MB``, the same as a local run so
that the same seeds play the same games; a spec's ``table=`` option or ``RayRunner(table_mb=)``
sets another bound); a task declares ``TASK_MEMORY_MB`` to Ray's scheduler: two tables (one
per side) plus the worker process with numba's compiled kernels. Pages of a table are only
committed when the search touches them, so short searches use far less.

Ray is imported here, lazily: ``import nugar`` and the command line never import this module
unless ``--ray`` is given.
"""

from __future__ import annotations

import dataclasses
import os
import socket
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..ai.search_setup import DEFAULT_TABLE_MB
from ..ai.tournament import GameResult, GameSpec, play_game

#: transposition table of each search agent in a game task, in MB (a bound per task)
TASK_TABLE_MB = DEFAULT_TABLE_MB
#: memory a game task declares to Ray's scheduler, in MB (two tables + worker process)
TASK_MEMORY_MB = 2 * TASK_TABLE_MB + 256
#: how often Ray runs a task again after its worker process or node was lost
TASK_RETRIES = 3
#: the object store of a cluster started in this process (``--ray local``), in MB
LOCAL_OBJECT_STORE_MB = 128

#: seconds to wait for a cluster address to answer before giving up
CONNECT_TIMEOUT = 5.0

#: what ``--ray`` accepts besides a cluster address
ADDRESS_HELP = ("'auto' (join the cluster running on this machine, started with "
                "'ray start --head'), 'local' (start one in this process) or a cluster "
                "address such as ray://HOST:10001 or HOST:6379")

T = TypeVar("T")
R = TypeVar("R")


class RayUnavailableError(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailableError(
            "--ray needs Ray: install it with pip install -e '.[ray]' in nugar's "
            "checkout") from None
    return ray


def connect(address: str, num_cpus: int | None = None) -> None:
    """Join the cluster at ``address`` (``auto``, ``local`` or an address), once per process.

    ``local`` starts a cluster inside this process with ``num_cpus`` CPUs (default: all of
    this machine's) and a small object store. A process already connected stays connected.
    """
    ray = _ray()
    if ray.is_initialized():
        return
    if not address:
        raise ValueError(f"--ray needs an address: {ADDRESS_HELP}")
    # the workers import nugar from where this process does (an editable install or a
    # checkout on PYTHONPATH works as it does here)
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                              "configure_logging": False}
    _check_reachable(address)
    try:
        if address == "local":
            ray.init(num_cpus=num_cpus or os.cpu_count() or 1,
                     object_store_memory=LOCAL_OBJECT_STORE_MB * 1024 * 1024, **kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise RayUnavailableError(f"cannot join the Ray cluster at {address!r}: {first} "
                                  f"(--ray takes {ADDRESS_HELP})") from None


def _check_reachable(address: str) -> None:
    """Refuse at once a ``HOST:PORT`` or ``ray://HOST:PORT`` address nothing answers at
    (Ray itself would keep trying for minutes)."""
    if address in ("local", "auto"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RayUnavailableError(f"cannot read the Ray address {address!r}: {ADDRESS_HELP}")
    try:
        socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as exc:
        raise RayUnavailableError(f"no Ray cluster answers at {address!r} ({exc.strerror or exc})"
                                  f"; is 'ray start --head' running there?") from None


def _call(fn: Callable[[T], R], item: T) -> R:
    """The body of every task: ``fn(item)`` (any callable, a ``functools.partial`` too)."""
    return fn(item)


def map_tasks(fn: Callable[[T], R], items: Sequence[T], key: Callable[[T], int],
              on_done: Callable[[R], None] | None = None,
              memory_mb: float = TASK_MEMORY_MB, keep: bool = True) -> dict[int, R]:
    """Run ``fn(item)`` for every item as a Ray task (one CPU each, retried when its worker
    dies) and return the results keyed by ``key(item)``. ``on_done`` sees each key's result
    once, in the order they finish; a key seen before is never reported again. With
    ``keep=False`` the results are only handed to ``on_done`` (large results are then not
    all held at once) and the dictionary returned is empty."""
    ray = _ray()
    if not ray.is_initialized():
        raise RayUnavailableError("not connected to a Ray cluster (call connect first)")
    task = ray.remote(num_cpus=1, memory=int(memory_mb * 1024 * 1024),
                      max_retries=TASK_RETRIES, retry_exceptions=False)(_call)
    fn_ref = ray.put(fn)
    pending = {task.remote(fn_ref, item): key(item) for item in items}
    done: dict[int, R] = {}
    seen: set[int] = set()
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            k = pending.pop(ref)
            result = ray.get(ref)
            if k in seen:  # a second answer for the same game: it was counted already
                continue
            seen.add(k)
            if keep:
                done[k] = result
            if on_done is not None:
                on_done(result)
            del result
    return done


class RayRunner:
    """Plays a match's games as Ray tasks (a ``GameRunner`` of ``nugar.ai.tournament``).

    ``play`` is the function a task runs (``play_game``; a test passes one that kills its
    own worker to check the retries)."""

    def __init__(self, table_mb: float | None = None,
                 play: Callable[[GameSpec], GameResult] = play_game) -> None:
        self.table_mb = table_mb
        self.play = play

    def __call__(self, specs: Sequence[GameSpec],
                 on_result: Callable[[GameResult], None] | None = None) -> list[GameResult]:
        bounded = [s if self.table_mb is None or s.table_mb is not None
                   else dataclasses.replace(s, table_mb=self.table_mb) for s in specs]
        table = self.table_mb if self.table_mb is not None else TASK_TABLE_MB
        done = map_tasks(self.play, bounded, lambda s: s.index, on_result,
                         memory_mb=2 * table + 256)
        return [done[s.index] for s in specs]
