"""One online game's play, apart from HTTP and storage: seats, offers, takebacks, endings and
the computer's turns.

A :class:`GameSession` holds the :class:`~nugar.rules.Game` (the only judge of the rules and
the only record of how the game ended: a resignation, an agreed draw, an adjudication or a
loss on time is applied to the game itself), the mode (against the AI, between two people
by link, hot-seat), the pending offers and the computer player. Every change runs under the
session's ``asyncio.Lock``, and is then handed to ``commit(event_type, data)``, which stores
and announces it (the server's :class:`~.rooms.Room` does that) and returns the public state.
Nothing here imports FastAPI: the tests drive sessions directly, with a fake computer player.

A stored game is its rule set, its move texts and its imposed ending (:func:`ending_of`),
which :func:`restore` applies again after the moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ..ai.agents import DEFAULT_LEVEL
from ..errors import IllegalMoveError, InvalidMoveError
from ..rules import Game, Move, Outcome, Termination, new_game

if TYPE_CHECKING:
    from ..ai import Agent, Analysis, Limits
    from ..warmup import Warmup

log = logging.getLogger("nugar.server")

MODES = ("ai", "friend", "hotseat")
OFFER_KINDS = ("draw", "takeback")
OFFER_ACTIONS = ("offer", "accept", "decline", "cancel")
#: most moves a stored or created game may hold (guards memory and replay time)
MAX_MOVES = 5000

#: stores and announces one change (an event type and its data); returns the public state
Commit = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


class ApiError(Exception):
    """A refused request: HTTP status, a short machine code and a sentence for people."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


# --- endings as stored -------------------------------------------------------------------------
def ending_of(game: Game) -> dict[str, Any] | None:
    """The ending imposed on ``game`` (a resignation, an agreed draw, an adjudication, a loss on
    time) as stored next to its moves: ``{"termination": "resigned", "winner": 1}``; ``None``
    while the game runs or when its rules ended it (the moves say so themselves)."""
    outcome = game.outcome
    if outcome is None or outcome.termination.by_rules:
        return None
    return {"termination": str(outcome.termination), "winner": outcome.winner}


def impose(game: Game, outcome: Outcome) -> None:
    """Apply an ending that the rules do not decide to the running ``game``."""
    t, winner = outcome.termination, outcome.winner
    if t is Termination.AGREEMENT:
        game.agree_draw()
    elif t is Termination.ADJUDICATION:
        game.adjudicate(winner)
    elif t is Termination.RESIGNATION and winner in (1, 2):
        game.resign(3 - winner)
    elif t is Termination.TIME and winner in (1, 2):
        game.lose_on_time(3 - winner)
    else:
        raise IllegalMoveError(f"{outcome} is not an ending a player or an arbiter imposes")


def stored_outcome(ending: dict[str, Any]) -> Outcome:
    """The imposed ending a stored ``ending`` describes; the forms written before endings
    belonged to the game, ``{"resigned": 2}`` and ``{"agreement": true}``, are read too."""
    if "termination" in ending:
        winner = ending.get("winner")
        return Outcome(None if winner is None else int(winner), str(ending["termination"]))
    if "resigned" in ending:
        return Outcome(3 - int(ending["resigned"]), Termination.RESIGNATION)
    if ending.get("agreement"):
        return Outcome(None, Termination.AGREEMENT)
    raise ValueError(f"unknown ending {ending!r}")


def restore(rules: str, moves: list[str], ending: dict[str, Any] | None) -> Game:
    """Rebuild a stored game: its moves in order, each checked by the engine, then its
    imposed ending. A game that does not replay is ``ApiError`` 409 ``corrupt_game``."""
    game = new_game(rules)
    for i, text in enumerate(moves):
        try:
            game.play(Move.parse(text))
        except ValueError as exc:
            raise ApiError(409, "corrupt_game",
                           f"stored move {i + 1} ({text!r}) cannot be replayed: {exc}") from None
    if ending:
        try:
            impose(game, stored_outcome(ending))
        except ValueError as exc:
            raise ApiError(409, "corrupt_game",
                           f"the stored ending {ending!r} cannot be applied: {exc}") from None
    return game


# --- the computer player -------------------------------------------------------------------------
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
    the process's compiling (``nugar.warmup``): a first decision waits for its part."""

    def __init__(self, ai_time: float = 1.0, warmup: Warmup | None = None) -> None:
        from ..warmup import WARMUP

        self.ai_time = ai_time
        self.warmup = WARMUP if warmup is None else warmup

    def prepare(self, game: Game, level: int) -> None:
        from ..warmup import steps_for

        steps = steps_for(game.rules, [f"level:{level}"])
        self.warmup.add(steps)
        self.warmup.wait(steps=steps)

    def agent(self, level: int) -> Agent:
        from ..ai import make_agent

        return make_agent(f"level:{level}")

    def limits(self) -> Limits:
        from ..ai import Limits

        return Limits(time=self.ai_time)


