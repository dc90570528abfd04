"""The public view of a game, as every answer and listener gets it: the full state and the
update since a version.

What a change answers, and what listeners get, is an *update* (:meth:`GameView.update`): the
new version, the status, the board and the legal moves, and only the moves and turns that
changed since a base version (``moves_from``/``new_moves``, ``turns_from``/``new_turns``),
never the whole history; the full state (:meth:`GameView.state`) is the update from version
0. A room keeps one :class:`GameView`, which computes the state once per version and keeps
the game's turns as it grows.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, Protocol

from ...rules import Game, Move
from ..storage.store import GameRow
from .clocks import Clock
from .endings import rematch_id
from .render import board_data
from .session import GameSession

#: most moves whose sowings a state carries (the page animates no longer run of moves)
SOWN_PLIES = 12


class Viewed(Protocol):
    """What a view reads of its game's room (:class:`~.room.Room`)."""

    row: GameRow
    session: GameSession
    clock: Clock | None
    now: Callable[[], float]


class GameView:
    """The cached view of one room's game (see the module's text)."""

    def __init__(self) -> None:
        #: the full state of one version, computed once per version (:meth:`state`)
        self._view: dict[str, Any] | None = None
        #: the game's turns kept as it grows (:meth:`_turns_now`): the turns, each turn's
        #: ``{player, text, n}`` and the number of moves after it, for the stored move texts
        #: ``_turns_of`` (a new game, or moves taken back, starts them again)
        self._turns: list[tuple[int, list[Move]]] = []
        self._turn_views: list[dict[str, Any]] = []
        self._turn_ends: list[int] = []
        self._turns_of: list[str] = []
        #: the rule set's text, game, family and player names (:meth:`_compute_state`)
        self._named: tuple[str, str, str, tuple[str, str]] | None = None
        #: the text of each action code met (the rule set's moves do not change)
        self._action_texts: dict[int, str] = {}

    def forget(self) -> None:
        """The stored game changed outside a change of this room's: compute the state again."""
        self._view = None

    def turns_at(self, version: int) -> list[dict[str, Any]] | None:
        """The turns of the state of ``version``, if it is the one computed last."""
        view = self._view
        return view["turns"] if view is not None and view["v"] == version else None

    def state(self, room: Viewed, history: bool = True) -> dict[str, Any]:
        """The public view of the game (no secrets): everything a client draws. It is
        computed once per version and shared by every answer and listener (do not change
        it); ``history=False`` leaves out ``moves`` and ``turns``."""
        view = self._view
        if view is None or view["v"] != room.row.version:
            view = self._view = self._compute_state(room)
        if room.clock is not None:  # the time left changes between versions: read it now
            view = {**view, "clock": room.clock.view(room.now())}
        if history:
            return view
        return {k: v for k, v in view.items() if k not in ("moves", "turns")}

    def update(self, room: Viewed, base: int, moves_from: int,
               old_turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """What changed since version ``base``, whose moves agree with the current ones on
        the first ``moves_from``: the status fields of :meth:`state` (version, whose turn,
        result, score, legal moves, offers, board), ``new_moves`` (the moves
        from ``moves_from`` on) and ``new_turns`` (the turns from ``turns_from`` on: the turn
        holding move ``moves_from`` is sent again, since it may have grown). A client at a
        version from ``base`` up to ``v`` merges it; one below ``base`` asks
        ``GET /api/games/{id}?since=V`` (or sends the websocket ``sync``). Given the turns
        of version ``base`` (``old_turns``), only the turns that differ are sent."""
        full = self.state(room)
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

    def _compute_state(self, room: Viewed) -> dict[str, Any]:
        session = room.session
        game = session.game
        outcome = game.outcome
        aborted = session.aborted
        over = session.over
        ply = game.ply
        turns = self._turns_now(room.row.moves, game)
        last_turn = turns[-1][1] if turns else []
        legal = [] if over else self._legal_texts(game)
        named = self._named
        if named is None:  # what names the game never changes
            named = self._named = (game.rules.text, game.rules.game, game.rules.family,
                                   (game.player_name(1), game.player_name(2)))
        out: dict[str, Any] = {
            "id": room.row.id,
            "v": room.row.version,
            "base": 0,
            "rules": named[0],
            "game": named[1],
            "family": named[2],
            "players": list(named[3]),
            "misere": game.rules.misere,  # the smaller store wins (the page's result text)
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
            "early": session.early_abort,  # a rated game ended too early to rate
            "score": list(game.score),
            "legal": legal,
            "last_move": str(last_turn[-1]) if last_turn else None,
            "last_turn": [str(m) for m in last_turn],
            "last_mover": turns[-1][0] if turns else None,
            "offers": session.offers,
            # the rematch offered after the game (:mod:`.rematch`), if one was
            "rematch": (rematch_id(room.row.id, len(room.row.moves))
                        if "rematch" in session.offers else None),
            "ply": ply,
            "clock": None if room.clock is None else room.clock.view(room.now()),
            "board": board_data(game),  # the page draws it (static/board.js): no SVG here
            # what the moves of the last two turns sowed, seed by seed (the page animates
            # them; empty for a game whose moves sow nothing)
            "sowings": [s.as_json() for s in game.sowings(
                min(SOWN_PLIES, sum(len(moves) for _, moves in turns[-2:])))],
        }
        out["turns"] = list(self._turn_views)  # a copy: a view is never changed after
        out["moves"] = room.row.moves  # the stored texts of the game's moves (never changed)
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

    def _turns_now(self, texts: list[str], game: Game) -> list[tuple[int, list[Move]]]:
        """The game's turns, with ``_turn_views`` and ``_turn_ends`` brought up to date: only
        the turns a change touched are made again when the stored moves extend those of the
        last call (the usual move), all of them otherwise; ``texts`` are the stored texts of
        the moves (``str()`` of each)."""
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
STATIC = frozenset({"id", "rules", "game", "family", "players", "misere", "mode", "ai_level",
                    "ai_seat"})
#: what an update leaves out: the fields that never change and the whole history
NOT_IN_UPDATES = STATIC | {"moves", "turns"}
