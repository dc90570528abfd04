"""One online game's play, apart from HTTP, storage and time: a pure decision over the game.

A :class:`GameSession` holds the :class:`~nugar.rules.Game` (the only judge of the rules and
the only record of how the game ended, :mod:`.endings`), the mode (against the AI, between two
people by link, hot-seat), the pending offers and the abort. Each request is decided by a
plain method that checks it, applies it to the game and returns what changed: a
:class:`Change` (an event type and its data, not yet numbered). It awaits nothing and writes
nothing: the game's authority (:meth:`.room.Room.act`) calls it under the game's lock, stores
the change (which numbers it: the stored version) and only then publishes it. If the store
refuses, the authority asks the session to :meth:`~GameSession.rollback` to what was last
stored, so the session never holds a change that was not stored.

The decisions of one job each live beside it and take the session: the offers
(:mod:`.offers`), what time does to a game (:mod:`.timing`) and the computer's turns
(:mod:`.computer`). A refusal is an :class:`~.errors.ApiError` with a code; nothing here
knows HTTP, and the tests drive the decisions through a room with a store of their own.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from ...errors import IllegalMoveError, InvalidMoveError
from ...i18n import Text
from ...rules import Game, Move, Outcome
from ..errors import ApiError, reason
from .endings import ABORTED, aborted_by, ending_of, restore
from .rated import too_early_to_rate

log = logging.getLogger("nugar.server")

MODES = ("ai", "friend", "hotseat")
#: most moves a stored or created game may hold (guards memory and replay time)
MAX_MOVES = 5000
#: the longest move text a request may send
MAX_MOVE_TEXT = 64

#: how the refusal of a move expecting a version this process has not seen yet begins (in
#: English: the refusal's template in :meth:`GameSession.move` starts with these words)
AHEAD = "this server has not seen version"


@dataclass(frozen=True, slots=True)
class Change:
    """What one decision changed in a game: the event ``type`` (``move``, ``undo``, ``offer``,
    ``resign``, ``flag``, ...) and its ``data``. The store numbers it (the game's next
    version) and keeps it in the game's journal; listeners get it with that number."""

    type: str
    data: dict[str, Any]


