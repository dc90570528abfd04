"""One authority per online game: the room that holds its session, stored row and listeners.

A room's :class:`~.session.GameSession` decides every change to the game (a move, an undo,
an offer, a resignation, a computer move) under its lock; the room then writes the change to
the store and only then announces it to the game's websocket listeners with the next version
number. Concurrent requests on one game therefore never interleave, and what listeners see is
what was stored. The :class:`Hub` keeps the rooms of one server, loading each from the store
on first use.

The store is the authority, the rooms are caches of it: a change is written only if the
stored version is still the room's (:meth:`~.store.Store.submit`); when another process got
there first, the room is brought up to the stored game (:meth:`Room.apply_row`: the new moves
played on the cached game, or a full replay when the history changed) and the request is
decided again. On a shared database (PostgreSQL) every process hears the versions the others
store (:meth:`Hub.heard`), refreshes its rooms from them and passes their events on to its own
websocket listeners. The clocks of a timed game (:mod:`.clocks`) are stamped by the process
that stores a change and written in the same row; a room refreshed after another process's
change reads that row back (its clocks with it) rather than playing the heard moves, so every
process shows the clocks as stored.

What a change answers, and what listeners get, is an *update* (:meth:`Room.update`): the new
version, the status, the board and the legal moves, and only the moves and turns that changed
since a base version (``moves_from``/``new_moves``, ``turns_from``/``new_turns``), never the
whole history; the full state (:meth:`Room.state`) is the update from version 0.
"""

from __future__ import annotations

import asyncio
import bisect
import copy
import dataclasses
import functools
import hmac
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ..ai.agents import DEFAULT_LEVEL, LEVEL_RANGE, LEVEL_RANGE_TEXT
from ..errors import RulesError
from ..rules import Game, Move, new_game, parse_rules
from .clocks import Clock, TimeControl, flag_if_due
from .render import board_data
from .session import (
    AHEAD,
    MODES,
    Agents,
    ApiError,
    ComputerPlayer,
    GameSession,
    aborted_by,
    impose,
    rematch_id,
    restore,
    stored_outcome,
)
from .store import CorruptRow, GameRow, Store, StoredEvent, VersionConflict, hash_key
from .wire import Encoded, event_message

log = logging.getLogger("nugar.server")

#: days without a change after which an unfinished game is closed (``--expire-days``)
EXPIRE_DAYS = 30.0
#: most journal entries sent to a reconnecting client before it is told to resync instead
MAX_CATCH_UP = 500
#: most events waiting for one websocket listener; one more drops it (it resyncs on reconnect)
LISTENER_QUEUE = 64
#: secrets a room remembers as opening a seat (a game has at most three: two seats, hot-seat)
KNOWN_KEYS = 4
#: times a change is decided again when another process stored the game meanwhile
STALE_TRIES = 5


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


