"""The expensive requests run outside the serving process: a small process pool of the app's.

Replaying a long record (``POST /api/replay``, a past position) is pure Python work that
holds the interpreter lock for its whole length, up to about half a second, and every
request of every other client that arrives meanwhile waits for it: a worker thread keeps the
event loop free, not the interpreter. :class:`WorkPool` runs these jobs in ``processes``
processes of its own (``spawn``: fresh interpreters, which share none of the server's
threads, sockets or database connections), so the serving process only waits on a pipe. The
per-client price of the work (:class:`~.clients.Work`) is the CPU time measured in the
process that ran it (:func:`~.clients.timed`).

The processes start with the first job after the application has started (:meth:`open`, in
its lifespan), or with the application itself when it warms up (``nugar serve``): a test's
application that never replays never starts them. Each one first runs the app's
``prepare`` (loading the compiled kernels every game family needs from numba's disk cache,
a second or two; compiling them on a machine's first run, tens of seconds), and until
one is ready, and whenever the pool cannot be used (not opened, closed, ``processes`` 0),
the jobs run in a worker thread of the serving process as before, so a cold start never
makes a request wait. A process that dies under a job (killed, out of memory) breaks the
pool: that request gets ``503 work_failed``, and the next job starts a new pool. :meth:`close`
(the lifespan's end) stops the processes: each finishes the job it runs; one still preparing
is ended; and a process whose server was killed ends itself within a second. A job is a
picklable callable without arguments (a module-level function, or :func:`functools.partial`
of one over plain values), and what it returns must pickle too. As with any ``spawn``
process, each imports the main module of the program again: a script that serves an
application with ``work_processes`` does so under ``if __name__ == "__main__":``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from ...i18n import Text
from ..clients import Timed, in_thread, timed
from ..errors import ApiError

T = TypeVar("T")

log = logging.getLogger(__name__)

#: the processes of ``nugar serve``'s work pool (``--work-processes``), per worker process
WORK_PROCESSES = 1
#: seconds between a pool process's checks that its server still runs
PARENT_CHECK = 1.0
#: seconds :meth:`WorkPool.close` waits for a process to finish its job before ending it
CLOSE_WAIT = 5.0


def _prepared(prepare: Callable[[], object] | None, server: int) -> None:
    """What a pool's process does first: leave Ctrl+C to the server (which closes the pool),
    watch that the server process ``server`` lives, then ``prepare()``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_end_with, args=(server,), daemon=True,
                     name="nugar-work-pool-parent").start()
    if prepare is not None:
        prepare()


def _end_with(server: int) -> None:
    """End this process once the server process is gone (killed: it closed nothing), checked
    every :data:`PARENT_CHECK` seconds: a pool process never outlives its server."""
    while os.getppid() == server:
        time.sleep(PARENT_CHECK)
    os._exit(0)


def _timed_here(job: Callable[[], T]) -> Timed[T]:
    """:func:`~.clients.timed` in a pool's process: an exception other than a refusal (which
    pickles) comes back as a :class:`RuntimeError` with its traceback (it need not pickle)."""
    done = timed(job)
    if done.error is None or isinstance(done.error, ApiError):
        return done
    trace = "".join(traceback.format_exception(done.error))
    return Timed(None, done.cpu, RuntimeError(f"an expensive request failed:\n{trace}"))


def _pid() -> int:
    """The process's id: the first job, which says a process has prepared."""
    return os.getpid()


class WorkPool:
    """Jobs run in up to ``processes`` processes of this pool (0: always in a worker thread),
    each started with ``prepare()`` (a picklable function; ``None``: nothing). See the
    module's text for when the processes start and stop."""

    def __init__(self, processes: int, prepare: Callable[[], object] | None = None) -> None:
        if processes < 0:
            raise ValueError(f"a work pool has 0 or more processes, not {processes}")
        self.processes = processes
        self.prepare = prepare
        self._executor: ProcessPoolExecutor | None = None
        self._ready = False
        self._starting: asyncio.Task[None] | None = None
        self._open = False
        self._failed = False  # the processes could not start: threads from then on

    @property
    def ready(self) -> bool:
        """Whether jobs run in the pool's processes now (else in a thread)."""
        return self._ready

    def open(self, start: bool = False) -> None:
        """Let jobs start the processes (the application has started: :meth:`close` will
        be called); ``start``: start them now (a long-running server, which warms up)."""
        self._open = self.processes > 0
        if start and self._open and self._starting is None:
            self._starting = asyncio.create_task(self._start())

    async def run(self, job: Callable[[], T]) -> Timed[T]:
        """``job()`` timed, in one of the pool's processes once one is ready, else in a
        worker thread (and the first such job starts the processes)."""
        executor = self._executor
        if executor is not None and self._ready:
            try:
                return await asyncio.wrap_future(executor.submit(_timed_here, job))
            except BrokenProcessPool:
                self._drop(executor)
                log.warning("a process of the work pool stopped under a job; a new pool "
                            "starts with the next job")
                raise ApiError("work_failed", Text(
                    "the process replaying this request stopped under it; try again",
                    domain="web")) from None
            except RuntimeError:  # shut down meanwhile (the server is stopping)
                pass
        if self._open and self._starting is None and not self._failed:
            self._starting = asyncio.create_task(self._start())
        return await in_thread(job)

    async def wait_ready(self) -> bool:
        """Wait for the processes started by a first job; whether they are ready (tests)."""
        if self._starting is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(self._starting)
        return self._ready

    async def _start(self) -> None:
        """Start the processes, and say the pool is ready once the first has prepared."""
        context = multiprocessing.get_context("spawn")
        executor = ProcessPoolExecutor(self.processes, mp_context=context,
                                       initializer=_prepared,
                                       initargs=(self.prepare, os.getpid()))
        self._executor = executor

        def launch() -> list[Future[int]]:  # starting a process blocks a little: not here
            return [executor.submit(_pid) for _ in range(self.processes)]

        try:
            pings = await asyncio.to_thread(launch)
            await asyncio.wait([asyncio.wrap_future(p) for p in pings],
                               return_when=asyncio.FIRST_COMPLETED)
            next(p for p in pings if p.done()).result()
        except Exception:  # the jobs go on in threads, and do not try again
            log.exception("the work pool's processes did not start; expensive requests run "
                          "in threads")
            self._failed = True
            self._drop(executor)
            return
        if self._executor is executor:
            self._ready = True

    def _drop(self, executor: ProcessPoolExecutor) -> None:
        """Forget ``executor`` (broken or failed to start) and let it go."""
        if self._executor is executor:
            self._executor = None
            self._ready = False
            self._starting = None
        executor.shutdown(wait=False, cancel_futures=True)

    async def close(self) -> None:
        """Stop the processes: each finishes its job (at most :data:`CLOSE_WAIT` seconds),
        one still preparing is ended. Later jobs run in threads."""
        self._open = False
        starting, executor = self._starting, self._executor
        self._starting, self._executor, self._ready = None, None, False
        if starting is not None:
            starting.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await starting
        if executor is not None:
            await asyncio.to_thread(_stop, executor)


def _stop(executor: ProcessPoolExecutor) -> None:
    """Shut ``executor`` down, ending a process still busy after :data:`CLOSE_WAIT` seconds."""
    processes = list(executor._processes.values())  # no public list of them
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.join(CLOSE_WAIT)
        if process.is_alive():
            process.terminate()
            process.join(CLOSE_WAIT)
    executor.shutdown(wait=True)
