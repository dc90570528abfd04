"""Who is asking: the client of the request being served, and the per-client tables that
keep one client from taking what the others need.

:data:`CLIENT` holds the client key of the request (or websocket) whose code is running: the
size and rate guard (:class:`~.middleware.Guard`) sets it for each request. It is the
signed-in account's key (:func:`account_key`) when the request carries a live session
cookie, else the scope's client address, which uvicorn has already taken from
``X-Forwarded-For`` when the connection comes from a trusted reverse proxy
(``--forwarded-allow-ips``). So an account has one share of the AI queue, the lobby and the
expensive work whatever addresses it uses, and a signed-in player behind a shared address (a
school) has its own share rather than a part of the address's. A task started while a
request is served (the computer's turn a move starts) inherits the key, so the AI pool
(:mod:`.ai_pool`) queues that work under the client that caused it. The request rate and the
websockets are bounded per address whoever is signed in (the guard keys them by address).

:class:`Budget` is a token bucket per address priced in units of work rather than requests,
and :class:`Counts` counts what each address holds open (the guard's websockets). Both
tables are bounded: an address is forgotten once it holds nothing (a count back to 0, a
bucket full again), and never more than :data:`MAX_ADDRESSES` are kept. :class:`Work` runs
the expensive requests (replaying a record someone sent) priced by the CPU time they take:
one at a time per address, and no more than ``rate`` CPU seconds a second on average. The
CPU time is measured where the job runs (:func:`timed`: a worker thread, or a process of
the work pool, :mod:`.work_pool`).
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from ..i18n import Text
from .config import DEFAULTS
from .errors import ApiError

T = TypeVar("T")

#: the client key of the request being served: the signed-in account's
#: (:func:`account_key`), else the client address ("" outside any request: start-up work)
CLIENT: ContextVar[str] = ContextVar("nugar_client", default="")


@functools.lru_cache(maxsize=4096)
def address_group(host: str) -> str:
    """The key under which every per-address bound counts the client address ``host``: an
    IPv4 address as it is, an IPv6 address by its /64 network (``2001:db8:1:2::/64``: one
    subscriber usually holds a whole /64, so counting single addresses would give him
    2**64 shares), an IPv4 address mapped into IPv6 as the IPv4 address. Anything else
    (``unknown``, a test client's name) is kept as it is.

    >>> address_group("2001:db8:1:2:aaaa::1"), address_group("192.0.2.7")
    ('2001:db8:1:2::/64', '192.0.2.7')
    """
    if ":" not in host:
        return host
    try:
        address = ipaddress.IPv6Address(host.split("%", 1)[0])
    except ValueError:
        return host
    if address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(ipaddress.IPv6Network((int(address) >> 64 << 64, 64)))


def account_key(account_id: int) -> str:
    """The client key of a signed-in account: never an address (none contains ``#``)."""
    return f"account#{account_id}"


def named(client: str) -> str:
    """How a refusal names ``client``: "this account" or "this address"."""
    if client.startswith("account#"):
        return Text("this account", domain="web")
    return Text("this address", domain="web")

#: the most addresses one per-address table keeps (the oldest are forgotten beyond it)
MAX_ADDRESSES = 10_000
#: the websockets one client address may hold open at once (``--client-sockets``)
CLIENT_SOCKETS = DEFAULTS.client_sockets
#: the CPU seconds of expensive requests one client address may use per second
#: (``--work-rate``), and the seconds it may save up for a burst
WORK_RATE = DEFAULTS.work_rate
WORK_BURST = 0.5


class TooMuchWork(ApiError):
    """An address spent its share of expensive work: the refusal ``too_much_work``, which
    says after how many seconds to try again (``Retry-After``)."""

    def __init__(self, retry_after: int, detail: str) -> None:
        super().__init__("too_much_work", detail)
        self.retry_after = retry_after


class Counts:
    """How many of something each client address holds open, at most ``limit`` each.
    An address is dropped from the table when its count is back to 0, so the table holds
    only the addresses holding something."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.held: dict[str, int] = {}

    def take(self, client: str) -> bool:
        """Count one more for ``client``; ``False`` (nothing counted) at its limit."""
        n = self.held.get(client, 0)
        if n >= self.limit:
            return False
        self.held[client] = n + 1
        return True

    def give(self, client: str) -> None:
        """One held by ``client`` is given back."""
        n = self.held.get(client, 0) - 1
        if n > 0:
            self.held[client] = n
        else:
            self.held.pop(client, None)


class Budget:
    """A token bucket of work per client address: ``rate`` units a second, at most ``burst``
    saved. :meth:`allow` says whether an address may start more work (its bucket is not in
    debt), :meth:`charge` takes the work it did once it is known (the bucket may go below 0:
    the next requests wait until it is paid back). ``clock`` gives seconds (tests pass their
    own)."""

    def __init__(self, rate: float, burst: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if rate <= 0 or burst <= 0:
            raise ValueError(f"a work budget needs a positive rate and burst, not {rate} "
                             f"and {burst}")
        self.rate = rate
        self.burst = burst
        self.clock = clock
        #: client -> (tokens, when they were counted)
        self.buckets: dict[str, tuple[float, float]] = {}

    def _tokens(self, client: str, now: float) -> float:
        tokens, last = self.buckets.get(client, (self.burst, now))
        return min(self.burst, tokens + (now - last) * self.rate)

    def allow(self, client: str) -> bool:
        """Whether ``client`` may start more work now (its bucket holds more than 0)."""
        return self._tokens(client, self.clock()) > 0

    def retry_after(self, client: str) -> int:
        """Whole seconds until ``client`` may start work again (at least 1)."""
        tokens = self._tokens(client, self.clock())
        return max(1, math.ceil(-tokens / self.rate)) if tokens <= 0 else 1

    def charge(self, client: str, units: float) -> None:
        """Take ``units`` of work done for ``client`` from its bucket."""
        now = self.clock()
        tokens = self._tokens(client, now) - units
        buckets = self.buckets
        buckets.pop(client, None)  # the newest at the end: the oldest are swept first
        if tokens < self.burst:
            buckets[client] = (tokens, now)
        if len(buckets) > MAX_ADDRESSES:
            self.sweep(now)

    def sweep(self, now: float | None = None) -> None:
        """Forget the addresses whose bucket is full again, then the oldest beyond half of
        :data:`MAX_ADDRESSES` (so a sweep is needed at most once per that many charges)."""
        now = self.clock() if now is None else now
        for client in [c for c in self.buckets if self._tokens(c, now) >= self.burst]:
            del self.buckets[client]
        while len(self.buckets) > MAX_ADDRESSES // 2:
            del self.buckets[next(iter(self.buckets))]


@dataclass(frozen=True)
class Timed(Generic[T]):
    """What a job gave and the CPU seconds it took where it ran (a thread, another
    process): its value, or the exception it raised (a refusal, or any other: a crash)."""

    value: T | None
    cpu: float
    error: Exception | None = None

    def result(self) -> T:
        """The job's value, or the exception it raised again."""
        if self.error is not None:
            raise self.error
        return cast(T, self.value)


def timed(job: Callable[[], T]) -> Timed[T]:
    """Run ``job()`` and measure the CPU time of the thread running it (not the time it
    waited), whatever it raised."""
    start = time.thread_time()
    try:
        value = job()
    except Exception as exc:
        return Timed(None, time.thread_time() - start, exc)
    return Timed(value, time.thread_time() - start)


def in_thread(job: Callable[[], T]) -> Awaitable[Timed[T]]:
    """Run ``job`` timed in a worker thread (the event loop answers others meanwhile)."""
    return asyncio.to_thread(timed, job)


#: how a job is run and timed: :func:`in_thread`, or a work pool's (:mod:`.work_pool`)
Runner = Callable[[Callable[[], T]], Awaitable[Timed[T]]]


class Work:
    """Expensive requests priced by the CPU time they take, per client address: each address
    runs one at a time, and spends at most ``rate`` CPU seconds a second (``burst`` saved);
    beyond either, the request is refused at once with :class:`TooMuchWork`. Each job is run
    by a runner (default: a worker thread, :func:`in_thread`; the server's: its work pool,
    :mod:`.work_pool`, in another process) that measures its CPU time, and that time is
    charged to the address when the job ends."""

    def __init__(self, rate: float, burst: float = WORK_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.budget = Budget(rate, burst, clock)
        self.running = Counts(1)

    async def run(self, job: Callable[[], T], client: str | None = None,
                  runner: Runner[T] = in_thread) -> T:
        """``job()`` run by ``runner`` for ``client`` (default: the request's,
        :data:`CLIENT`), or :class:`TooMuchWork`."""
        who = CLIENT.get() if client is None else client
        if not self.budget.allow(who):
            wait = self.budget.retry_after(who)
            raise TooMuchWork(wait, Text("{who} has used its share of expensive work ({rate:g} "
                                         "CPU s per second); retry in {wait} s", domain="web",
                                         who=named(who), rate=self.budget.rate, wait=wait))
        if not self.running.take(who):
            raise TooMuchWork(1, Text("{who} already has an expensive request running; send "
                                      "the next one when it is answered", domain="web",
                                      who=named(who)))
        used = 0.0
        try:
            done = await runner(job)
            used = done.cpu
            return done.result()
        finally:
            self.running.give(who)
            self.budget.charge(who, used)


class FairQueue:
    """At most ``slots`` holders at once, the others waiting in a line per client, served in
    turn (round robin): a client who queues many requests waits behind his own, and any
    other client waits at most one turn per client with work queued. One client may have at
    most ``per_client`` requests held or waiting, and at most ``queue`` wait in all; beyond
    either, :meth:`slot` raises ``busy()`` at once (a refusal saying when to come back), so
    what waits is bounded whatever clients send. The password checks (:mod:`.players.passwords`)
    and the analyses (:mod:`.work.analyses`) wait here."""

    def __init__(self, slots: int, queue: int, per_client: int,
                 busy: Callable[[], Exception]) -> None:
        if slots < 1 or queue < 0 or per_client < 1:
            raise ValueError(f"a fair queue needs 1 or more slots, a queue of 0 or more and "
                             f"1 or more requests per client, not {slots}, {queue} and "
                             f"{per_client}")
        self.slots = slots
        self.queue = queue
        self.per_client = per_client
        self.busy = busy
        #: the slots held by each client (while above 0)
        self.held: dict[str, int] = {}
        #: the waiting requests of each client, the clients in turn order
        self._lines: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def running(self) -> int:
        """Slots held now."""
        return sum(self.held.values())

    @property
    def waiting(self) -> int:
        """Requests waiting for a slot."""
        return sum(self.waiting_for(c) for c in self._lines)

    def waiting_for(self, client: str) -> int:
        return sum(1 for f in self._lines.get(client, ()) if not f.done())

    def check(self, client: str) -> None:
        """Raise ``busy()`` if a request of ``client`` would be refused now."""
        if self.held.get(client, 0) + self.waiting_for(client) >= self.per_client:
            raise self.busy()
        if self.running >= self.slots and self.waiting >= self.queue:
            raise self.busy()

    async def acquire(self, client: str) -> None:
        """Take a slot for ``client`` (waiting for its turn first), or ``busy()`` at once;
        :meth:`release` gives it back."""
        self.check(client)
        if self.running < self.slots and not self._lines:
            self.held[client] = self.held.get(client, 0) + 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._lines.setdefault(client, deque()).append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release(client)  # handed over just as it was cancelled
            raise

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        """Hold a slot for ``client`` while the block runs (see :meth:`acquire`)."""
        await self.acquire(client)
        try:
            yield
        finally:
            self.release(client)

    def release(self, client: str) -> None:
        """``client`` gives its slot back: it goes to the first request of the next client in
        turn, of those waiting the first in turn with the fewest slots held (so the client
        just served waits behind the others)."""
        held = self.held
        lines = self._lines
        chosen: tuple[str, asyncio.Future[None]] | None = None
        while lines and chosen is None:
            # the slot given back still counts for ``client`` here
            who = min(lines, key=lambda c: held.get(c, 0))
            line = lines[who]
            while line and chosen is None:
                waiter = line.popleft()
                if not waiter.done():
                    chosen = who, waiter
            if line:
                lines.move_to_end(who)
            else:
                del lines[who]
        left = held.get(client, 0) - 1
        if left > 0:
            held[client] = left
        else:
            held.pop(client, None)
        if chosen is not None:
            held[chosen[0]] = held.get(chosen[0], 0) + 1
            chosen[1].set_result(None)