class Room:
    """A live game: its stored row, its session, and the queues of its websocket listeners.

    ``save(room, event_type, data)`` stores and announces each change of the session.
    """

    def __init__(self, row: GameRow, game: Game, computer: ComputerPlayer,
                 save: Callable[[Room, str, dict[str, Any]], Awaitable[dict[str, Any]]]
                 ) -> None:
        self.row = row
        self.listeners: set[Listener] = set()
        self.clock = Clock.from_json(row.clock)  # None: a game without a time control
        self.now: Callable[[], float] = time.time  # the server's time (the Hub's)
        self.session = GameSession(game, row.mode, functools.partial(save, self), computer,
                                   ai_seat=row.ai_seat, ai_level=row.ai_level,
                                   offers=row.offers, aborted=aborted_by(row.ending))
        self.session.auto_pass = self.clock is not None  # a forced pass takes no time
        #: the newest stored version heard of (from another process): above ``row.version``,
        #: the room is refreshed before its next use
        self.known = row.version
        #: the full state of ``row.version``, computed once per version (:meth:`state`)
        self._view: dict[str, Any] | None = None
        #: the game's turns kept as it grows (:meth:`_turns_now`): the turns, each turn's
        #: ``{player, text, n}`` and the number of moves after it, for the stored move texts
        #: ``_turns_of`` (a new game, or moves taken back, starts them again)
        self._turns: list[tuple[int, list[Move]]] = []
        self._turn_views: list[dict[str, Any]] = []
        self._turn_ends: list[int] = []
        self._turns_of: list[str] = []
        #: secrets known to open a seat, and the seat (:meth:`seat_of`)
        self._seats: dict[str, int] = {}
        #: the rule set's text, game, family and player names (:meth:`_compute_state`)
        self._named: tuple[str, str, str, tuple[str, str]] | None = None
        #: the text of each action code met (the rule set's moves do not change)
        self._action_texts: dict[int, str] = {}
        #: a task following the versions other processes stored (:meth:`Hub.heard`)
        self.following: asyncio.Task[None] | None = None
        #: events of newer versions heard with their announcement (version -> event)
        self.heard_events: dict[int, StoredEvent] = {}

    @property
    def stale(self) -> bool:
        """Whether another process stored a newer version than this room holds."""
        return self.known > self.row.version

    def apply_row(self, row: GameRow) -> None:
        """Bring the room to the stored ``row`` (a newer version written elsewhere): the new
        moves are played on the cached game when they extend it, otherwise the stored game
        is replayed; the clocks are the stored ones. Called with the session's lock held."""
        if row.version == self.row.version:
            return
        try:
            clock = Clock.from_json(row.clock)
            aborted = aborted_by(row.ending)
        except (ValueError, TypeError, KeyError) as exc:
            raise ApiError(409, "corrupt_game", f"the stored clock of game {row.id} does not "
                           f"read: {exc}") from None
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
        self.row = row  # first: the session reads the stored moves from it
        self.clock = clock
        session.reset(game, row.offers, aborted)
        self.known = max(self.known, row.version)
        self._view = None

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
        """The public view of the game (no secrets): everything a client draws. It is
        computed once per version and shared by every answer and listener (do not change
        it); ``history=False`` leaves out ``moves`` and ``turns``."""
        view = self._view
        if view is None or view["v"] != self.row.version:
            view = self._view = self._compute_state()
        if self.clock is not None:  # the time left changes between versions: read it now
            view = {**view, "clock": self.clock.view(self.now())}
        if history:
            return view
        return {k: v for k, v in view.items() if k not in ("moves", "turns")}

    def update(self, base: int, moves_from: int,
               old_turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """What changed since version ``base``, whose moves agree with the current ones on
        the first ``moves_from``: the status fields of :meth:`state` (version, whose turn,
        result, score, legal moves, offers, board), ``new_moves`` (the moves
        from ``moves_from`` on) and ``new_turns`` (the turns from ``turns_from`` on: the turn
        holding move ``moves_from`` is sent again, since it may have grown). A client at a
        version from ``base`` up to ``v`` merges it; one below ``base`` asks
        ``GET /api/games/{id}?since=V`` (or sends the websocket ``sync``). Given the turns
        of version ``base`` (``old_turns``), only the turns that differ are sent."""
        full = self.state()
        if base <= 0:
            return {**full, "base": 0}
        moves_from = max(0, min(moves_from, full["ply"]))
        turns_from = 0
        if old_turns is not None:
            new_turns = full["turns"]
            limit = min(len(old_turns), len(new_turns))
            while turns_from < limit and (old_turns[turns_from] is new_turns[turns_from]
                                          or old_turns[turns_from] == new_turns[turns_from]):
                turns_from += 1  # the turns a change did not touch are the same objects
        else:  # a turn that ended before moves_from cannot have changed
            turns_from = bisect.bisect_left(self._turn_ends, moves_from)
        out = {k: v for k, v in full.items() if k not in NOT_IN_UPDATES}
        out.update(base=base, moves_from=moves_from, new_moves=full["moves"][moves_from:],
                   turns_from=turns_from, new_turns=full["turns"][turns_from:])
        return out

    def _compute_state(self) -> dict[str, Any]:
        session = self.session
        game = session.game
        outcome = game.outcome
        aborted = session.aborted
        over = session.over
        ply = game.ply
        turns = self._turns_now(game)
        last_turn = turns[-1][1] if turns else []
        legal = [] if over else self._legal_texts(game)
        named = self._named
        if named is None:  # what names the game never changes
            named = self._named = (game.rules.text, game.rules.game, game.rules.family,
                                   (game.player_name(1), game.player_name(2)))
        out: dict[str, Any] = {
            "id": self.row.id,
            "v": self.row.version,
            "base": 0,
            "rules": named[0],
            "game": named[1],
            "family": named[2],
            "players": list(named[3]),
            "mode": session.mode,
            "ai_level": session.ai_level,
            "ai_seat": session.ai_seat,
            "to_move": None if over else game.to_move,
            "over": over,
            # an aborted game has no result (``*``) and no winner
            "result": session.result,
            "winner": None if outcome is None else outcome.winner,
            "reason": session.reason,
            "aborted": aborted,  # the player who did not make his first move in time
            "score": list(game.score),
            "legal": legal,
            "last_move": str(last_turn[-1]) if last_turn else None,
            "last_turn": [str(m) for m in last_turn],
            "last_mover": turns[-1][0] if turns else None,
            "offers": session.offers,
            # the rematch offered after the game (:mod:`.rematch`), if one was
            "rematch": (rematch_id(self.row.id, len(self.row.moves))
                        if "rematch" in session.offers else None),
            "ply": ply,
            "clock": None if self.clock is None else self.clock.view(self.now()),
            "board": board_data(game),  # the page draws it (static/board.js): no SVG here
        }
        out["turns"] = list(self._turn_views)  # a copy: a view is never changed after
        out["moves"] = self.row.moves  # the stored texts of the game's moves (never changed)
        return out

    def _legal_texts(self, game: Game) -> list[str]:
        """The texts of the legal moves, each action's text made once per room."""
        known = self._action_texts
        out = []
        for action in game.legal_actions():
            text = known.get(action)
            if text is None:
                text = known[action] = str(game.action_to_move(action))
            out.append(text)
        return out

    def _turns_now(self, game: Game) -> list[tuple[int, list[Move]]]:
        """The game's turns, with ``_turn_views`` and ``_turn_ends`` brought up to date: only
        the turns a change touched are made again when the stored moves extend those of the
        last call (the usual move), all of them otherwise."""
        texts = self.row.moves  # the stored texts of the moves: str() of each
        exact = len(texts) == game.ply  # a turn's text joins the stored texts when they agree
        done = len(self._turns_of)
        if not (exact and done <= len(texts) and texts[:done] == self._turns_of):
            self._turns, self._turn_views, self._turn_ends, done = [], [], [], 0
        turns = self._turns
        first = game.extend_turns(turns, done)
        views, ends = self._turn_views, self._turn_ends
        del views[first:], ends[first:]
        start = ends[-1] if ends else 0
        joiner = game.descriptor.turn_joiner
        for player, ms in turns[first:]:
            end = start + len(ms)
            text = (joiner.join(texts[start:end]) if exact
                    else game.descriptor.join_turn(ms))
            views.append({"player": player, "text": text, "n": len(ms)})
            ends.append(end)
            start = end
        self._turns_of = list(texts) if exact else []
        return turns


#: the fields of a state that never change in a game (not repeated in updates)
STATIC = frozenset({"id", "rules", "game", "family", "players", "mode", "ai_level", "ai_seat"})
#: what an update leaves out: the fields that never change and the whole history
NOT_IN_UPDATES = STATIC | {"moves", "turns"}


def _time_first_moves(clock: Clock, session: GameSession, etype: str, data: dict[str, Any],
                      to_move: int | None, now: float) -> None:
    """Note on ``clock`` who has made his first move after the change ``etype`` (a move: its
    player and the forced passes after it; an undo or takeback: read from the game again),
    and time the first move of ``to_move`` if he has not made it (unless he is the
    computer). A move opens its player's seat, as does the change ``opened`` (its
    ``seats``): the timers start once both seats are open (:meth:`Clock.see`)."""
    if etype == "move":
        for p in (data.get("player"), *data.get("passed", [])):
            if p in (1, 2):
                clock.played[p - 1] = True
        clock.see([data.get("player", 0)], now)
    elif etype == "opened":
        clock.see(data.get("seats", []), now)
    elif etype in ("undo", "takeback"):
        clock.played = [session.game.has_moved(1), session.game.has_moved(2)]
    waiting = (to_move if to_move is not None and to_move != session.ai_seat
               and not clock.played[to_move - 1] else None)
    clock.wait_for(waiting, now)


def moves_from_events(ply: int, events: list[StoredEvent]) -> int:
    """How many of the current ``ply`` moves were already there, unchanged, before
    ``events`` (the journal entries after a base version, oldest first): walking back from
    now, a ``move`` event took moves away, an ``undo`` or ``takeback`` put them back; the
    lowest count met is the prefix every version since the base shares."""
    low = ply
    for e in reversed(events):
        n = len(e.data.get("moves", [])) if isinstance(e.data.get("moves"), list) else 0
        if e.type == "move":
            ply -= n
        elif e.type in ("undo", "takeback"):
            ply += n
        low = min(low, ply)
    return max(0, low)


def _version(room: Room) -> int:
    return room.row.version


def _stored_moves(room: Room) -> list[str]:
    return room.row.moves


def _stale(room: Room) -> bool:
    return room.stale


class Hub:
    """All rooms of one server: loads them from the store on demand, stores and announces
    their changes."""

    def __init__(self, store: Store, computer: ComputerPlayer | None = None,
                 max_rooms: int = 2000, *, expire_days: float | None = EXPIRE_DAYS,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        #: unfinished games idle this many days are closed by :meth:`expire_idle`
        self.expire_days = expire_days
        self.clock = clock
        self.computer: ComputerPlayer = Agents() if computer is None else computer
        self.max_rooms = max_rooms
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._load_lock = asyncio.Lock()

    # --- rooms ------------------------------------------------------------------------------
    def _open(self, row: GameRow, game: Game) -> Room:
        """The room of a stored row and its replayed game, kept and its computer started."""
        room = Room(row, game, self.computer, self._commit)
        room.now = self.clock
        room.session.version = functools.partial(_version, room)
        room.session.stored_moves = functools.partial(_stored_moves, room)
        room.session.is_stale = functools.partial(_stale, room)
        room.session.resync = functools.partial(self.refresh, room)
        self.rooms[row.id] = room
        self._evict()
        room.session.schedule_ai()
        return room

    async def room(self, game_id: str, fresh: bool = False) -> Room:
        """The room of a game, replaying it from the store on first use. A room another
        process changed since is brought up to date first; with ``fresh`` on a shared
        database, the stored version is asked for to find out (a read must not answer an
        old version). If its clock ran out meanwhile, the flag falls first
        (:func:`~.clocks.flag_if_due`); when another process stored the game while the flag
        was being decided, the room is refreshed and the flag decided again on what was
        stored (the version compare-and-set lets only one process end the game)."""
        room = await self._room(game_id, fresh)
        for _attempt in range(STALE_TRIES):
            if room.clock is None:
                break
            try:
                await flag_if_due(room, self.clock)
                break
            except ApiError as exc:
                if exc.code != "stale_room":
                    raise
                room = await self._room(game_id, fresh=True)
        return room

    async def _room(self, game_id: str, fresh: bool = False) -> Room:
        if not isinstance(game_id, str) or not game_id.isalnum() or len(game_id) > 32:
            raise ApiError(404, "unknown_game", f"no game with id {game_id!r}")
        room = self.rooms.get(game_id)
        if room is not None:
            self.rooms.move_to_end(game_id)
            if fresh and self.store.shared:
                stored = await asyncio.to_thread(self.store.version, game_id)
                room.known = max(room.known, stored or 0)
            if room.stale:
                await self.refresh(room, if_stale=True)
            return room
        async with self._load_lock:
            room = self.rooms.get(game_id)
            if room is not None:
                return room
            try:
                row = await asyncio.to_thread(self.store.load, game_id)
                if row is None:
                    raise ApiError(404, "unknown_game", f"no game with id {game_id!r}")
                game = await asyncio.to_thread(restore, row.rules, row.moves, row.ending)
                return self._open(row, game)
            except ApiError as exc:
                if exc.code == "corrupt_game":
                    log.warning("stored game %s cannot be rebuilt: %s", game_id, exc.detail)
                raise
            except (CorruptRow, RulesError, ValueError, TypeError, KeyError) as exc:
                # a row that no longer replays (broken JSON, rules that do not parse any more,
                # a bad mode or ending): this game is refused, the rest of the server goes on
                log.warning("stored game %s cannot be rebuilt: %s", game_id, exc)
                raise ApiError(409, "corrupt_game",
                               f"the stored game {game_id} cannot be rebuilt: {exc}") from None

    async def refresh(self, room: Room, *, if_stale: bool = False) -> bool:
        """Bring ``room`` to the stored game if another process changed it, and pass the
        events it missed to its listeners; ``True`` if the room changed. ``if_stale``: only
        if the room is still behind a version heard of once the lock is had (a change of
        this process, committed meanwhile, may have brought it there: its own announcement
        can arrive before the change's commit is seen here), without asking the store."""
        async with room.session.lock:
            if if_stale and not room.stale:
                return False
            return await self._refresh_locked(room)

    async def _refresh_locked(self, room: Room) -> bool:
        if self._follow_moves(room):
            return True
        row = await asyncio.to_thread(self.store.load, room.row.id)
        if row is None or row.version <= room.row.version:
            room.known = room.row.version
            return False
        base = room.row.version
        try:
            room.apply_row(row)
        except ApiError:
            room.session.closed = True  # the stored game no longer replays: reload it
            if self.rooms.get(row.id) is room:
                del self.rooms[row.id]
            raise
        if room.listeners:
            missed = await asyncio.to_thread(self.store.events_since, row.id, base,
                                             MAX_CATCH_UP, row.version)
            if missed and missed[0].version == base + 1 and missed[-1].version == row.version:
                update = Encoded(room.update(base, moves_from_events(len(row.moves), missed)))
                for e in missed:
                    room.announce(event_message(e.type, e.version, e.data,
                                                update if e is missed[-1] else None))
            else:
                room.announce({"type": "sync", "v": row.version, "data": {},
                               "state": room.state()})
        return True

    def _follow_moves(self, room: Room) -> bool:
        """Bring ``room`` to its ``known`` version without reading the store, when every
        version in between was heard with its event and each is a move (the usual case):
        the moves are played on the cached game and the events passed on to its listeners.
        ``False`` (nothing changed) otherwise, or if a move does not apply (then the store is
        read). A game with a clock is always read from the store: the clocks another process
        stamped on its change are in the stored row, not in the event."""
        if room.clock is not None:
            room.heard_events.clear()
            return False
        base, target = room.row.version, room.known
        events = [room.heard_events.get(v) for v in range(base + 1, target + 1)]
        room.heard_events = {v: e for v, e in room.heard_events.items() if v > target}
        moves: list[str] = []
        for e in events:
            if e is None or e.type != "move" or not isinstance(e.data.get("moves"), list):
                return False
            moves += [str(t) for t in e.data["moves"]]
        session = room.session
        game = session.game
        if not events or session.over:
            return False
        try:
            for text in moves:
                game.play(text)
        except ValueError:
            while len(game.move_stack) > len(room.row.moves):
                game.undo()
            return False
        outcome = game.outcome
        human = any(not e.data.get("ai") for e in events if e is not None)
        old_moves = room.row.moves
        room.row = dataclasses.replace(
            room.row, moves=old_moves + moves, offers={} if human else dict(session.offers),
            result=None if outcome is None else outcome.result,
            reason=None if outcome is None else str(outcome.reason), version=target)
        session.reset(game, room.row.offers)
        room._view = None
        if room.listeners:
            update = Encoded(room.update(base, len(old_moves)))
            for e in events:
                assert e is not None
                room.announce(event_message(e.type, e.version, e.data,
                                            update if e is events[-1] else None))
        return True

    def behind(self, game_id: str, version: int) -> bool:
        """Whether this process holds the game at an older version than ``version`` (an
        announcement of anything else needs no reading)."""
        room = self.rooms.get(game_id)
        return room is not None and version > room.row.version

    def heard(self, game_id: str, version: int, event: StoredEvent | None = None) -> None:
        """Another process (or this one) stored ``version`` of a game (``event``: the change,
        when the announcement carried it): a room holding an older one is refreshed before
        its next use, at once if someone is watching it."""
        room = self.rooms.get(game_id)
        if room is None or version <= room.row.version:
            return
        if event is not None and len(room.heard_events) < LISTENER_QUEUE:
            room.heard_events[version] = event
        if version <= room.known:
            return
        room.known = version
        if room.listeners and (room.following is None or room.following.done()):
            room.following = asyncio.create_task(self._follow(room))

    async def _follow(self, room: Room) -> None:
        try:
            while room.stale and room.listeners and not room.session.closed:
                await self.refresh(room, if_stale=True)
        except Exception:
            log.exception("following game %s failed", room.row.id)

    def heard_all(self) -> None:
        """The announcements may have been missed (the listening connection was lost):
        every room is checked against the store before its next use."""
        for gid, room in list(self.rooms.items()):
            self.heard(gid, room.row.version + 1)

    def _evict(self) -> None:
        """Forget idle rooms beyond ``max_rooms`` (they are reloaded from the store on use)."""
        if len(self.rooms) <= self.max_rooms:
            return
        for gid in list(self.rooms):
            if len(self.rooms) <= self.max_rooms:
                break
            r = self.rooms[gid]
            if not (r.session.busy or r.listeners):
                del self.rooms[gid]

    async def resume_all(self) -> None:
        """At start-up: reopen every unfinished game against the AI, so the AI moves on."""
        for gid in await asyncio.to_thread(self.store.unfinished_ai_games):
            try:
                await self.room(gid)
            except ApiError as exc:
                log.error("cannot resume game %s: %s", gid, exc.detail)
            except Exception:  # one game must never keep the server from starting
                log.exception("cannot resume game %s", gid)

    async def expire_idle(self) -> list[str]:
        """Close every unfinished game without a change for ``expire_days`` and forget its
        room; returns their ids. A game in which a player never made his first move is
        aborted (no result, the event ``abort``, :meth:`GameSession.expire`), any other one
        is an adjudicated draw (the event ``expired``); either is stored and announced. A
        game that cannot be rebuilt is left as it is (it is refused anyway)."""
        if self.expire_days is None:
            return []
        cutoff = self.clock() - self.expire_days * 86400
        closed: list[str] = []
        for gid, version in await asyncio.to_thread(self.store.idle_games, cutoff):
            try:
                room = await self.room(gid)
                done = await room.session.expire(version, functools.partial(_version, room))
            except ApiError as exc:
                log.warning("cannot expire game %s: %s", gid, exc.detail)
                continue
            if done:
                await room.session.close()
                if self.rooms.get(gid) is room:
                    del self.rooms[gid]
                aborted = room.session.aborted
                log.info("game %s expired after %s idle days: %s", gid, self.expire_days,
                         "a draw" if aborted is None else f"aborted, player {aborted} never "
                         "moved")
                closed.append(gid)
        return closed

    async def expire_forever(self, every: float = 3600.0) -> None:
        """Run :meth:`expire_idle` every ``every`` seconds (a background task of the app,
        which also runs it once at start; a failed sweep is logged and the next one runs)."""
        while True:
            await asyncio.sleep(every)
            try:
                await self.expire_idle()
            except Exception:
                log.exception("closing idle games failed")

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.session.close()

    # --- creating ---------------------------------------------------------------------------
    async def create(self, rules: str, mode: str, ai_level: int | None, human_seat: int | None,
                     time_control: TimeControl | None = None,
                     seat_hash: tuple[int, str] | None = None
                     ) -> tuple[Room, dict[str, str]]:
        """Create and store a new game (with a clock under ``time_control``, if given);
        returns its room and the secrets of its seats. ``seat_hash`` (mode ``friend``):
        ``(seat, hash)``, that seat opens with a secret its holder already has (the lobby's
        challenge key), whose hash is given; it is not among the secrets returned."""
        if mode not in MODES:
            raise ApiError(422, "bad_mode", f"mode {mode!r} is unknown; allowed: "
                           + ", ".join(MODES))
        try:
            rule_set = parse_rules(rules)
            game = new_game(rule_set)
        except RulesError as exc:
            raise ApiError(422, "bad_rules", str(exc)) from None
        keys: dict[str, str] = {}
        ai_seat: int | None = None
        hash_1: str | None = None
        hash_2: str | None = None
        if mode == "ai":
            if ai_level is None:  # the level people get when they name none
                ai_level = DEFAULT_LEVEL
            if ai_level not in LEVEL_RANGE:
                raise ApiError(422, "bad_level", "AI level must be a whole number "
                               f"{LEVEL_RANGE_TEXT}, not {ai_level!r}")
            seat = 1 if human_seat is None else human_seat
            if seat not in (1, 2):
                raise ApiError(422, "bad_seat", f"seat must be 1 or 2, not {human_seat!r}")
            ai_seat = 3 - seat
            key = secrets.token_urlsafe(18)
            keys[str(seat)] = key
            if seat == 1:
                hash_1 = hash_key(key)
            else:
                hash_2 = hash_key(key)
        elif mode == "friend":
            keys["1"], keys["2"] = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
            hash_1, hash_2 = hash_key(keys["1"]), hash_key(keys["2"])
            if seat_hash is not None:
                del keys[str(seat_hash[0])]
                if seat_hash[0] == 1:
                    hash_1 = seat_hash[1]
                else:
                    hash_2 = seat_hash[1]
            ai_level = None
        else:
            key = secrets.token_urlsafe(18)
            keys["0"] = key
            hash_1 = hash_2 = hash_key(key)
            ai_level = None
        row = GameRow(id=secrets.token_hex(8), rules=rule_set.text, mode=mode,
                      ai_level=ai_level, ai_seat=ai_seat, key_hash_1=hash_1,
                      key_hash_2=hash_2, moves=[], ending=None, offers={}, result=None,
                      reason=None, version=1)
        created: dict[str, Any] = {"rules": row.rules, "mode": mode}
        if time_control is not None:  # the first player's first move is timed from now
            # a game by link waits for both players to open their links; the lobby's game
            # (seat_hash) is made when both are there
            by_link = mode == "friend" and seat_hash is None
            clock = Clock.new(time_control, self.clock(),
                              None if game.to_move == ai_seat else game.to_move,
                              seen=(not by_link, not by_link))
            row.clock, row.deadline = clock.to_json(), clock.deadline()
            created["clock"] = time_control.text
        first = StoredEvent(1, "created", created)
        await asyncio.to_thread(self.store.create, row, first)
        return self._open(row, game), keys

    # --- changes ----------------------------------------------------------------------------
    async def _commit(self, room: Room, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store the room's new state with one new event, then announce it.

        Called by the room's session with its lock held and the game already changed. If the
        write fails, nothing was stored: the session rolls its game back and the room stays.
        If another writer changed the stored game, the room is dropped and the next request
        replays the game from what was stored.
        """
        old = room.row
        old_view = room._view
        old_turns = old_view["turns"] if old_view and old_view["v"] == old.version else None
        session = room.session
        game = session.game
        played = data.get("moves") if etype == "move" else None
        if isinstance(played, list) and game.ply == len(old.moves) + len(played):
            moves = old.moves + played  # the usual change: no need to write out every move
        else:
            moves = [str(m) for m in game.move_stack]
        row = copy.copy(old)  # the old row stays as it was until the write succeeds
        row.moves, row.ending, row.offers = moves, session.ending, dict(session.offers)
        row.result, row.reason, row.version = session.result, session.reason, old.version + 1
        clock = room.clock
        if clock is not None:  # the server stamps the change on a copy of the clocks
            to_move = None if session.over else game.to_move
            now = self.clock()
            passed = data.get("passed", []) if etype == "move" else []
            clock = dataclasses.replace(clock, left=list(clock.left),
                                        played=list(clock.played))
            clock.settle(to_move, now, moved=etype == "move", passed=passed)
            _time_first_moves(clock, session, etype, data, to_move, now)
            row.clock, row.deadline = clock.to_json(), clock.deadline()
        ev = StoredEvent(row.version, etype, data)
        try:
            await self.store.write(row, ev)
        except VersionConflict as exc:
            # another process stored this game meanwhile: nothing was written; the session
            # rolls back, the caller refreshes the room and decides the request again
            room.known = max(room.known, row.version)
            raise ApiError(503, "stale_room", "the game changed on another server while this "
                           "request was decided; nothing was changed, try again") from exc
        except Exception as exc:
            # the write changed nothing: the session rolls its game back to the stored state
            # and the room (with its listeners) stays the current one; its clocks were not
            # touched (the change was stamped on a copy)
            log.exception("storing game %s failed", row.id)
            raise ApiError(503, "storage_failed",
                           "the move could not be stored; nothing was changed, try again"
                           ) from exc
        room.row = row
        room.clock = clock
        room.known = max(room.known, row.version)
        if moves[:len(old.moves)] == old.moves:
            same = len(old.moves)  # moves were added (the same objects: a quick compare)
        else:
            same = 0
            limit = min(len(old.moves), len(moves))
            while same < limit and old.moves[same] == moves[same]:
                same += 1
        # encoded once: the answer and every listener's event share the text
        update = Encoded(room.update(old.version, same, old_turns))
        room.announce(event_message(etype, ev.version, data, update))
        return update

    async def _act(self, game_id: str,
                   act: Callable[[Room], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """Run a change on a game's current room; a request that waited on the lock of a room
        dropped meanwhile (``stale_room``) is run once more on the reloaded room."""
        for attempt in range(STALE_TRIES):
            room = await self.room(game_id)
            try:
                return await act(room)
            except ApiError as exc:
                if exc.code != "stale_room" or attempt == STALE_TRIES - 1:
                    raise
                if not room.session.closed and not await self.refresh(room) \
                        and exc.detail.startswith(AHEAD):
                    raise ApiError(409, "stale_version", exc.detail) from None
        raise AssertionError("unreachable")

    async def move(self, game_id: str, key: str | None, text: str,
                   expect: int | None = None) -> dict[str, Any]:
        """Play ``text`` for the seat ``key`` opens; with ``expect``, only if the game is
        still at that version (a client never plays on a position it has not seen, and a
        repeated request cannot play twice)."""
        return await self._act(game_id, lambda room: room.session.move(
            room.seat_of(key), text, expect=expect))

    async def undo(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.undo(room.seat_of(key)))

    async def offer(self, game_id: str, key: str | None, kind: str, action: str
                    ) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.offer(room.seat_of(key),
                                                                        kind, action))

    async def resign(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.resign(room.seat_of(key)))

    async def open_seat(self, game_id: str, key: str | None) -> dict[str, Any]:
        """A page opened the seat ``key`` opens: the first time (in a timed game whose
        seats are not both open yet), stored and announced as the change ``opened``
        (``{seats}``), which starts the first-move timer once both seats are open
        (:mod:`.clocks`); later, nothing is written. Answers the game's full state."""
        room = await self.room(game_id, fresh=True)
        if room.seat_of(key) is None:
            raise ApiError(403, "bad_key", "this secret does not open a seat of this game")

        async def note(r: Room) -> dict[str, Any]:
            await r.session.note_open(lambda: r.unseen(r.seat_of(key)))
            return r.state()

        if room.unseen(room.seat_of(key)) is None:
            return room.state()
        return await self._act(game_id, note)

    async def hint(self, game_id: str, key: str | None) -> dict[str, Any]:
        room = await self.room(game_id)
        return await room.session.hint(room.seat_of(key))

    # --- listeners --------------------------------------------------------------------------
    async def catch_up(self, room: Room, since: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: the events it missed, or a full state."""
        if self.store.shared:
            room = await self.room(room.row.id, fresh=True)
        async with room.session.lock:
            current = room.row.version
            if since is not None and 0 <= since <= current and current - since <= MAX_CATCH_UP:
                if since == current:
                    return [{"type": "uptodate", "v": current}]
                missed = await asyncio.to_thread(self.store.events_since, room.row.id,
                                                 since, MAX_CATCH_UP, current)
                if missed and missed[0].version == since + 1 and missed[-1].version == current:
                    out: list[dict[str, Any]] = [
                        {"type": e.type, "v": e.version, "data": e.data, "update": None}
                        for e in missed]
                    out[-1]["update"] = room.update(
                        since, moves_from_events(len(room.row.moves), missed))
                    return out
            return [{"type": "sync", "v": current, "data": {}, "state": room.state()}]

    async def changes(self, game_id: str, since: int | None) -> dict[str, Any]:
        """``GET /api/games/{id}?since=V``: the update from version ``since`` (the full state
        without it, or when ``since`` is too old or not a version of the game)."""
        room = await self.room(game_id, fresh=True)
        async with room.session.lock:
            current = room.row.version
            if since is None or not 0 < since <= current or current - since > MAX_CATCH_UP:
                return room.state()
            if since == current:
                return room.update(since, len(room.row.moves))
            missed = await asyncio.to_thread(self.store.events_since, room.row.id, since,
                                             MAX_CATCH_UP, current)
            if not (missed and missed[0].version == since + 1
                    and missed[-1].version == current):
                return room.state()
            return room.update(since, moves_from_events(len(room.row.moves), missed))
