"""One authority per online game, and the Hub that keeps them: every change decided, stored,
then announced.

A game's :class:`~.room.Room` is its one serialized authority in this process: a request
(a move, an undo, an offer, a resignation, the computer's move, a fallen flag) is decided by
the session (:class:`~.session.GameSession`) under the room's lock, which returns the change;
the room has it written (the Hub's :class:`~.writer.GameWriter`, which numbers it: the next
version) and only then announces it to the game's websocket listeners
(:meth:`~.room.Room.act`). Concurrent requests on one game therefore never interleave, and
what listeners see is what was stored. The Hub keeps the rooms of one server, loading each
from the store on first use, and builds each with what it needs: the AI pool its computer
thinks in (:mod:`.ai_pool`), the writer, and its follower's refresh; its request methods
(:meth:`Hub.move`, ...) name the decision and hand it to the room.

The store is the authority, the rooms are caches of it: a change is written only if the
stored version is still the room's (:meth:`~.store.Store.submit`); when another process got
there first, the room is brought up to the stored game (:meth:`~.room.Room.apply_row`: the
new moves played on the cached game, or a full replay when the history changed) and the
request is decided again. Following the versions other processes store, on a shared database
(PostgreSQL), is the Hub's :class:`~.follow.Follower` (:mod:`.follow`). The clocks of a timed
game (:mod:`.clocks`) are stamped by the process that stores a change and written in the same
row; a room refreshed after another process's change reads that row back (its clocks with it)
rather than playing the heard moves, so every process shows the clocks as stored.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import re
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ...ai.agents import DEFAULT_LEVEL, LEVEL_RANGE, LEVEL_RANGE_TEXT
from ...errors import RulesError
from ...i18n import Text
from ...rules import Game, new_game, parse_rules
from ..config import DEFAULTS
from ..errors import ApiError, reason
from ..storage.store import (
    CorruptRow,
    GameRow,
    Store,
    StoredEvent,
    hash_key,
    log_failure,
    new_key,
    refusing,
)
from ..work.ai_pool import Agents, AiPool
from . import offers, timing
from .clocks import Clock, TimeControl, flag_if_due
from .endings import restore
from .follow import Follower
from .room import Room
from .session import AHEAD, MODES, Change, GameSession, move_text
from .writer import GameWriter

log = logging.getLogger("nugar.server")

#: days without a change after which an unfinished game is closed (``--expire-days``)
EXPIRE_DAYS = DEFAULTS.expire_days
#: a game's id as the URLs and the store take it: 1 to 32 ASCII letters and digits (the
#: ids made here are 16 hex digits); the fast lane's paths are made from it
GAME_ID = re.compile(r"[A-Za-z0-9]{1,32}")
#: times a change is decided again when another process stored the game meanwhile
STALE_TRIES = 5


def _seats(mode: str, ai_level: int | None, human_seat: int | None,
           seat_hash: tuple[int, str] | None
           ) -> tuple[int | None, int | None, str | None, str | None, dict[str, str]]:
    """The seats of a new game (:meth:`Hub.create`): its AI level and seat, the hashes of its
    seats' secrets and the secrets themselves, by seat (``"0"``: the hot-seat key)."""
    keys: dict[str, str] = {}
    ai_seat: int | None = None
    hash_1: str | None = None
    hash_2: str | None = None
    if mode == "ai":
        if ai_level is None:  # the level people get when they name none
            ai_level = DEFAULT_LEVEL
        if ai_level not in LEVEL_RANGE:
            raise ApiError("bad_level", Text(
                "AI level must be a whole number {level_range_text}, not {ai_level!r}",
                domain="web", level_range_text=LEVEL_RANGE_TEXT, ai_level=ai_level))
        seat = 1 if human_seat is None else human_seat
        if seat not in (1, 2):
            raise ApiError("bad_seat", Text(
                "seat must be 1 or 2, not {human_seat!r}",
                domain="web", human_seat=human_seat))
        ai_seat = 3 - seat
        key = new_key()
        keys[str(seat)] = key
        if seat == 1:
            hash_1 = hash_key(key)
        else:
            hash_2 = hash_key(key)
    elif mode == "friend":
        keys["1"], keys["2"] = new_key(), new_key()
        hash_1, hash_2 = hash_key(keys["1"]), hash_key(keys["2"])
        if seat_hash is not None:
            del keys[str(seat_hash[0])]
            if seat_hash[0] == 1:
                hash_1 = seat_hash[1]
            else:
                hash_2 = seat_hash[1]
        ai_level = None
    else:
        key = new_key()
        keys["0"] = key
        hash_1 = hash_2 = hash_key(key)
        ai_level = None
    return ai_level, ai_seat, hash_1, hash_2, keys


