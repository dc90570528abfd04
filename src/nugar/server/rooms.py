"""One authority per online game: the room that holds its engine, lock, seats and listeners.

Every change to a game (a move, an undo, an offer, a resignation, an AI decision) runs inside
the room's ``asyncio.Lock``, is checked by the engine, written to the store and only then
announced to the game's websocket listeners with the next version number. Concurrent requests
on one game therefore never interleave, and what listeners see is what was stored.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import random
import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..ai.agents import DEFAULT_LEVEL, LEVEL_RANGE, LEVEL_RANGE_TEXT
from ..errors import IllegalMoveError, InvalidMoveError, RulesError
from ..rules import Game, Move, Outcome, new_game, parse_rules
from ..warmup import WARMUP, Warmup, steps_for
from .render import board_data, svg
from .store import GameRow, Store, StoredEvent, hash_key

log = logging.getLogger("nugar.server")

MODES = ("ai", "friend", "hotseat")
#: most journal entries sent to a reconnecting client before it is told to resync instead
MAX_CATCH_UP = 500
#: most moves a stored or created game may hold (guards memory and replay time)
MAX_MOVES = 5000


class ApiError(Exception):
    """A refused request: HTTP status, a short machine code and a sentence for people."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


def replay(rules: str, moves: list[str], ending: dict[str, Any] | None) -> Game:
    """Rebuild a game from its rule set and move texts; the engine checks every move."""
    game = new_game(rules)
    for i, text in enumerate(moves):
        try:
            game.play(Move.parse(text))
        except ValueError as exc:
            raise ApiError(409, "corrupt_game",
                           f"stored move {i + 1} ({text!r}) cannot be replayed: {exc}") from None
    if ending and "resigned" in ending:
        game.resign(int(ending["resigned"]))
    return game


@dataclass
class Room:
    """A live game: the stored row, the engine replayed from it, and its listeners."""

    row: GameRow
    game: Game
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[asyncio.Queue[dict[str, Any]]] = field(default_factory=set)
    ai_task: asyncio.Task[None] | None = None
    agent: Any = None  # the room's own AI player (search agents keep tables: never shared)

    # --- reading ----------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        if self.row.ending and self.row.ending.get("agreement"):
            return Outcome(None, "agreement")
        return self.game.outcome

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
        game = self.game
        outcome = self.outcome
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
            "mode": self.row.mode,
            "ai_level": self.row.ai_level,
            "ai_seat": self.row.ai_seat,
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
            "offers": self.row.offers,
            "ply": len(moves),
            "board": board_data(game),
            "svg": svg(game, last_move=last_turn),
        }
        if history:
            out["turns"] = [{"player": p, "text": t, "n": len(ms)} for (p, ms), t in
                            zip(turns, game.turns(), strict=True)]
            out["moves"] = [str(m) for m in moves]
        return out


