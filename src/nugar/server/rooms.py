"""One authority per online game: the room that holds its session, stored row and listeners.

A room's :class:`~.session.GameSession` decides every change to the game (a move, an undo,
an offer, a resignation, a computer move) under its lock; the room then writes the change to
the store and only then announces it to the game's websocket listeners with the next version
number. Concurrent requests on one game therefore never interleave, and what listeners see is
what was stored. The :class:`Hub` keeps the rooms of one server, loading each from the store
on first use.
"""

from __future__ import annotations

import asyncio
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
from ..rules import Game, new_game, parse_rules
from .clocks import Clock, TimeControl, flag_if_due
from .render import board_data, svg
from .session import MODES, Agents, ApiError, ComputerPlayer, GameSession, rematch_id, restore
from .store import CorruptRow, GameRow, Store, StoredEvent, VersionConflict, hash_key

log = logging.getLogger("nugar.server")

#: days without a change after which an unfinished game is closed (``--expire-days``)
EXPIRE_DAYS = 30.0
#: most journal entries sent to a reconnecting client before it is told to resync instead
MAX_CATCH_UP = 500
#: most events waiting for one websocket listener; one more drops it (it resyncs on reconnect)
LISTENER_QUEUE = 64


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
                                   offers=row.offers)

    def announce(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every listener, dropping those whose queue is full."""
        for listener in list(self.listeners):
            if not listener.offer(message):
                self.listeners.discard(listener)

    # --- reading ----------------------------------------------------------------------------
    def seat_of(self, key: str | None) -> int | None:
        """The seat a secret opens: 1, 2, 0 for a hot-seat key (both seats), else ``None``."""
        if not key or len(key) > 200:
            return None
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
        """The public view of the game (no secrets): everything a client draws."""
        session = self.session
        game = session.game
        outcome = game.outcome
        moves = game.move_stack
        turns = game.turn_list()
        last_turn = turns[-1][1] if turns else []
        legal = [] if outcome is not None else [str(m) for m in game.legal_moves()]
        out: dict[str, Any] = {
            "id": self.row.id,
            "v": self.row.version,
            "rules": game.rules.text,
            "game": game.rules.game,
            "family": game.rules.family,
            "players": [game.player_name(1), game.player_name(2)],
            "mode": session.mode,
            "ai_level": session.ai_level,
            "ai_seat": session.ai_seat,
            "to_move": None if outcome is not None else game.to_move,
            "over": outcome is not None,
            "result": None if outcome is None else outcome.result,
            "winner": None if outcome is None else outcome.winner,
            "reason": None if outcome is None else outcome.reason,
            "score": list(game.score),
            "legal": legal,
            "last_move": str(moves[-1]) if moves else None,
            "last_turn": [str(m) for m in last_turn],
            "last_mover": turns[-1][0] if turns else None,
            "offers": session.offers,
            # the rematch offered after the game (:mod:`.rematch`), if one was
            "rematch": (rematch_id(self.row.id, len(self.row.moves))
                        if "rematch" in session.offers else None),
            "ply": len(moves),
            "clock": None if self.clock is None else self.clock.view(self.now()),
            "board": board_data(game),
            "svg": svg(game, last_move=last_turn),
        }
        if history:
            out["turns"] = [{"player": p, "text": t, "n": len(ms)} for (p, ms), t in
                            zip(turns, game.turns(), strict=True)]
            out["moves"] = [str(m) for m in moves]
        return out


def _version(room: Room) -> int:
    return room.row.version


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
        self.rooms[row.id] = room
        self._evict()
        room.session.schedule_ai()
        return room

    async def room(self, game_id: str) -> Room:
        """The room of a game, replaying it from the store on first use; if its clock ran
        out meanwhile, the flag falls first (:func:`~.clocks.flag_if_due`)."""
        room = await self._room(game_id)
        if room.clock is not None:
            await flag_if_due(room, self.clock)
        return room

    async def _room(self, game_id: str) -> Room:
        if not isinstance(game_id, str) or not game_id.isalnum() or len(game_id) > 32:
            raise ApiError(404, "unknown_game", f"no game with id {game_id!r}")
        room = self.rooms.get(game_id)
        if room is not None:
            self.rooms.move_to_end(game_id)
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

    def _evict(self) -> None:
        """Forget idle rooms beyond ``max_rooms`` (they are reloaded from the store on use)."""
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
        """Close every unfinished game without a change for ``expire_days`` (an adjudicated
        draw, announced and stored as the event ``expired``) and forget its room; returns
        their ids. A game that cannot be rebuilt is left as it is (it is refused anyway)."""
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
                log.info("game %s expired after %s idle days", gid, self.expire_days)
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
                     time_control: TimeControl | None = None
                     ) -> tuple[Room, dict[str, str]]:
        """Create and store a new game (with a clock under ``time_control``, if given);
        returns its room and the secrets of its seats."""
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
        if time_control is not None:
            clock = Clock.new(time_control)
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
        row = room.row
        session = room.session
        outcome = session.game.outcome
        before = (row.moves, row.ending, row.offers, row.result, row.reason)
        clock_before = (row.clock, row.deadline)
        if room.clock is not None:  # the server stamps the change on the clocks
            room.clock.settle(None if outcome is not None else session.game.to_move,
                              self.clock(), moved=etype == "move")
            row.clock, row.deadline = room.clock.to_json(), room.clock.deadline()
        row.moves = [str(m) for m in session.game.move_stack]
        row.ending = session.ending
        row.offers = dict(session.offers)
        row.result = None if outcome is None else outcome.result
        row.reason = None if outcome is None else str(outcome.reason)
        ev = StoredEvent(row.version + 1, etype, data)
        try:
            await asyncio.to_thread(self.store.save, row, ev)
        except Exception as exc:
            row.moves, row.ending, row.offers, row.result, row.reason = before
            row.clock, row.deadline = clock_before
            room.clock = Clock.from_json(row.clock)
            if isinstance(exc, VersionConflict):
                # someone else wrote this game: drop the room, the next request reloads it
                session.closed = True
                if self.rooms.get(row.id) is room:
                    del self.rooms[row.id]
            # otherwise the write changed nothing: the session rolls its game back to the
            # stored state and the room (with its listeners) stays the current one
            log.exception("storing game %s failed", row.id)
            raise ApiError(503, "storage_failed",
                           "the move could not be stored; nothing was changed, try again"
                           ) from exc
        row.version = ev.version
        state = room.state()
        message = {"type": etype, "v": ev.version, "data": data, "state": state}
        room.announce(message)
        return state

    async def _act(self, game_id: str,
                   act: Callable[[Room], Awaitable[dict[str, Any]]]) -> dict[str, Any]:
        """Run a change on a game's current room; a request that waited on the lock of a room
        dropped meanwhile (``stale_room``) is run once more on the reloaded room."""
        for attempt in range(2):
            room = await self.room(game_id)
            try:
                return await act(room)
            except ApiError as exc:
                if exc.code != "stale_room" or attempt:
                    raise
        raise AssertionError("unreachable")

    async def move(self, game_id: str, key: str | None, text: str) -> dict[str, Any]:
        return await self._act(game_id,
                               lambda room: room.session.move(room.seat_of(key), text))

    async def undo(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.undo(room.seat_of(key)))

    async def offer(self, game_id: str, key: str | None, kind: str, action: str
                    ) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.offer(room.seat_of(key),
                                                                        kind, action))

    async def resign(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._act(game_id, lambda room: room.session.resign(room.seat_of(key)))

    async def hint(self, game_id: str, key: str | None) -> dict[str, Any]:
        room = await self.room(game_id)
        return await room.session.hint(room.seat_of(key))

    # --- listeners --------------------------------------------------------------------------
    async def catch_up(self, room: Room, since: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: the events it missed, or a full state."""
        async with room.session.lock:
            current = room.row.version
            if since is not None and 0 <= since <= current and current - since <= MAX_CATCH_UP:
                if since == current:
                    return [{"type": "uptodate", "v": current}]
                missed = await asyncio.to_thread(self.store.events_since, room.row.id,
                                                 since, MAX_CATCH_UP)
                if missed and missed[0].version == since + 1 and missed[-1].version == current:
                    out: list[dict[str, Any]] = [
                        {"type": e.type, "v": e.version, "data": e.data, "state": None}
                        for e in missed]
                    out[-1]["state"] = room.state()
                    return out
            return [{"type": "sync", "v": current, "data": {}, "state": room.state()}]