# --- the session -------------------------------------------------------------------------------
class GameSession:
    """One game being played: see the module's text. ``seat`` arguments are the seat a
    request's secret opened: 1 or 2, 0 for the hot-seat key (both seats), ``None`` for no
    seat (a spectator, who may not act: ``ApiError`` 403 ``bad_key``)."""

    def __init__(self, game: Game, mode: str, commit: Commit, computer: ComputerPlayer, *,
                 ai_seat: int | None = None, ai_level: int | None = None,
                 offers: dict[str, int] | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
        self.game = game
        self.mode = mode
        self.ai_seat = ai_seat
        self.ai_level = ai_level
        #: pending offers: kind (``draw``, ``takeback``) -> the seat that made it
        self.offers: dict[str, int] = dict(offers or {})
        self.commit = commit
        self.computer = computer
        self.lock = asyncio.Lock()
        self.ai_task: asyncio.Task[None] | None = None
        self.agent: Agent | None = None  # this game's own computer player, made on first use
        #: set when a change could not be stored: this session is stale and stops acting
        self.closed = False

    # --- reading ----------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome

    @property
    def ending(self) -> dict[str, Any] | None:
        """The imposed ending as stored (:func:`ending_of`)."""
        return ending_of(self.game)

    @property
    def busy(self) -> bool:
        """Whether a change is under way or the computer is thinking."""
        return self.lock.locked() or (self.ai_task is not None and not self.ai_task.done())

    def ai_to_move(self) -> bool:
        """Whether the computer is to move now."""
        return (self.mode == "ai" and not self.closed and self.game.outcome is None
                and self.game.to_move == self.ai_seat)

    # --- changes ----------------------------------------------------------------------------
    async def _commit(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        try:
            return await self.commit(etype, data)
        except Exception:
            self.closed = True  # what is stored is now the truth: the owner reloads it
            raise

    @staticmethod
    def _seat(seat: int | None) -> int:
        if seat is None:
            raise ApiError(403, "bad_key",
                           "this secret does not open a seat of this game; spectators cannot "
                           "act")
        return seat

    def _require_running(self) -> None:
        outcome = self.game.outcome
        if outcome is not None:
            raise ApiError(409, "game_over", f"the game is over ({outcome})")

    async def move(self, seat: int | None, text: str) -> dict[str, Any]:
        """Play a move or a whole turn for the player of ``seat``."""
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise ApiError(422, "bad_move", "a move is a short text such as 'c3', 'c3-c4xe5' "
                           "or '4'")
        async with self.lock:
            seat = self._seat(seat)
            self._require_running()
            game = self.game
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
            self.offers = {}
            state = await self._commit("move", {"player": mover, "moves": played})
        self.schedule_ai()
        return state

    async def undo(self, seat: int | None) -> dict[str, Any]:
        """Take back moves: against the AI, back to the person's previous turn (with the
        computer's replies); hot-seat, one turn. Between people, offer a takeback instead."""
        async with self.lock:
            seat = self._seat(seat)
            if self.mode == "friend":
                raise ApiError(409, "ask_takeback",
                               "between two people, offer a takeback instead of undoing")
            outcome = self.game.outcome
            if outcome is not None and not outcome.termination.by_rules:
                raise ApiError(409, "game_over", f"the game is over ({outcome})")
            game = self.game
            if self.mode == "ai":
                try:
                    undone = game.undo_to_turn_of(seat)
                except IllegalMoveError:
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet") from None
            else:
                if not game.move_stack:
                    raise ApiError(409, "nothing_to_undo", "no move has been played")
                undone = game.undo_turn()
            self.offers = {}
            state = await self._commit("undo", {"moves": [str(m) for m in undone]})
        self.schedule_ai()
        return state

    async def offer(self, seat: int | None, kind: str, action: str) -> dict[str, Any]:
        """Draw and takeback offers: ``offer``, ``accept``, ``decline`` (or ``cancel``)."""
        if kind not in OFFER_KINDS:
            raise ApiError(404, "unknown_offer", f"offers are draw or takeback, not {kind!r}")
        if action not in OFFER_ACTIONS:
            raise ApiError(422, "bad_action",
                           f"action must be offer, accept, decline or cancel, not {action!r}")
        async with self.lock:
            seat = self._seat(seat)
            self._require_running()
            if self.mode != "friend":
                if kind == "draw" and self.mode == "hotseat" and action in ("offer", "accept"):
                    # both players sit at the same screen: an offer is already agreed
                    return await self._agree_draw()
                raise ApiError(409, "no_offers", "offers are made between two people playing "
                               "by link" + ("; against the AI use undo" if self.mode == "ai"
                                            else ""))
            pending = self.offers.get(kind)
            if action == "offer":
                if pending == seat:
                    raise ApiError(409, "already_offered", f"you already offered a {kind}")
                if pending is not None:
                    action = "accept"  # both offered: that is agreement
                elif kind == "takeback" and not any(p == seat for p, _ in
                                                    self.game.turn_list()):
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet")
                else:
                    self.offers = {**self.offers, kind: seat}
                    return await self._commit("offer", {"kind": kind, "by": seat})
            if action in ("decline", "cancel"):
                if pending is None:
                    raise ApiError(409, "no_offer", f"there is no {kind} offer to {action}")
                if (action == "cancel") != (pending == seat):
                    raise ApiError(409, "not_yours", "only the player who made an offer may "
                                   "cancel it, and only the other may decline it")
                self.offers = {k: v for k, v in self.offers.items() if k != kind}
                return await self._commit(action, {"kind": kind, "by": seat})
            # accept
            if pending is None or pending == seat:
                raise ApiError(409, "no_offer", f"there is no {kind} offer from your opponent")
            if kind == "draw":
                return await self._agree_draw()
            try:
                undone = self.game.undo_to_turn_of(pending)
            except IllegalMoveError:
                raise ApiError(409, "nothing_to_undo",
                               "the player who asked has not moved yet") from None
            self.offers = {}
            return await self._commit("takeback", {"moves": [str(m) for m in undone],
                                                   "by": pending})

    async def _agree_draw(self) -> dict[str, Any]:
        self.game.agree_draw()
        self.offers = {}
        return await self._commit("draw", {"agreed": True})

    async def resign(self, seat: int | None) -> dict[str, Any]:
        """The player of ``seat`` resigns (hot-seat: the player to move)."""
        async with self.lock:
            seat = self._seat(seat)
            self._require_running()
            player = self.game.to_move if seat == 0 else seat
            self.game.resign(player)
            self.offers = {}
            return await self._commit("resign", {"player": player})

    # --- the computer -------------------------------------------------------------------------
    async def hint(self, seat: int | None) -> dict[str, Any]:
        """A suggested move for the player to move, from an agent as strong as the opponent
        (hot-seat: the default level)."""
        seat = self._seat(seat)
        if self.mode == "friend":
            raise ApiError(409, "no_hints", "hints are for games against the AI or hot-seat")
        self._require_running()
        game = self.game.copy()
        if seat not in (0, game.to_move):
            raise ApiError(409, "not_your_turn", "a hint is given to the player to move")
        level = self.ai_level or DEFAULT_LEVEL
        await asyncio.to_thread(self.computer.prepare, game, level)
        agent = self.computer.agent(level)
        analysis: Analysis = await asyncio.to_thread(agent.analyse, game,
                                                     self.computer.limits())
        return {"move": str(analysis.move), "score": analysis.score, "depth": analysis.depth,
                "pv": [str(m) for m in analysis.pv]}

    def schedule_ai(self) -> None:
        """Start the computer's turn (in a task) if it is to move and is not thinking yet."""
        if not self.ai_to_move():
            return
        if self.ai_task is not None and not self.ai_task.done():
            return
        self.ai_task = asyncio.create_task(self._ai_turns())

    async def wait_ai(self) -> None:
        """Wait until the computer's turn under way (if any) is over."""
        task = self.ai_task
        if task is not None:
            await asyncio.wait({task})

    async def _ai_turns(self) -> None:
        level = self.ai_level or DEFAULT_LEVEL
        try:
            await asyncio.to_thread(self.computer.prepare, self.game, level)
            if self.agent is None:
                self.agent = self.computer.agent(level)
            agent = self.agent
            while True:
                async with self.lock:
                    if not self.ai_to_move():
                        return
                    game = self.game
                    try:
                        move = await asyncio.to_thread(agent.choose, game.copy(),
                                                       self.computer.limits())
                    except Exception:
                        # a failing agent must not stall the game: fall back to a legal move
                        log.exception("AI level %s failed", level)
                        move = random.choice(game.legal_moves())
                    mover = game.to_move
                    game.play(move)
                    await self._commit("move", {"player": mover, "moves": [str(move)],
                                                "ai": True})
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the computer's turn failed")

    async def close(self) -> None:
        """Stop the computer's turn, if one runs."""
        task = self.ai_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