def _timed(row: GameRow, game: Game, time_control: TimeControl | None,
           seat_hash: tuple[int, str] | None, now: Callable[[], float]) -> StoredEvent:
    """The new game ``row``'s clocks set (under ``time_control``, if given) and its first
    event, ``created``."""
    created: dict[str, Any] = {"rules": row.rules, "mode": row.mode}
    if row.rated:
        created["rated"] = True
    if time_control is not None:  # the first player's first move is timed from now
        # a game by link waits for both players to open their links; the lobby's game
        # (seat_hash) is made when both are there
        by_link = row.mode == "friend" and seat_hash is None
        clock = Clock.new(time_control, now(),
                          None if game.to_move == row.ai_seat else game.to_move,
                          seen=(not by_link, not by_link))
        row.clock, row.deadline = clock.to_json(), clock.deadline()
        created["clock"] = time_control.text
    return StoredEvent(1, "created", created)


def _expire(session: GameSession, room: Room, idle: int) -> Change | None:
    """The decision closing ``room``'s game, found idle at version ``idle``."""
    return timing.expire(session, idle, room.row.version)


class Hub:
    """All rooms of one server: loads them from the store on demand, stores and announces
    their changes."""

    def __init__(self, store: Store, pool: AiPool | None = None,
                 max_rooms: int = 2000, *, expire_days: float | None = EXPIRE_DAYS,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        #: unfinished games idle this many days are closed by :meth:`expire_idle`
        self.expire_days = expire_days
        self.clock = clock
        #: where the computer of every game thinks; without one given, the Hub makes its own
        #: (nugar's levels, one worker) and closes it with itself
        self.pool = AiPool(Agents()) if pool is None else pool
        self._own_pool = pool is None
        self.max_rooms = max_rooms
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._load_lock = asyncio.Lock()
        #: keeps the rooms up with the versions other processes store
        self.follower = Follower(store, self.rooms, functools.partial(self.room, fresh=True))
        #: stores every room's changes (:meth:`.room.Room.act`)
        self.writer = GameWriter(store, lambda: self.clock())

    # --- rooms ------------------------------------------------------------------------------
    def _open(self, row: GameRow, game: Game) -> Room:
        """The room of a stored row and its replayed game, kept and its computer started."""
        room = Room(row, game, self.pool, write=self.writer, refresh=self.follower.refresh,
                    now=self.clock)
        self.rooms[row.id] = room
        self._evict()
        room.computer.schedule()
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
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise ApiError("unknown_game", Text(
                "no game with id {game_id!r}",
                domain="web", game_id=game_id))
        room = self.rooms.get(game_id)
        if room is not None:
            self.rooms.move_to_end(game_id)
            with refusing(f"reading game {game_id}"):
                await self.follower.bring_up(room, fresh)
            return room
        async with self._load_lock:
            room = self.rooms.get(game_id)
            if room is not None:
                return room
            try:
                with refusing(f"reading game {game_id}"):
                    row = await asyncio.to_thread(self.store.load, game_id)
                if row is None:
                    raise ApiError("unknown_game", Text(
                        "no game with id {game_id!r}",
                        domain="web", game_id=game_id))
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
                raise ApiError("corrupt_game", Text(
                    "the stored game {game_id} cannot be rebuilt: {exc}",
                    domain="web", game_id=game_id, exc=exc)) from None

    def _evict(self) -> None:
        """Forget idle rooms beyond ``max_rooms`` (they are reloaded from the store on use)."""
        if len(self.rooms) <= self.max_rooms:
            return
        for gid in list(self.rooms):
            if len(self.rooms) <= self.max_rooms:
                break
            r = self.rooms[gid]
            if not (r.busy or r.listeners):
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
        aborted (no result, the event ``abort``, :func:`.timing.expire`), any other one
        is an adjudicated draw (the event ``expired``); either is stored and announced. A
        game that cannot be rebuilt is left as it is (it is refused anyway)."""
        if self.expire_days is None:
            return []
        cutoff = self.clock() - self.expire_days * 86400
        closed: list[str] = []
        for gid, version in await asyncio.to_thread(self.store.idle_games, cutoff):
            try:
                room = await self.room(gid)
                done = await room.act(functools.partial(_expire, room=room, idle=version),
                                      current=False) is not None
            except ApiError as exc:
                log.warning("cannot expire game %s: %s", gid, exc.detail)
                continue
            if done:
                await room.computer.close()
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
            except Exception as exc:
                log_failure("closing idle games", exc)

    async def close(self) -> None:
        for room in list(self.rooms.values()):
            await room.computer.close()
        if self._own_pool:
            self.pool.close()

    # --- creating ---------------------------------------------------------------------------
    async def create(self, rules: str, mode: str, ai_level: int | None, human_seat: int | None,
                     time_control: TimeControl | None = None,
                     seat_hash: tuple[int, str] | None = None,
                     accounts: tuple[int | None, int | None] = (None, None),
                     rated: bool = False) -> tuple[Room, dict[str, str]]:
        """Create and store a new game (with a clock under ``time_control``, if given);
        returns its room and the secrets of its seats. ``seat_hash`` (mode ``friend``):
        ``(seat, hash)``, that seat opens with a secret its holder already has (the lobby's
        challenge key), whose hash is given; it is not among the secrets returned.
        ``accounts``: the accounts holding seats 1 and 2 (the lobby's signed-in players);
        ``rated``: the game's end updates their ratings (:meth:`.store.Store._rate`)."""
        if mode not in MODES:
            raise ApiError("bad_mode", Text(
                "mode {mode!r} is unknown; allowed: {modes}",
                domain="web", mode=mode, modes=', '.join(MODES)))
        try:
            rule_set = parse_rules(rules)
            game = new_game(rule_set)
        except RulesError as exc:
            raise ApiError("bad_rules", reason(exc)) from None
        if mode == "ai":
            # its computer's turns cannot be refused once it exists: a client address with
            # its share of the AI queue taken makes no new game against the AI meanwhile
            self.pool.admit()
        ai_level, ai_seat, hash_1, hash_2, keys = _seats(mode, ai_level, human_seat, seat_hash)
        row = GameRow(id=secrets.token_hex(8), rules=rule_set.text, mode=mode,
                      ai_level=ai_level, ai_seat=ai_seat, key_hash_1=hash_1,
                      key_hash_2=hash_2, moves=[], ending=None, offers={}, result=None,
                      reason=None, version=1, account_1=accounts[0],
                      account_2=accounts[1], rated=rated)
        first = _timed(row, game, time_control, seat_hash, self.clock)
        with refusing("creating a game"):
            await asyncio.to_thread(self.store.create, row, first)
        return self._open(row, game), keys

    # --- changes ----------------------------------------------------------------------------
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
                if not room.closed and not await self.follower.refresh(room) \
                        and exc.detail.startswith(AHEAD):
                    raise ApiError("stale_version", exc.detail) from None
        raise AssertionError("unreachable")

    async def _request(self, game_id: str,
                       decide: Callable[[Room, GameSession], Change]) -> dict[str, Any]:
        """A player's request on a game: ``decide(room, session)`` is its decision (a change
        or a refusal), run by the room's :meth:`~.room.Room.act`."""
        async def act(room: Room) -> dict[str, Any]:
            update = await room.act(lambda session: decide(room, session))
            if update is None:
                raise AssertionError("a request's decision is a change or a refusal")
            return update

        return await self._act(game_id, act)

    async def move(self, game_id: str, key: str | None, text: str,
                   expect: int | None = None) -> dict[str, Any]:
        """Play ``text`` for the seat ``key`` opens; with ``expect``, only if the game is
        still at that version (a client never plays on a position it has not seen, and a
        repeated request cannot play twice)."""
        text = move_text(text)
        return await self._request(game_id, lambda room, s: s.move(
            room.player_of(key), text, expect, room.row.version))

    async def as_account(self, game_id: str, account: int,
                         decide: Callable[[Room, GameSession, int], Change]) -> dict[str, Any]:
        """A request of the seat the ``account`` holds (a bot's by its token: 409
        ``not_yours`` when it holds none): ``decide(room, session, seat)``."""
        return await self._request(game_id, lambda room, s: decide(
            room, s, room.seat_of_account(account)))

    async def undo(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._request(game_id, lambda room, s: s.undo(room.player_of(key)))

    async def offer(self, game_id: str, key: str | None, kind: str, action: str
                    ) -> dict[str, Any]:
        return await self._request(game_id, lambda room, s: offers.offer(
            s, room.player_of(key), kind, action))

    async def resign(self, game_id: str, key: str | None) -> dict[str, Any]:
        return await self._request(game_id, lambda room, s: s.resign(room.player_of(key)))

    async def open_seat(self, game_id: str, key: str | None) -> dict[str, Any]:
        """A page opened the seat ``key`` opens: the first time (in a timed game whose
        seats are not both open yet), stored and announced as the change ``opened``
        (``{seats}``), which starts the first-move timer once both seats are open
        (:mod:`.clocks`); later, nothing is written. Answers the game's full state."""
        room = await self.room(game_id, fresh=True)
        if room.seat_of(key) is None:
            raise ApiError("bad_key", Text(
                "this secret does not open a seat of this game",
                domain="web"))

        async def note(r: Room) -> dict[str, Any]:
            await r.act(lambda s: timing.opened(s, r.unseen(r.seat_of(key))))
            return r.state()

        if room.unseen(room.seat_of(key)) is None:
            return room.state()
        return await self._act(game_id, note)

    async def hint(self, game_id: str, key: str | None) -> dict[str, Any]:
        """A hint for the seat ``key`` opens; ``409 game_in_play`` in a game whose moves
        copy those of a rated game being played (a hot-seat game mirroring it)."""
        room = await self.room(game_id)
        seat = room.player_of(key)
        if not room.row.rated and seat is not None:
            await asyncio.to_thread(self.store.refuse_in_play, room.session.game.rules.text,
                                    list(room.row.moves))
        return await room.computer.hint(seat)

    # --- following other processes (:class:`~.follow.Follower`) ----------------------------
    def heard(self, game_id: str, version: int, event: StoredEvent | None = None) -> None:
        """Another process stored ``version`` of a game (:meth:`.follow.Follower.heard`)."""
        self.follower.heard(game_id, version, event)

    def heard_all(self) -> None:
        """Every room is checked against the store before its next use
        (:meth:`.follow.Follower.heard_all`)."""
        self.follower.heard_all()

    def behind(self, game_id: str, version: int) -> bool:
        """Whether this process holds the game at an older version than ``version``."""
        return self.follower.behind(game_id, version)

    async def catch_up(self, room: Room, since: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs (:meth:`.follow.Follower.catch_up`)."""
        with refusing(f"reading game {room.row.id}"):
            return await self.follower.catch_up(room, since)

    async def changes(self, game_id: str, since: int | None) -> dict[str, Any]:
        """``GET /api/games/{id}?since=V`` (:meth:`.follow.Follower.changes`)."""
        with refusing(f"reading game {game_id}"):
            return await self.follower.changes(game_id, since)
