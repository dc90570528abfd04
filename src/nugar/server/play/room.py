"""One game's authority: its stored row, its session, its computer and its listeners.

A :class:`Room` holds what this process knows of one stored game: the row last read or
written (``row``), the :class:`~.session.GameSession` that decides the game's changes, its
clocks, its computer player (:class:`~.computer.ComputerTurns`), the view every answer is
made of (:class:`~.view.GameView`) and the queues of its websocket listeners
(:class:`Listener`). It is the one serialized authority of its game in this process: every
change goes one way through :meth:`Room.act`::

    request -> Room.act (the game's lock) -> decide(session) -> Change
            -> write (the store numbers it: the next version) -> the room takes the row
            -> publish (the update answered, the event queued for every listener)

The decision is a plain function of the session (:mod:`.session`, :mod:`.offers`,
:mod:`.timing`, :func:`.computer.computer_move`); ``write`` is the :class:`~.rooms.Hub`'s
writer (:class:`~.writer.GameWriter`). Nothing climbs back: the session never calls its
room, the writer never announces. If the write fails, the session rolls back to what was
last stored. A room that finds the stored game newer than its own asks ``refresh`` (the
Hub's follower, :mod:`.follow`) to bring it up to date.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ...i18n import Text
from ...rules import Game
from ..clients import CLIENT, account_key
from ..errors import ApiError
from ..storage.store import GameRow, StoredEvent, hash_key
from ..work.ai_pool import AiPool
from .clocks import Clock
from .computer import ComputerTurns
from .endings import aborted_by, impose, restore, stored_outcome
from .session import Change, GameSession
from .view import GameView
from .wire import Encoded, event_message

log = logging.getLogger("nugar.server")

#: most events waiting for one websocket listener; one more drops it (it resyncs on reconnect)
LISTENER_QUEUE = 64
#: secrets a room remembers as opening a seat (a game has at most three: two seats, hot-seat)
KNOWN_KEYS = 4


class Listener:
    """One websocket's queue of a game's events, bounded to ``limit`` events.

    An event that finds the queue full is not queued: the listener is marked ``dropped``
    (its socket is then closed and the client reconnects with ``?since=``), so a client that
    stops reading pins at most ``limit`` events.
    """

    def __init__(self, limit: int = LISTENER_QUEUE) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=limit)
        self.dropped = asyncio.Event()

    def offer(self, message: dict[str, Any]) -> bool:
        """Queue ``message``; ``False`` (and ``dropped`` set) when the queue is full."""
        if self.dropped.is_set():
            return False
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.dropped.set()
            return False
        return True


#: secrets a room remembers as opening a seat (a game has at most three: two seats, hot-seat)
KNOWN_KEYS = 4


@dataclass(frozen=True, slots=True)
class Stored:
    """A change as stored: the game's new row (its version the change's number) and clocks."""

    row: GameRow
    clock: Clock | None


#: stores one change of a room's game; raises (``stale_room``, ``storage_failed``) if
#: nothing was stored
Write = Callable[["Room", Change], Awaitable[Stored]]
#: brings a room to the stored game when another process changed it; ``True`` if it changed
Refresh = Callable[["Room"], Awaitable[bool]]
#: decides one change of a game (``None``: nothing to change)
Decide = Callable[[GameSession], "Change | None"]


def _common_prefix(old: list[str], new: list[str]) -> int:
    """How many moves ``old`` and ``new`` share from the start."""
    if new[:len(old)] == old:
        return len(old)  # moves were added (the same objects: a quick compare)
    same, limit = 0, min(len(old), len(new))
    while same < limit and old[same] == new[same]:
        same += 1
    return same


class Room:
    """A live game: see the module's text. ``write(room, change)`` stores each change,
    ``refresh(room)`` brings the room to the stored game, ``now()`` is the server's time; the
    computer thinks in ``pool``."""

    def __init__(self, row: GameRow, game: Game, pool: AiPool, *, write: Write,
                 refresh: Refresh, now: Callable[[], float] = time.time) -> None:
        self.row = row
        self.listeners: set[Listener] = set()
        self.clock = Clock.from_json(row.clock)  # None: a game without a time control
        self.now = now
        self._write = write
        self._refresh = refresh
        self.session = GameSession(game, row.mode, ai_seat=row.ai_seat, ai_level=row.ai_level,
                                   offers=row.offers, aborted=aborted_by(row.ending),
                                   moves=row.moves, rated=row.rated)
        self.session.auto_pass = self.clock is not None  # a forced pass takes no time
        #: every change of the game is decided, stored and published under this lock
        self.lock = asyncio.Lock()
        #: set when the stored game may differ from this room's (it was dropped and the game
        #: is reloaded): a request that then gets the lock is refused as ``stale_room``
        self.closed = False
        # the computer reaches its room through a weak proxy: a room and its computer hold no
        # cycle, so an evicted room is freed at once, not at the next full garbage collection
        self.computer = ComputerTurns(weakref.proxy(self), pool)
        self.view = GameView()
        #: the newest stored version heard of (from another process): above ``row.version``,
        #: the room is refreshed before its next use
        self.known = row.version
        #: secrets known to open a seat, and the seat (:meth:`seat_of`)
        self._seats: dict[str, int] = {}
        #: a task following the versions other processes stored (:meth:`.follow.Follower.heard`)
        self.following: asyncio.Task[None] | None = None
        #: events of newer versions heard with their announcement (version -> event)
        self.heard_events: dict[int, StoredEvent] = {}

    @property
    def stale(self) -> bool:
        """Whether another process stored a newer version than this room holds."""
        return self.known > self.row.version

    @property
    def busy(self) -> bool:
        """Whether a change is under way or the computer is thinking."""
        return self.lock.locked() or self.computer.thinking

    # --- the one way a change goes ----------------------------------------------------------
    async def act(self, decide: Decide, *, current: bool = True) -> Encoded | None:
        """Decide one change under the game's lock (``decide(session)``), store it, then
        publish it; returns the update (also every listener's), or ``None`` if ``decide``
        found nothing to change. ``current``: a room dropped or known to be behind the stored
        game refuses the request as ``stale_room`` (the Hub refreshes it and asks again);
        else (the clocks, the computer) a dropped room changes nothing and a behind one
        fails at the write. A decision's refusal (an :class:`~.errors.ApiError`) leaves the
        game as it was; a failed write rolls the session back to the stored state."""
        async with self.lock:
            if current:
                self._check_current()
            elif self.closed:
                return None
            change = decide(self.session)
            if change is None:
                return None
            old = self.row
            old_turns = self.view.turns_at(old.version)
            try:
                stored = await self._write(self, change)
            except BaseException as exc:
                if isinstance(exc, ApiError) and exc.code == "stale_room":
                    self.known = max(self.known, old.version + 1)
                self._roll_back()
                raise
            row = self.row = stored.row
            self.clock = stored.clock
            self.known = max(self.known, row.version)
            self.session.stored(row.moves)
            # encoded once: the answer and every listener's event share the text
            update = Encoded(self.update(old.version, _common_prefix(old.moves, row.moves),
                                         old_turns))
            self.announce(event_message(change.type, row.version, change.data, update))
        self.computer.schedule()
        return update

    def _roll_back(self) -> None:
        try:
            self.session.rollback()
        except Exception:  # cannot happen for a game that was stored; be safe anyway
            log.exception("rolling back a failed change failed")
            self.closed = True

    def _check_current(self) -> None:
        """Refuse a request that waited on the lock of a room that was dropped, or of one
        that is known to be behind the stored game."""
        if self.closed or self.stale:
            raise ApiError("stale_room", Text(
                "the game was reloaded while this request waited; nothing was changed, try again",
                domain="web"))

    async def refresh(self) -> bool:
        """Bring the room to the stored game if another process changed it (``refresh``)."""
        return await self._refresh(self)

    # --- what other processes stored -------------------------------------------------------
    def apply_row(self, row: GameRow) -> None:
        """Bring the room to the stored ``row`` (a newer version written elsewhere): the new
        moves are played on the cached game when they extend it, otherwise the stored game
        is replayed; the clocks are the stored ones. Called with the room's lock held."""
        if row.version == self.row.version:
            return
        try:
            clock = Clock.from_json(row.clock)
            aborted = aborted_by(row.ending)
        except (ValueError, TypeError, KeyError) as exc:
            raise ApiError("corrupt_game", Text(
                "the stored clock of game {id} does not read: {exc}",
                domain="web", id=row.id, exc=exc)) from None
        session = self.session
        game = session.game
        cached = self.row.moves
        if (game.outcome is None and self.row.ending is None and len(row.moves) >= len(cached)
                and row.moves[:len(cached)] == cached
                and [str(m) for m in game.move_stack] == cached):
            try:
                for text in row.moves[len(cached):]:
                    game.play(text)
                if row.ending and aborted is None:
                    impose(game, stored_outcome(row.ending))
            except ValueError:
                game = restore(row.rules, row.moves, row.ending)
        else:
            game = restore(row.rules, row.moves, row.ending)
        if (row.key_hash_1, row.key_hash_2) != (self.row.key_hash_1, self.row.key_hash_2):
            self._seats.clear()  # never so far: a game's secrets are made with it
        self.row = row
        self.clock = clock
        session.reset(game, row.offers, aborted, row.moves)
        self.known = max(self.known, row.version)
        self.view.forget()

    def took(self, row: GameRow, game: Game) -> None:
        """Take ``row`` as the stored game, whose game is ``game``: the session's own, with the
        row's new moves played on it (:meth:`.follow.Follower.heard` moves). Called with the
        room's lock held."""
        self.row = row
        self.session.reset(game, row.offers, None, row.moves)
        self.view.forget()

    def announce(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every listener, dropping those whose queue is full."""
        for listener in list(self.listeners):
            if not listener.offer(message):
                self.listeners.discard(listener)

    # --- reading ----------------------------------------------------------------------------
    def unseen(self, seat: int | None) -> list[int] | None:
        """The seats a request opening ``seat`` (:meth:`seat_of`) shows to be open that the
        clock does not know yet (``None``: none; a game without a clock needs none)."""
        clock = self.clock
        if clock is None or seat is None or clock.ready:
            return None
        seats = [p for p in ((1, 2) if seat == 0 else (seat,)) if not clock.seen[p - 1]]
        return seats or None

    def player_of(self, key: str | None) -> int | None:
        """:meth:`seat_of` for a request that plays the seat (a move, an offer, a
        resignation, an undo, a hint): in a rated game a seat held by an account is played
        only with that account's session as well (the request's client,
        :data:`~..clients.CLIENT`), so a seat key left in a browser after signing out, or
        copied from it, plays nothing: ``401 signed_out``."""
        seat = self.seat_of(key)
        row = self.row
        if seat in (1, 2) and row.rated:
            holder = row.account_1 if seat == 1 else row.account_2
            if holder is not None and CLIENT.get() != account_key(holder):
                raise ApiError("signed_out", Text(
                    "a seat of a rated game is played signed in as its player",
                    domain="web"))
        return seat

    def seat_of_account(self, account: int) -> int:
        """The seat the ``account`` holds (a bot's, which plays by its token rather than a
        seat key), else 409 ``not_yours``."""
        if self.row.account_1 == account:
            return 1
        if self.row.account_2 == account:
            return 2
        raise ApiError("not_yours", Text("this bot plays no seat of game {game_id!r}",
                                         domain="web", game_id=self.row.id))

    def seat_of(self, key: str | None) -> int | None:
        """The seat a secret opens: 1, 2, 0 for a hot-seat key (both seats), else ``None``.
        The secrets that opened a seat are remembered (at most :data:`KNOWN_KEYS`), so a
        player's every move does not hash his secret again; any other key is hashed and
        compared as always."""
        if not key or len(key) > 200:
            return None
        seat = self._seats.get(key)
        if seat is not None:
            return seat
        seat = self._seat_by_hash(key)
        if seat is not None:
            if len(self._seats) >= KNOWN_KEYS:
                self._seats.clear()
            self._seats[key] = seat
        return seat

    def _seat_by_hash(self, key: str) -> int | None:
        digest = hash_key(key)
        one = self.row.key_hash_1 or ""
        two = self.row.key_hash_2 or ""
        match_one = hmac.compare_digest(digest, one) if one else False
        match_two = hmac.compare_digest(digest, two) if two else False
        if match_one and match_two:
            return 0
        if match_one:
            return 1
        if match_two:
            return 2
        return None

    def state(self, history: bool = True) -> dict[str, Any]:
        """The public view of the game (no secrets): everything a client draws
        (:meth:`.view.GameView.state`; shared, do not change it); ``history=False`` leaves
        out ``moves`` and ``turns``."""
        return self.view.state(self, history)

    def update(self, base: int, moves_from: int,
               old_turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """What changed since version ``base`` (:meth:`.view.GameView.update`)."""
        return self.view.update(self, base, moves_from, old_turns)
