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
import logging
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol, TypeVar

from ...i18n import Text
from ..clients import CLIENT
from ..config import DEFAULTS
from ..errors import ApiError

if TYPE_CHECKING:
    from ...ai import Agent, Limits
    from ...rules import Game
    from ...rules.options import RuleSet
    from ...warmup import Warmup

T = TypeVar("T")

log = logging.getLogger(__name__)

#: the AI requests one client address may have waiting (``--ai-per-client``)
AI_PER_CLIENT = DEFAULTS.ai_per_client


class ComputerPlayer(Protocol):
    """What a session asks of the computer: nugar's agents (:class:`Agents`), or a fake."""

    def prepare(self, game: Game, level: int) -> None:
        """Block until the player of ``level`` can decide in ``game`` (its compiled code
        loaded, at first; :class:`Agents` says when it decides before it is compiled)."""

    def agent(self, level: int) -> Agent:
        """A new agent of ``level``: search agents keep tables, so each game gets its own."""

    def limits(self) -> Limits:
        """What one decision may spend."""


class Agents:
    """The computer player of the server: nugar's levels, ``ai_time`` seconds a decision, and
    the process's compiling (``nugar.warmup``). Its search agents get a transposition table
    of ``table`` MB.

    A decision waits for the compiled code it needs only while that code loads from the
    cache (a moment). On a first run, where it has to be compiled (a minute or more on a
    busy machine), a decision does not wait: with a warm-up that interprets (``nugar
    serve``'s), the kernels not compiled yet run as Python within the decision's time, as
    ``nugar engine`` does, so the first computer move comes after about ``ai_time``
    seconds; it sees fewer positions, and the compiled code takes over as each kernel is
    ready, at the level's full strength. A warm-up that does not interpret (an application
    built without ``warm_up``) is waited for: its kernels would otherwise be compiled in
    the decision's own thread anyway.

    The first decision in a rule set with Kalah endgame databases starts building their
    small levels in the background (:func:`start_databases`)."""

    def __init__(self, ai_time: float = 1.0, warmup: Warmup | None = None,
                 table: float = 64.0) -> None:
        from ...warmup import WARMUP

        self.ai_time = ai_time
        self.warmup = WARMUP if warmup is None else warmup
        self.table = table

    def prepare(self, game: Game, level: int) -> None:
        from ...warmup import steps_for

        steps = steps_for(game.rules, [f"level:{level}"])
        self.warmup.add(steps)
        self.warmup.wait(steps=steps, until_compiling=self.warmup.interpret)
        start_databases(game.rules, self.warmup)

    def agent(self, level: int) -> Agent:
        from ...ai.agents import LevelAgent

        return LevelAgent(level, table=self.table)

    def limits(self) -> Limits:
        from ...ai import Limits

        return Limits(time=self.ai_time)


_bad_setting: list[str] = []


def start_databases(rules: RuleSet, warmup: Warmup) -> None:
    """Start building the small endgame databases of ``rules`` in the background, where
    they have some and they are missing (``nugar.solver.autodb``; a look-up once started),
    once ``warmup`` is done. A bad ``NUGAR_AUTO_DB`` is logged once, and nothing is
    built."""
    from ...solver import autodb

    try:
        autodb.start(rules, after=warmup.wait)
    except ValueError as exc:
        if not _bad_setting:
            _bad_setting.append(str(exc))
            log.warning("endgame databases not built: %s", exc)


