"""Where the server's computer thinks: the computer player and the pool of agents shared by
every game of one server.

A :class:`ComputerPlayer` says how to make an agent of a level and what a decision may spend
(:class:`Agents`: nugar's levels, with the process's compiling; the tests use a fake). An
:class:`AiPool` runs every decision of every game (the computer's turns and the hints) in a
bounded number of agents, each in a thread of the pool's own executor, with a bounded queue of
waiting hints (:class:`AiBusy` when it is full). Whoever builds the server builds one pool
(:func:`~.app.create_app`, or a :class:`~.rooms.Hub` given none) and hands it to each game's
session.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, TypeVar

from .errors import ApiError

if TYPE_CHECKING:
    from ..ai import Agent, Limits
    from ..rules import Game
    from ..warmup import Warmup

T = TypeVar("T")


class ComputerPlayer(Protocol):
    """What a session asks of the computer: nugar's agents (:class:`Agents`), or a fake."""

    def prepare(self, game: Game, level: int) -> None:
        """Block until the player of ``level`` can decide in ``game`` (compiling, at first)."""

    def agent(self, level: int) -> Agent:
        """A new agent of ``level``: search agents keep tables, so each game gets its own."""

    def limits(self) -> Limits:
        """What one decision may spend."""


class Agents:
    """The computer player of the server: nugar's levels, ``ai_time`` seconds a decision, and
    the process's compiling (``nugar.warmup``): a first decision waits for its part. Its
    search agents get a transposition table of ``table`` MB."""

    def __init__(self, ai_time: float = 1.0, warmup: Warmup | None = None,
                 table: float = 64.0) -> None:
        from ..warmup import WARMUP

        self.ai_time = ai_time
        self.warmup = WARMUP if warmup is None else warmup
        self.table = table

    def prepare(self, game: Game, level: int) -> None:
        from ..warmup import steps_for

        steps = steps_for(game.rules, [f"level:{level}"])
        self.warmup.add(steps)
        self.warmup.wait(steps=steps)

    def agent(self, level: int) -> Agent:
        from ..ai.agents import LevelAgent

        return LevelAgent(level, table=self.table)

    def limits(self) -> Limits:
        from ..ai import Limits

        return Limits(time=self.ai_time)


class AiBusy(ApiError):
    """Every worker of the AI pool is busy and its queue is full: the refusal ``ai_busy``,
    which says after how many seconds to try again (``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("ai_busy", "the computer is busy with other games; try again in "
                         f"{retry_after} s")
        self.retry_after = retry_after


class _Worker:
    """One agent of the pool, with what it was last used for."""

    def __init__(self) -> None:
        self.agent: Agent | None = None
        self.key: tuple[int, str] | None = None  # (level, rules' AI profile) it was built for
        self.owner: object | None = None  # the game whose positions its tables hold
        self.built = 0  # agents built for this worker (tests check the bound)


class AiPool:
    """The computer's only place to think: ``workers`` agents, each deciding in a thread of
    the pool's own executor (never the default one the database uses), and a queue of at
    most ``queue`` waiting requests. A hint asked for while the queue is full is refused
    (:class:`AiBusy`); the computer's own turns always queue (one per game at most).

    A worker keeps its agent while it serves the same level and game family, and resets it
    (``reset()``: its tables forgotten) before a position of another game, so nothing leaks
    between games and memory stays within ``workers`` agents' tables."""

    def __init__(self, computer: ComputerPlayer, workers: int = 1, queue: int = 8) -> None:
        if workers < 1 or queue < 0:
            raise ValueError(f"an AI pool needs 1 or more workers and a queue of 0 or more, "
                             f"not {workers} and {queue}")
        self.computer = computer
        self.workers = [_Worker() for _ in range(workers)]
        self.queue = queue
        self._free = list(self.workers)
        self._waiting: deque[asyncio.Future[_Worker]] = deque()
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="nugar-ai")

    @property
    def built(self) -> int:
        """How many agents the pool has built so far."""
        return sum(w.built for w in self.workers)

    @property
    def waiting(self) -> int:
        """Requests queued for a worker."""
        return sum(1 for f in self._waiting if not f.done())

    async def _acquire(self, must: bool) -> _Worker:
        if self._free:
            return self._free.pop()
        if not must and self.waiting >= self.queue:
            raise AiBusy(retry_after=max(1, round(self.computer.limits().time or 1.0)))
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # handed over just as it was cancelled
            raise

    def _release(self, worker: _Worker) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._free.append(worker)

    def _ready(self, worker: _Worker, owner: object, level: int, game: Game) -> Agent:
        """The worker's agent for ``level``, made ready for a position of ``owner``'s game
        (in the AI thread: building and resetting tables is work too)."""
        self.computer.prepare(game, level)
        key = (level, game.rules.ai_profile.name)
        if worker.agent is None or worker.key != key:
            worker.agent = None  # the old agent and its tables go before the new one comes
            worker.agent = self.computer.agent(level)
            worker.key, worker.owner = key, owner
            worker.built += 1
        elif worker.owner is not owner:
            reset = getattr(worker.agent, "reset", None)
            if callable(reset):
                reset()
            worker.owner = owner
        return worker.agent

    async def run(self, owner: object, level: int, game: Game,
                  job: Callable[[Agent, Game, Limits], T], *, must: bool = False) -> T:
        """``job(agent, game, limits)`` in a worker's thread, for ``owner``'s game (a copy
        the caller does not touch meanwhile); :class:`AiBusy` if the queue is full, unless
        ``must``. If the caller is cancelled, the worker returns to the pool when its thread
        is done."""
        limits = self.computer.limits()

        def work(worker: _Worker) -> T:
            return job(self._ready(worker, owner, level, game), game, limits)

        return await self._in_worker(work, must)

    async def run_task(self, job: Callable[[], T], *, must: bool = False) -> T:
        """``job()`` in a worker's thread, without the worker's agent (work that brings its
        own, such as one position of a game's analysis); :class:`AiBusy` if the queue is
        full, unless ``must``. The worker's agent and its tables are left as they were."""
        return await self._in_worker(lambda _worker: job(), must)

    async def _in_worker(self, work: Callable[[_Worker], T], must: bool) -> T:
        """``work(worker)`` in the thread of a worker acquired for it; if the caller is
        cancelled, the worker returns to the pool when its thread is done."""
        worker = await self._acquire(must)
        future = asyncio.get_running_loop().run_in_executor(self._executor, work, worker)
        try:
            return await asyncio.shield(future)
        finally:
            if future.done():
                self._release(worker)
            else:
                future.add_done_callback(lambda _f: self._release(worker))

    def close(self) -> None:
        """Stop the threads once their work is done (the server is stopping)."""
        self._executor.shutdown(wait=False, cancel_futures=True)
