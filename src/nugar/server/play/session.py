"""One online game's play, apart from HTTP and storage: seats, offers, takebacks, endings and
the computer's turns.

A :class:`GameSession` holds the :class:`~nugar.rules.Game` (the only judge of the rules and
the only record of how the game ended: a resignation, an agreed draw, an adjudication or a
loss on time is applied to the game itself), the mode (against the AI, between two people
by link, hot-seat), the pending offers and the AI pool its computer thinks in
(:class:`~.ai_pool.AiPool`). Every change runs under the session's ``asyncio.Lock``, and is
then handed to its owner's ``commit(event_type, data)`` (:class:`SessionOwner`, given to the
constructor: the server's :class:`~.room.Room`), which stores and announces it and returns
the public state. Nothing here knows HTTP: a refusal is an :class:`~.errors.ApiError` with a
code, and the tests drive sessions directly, with a fake owner and computer player.

A stored game is its rule set, its move texts and its imposed ending (:func:`ending_of`),
which :func:`restore` applies again after the moves. A game *aborted* because a player did
not make his first move in time (:mod:`.clocks`), or never made it before the game was left
idle for good (:meth:`GameSession.expire`), has no result at all, so it is no ending of
the game's rules: the session alone holds it (``GameSession.aborted``, the player who did not
move) and it is stored as the ending ``{"termination": "aborted", "player": p}``, which
:func:`restore` leaves off the game and :func:`aborted_by` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...ai.agents import DEFAULT_LEVEL
from ...errors import IllegalMoveError, InvalidMoveError
from ...i18n import Text
from ...rules import Game, Move, Outcome, Termination, new_game
from ..errors import ApiError, reason
from ..storage.store import log_failure
from ..work.ai_pool import AiBusy
from .rated import too_early_to_rate

if TYPE_CHECKING:
    from ...ai import Analysis
    from ..work.ai_pool import AiPool

log = logging.getLogger("nugar.server")

MODES = ("ai", "friend", "hotseat")
OFFER_KINDS = ("draw", "takeback")
OFFER_ACTIONS = ("offer", "accept", "decline", "cancel")
#: the offers' kinds and actions as a refusal's sentence says them (translated with it)
_WORDS = {"draw": Text("draw", domain="web"), "takeback": Text("takeback", domain="web"),
          "offer": Text("offer", domain="web"), "accept": Text("accept", domain="web"),
          "decline": Text("decline", domain="web"), "cancel": Text("cancel", domain="web")}
#: most moves a stored or created game may hold (guards memory and replay time)
MAX_MOVES = 5000

#: how the refusal of a move expecting a version this process has not seen yet begins (in
#: English: the refusal's template in :meth:`GameSession.move` starts with these words)
AHEAD = "this server has not seen version"
#: the reason (``state["reason"]``, the stored ``reason``) of an aborted game; its result is
#: ``*`` (none, as in a record of a game without one)
ABORTED = "aborted"


class SessionOwner(Protocol):
    """What a session asks of whoever keeps its game (the server's :class:`~.room.Room`):
    storing its changes and what is stored."""

    async def commit(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store and announce one change (an event type and its data), already applied to
        the session's game; returns the public state. Raises if nothing was stored."""

    def version(self) -> int:
        """The stored version of the game."""

    def stored_moves(self) -> list[str]:
        """The stored texts of the game's moves (spares writing out every move after each
        change)."""

    def is_stale(self) -> bool:
        """Whether the stored game is known to be newer than the session's: a request then
        gets ``stale_room`` and the owner refreshes the session and decides it again."""

    async def resync(self) -> bool:
        """Bring the session to the stored game when another process changed it; ``True``
        if something changed."""


def rematch_id(game_id: str, ply: int) -> str:
    """The id of the rematch of game ``game_id`` ended after ``ply`` moves (16 hex digits,
    like every game id; :mod:`.rematch`)."""
    return hashlib.sha256(f"nugar rematch {game_id} {ply}".encode()).hexdigest()[:16]


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
    elif t is Termination.TIME and winner is None:
        game.draw_on_time()
    else:
        raise IllegalMoveError(Text("{outcome} is not an ending a player or an arbiter imposes",
                                    domain="web", outcome=str(outcome)))


def aborted_by(ending: dict[str, Any] | None) -> int | None:
    """The player who did not make his first move, if the stored ``ending`` is an abort."""
    if not ending or ending.get("termination") != ABORTED:
        return None
    player = ending.get("player")
    if player not in (1, 2):
        raise ValueError(f"the stored ending {ending!r} names no player 1 or 2")
    return int(player)


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
    imposed ending (an abort is not one: the game stays as its moves left it). A game that
    does not replay is refused as ``corrupt_game``."""
    game = new_game(rules)
    for i, text in enumerate(moves):
        try:
            game.play(Move.parse(text))
        except ValueError as exc:
            raise ApiError("corrupt_game", Text(
                "stored move {i} ({text!r}) cannot be replayed: {exc}",
                domain="web", i=i + 1, text=text, exc=exc)) from None
    if ending:
        try:
            if aborted_by(ending) is None:
                impose(game, stored_outcome(ending))
        except ValueError as exc:
            raise ApiError("corrupt_game", Text(
                "the stored ending {ending!r} cannot be applied: {exc}",
                domain="web", ending=ending, exc=exc)) from None
    return game



#: tries the computer gets when the engine refuses its move, before a random legal move
AI_TRIES = 3


# --- the session -------------------------------------------------------------------------------
class GameSession:
    """One game being played: see the module's text. ``seat`` arguments are the seat a
    request's secret opened: 1 or 2, 0 for the hot-seat key (both seats), ``None`` for no
    seat (a spectator, who may not act: the refusal ``bad_key``). ``owner`` keeps the game
    (stores its changes, :class:`SessionOwner`); the computer thinks in ``pool``, shared by
    every game of the server."""

    def __init__(self, game: Game, mode: str, owner: SessionOwner, pool: AiPool, *,
                 ai_seat: int | None = None, ai_level: int | None = None,
                 offers: dict[str, int] | None = None, aborted: int | None = None,
                 rated: bool = False) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
        self.game = game
        self.mode = mode
        self.ai_seat = ai_seat
        self.ai_level = ai_level
        #: pending offers: kind (``draw``, ``takeback``) -> the seat that made it
        self.offers: dict[str, int] = dict(offers or {})
        #: the player whose missing first move aborted the game (``None``: not aborted)
        self.aborted = aborted
        #: a rated game: ending it too early by resigning, on time or by leaving aborts it
        #: (:mod:`.rated`), and leaving it loses it
        self.rated = rated
        #: play a forced pass for the player to move at once (the owner sets it for a timed
        #: game: a forced pass is a turn taken with no time used, :mod:`.clocks`)
        self.auto_pass = False
        self.owner = owner
        self.lock = asyncio.Lock()
        self.ai_task: asyncio.Task[None] | None = None
        self.pool = pool  # where the computer thinks, shared by all games
        self._ai_owner = object()  # names this game to the pool (its agents reset for it)
        #: set when the stored game may differ from this session's (the owner dropped it and
        #: reloads the game): a request that then gets the lock is refused as ``stale_room``
        self.closed = False
        #: the last stored state (moves, imposed ending, offers): a change whose write fails
        #: is rolled back to it, so the session never holds a move that was not stored
        self._stored = self._snapshot()

    # --- reading ----------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome

    @property
    def ending(self) -> dict[str, Any] | None:
        """The imposed ending as stored (:func:`ending_of`), or the abort."""
        if self.aborted is not None:
            return {"termination": ABORTED, "player": self.aborted}
        return ending_of(self.game)

    @property
    def early_abort(self) -> bool:
        """Whether the game was aborted though both players had moved: a rated game ended too
        early to rate (:mod:`.rated`), not a first move that never came."""
        return (self.aborted is not None and self.game.has_moved(1)
                and self.game.has_moved(2))

    @property
    def over(self) -> bool:
        """Whether the game has ended (by its rules or an imposed ending) or was aborted."""
        return self.aborted is not None or self.game.outcome is not None

    @property
    def result(self) -> str | None:
        """The result as shown and stored: ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` for an aborted
        game (none), ``None`` while the game runs."""
        if self.aborted is not None:
            return "*"
        outcome = self.game.outcome
        return None if outcome is None else outcome.result

    @property
    def reason(self) -> str | None:
        """Why the game ended (a ``Termination`` word, or :data:`ABORTED`); ``None`` while
        it runs."""
        if self.aborted is not None:
            return ABORTED
        outcome = self.game.outcome
        return None if outcome is None else str(outcome.reason)

    @property
    def busy(self) -> bool:
        """Whether a change is under way or the computer is thinking."""
        return self.lock.locked() or (self.ai_task is not None and not self.ai_task.done())

    def ai_to_move(self) -> bool:
        """Whether the computer is to move now."""
        return (self.mode == "ai" and not self.closed and not self.over
                and self.game.to_move == self.ai_seat)

    # --- changes ----------------------------------------------------------------------------
    def _snapshot(self) -> tuple[list[str], dict[str, Any] | None, dict[str, int]]:
        moves = self.owner.stored_moves()
        if len(moves) != self.game.ply:
            moves = [str(m) for m in self.game.move_stack]
        return moves, self.ending, dict(self.offers)

    def reset(self, game: Game, offers: dict[str, int], aborted: int | None = None) -> None:
        """Take ``game``, ``offers`` and the abort as the stored state (the owner reloaded
        them)."""
        self.game = game
        self.offers = dict(offers)
        self.aborted = aborted
        self._stored = self._snapshot()

    async def _commit(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store and announce a change already applied to the game; if that fails, put the
        game and offers back as last stored and re-raise."""
        try:
            state = await self.owner.commit(etype, data)
        except BaseException:
            self._rollback()
            raise
        self._stored = self._snapshot()
        return state

    def _rollback(self) -> None:
        """Back to the last stored state: moves added since are taken back one by one (a
        refused move costs no replay); any other change replays the stored game."""
        moves, ending, offers = self._stored
        self.offers = offers
        self.aborted = aborted_by(ending)
        if self.aborted is not None:
            ending = None  # the game itself holds no abort
        game = self.game
        now = [str(m) for m in game.move_stack]
        if ending is None and len(now) >= len(moves) and now[:len(moves)] == moves:
            try:
                if game.outcome is not None and not game.outcome.termination.by_rules:
                    game.undo()  # the ending imposed by the refused change
                while len(game.move_stack) > len(moves):
                    game.undo()
                if game.outcome is None or game.outcome.termination.by_rules:
                    return
            except ValueError:
                pass
        try:
            self.game = restore(self.game.rules.text, moves, ending)
        except Exception:  # cannot happen for a game that was stored; be safe anyway
            log.exception("rolling back a failed change failed")
            self.closed = True

    def _check_current(self) -> None:
        """Refuse a request that waited on the lock of a session its owner has dropped, or
        of one that is known to be behind the stored game."""
        if self.closed or self.owner.is_stale():
            raise ApiError("stale_room", Text(
                "the game was reloaded while this request waited; nothing was changed, try again",
                domain="web"))

    @staticmethod
    def _seat(seat: int | None) -> int:
        if seat is None:
            raise ApiError("bad_key", Text(
                "this secret does not open a seat of this game; spectators cannot act",
                domain="web"))
        return seat

    def _require_running(self) -> None:
        if self.early_abort:
            raise ApiError("game_over", Text(
                "the game was aborted: a rated game ended before each player made two turns",
                domain="web"))
        if self.aborted is not None:
            raise ApiError("game_over", Text(
                "the game was aborted: {player_name} did not move",
                domain="web", player_name=self.game.player_name(self.aborted)))
        outcome = self.game.outcome
        if outcome is not None:
            raise ApiError("game_over", Text(
                "the game is over ({outcome})",
                domain="web", outcome=outcome))

    async def move(self, seat: int | None, text: str, expect: int | None = None
                   ) -> dict[str, Any]:
        """Play a move or a whole turn for the player of ``seat``; with ``expect``, only if
        the stored game is at that version (else the refusal ``stale_version``)."""
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise ApiError("bad_move", Text(
                "a move is a short text such as 'c3', 'c3-c4xe5' or '4'",
                domain="web"))
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            if expect is not None:
                current = self.owner.version()
                if expect > current:  # another process stored it: the owner refreshes
                    raise ApiError("stale_room", Text(
                        "this server has not seen version {expect} of the game (it has "
                        "{current}); try again", domain="web", expect=expect, current=current))
                if expect != current:
                    raise ApiError("stale_version", Text(
                        "the game is at version {current}, not {expect}: get what changed (GET "
                        "/api/games/{{id}}?since={expect}) and decide again",
                        domain="web", current=current, expect=expect))
            self._require_running()
            game = self.game
            mover = game.to_move
            if seat not in (0, mover):
                raise ApiError("not_your_turn", Text(
                    "it is {player_name}'s turn, not {player_name2}'s",
                    domain="web", player_name=game.player_name(mover),
                    player_name2=game.player_name(seat)))
            if game.ply >= MAX_MOVES:
                raise ApiError("too_long", Text.plural(
                    "a game may hold at most {max_moves} move",
                    "a game may hold at most {max_moves} moves", MAX_MOVES,
                    domain="web", max_moves=MAX_MOVES))
            before = game.ply
            try:
                game.play(text)
            except InvalidMoveError as exc:
                raise ApiError("invalid_move", reason(exc)) from None
            except IllegalMoveError as exc:
                raise ApiError("illegal_move", reason(exc)) from None
            except ValueError as exc:  # any other refusal by the engine names its reason
                raise ApiError("invalid_move", reason(exc)) from None
            data = self._move_data(mover, before)
            self.offers = {}
            state = await self._commit("move", data)
        self.schedule_ai()
        return state

    def _move_data(self, mover: int, before: int, **extra: Any) -> dict[str, Any]:
        """The event data of a move of ``mover`` just played (the game's moves from ``before``
        on), after the forced passes that follow it (:meth:`_forced_passes`), which are
        moves of the same change: ``{player, moves, **extra, passed?}``."""
        passed = self._forced_passes()
        data: dict[str, Any] = {"player": mover,
                                "moves": [str(m) for m in self.game.move_stack[before:]],
                                **extra}
        if passed:
            data["passed"] = passed
        return data

    def _forced_passes(self) -> list[int]:
        """With ``auto_pass``: while the player to move has no legal move but a pass, play it
        for him; returns the players who passed (the move list holds their passes)."""
        passed: list[int] = []
        game = self.game
        while len(passed) < 2 and self._forced():
            passed.append(game.to_move)
            game.play(Move.pass_())
        return passed

    def _forced(self) -> bool:
        """With ``auto_pass``: whether the player to move could only pass (a position that
        :meth:`_forced_passes` never leaves: an undo goes back past it)."""
        game = self.game
        if not self.auto_pass or game.outcome is not None:
            return False
        legal = game.legal_moves()
        return len(legal) == 1 and legal[0].kind == "pass"

    async def undo(self, seat: int | None) -> dict[str, Any]:
        """Take back moves: against the AI, back to the person's previous turn (with the
        computer's replies); hot-seat, one turn. Between people, offer a takeback instead."""
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            if self.mode == "friend":
                raise ApiError("ask_takeback", Text(
                    "between two people, offer a takeback instead of undoing",
                    domain="web"))
            outcome = self.game.outcome
            if outcome is not None and not outcome.termination.by_rules:
                raise ApiError("game_over", Text(
                    "the game is over ({outcome})",
                    domain="web", outcome=outcome))
            if self.aborted is not None:
                raise ApiError("game_over", Text("the game was aborted", domain="web"))
            game = self.game
            if self.mode == "ai":
                undone = self._undo_to_turn_of(
                    seat, Text("you have not moved yet", domain="web"))
            else:
                if not game.move_stack:
                    raise ApiError("nothing_to_undo", Text("no move has been played", domain="web"))
                undone = game.undo_turn()
                while self._forced() and game.move_stack:  # the pass goes with its cause
                    undone[:0] = game.undo_turn()
            self.offers = {}
            state = await self._commit("undo", {"moves": [str(m) for m in undone]})
        self.schedule_ai()
        return state

    def _undo_to_turn_of(self, player: int, unmoved: str) -> list[Move]:
        """Take the game back to before ``player``'s last turn that was not a forced pass
        (an undo against the AI, an accepted takeback); returns the moves taken back, oldest
        first. If he made no such turn, nothing is taken back: the refusal
        ``nothing_to_undo``, saying ``unmoved``. Called with the lock held."""
        game = self.game
        try:
            undone = game.undo_to_turn_of(player)
            while self._forced():  # back to a turn of his that was not a pass
                undone[:0] = game.undo_to_turn_of(player)
        except IllegalMoveError:
            self._rollback()  # a forced pass was his only turn: nothing is taken back
            raise ApiError("nothing_to_undo", unmoved) from None
        return undone

    async def offer(self, seat: int | None, kind: str, action: str) -> dict[str, Any]:
        """Draw and takeback offers: ``offer``, ``accept``, ``decline`` (or ``cancel``)."""
        if kind not in OFFER_KINDS:
            raise ApiError("unknown_offer", Text(
                "offers are draw or takeback, not {kind!r}",
                domain="web", kind=kind))
        if action not in OFFER_ACTIONS:
            raise ApiError("bad_action", Text(
                "action must be offer, accept, decline or cancel, not {action!r}",
                domain="web", action=action))
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            self._require_running()
            if self.mode != "friend":
                if kind == "draw" and self.mode == "hotseat" and action in ("offer", "accept"):
                    # both players sit at the same screen: an offer is already agreed
                    return await self._agree_draw()
                raise ApiError("no_offers", Text(
                    "offers are made between two people playing by link; against the AI use "
                    "undo", domain="web") if self.mode == "ai" else Text(
                    "offers are made between two people playing by link", domain="web"))
            pending = self.offers.get(kind)
            if action == "offer":
                if pending == seat:
                    raise ApiError("already_offered", Text(
                        "you already offered a {kind}", domain="web", kind=_WORDS[kind]))
                if pending is not None:
                    action = "accept"  # both offered: that is agreement
                elif kind == "takeback" and not any(p == seat for p, _ in
                                                    self.game.turn_list()):
                    raise ApiError("nothing_to_undo", Text("you have not moved yet", domain="web"))
                else:
                    self.offers = {**self.offers, kind: seat}
                    return await self._commit("offer", {"kind": kind, "by": seat})
            if action in ("decline", "cancel"):
                if pending is None:
                    raise ApiError("no_offer", Text(
                        "there is no {kind} offer to {action}", domain="web",
                        kind=_WORDS[kind], action=_WORDS[action]))
                if (action == "cancel") != (pending == seat):
                    raise ApiError("not_yours", Text(
                        "only the player who made an offer may cancel it, and only the other may "
                        "decline it",
                        domain="web"))
                self.offers = {k: v for k, v in self.offers.items() if k != kind}
                return await self._commit(action, {"kind": kind, "by": seat})
            # accept
            if pending is None or pending == seat:
                raise ApiError("no_offer", Text(
                    "there is no {kind} offer from your opponent", domain="web",
                    kind=_WORDS[kind]))
            if kind == "draw":
                return await self._agree_draw()
            undone = self._undo_to_turn_of(
                pending, Text("the player who asked has not moved yet", domain="web"))
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
            self._check_current()
            seat = self._seat(seat)
            self._require_running()
            player = self.game.to_move if seat == 0 else seat
            if self._too_early():
                return await self._abort(player, early="resigned")
            self.game.resign(player)
            self.offers = {}
            return await self._commit("resign", {"player": player})

    async def note_rematch(self, seat: int, game_id: str) -> dict[str, Any] | None:
        """Record and announce (event ``rematch``) that the player of ``seat`` asked for a
        rematch, the game ``game_id`` (:mod:`.rematch`); ``None`` if one was already asked
        for. It is kept as the pending offer ``rematch``, the seat that asked."""
        async with self.lock:
            self._check_current()
            if "rematch" in self.offers:
                return None
            self.offers = {**self.offers, "rematch": seat}
            return await self._commit("rematch", {"game": game_id, "by": seat})

    def missing_first_move(self) -> int | None:
        """The player an abort of this game names, if some player has not made his first
        move (a pass counts as a move): the player to move when he has not moved yet (his
        first move was due), else the other one (who never got to move); ``None`` once both
        players have moved. Every mode alike: the computer's seat too."""
        game = self.game
        if game.has_moved(1) and game.has_moved(2):
            return None
        to_move = game.to_move
        return 3 - to_move if game.has_moved(to_move) else to_move

    async def expire(self, version: int) -> bool:
        """Close a game nobody played for too long. A game in which some player never made
        his first move (:meth:`missing_first_move`) never got going: it is *aborted* as the
        first-move timer aborts one (no result, the event ``abort`` with ``expired: true``);
        a game both players have moved in is an adjudicated draw (the event ``expired``).
        If the stored version, asked under the lock, is no longer ``version`` (someone acted
        meanwhile) or the game is over, nothing is done and ``False`` is returned."""
        async with self.lock:
            if self.closed or self.owner.version() != version or self.over:
                return False
            self.offers = {}
            player = self.missing_first_move()
            if player is not None:
                await self._abort(player, expired=True)
                return True
            if self.rated:  # the player to move left the game
                left = self.game.to_move
                if self._too_early():
                    await self._abort(left, expired=True, early="expired")
                    return True
                self.game.adjudicate(3 - left)
                await self._commit("expired", {"termination": "adjudication",
                                               "winner": 3 - left, "left": left})
                return True
            self.game.adjudicate(None)
            await self._commit("expired", {"termination": "adjudication", "winner": None})
            return True

    async def time_out(self, fallen: Callable[[], int | None]) -> bool:
        """End the game on time if ``fallen()``, asked under the lock, names the player whose
        flag has fallen: a loss, or a draw when the opponent could not win
        (``Game.time_out``), stored and announced as the event ``flag``. ``False`` (nothing
        done) if the game is over or no flag has fallen."""
        return await self._end_if(fallen, self._flag)

    async def _flag(self, player: int) -> None:
        """End the game on ``player``'s time (the event ``flag``), or abort a rated game too
        early to rate (:mod:`.rated`). Called with the lock held."""
        if self._too_early():
            await self._abort(player, early="time")
            return
        outcome = self.game.time_out(player)
        self.offers = {}
        await self._commit("flag", {"player": player, "termination": "time",
                                    "winner": outcome.winner})

    async def abort(self, overdue: Callable[[], int | None]) -> bool:
        """Abort the game if ``overdue()``, asked under the lock, names a player whose first
        move is overdue (:mod:`.clocks`): no result, no winner, stored and announced as the
        event ``abort``. ``False`` (nothing done) if the game is over or no move is
        overdue."""
        return await self._end_if(overdue, self._abort)

    async def _end_if(self, due: Callable[[], int | None],
                      end: Callable[[int], Awaitable[object]]) -> bool:
        """Under the lock: ``end(player)`` if the game runs and ``due()`` names a player;
        ``True`` if it did."""
        async with self.lock:
            if self.closed or self.over:
                return False
            player = due()
            if player is None:
                return False
            await end(player)
            return True

    async def _abort(self, player: int, **extra: Any) -> dict[str, Any]:
        """Abort the game, naming ``player`` (who did not make his first move; or who resigned,
        lost on time or left a rated game too early to rate, ``early`` saying which): no
        result, stored and announced as the event ``abort``. Called with the lock held."""
        self.aborted = player
        self.offers = {}
        return await self._commit("abort", {"player": player, "termination": ABORTED,
                                            "winner": None, **extra})

    def _too_early(self) -> bool:
        """Whether ending this game now by a resignation, a flag or being left aborts it
        instead: a rated game before each player completed its turns (:mod:`.rated`)."""
        return self.rated and too_early_to_rate(self.game)

    async def note_open(self, unseen: Callable[[], list[int] | None]) -> bool:
        """Store and announce (event ``opened``, ``{seats}``) that the seats ``unseen()``,
        asked under the lock, have been opened (:meth:`.rooms.Hub.open_seat`); ``False``
        (nothing done) if there are none or the game is over."""
        async with self.lock:
            self._check_current()
            if self.over:
                return False
            seats = unseen()
            if not seats:
                return False
            await self._commit("opened", {"seats": seats})
            return True

    # --- the computer -------------------------------------------------------------------------
    async def hint(self, seat: int | None) -> dict[str, Any]:
        """A suggested move for the player to move, from an agent as strong as the opponent
        (hot-seat: the default level)."""
        seat = self._seat(seat)
        if self.mode == "friend":
            raise ApiError("no_hints", Text(
                "hints are for games against the AI or hot-seat",
                domain="web"))
        self._require_running()
        game = self.game.copy()
        if seat not in (0, game.to_move):
            raise ApiError("not_your_turn", Text(
                "a hint is given to the player to move",
                domain="web"))
        level = self.ai_level or DEFAULT_LEVEL
        analysis: Analysis = await self.pool.run(
            self._ai_owner, level, game, lambda agent, g, limits: agent.analyse(g, limits))
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
        """The computer's turns: each decided on a copy of the game without the lock (so
        requests and spectators do not wait for it), then played under the lock only if the
        game has not changed meanwhile; otherwise the decision is dropped and, if the computer
        is still to move, made again."""
        level = self.ai_level or DEFAULT_LEVEL
        refused = 0  # moves of the computer the engine refused in this position
        try:
            while True:
                if self.owner.is_stale():
                    await self.owner.resync()  # another process stored a newer game: look at it
                async with self.lock:
                    if not self.ai_to_move():
                        return
                    snapshot = self.game.copy()
                    seen = list(self.game.move_stack)
                try:
                    move = await self.pool.run(self._ai_owner, level, snapshot.copy(),
                                               lambda agent, g, limits: agent.choose(g, limits),
                                               must=True)
                except (AiBusy, asyncio.CancelledError):
                    raise
                except Exception:
                    # a failing agent must not stall the game: fall back to a legal move
                    log.exception("AI level %s failed", level)
                    move = random.choice(snapshot.legal_moves())
                async with self.lock:
                    if not self.ai_to_move() or self.game.move_stack != seen:
                        refused = 0
                        continue  # the game changed while the computer thought
                    game = self.game
                    mover = game.to_move
                    if refused >= AI_TRIES:
                        move = random.choice(game.legal_moves())
                        log.error("AI level %s: %d moves refused, playing the random legal "
                                  "move %s", level, refused, move)
                    before = game.ply
                    try:
                        game.play(move)
                    except ValueError as exc:
                        refused += 1
                        log.error("AI level %s chose %s, which the engine refuses (%s); "
                                  "try %d of %d", level, move, exc, refused, AI_TRIES)
                        continue
                    refused = 0
                    data = self._move_data(mover, before, ai=True)
                    try:
                        await self._commit("move", data)
                    except ApiError as exc:
                        if exc.code != "stale_room":
                            raise
                        stale = True
                    else:
                        stale = False
                if stale:
                    # another process stored the game meanwhile: look again at what is stored
                    await self.owner.resync()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log_failure("the computer's turn", exc)

    async def close(self) -> None:
        """Stop the computer's turn, if one runs."""
        task = self.ai_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