class AiBusy(ApiError):
    """Every worker of the AI pool is busy and its queue is full: the refusal ``ai_busy``,
    which says after how many seconds to try again (``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("ai_busy", Text(
            "the computer is busy with other games; try again in {retry_after} s",
            domain="web", retry_after=retry_after))
        self.retry_after = retry_after


class _Worker:
    """One agent of the pool, with what it was last used for."""

    def __init__(self) -> None:
        self.agent: Agent | None = None
        self.key: tuple[int, str] | None = None  # (level, rules' AI profile) it was built for
        self.owner: object | None = None  # the game whose positions its tables hold
        self.client = ""  # the client address of the work it does now
        self.built = 0  # agents built for this worker (tests check the bound)


class AiPool:
    """The computer's only place to think: ``workers`` agents, each deciding in a thread of
    the pool's own executor (never the default one the database uses), and a queue of at
    most ``queue`` waiting hints and analyses. A hint asked for while the queue is full is
    refused (:class:`AiBusy`); the computer's own turns always queue (one per game at most).

    The queue is fair between client addresses (:data:`~.clients.CLIENT`, the address of the
    request that started the work, or its account when signed in): each address has its own
    line, and a free worker takes the first request of the next address in turn (round
    robin), so a client who floods the pool with games against the AI waits behind his own
    turns, and any other address waits at most one decision per address with work queued.
    One address may hold at most ``per_client`` waiting requests of any kind before its
    hints are refused and its new games against the AI too (:meth:`admit`).

    A worker keeps its agent while it serves the same level and game family, and resets it
    (``reset()``: its tables forgotten) before a position of another game, so nothing leaks
    between games and memory stays within ``workers`` agents' tables."""

    def __init__(self, computer: ComputerPlayer, workers: int = 1, queue: int = 8,
                 per_client: int = AI_PER_CLIENT) -> None:
        if workers < 1 or queue < 0 or per_client < 1:
            raise ValueError(f"an AI pool needs 1 or more workers, a queue of 0 or more and "
                             f"1 or more requests per client, not {workers}, {queue} and "
                             f"{per_client}")
        self.computer = computer
        self.workers = [_Worker() for _ in range(workers)]
        self.queue = queue
        self.per_client = per_client
        self._free = list(self.workers)
        #: the waiting requests of each client address, the addresses in turn order; each
        #: request is its future and ``must`` (a computer's turn, never refused)
        self._lines: OrderedDict[str, deque[tuple[asyncio.Future[_Worker], bool]]] = \
            OrderedDict()
        #: the workers busy for each client address (while above 0)
        self._busy: dict[str, int] = {}
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="nugar-ai")

    @property
    def built(self) -> int:
        """How many agents the pool has built so far."""
        return sum(w.built for w in self.workers)

    @property
    def waiting(self) -> int:
        """Requests queued for a worker."""
        return sum(self.waiting_for(client) for client in self._lines)

    def waiting_for(self, client: str, *, hints_only: bool = False) -> int:
        """Requests of ``client`` queued for a worker (``hints_only``: those that may be
        refused, hints and analyses)."""
        line = self._lines.get(client, ())
        return sum(1 for f, must in line if not f.done() and not (hints_only and must))

    def admit(self, client: str | None = None) -> None:
        """Refuse (:class:`AiBusy`) new work for ``client`` (default: the request's,
        :data:`~.clients.CLIENT`) while it has ``per_client`` requests waiting: a new game
        against the AI asks first, since its computer's turns cannot be refused later."""
        who = CLIENT.get() if client is None else client
        if self.waiting_for(who) >= self.per_client:
            raise AiBusy(retry_after=self._retry_after())

    def _retry_after(self) -> int:
        return max(1, round(self.computer.limits().time or 1.0))

    def _give(self, worker: _Worker, client: str) -> _Worker:
        """``worker`` now works for ``client``."""
        worker.client = client
        self._busy[client] = self._busy.get(client, 0) + 1
        return worker

    async def _acquire(self, must: bool) -> _Worker:
        client = CLIENT.get()
        if self._free:  # a worker is free only while nobody waits (:meth:`_release`)
            return self._give(self._free.pop(), client)
        if not must:
            hints = sum(self.waiting_for(c, hints_only=True) for c in self._lines)
            if hints >= self.queue or self.waiting_for(client) >= self.per_client:
                raise AiBusy(retry_after=self._retry_after())
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        line = self._lines.get(client)
        if line is None:
            line = self._lines[client] = deque()
        line.append((waiter, must))
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # handed over just as it was cancelled
            raise

    def _release(self, worker: _Worker) -> None:
        """Hand ``worker`` to the first request of the next client address in turn: of the
        addresses waiting, the first in turn of those with the fewest workers busy for them,
        the worker released still counted for its last client (so the address just served
        waits behind the others)."""
        busy = self._busy
        lines = self._lines
        chosen: tuple[str, asyncio.Future[_Worker]] | None = None
        while lines and chosen is None:
            client = min(lines, key=lambda c: busy.get(c, 0))  # the first of the least served
            line = lines[client]
            while line and chosen is None:
                future, _must = line.popleft()
                if not future.done():
                    chosen = client, future
            if line:
                lines.move_to_end(client)  # its next request waits for the others' turns
            else:
                del lines[client]
        last = busy.get(worker.client, 0) - 1
        if last > 0:
            busy[worker.client] = last
        else:
            busy.pop(worker.client, None)
        if chosen is None:
            self._free.append(worker)
        else:
            chosen[1].set_result(self._give(worker, chosen[0]))

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
