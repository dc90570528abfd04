"""Where the passwords are checked: a small executor of its own, bounded and fair.

An Argon2id check (:mod:`.accounts`: 64 MiB, t=3, p=4) costs about a quarter of a CPU second
and 64 MiB while it runs. Run in asyncio's default thread pool, which the database work of
every other request shares (creating a game, the lobby, sessions), a flood of sign-ins from
a few addresses took that pool and the other clients' requests waited behind it; and the
checks running at once held 64 MiB each. :class:`PasswordWork` runs every request that
hashes a password (signing up and in, changing the password, deleting the account) in
``workers`` threads of its own, so at most ``workers`` checks run at once whatever clients
send, and nothing else waits for them; on Linux those threads run at a lower priority
(:data:`HASH_NICE`), so the event loop answering everyone else gets the CPU first. The
requests waiting for a thread are served in turn per client address
(:class:`~..clients.FairQueue`: an address that sends many waits behind its own), each
address may have ``per_client`` checks running or waiting, and at most ``queue`` wait in
all; beyond, ``503 sign_in_busy`` with ``Retry-After`` at once. The sign-in limits' counts
are taken in the same thread, once it is the request's turn, so a refused flood costs no
database write either.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from ...i18n import Text
from ..clients import FairQueue
from ..config import DEFAULTS
from ..errors import ApiError

T = TypeVar("T")

#: threads checking passwords at once (``--hash-workers``): one keeps a core of a small
#: machine for everything else
HASH_WORKERS = DEFAULTS.hash_workers
#: checks that may wait for a thread, in all (a waiting check holds no memory to speak of:
#: its 64 MiB are taken when it runs)
HASH_QUEUE = 64
#: how much lower than the server's the password threads' scheduling priority is (``nice``
#: steps, on Linux): a check uses up to 4 cores (p=4), and the event loop comes first
HASH_NICE = 10
#: checks one client address may have running or waiting
HASH_PER_CLIENT = 2


def _lower_priority() -> None:
    """Lower the priority of the calling thread (a password thread) by :data:`HASH_NICE`; on
    Linux a thread's ``nice`` is its own, and the threads Argon2 starts for its lanes inherit
    it. Elsewhere, or where it is refused, nothing changes."""
    with contextlib.suppress(AttributeError, OSError):
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + HASH_NICE)


class SignInBusy(ApiError):
    """Every place for a password check is taken (or the address has its share):
    ``503 sign_in_busy`` with ``Retry-After``."""

    def __init__(self, retry_after: int = 2) -> None:
        super().__init__("sign_in_busy", Text(
            "the server is checking other passwords; try again in {retry_after} s",
            domain="web", retry_after=retry_after))
        self.retry_after = retry_after


class PasswordWork:
    """``workers`` threads for the requests that hash a password, with a fair bounded
    queue in front (see the module's text)."""

    def __init__(self, workers: int = HASH_WORKERS, queue: int = HASH_QUEUE,
                 per_client: int = HASH_PER_CLIENT) -> None:
        self.workers = workers
        self.gate = FairQueue(workers, queue, per_client, SignInBusy)
        self._executor: ThreadPoolExecutor | None = None  # made by the first check

    def check(self, client: str) -> None:
        """``503 sign_in_busy`` now if a check of ``client`` would be refused."""
        self.gate.check(client)

    async def run(self, client: str, job: Callable[[], T]) -> T:
        """``job()`` in one of the threads once it is ``client``'s turn (or
        :class:`SignInBusy` at once)."""
        await self.gate.acquire(client)
        try:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.workers, initializer=_lower_priority,
                                                    thread_name_prefix="nugar-passwords")
            future = asyncio.get_running_loop().run_in_executor(self._executor, job)
        except BaseException:
            self.gate.release(client)
            raise
        # the slot is held until the thread is done, also when the client went meanwhile:
        # a request given up never leaves work behind that nobody counts
        future.add_done_callback(lambda _f: self.gate.release(client))
        return await asyncio.shield(future)

    def close(self) -> None:
        """Stop the threads once their work is done (the server is stopping; a check after
        this starts new ones)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