def move_text(text: object) -> str:
    """``text`` if it can be a move's text at all, else the refusal ``bad_move``."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE_TEXT:
        raise ApiError("bad_move", Text(
            "a move is a short text such as 'c3', 'c3-c4xe5' or '4'",
            domain="web"))
    return text


def seat_of_request(seat: int | None) -> int:
    """The seat a request acts for; ``None`` (a spectator) is refused as ``bad_key``."""
    if seat is None:
        raise ApiError("bad_key", Text(
            "this secret does not open a seat of this game; spectators cannot act",
            domain="web"))
    return seat


class GameSession:
    """One game being played: see the module's text. ``seat`` arguments are the seat a
    request's secret opened: 1 or 2, 0 for the hot-seat key (both seats), ``None`` for no
    seat (a spectator, who may not act: the refusal ``bad_key``). ``moves`` are the stored
    texts of the game's moves (the last stored state, :meth:`rollback`)."""

    def __init__(self, game: Game, mode: str, *, ai_seat: int | None = None,
                 ai_level: int | None = None, offers: dict[str, int] | None = None,
                 aborted: int | None = None, moves: list[str] | None = None,
                 rated: bool = False) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
        self.game = game
        self.mode = mode
        self.ai_seat = ai_seat
        self.ai_level = ai_level
        #: pending offers: kind (``draw``, ``takeback``, ``rematch``) -> the seat that made it
        self.offers: dict[str, int] = dict(offers or {})
        #: the player whose missing first move aborted the game (``None``: not aborted)
        self.aborted = aborted
        #: a rated game: ending it too early by resigning, on time or by leaving aborts it
        #: (:mod:`.rated`), and leaving it loses it
        self.rated = rated
        #: play a forced pass for the player to move at once (the room sets it for a timed
        #: game: a forced pass is a turn taken with no time used, :mod:`.clocks`)
        self.auto_pass = False
        #: the last stored state (moves, imposed ending, offers): a change whose write fails
        #: is rolled back to it
        self._stored = self._snapshot(moves or [])

    # --- reading ----------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome

    @property
    def ending(self) -> dict[str, Any] | None:
        """The imposed ending as stored (:func:`.endings.ending_of`), or the abort."""
        if self.aborted is not None:
            return {"termination": ABORTED, "player": self.aborted}
        return ending_of(self.game)

    @property
    def early_abort(self) -> bool:
        """Whether the game was aborted though both players had moved: a rated game ended too
        early to rate (:mod:`.rated`), not a first move that never came."""
        return (self.aborted is not None and self.game.has_moved(1)
                and self.game.has_moved(2))

    def too_early(self) -> bool:
        """Whether ending this game now by a resignation, a flag or being left aborts it
        instead: a rated game before each player completed its turns (:mod:`.rated`)."""
        return self.rated and too_early_to_rate(self.game)

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
        """Why the game ended (a ``Termination`` word, or :data:`.endings.ABORTED`); ``None``
        while it runs."""
        if self.aborted is not None:
            return ABORTED
        outcome = self.game.outcome
        return None if outcome is None else str(outcome.reason)

    def ai_to_move(self) -> bool:
        """Whether the computer is to move now."""
        return self.mode == "ai" and not self.over and self.game.to_move == self.ai_seat

    # --- the stored state -------------------------------------------------------------------
    def _snapshot(self, moves: list[str]) -> tuple[list[str], dict[str, Any] | None,
                                                   dict[str, int]]:
        if len(moves) != self.game.ply:
            moves = [str(m) for m in self.game.move_stack]
        return moves, self.ending, dict(self.offers)

    def stored(self, moves: list[str]) -> None:
        """The session's state is stored, with the move texts ``moves``."""
        self._stored = self._snapshot(moves)

    def reset(self, game: Game, offers: dict[str, int], aborted: int | None,
              moves: list[str]) -> None:
        """Take ``game``, ``offers``, the abort and the move texts ``moves`` as the stored
        state (the room reloaded them)."""
        self.game = game
        self.offers = dict(offers)
        self.aborted = aborted
        self._stored = self._snapshot(moves)

    def rollback(self) -> None:
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
        self.game = restore(self.game.rules.text, moves, ending)

    # --- the players' changes ---------------------------------------------------------------
    def require_running(self) -> None:
        """Refuse a change to a game that is over (``game_over``)."""
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

    def move(self, seat: int | None, text: str, expect: int | None, version: int) -> Change:
        """Play a move or a whole turn (``text``, checked by :func:`move_text`) for the player
        of ``seat``; with ``expect``, only if the stored game, at ``version``, is at that
        version (else the refusal ``stale_version``)."""
        seat = seat_of_request(seat)
        if expect is not None:
            if expect > version:  # another process stored it: the room refreshes
                raise ApiError("stale_room", Text(
                    "this server has not seen version {expect} of the game (it has "
                    "{current}); try again", domain="web", expect=expect, current=version))
            if expect != version:
                raise ApiError("stale_version", Text(
                    "the game is at version {current}, not {expect}: get what changed (GET "
                    "/api/games/{{id}}?since={expect}) and decide again",
                    domain="web", current=version, expect=expect))
        self.require_running()
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
        self.offers = {}
        return Change("move", self.move_data(mover, before))

    def move_data(self, mover: int, before: int, **extra: Any) -> dict[str, Any]:
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

    def undo(self, seat: int | None) -> Change:
        """Take back moves: against the AI, back to the person's previous turn (with the
        computer's replies); hot-seat, one turn. Between people, offer a takeback instead."""
        seat = seat_of_request(seat)
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
            undone = self.undo_to_turn_of(seat, Text("you have not moved yet", domain="web"))
        else:
            if not game.move_stack:
                raise ApiError("nothing_to_undo", Text("no move has been played", domain="web"))
            undone = game.undo_turn()
            while self._forced() and game.move_stack:  # the pass goes with its cause
                undone[:0] = game.undo_turn()
        self.offers = {}
        return Change("undo", {"moves": [str(m) for m in undone]})

    def undo_to_turn_of(self, player: int, unmoved: Text) -> list[Move]:
        """Take the game back to before ``player``'s last turn that was not a forced pass
        (an undo against the AI, an accepted takeback); returns the moves taken back, oldest
        first. If he made no such turn, nothing is taken back: the refusal
        ``nothing_to_undo``, saying ``unmoved``."""
        game = self.game
        try:
            undone = game.undo_to_turn_of(player)
            while self._forced():  # back to a turn of his that was not a pass
                undone[:0] = game.undo_to_turn_of(player)
        except IllegalMoveError:
            self.rollback()  # a forced pass was his only turn: nothing is taken back
            raise ApiError("nothing_to_undo", unmoved) from None
        return undone

    def resign(self, seat: int | None) -> Change:
        """The player of ``seat`` resigns (hot-seat: the player to move)."""
        seat = seat_of_request(seat)
        self.require_running()
        player = self.game.to_move if seat == 0 else seat
        if self.too_early():
            return self.abort(player, early="resigned")
        self.game.resign(player)
        self.offers = {}
        return Change("resign", {"player": player})

    def abort(self, player: int, **extra: Any) -> Change:
        """Abort the game, naming ``player`` (who did not make his first move; or who resigned,
        lost on time or left a rated game too early to rate, ``early`` saying which): no
        result, no winner, the change ``abort``."""
        self.aborted = player
        self.offers = {}
        return Change("abort", {"player": player, "termination": ABORTED, "winner": None,
                                **extra})