class Hub:
    """All rooms of one server: loads them from the store on demand and runs their AI."""

    def __init__(self, store: Store, ai_time: float = 1.0, max_rooms: int = 2000,
                 warmup: Warmup | None = None) -> None:
        self.store = store
        self.ai_time = ai_time
        #: this process's compiling (``nugar.warmup``): an AI move first waits for its part
        self.warmup = WARMUP if warmup is None else warmup
        self.max_rooms = max_rooms
        self.rooms: OrderedDict[str, Room] = OrderedDict()
        self._load_lock = asyncio.Lock()

    # --- rooms ------------------------------------------------------------------------------
    async def room(self, game_id: str) -> Room:
        """The room of a game, replaying it from the store on first use."""
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
            row = await asyncio.to_thread(self.store.load, game_id)
            if row is None:
                raise ApiError(404, "unknown_game", f"no game with id {game_id!r}")
            game = await asyncio.to_thread(replay, row.rules, row.moves, row.ending)
            room = Room(row, game)
            self.rooms[game_id] = room
            self._evict()
            self._kick_ai(room)
            return room

    def _evict(self) -> None:
        """Forget idle rooms beyond ``max_rooms`` (they are reloaded from the store on use)."""
        for gid in list(self.rooms):
            if len(self.rooms) <= self.max_rooms:
                break
            r = self.rooms[gid]
            busy = r.lock.locked() or r.listeners or (r.ai_task and not r.ai_task.done())
            if not busy:
                del self.rooms[gid]

    async def resume_all(self) -> None:
        """At start-up: reopen every unfinished game against the AI, so the AI moves on."""
        for gid in await asyncio.to_thread(self.store.unfinished_ai_games):
            try:
                await self.room(gid)
            except ApiError as exc:
                log.error("cannot resume game %s: %s", gid, exc.detail)

    async def close(self) -> None:
        tasks = [r.ai_task for r in self.rooms.values() if r.ai_task and not r.ai_task.done()]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await t

    # --- creating ---------------------------------------------------------------------------
    async def create(self, rules: str, mode: str, ai_level: int | None, human_seat: int | None
                     ) -> tuple[Room, dict[str, str]]:
        """Create and store a new game; returns its room and the secrets of its seats."""
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
        first = StoredEvent(1, "created", {"rules": row.rules, "mode": mode})
        await asyncio.to_thread(self.store.create, row, first)
        room = Room(row, game)
        self.rooms[row.id] = room
        self._evict()
        self._kick_ai(room)
        return room, keys

    # --- changes ----------------------------------------------------------------------------
    async def _commit(self, room: Room, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store the room's new state with one new event, then announce it.

        Called with the room's lock held and the engine already changed. If the write fails
        the room is dropped, so the next request replays the game from what was stored.
        """
        row = room.row
        outcome = room.outcome
        row.moves = [str(m) for m in room.game.move_stack]
        row.result = None if outcome is None else outcome.result
        row.reason = None if outcome is None else outcome.reason
        ev = StoredEvent(row.version + 1, etype, data)
        try:
            await asyncio.to_thread(self.store.save, row, ev)
        except Exception as exc:
            self.rooms.pop(row.id, None)
            log.exception("storing game %s failed", row.id)
            raise ApiError(503, "storage_failed",
                           "the move could not be stored; nothing was changed, try again"
                           ) from exc
        row.version = ev.version
        state = room.state()
        message = {"type": etype, "v": ev.version, "data": data, "state": state}
        for q in list(room.listeners):
            if q.qsize() > 1000:  # a listener that stopped reading is dropped
                room.listeners.discard(q)
                continue
            q.put_nowait(message)
        return state

    def _require_seat(self, room: Room, key: str | None) -> int:
        seat = room.seat_of(key)
        if seat is None:
            raise ApiError(403, "bad_key",
                           "this secret does not open a seat of this game; spectators cannot "
                           "act")
        return seat

    def _require_running(self, room: Room) -> None:
        outcome = room.outcome
        if outcome is not None:
            raise ApiError(409, "game_over", f"the game is over ({outcome})")

    async def move(self, game_id: str, key: str | None, text: str) -> dict[str, Any]:
        room = await self.room(game_id)
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise ApiError(422, "bad_move", "a move is a short text such as 'c3', 'c3-c4xe5' "
                           "or '4'")
        async with room.lock:
            seat = self._require_seat(room, key)
            self._require_running(room)
            game = room.game
            mover = game.to_move
            if seat not in (0, mover):
                raise ApiError(409, "not_your_turn",
                               f"it is {game.player_name(mover)}'s turn, not "
                               f"{game.player_name(seat)}'s")
            if len(game.move_stack) >= MAX_MOVES:
                raise ApiError(409, "too_long", f"a game may hold at most {MAX_MOVES} moves")
            before = len(game.move_stack)
            try:
                game.play(text)
            except InvalidMoveError as exc:
                raise ApiError(422, "invalid_move", str(exc)) from None
            except IllegalMoveError as exc:
                raise ApiError(409, "illegal_move", str(exc)) from None
            except ValueError as exc:  # any other refusal by the engine names its reason
                raise ApiError(422, "invalid_move", str(exc)) from None
            played = [str(m) for m in game.move_stack[before:]]
            room.row.offers = {}
            state = await self._commit(room, "move", {"player": mover, "moves": played})
        self._kick_ai(room)
        return state

    async def undo(self, game_id: str, key: str | None) -> dict[str, Any]:
        """Take back moves: against the AI back to the human's previous turn; hot-seat one turn."""
        room = await self.room(game_id)
        async with room.lock:
            seat = self._require_seat(room, key)
            if room.row.mode == "friend":
                raise ApiError(409, "ask_takeback",
                               "between two people, offer a takeback instead of undoing")
            if room.row.ending:
                raise ApiError(409, "game_over", f"the game is over ({room.outcome})")
            game = room.game
            if room.row.mode == "ai":
                human = seat
                turns = game.turn_list()
                if not any(p == human for p, _ in turns):
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet")
                undone: list[str] = []
                took_human = False
                # take back whole turns until one of the human's is gone and he is to move
                while game.move_stack and not (took_human and game.to_move == human):
                    last_mover = game.turn_list()[-1][0]
                    undone[:0] = [str(m) for m in game.undo_turn()]
                    took_human = took_human or last_mover == human
            else:
                if not game.move_stack:
                    raise ApiError(409, "nothing_to_undo", "no move has been played")
                undone = [str(m) for m in game.undo_turn()]
            room.row.offers = {}
            state = await self._commit(room, "undo", {"moves": undone})
        self._kick_ai(room)
        return state

    async def offer(self, game_id: str, key: str | None, kind: str, action: str
                    ) -> dict[str, Any]:
        """Draw and takeback offers: ``offer``, ``accept``, ``decline`` (or ``cancel``)."""
        if kind not in ("draw", "takeback"):
            raise ApiError(404, "unknown_offer", f"offers are draw or takeback, not {kind!r}")
        if action not in ("offer", "accept", "decline", "cancel"):
            raise ApiError(422, "bad_action",
                           f"action must be offer, accept, decline or cancel, not {action!r}")
        room = await self.room(game_id)
        async with room.lock:
            seat = self._require_seat(room, key)
            self._require_running(room)
            row = room.row
            if row.mode != "friend":
                if kind == "draw" and row.mode == "hotseat" and action in ("offer", "accept"):
                    # both players sit at the same screen: an offer is already agreed
                    row.ending = {"agreement": True}
                    row.offers = {}
                    return await self._commit(room, "draw", {"agreed": True})
                raise ApiError(409, "no_offers", "offers are made between two people playing "
                               "by link" + ("; against the AI use undo" if row.mode == "ai"
                                            else ""))
            pending = row.offers.get(kind)
            game = room.game
            if action == "offer":
                if pending == seat:
                    raise ApiError(409, "already_offered", f"you already offered a {kind}")
                if pending is not None:
                    action = "accept"  # both offered: that is agreement
                elif kind == "takeback" and not any(p == seat for p, _ in game.turn_list()):
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet")
                else:
                    row.offers = {**row.offers, kind: seat}
                    return await self._commit(room, "offer", {"kind": kind, "by": seat})
            if action in ("decline", "cancel"):
                if pending is None:
                    raise ApiError(409, "no_offer", f"there is no {kind} offer to {action}")
                if (action == "cancel") != (pending == seat):
                    raise ApiError(409, "not_yours", "only the player who made an offer may "
                                   "cancel it, and only the other may decline it")
                row.offers = {k: v for k, v in row.offers.items() if k != kind}
                return await self._commit(room, action, {"kind": kind, "by": seat})
            # accept
            if pending is None or pending == seat:
                raise ApiError(409, "no_offer", f"there is no {kind} offer from your opponent")
            row.offers = {}
            if kind == "draw":
                row.ending = {"agreement": True}
                return await self._commit(room, "draw", {"agreed": True})
            asker = pending
            undone: list[str] = []
            # take back turns until the asker's own last turn is gone and he is to move
            while game.move_stack:
                last_mover = game.turn_list()[-1][0]
                undone[:0] = [str(m) for m in game.undo_turn()]
                if last_mover == asker and game.to_move == asker:
                    break
            return await self._commit(room, "takeback", {"moves": undone, "by": asker})

    async def resign(self, game_id: str, key: str | None) -> dict[str, Any]:
        room = await self.room(game_id)
        async with room.lock:
            seat = self._require_seat(room, key)
            self._require_running(room)
            player = room.game.to_move if seat == 0 else seat
            room.game.resign(player)
            room.row.ending = {"resigned": player}
            room.row.offers = {}
            return await self._commit(room, "resign", {"player": player})

    # --- AI ---------------------------------------------------------------------------------
    @staticmethod
    def _agent(level: int) -> Any:
        from ..ai import make_agent

        return make_agent(f"level:{level}")

    def _limits(self) -> Any:
        from ..ai import Limits

        return Limits(time=self.ai_time)

    async def hint(self, game_id: str, key: str | None) -> dict[str, Any]:
        room = await self.room(game_id)
        seat = self._require_seat(room, key)
        if room.row.mode == "friend":
            raise ApiError(409, "no_hints", "hints are for games against the AI or hot-seat")
        self._require_running(room)
        game = room.game.copy()
        if seat not in (0, game.to_move):
            raise ApiError(409, "not_your_turn", "a hint is given to the player to move")
        # the hint comes from an agent as strong as the opponent (hot-seat: the default level)
        level = room.row.ai_level or DEFAULT_LEVEL
        await asyncio.to_thread(self._engine_ready, game, level)
        agent = self._agent(level)
        analysis = await asyncio.to_thread(agent.analyse, game, self._limits())
        return {"move": str(analysis.move), "score": analysis.score, "depth": analysis.depth,
                "pv": [str(m) for m in analysis.pv]}

    def _kick_ai(self, room: Room) -> None:
        """Start the AI's task if it is the AI's turn and none runs yet."""
        if room.row.mode != "ai" or room.outcome is not None:
            return
        if room.game.to_move != room.row.ai_seat:
            return
        if room.ai_task is not None and not room.ai_task.done():
            return
        room.ai_task = asyncio.create_task(self._ai_turn(room))

    def _engine_ready(self, game: Game, level: int) -> None:
        """Block until the compiled code of the AI at ``level`` is ready (a first run
        compiles it: the page shows ``GET /api/warmup`` meanwhile; cached, it is at once)."""
        steps = steps_for(game.rules, [f"level:{level}"])
        self.warmup.add(steps)
        self.warmup.wait(steps=steps)

    async def _ai_turn(self, room: Room) -> None:
        level = room.row.ai_level or DEFAULT_LEVEL
        try:
            await asyncio.to_thread(self._engine_ready, room.game, level)
            if room.agent is None:
                room.agent = self._agent(level)
            agent = room.agent
            while True:
                async with room.lock:
                    game = room.game
                    if room.outcome is not None or game.to_move != room.row.ai_seat:
                        return
                    if self.rooms.get(room.row.id) is not room:
                        return  # the room was dropped after a failed write
                    snapshot = game.copy()
                    try:
                        move = await asyncio.to_thread(agent.choose, snapshot, self._limits())
                    except Exception:
                        # a failing agent must not stall the game: fall back to a legal move
                        log.exception("AI level %s failed in game %s", level, room.row.id)
                        move = random.choice(game.legal_moves())
                    mover = game.to_move
                    game.play(move)
                    await self._commit(room, "move", {"player": mover, "moves": [str(move)],
                                                      "ai": True})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("AI failed in game %s", room.row.id)

    # --- listeners --------------------------------------------------------------------------
    async def catch_up(self, room: Room, since: int | None) -> list[dict[str, Any]]:
        """What a (re)connecting client needs: the events it missed, or a full state."""
        async with room.lock:
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
