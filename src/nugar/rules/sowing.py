"""Kalah and Dracala as :class:`~nugar.rules.base.Game` objects over ``kernels/sowing.py``.

The game keeps one state array (``docs/architecture.md``) and a stack of copies for undo; the
rules themselves live only in the compiled kernels. Besides the base API it offers
:meth:`SowingGame.turn_captures` (for the Mancala World ``(-N)`` annotation of records) and
:meth:`SowingGame.from_position` (set up any position).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import ClassVar

import numpy as np

from ..errors import InvalidMoveError, NugarError
from ..kernels import sowing as K
from ..kernels.common import (
    HEADER,
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    REASON_NAMES,
    ST_KEY,
    ST_OUTCOME,
    ST_REASON,
    ST_TO_MOVE,
)
from .base import Game, Move, Outcome
from .options import Family, RuleSet, SowingOptions


@lru_cache(maxsize=64)
def _params(options: SowingOptions, dracala: bool) -> K.IntArray:
    return K.make_params(options, dracala=dracala)


class SowingGame(Game):
    """A game of Kalah or Dracala (``new_game("kalah")``, ``new_game("dracala")``).

    >>> from nugar import new_game
    >>> g = new_game("kalah")
    >>> g.play("3")      # 4 seeds from hole 3: the last one lands in the store
    >>> g.to_move, g.score
    (1, (1, 0))
    """

    family: ClassVar[Family] = "sowing"

    def __init__(self, rules: RuleSet | str = "kalah") -> None:
        super().__init__(rules)
        assert isinstance(self.rules.options, SowingOptions)
        self.options: SowingOptions = self.rules.options
        self.pits: int = self.options.pits
        self.params = _params(self.options, self.rules.is_dracala)
        self.state: K.IntArray = K.initial_state(self.params)
        self._stack: list[K.IntArray] = []
        self._captures: list[int] = []
        self._buf = np.empty(self.pits, dtype=np.int64)

    # --- setup -----------------------------------------------------------------------------
    @classmethod
    def from_position(cls, rules: RuleSet | str, holes1: Sequence[int], holes2: Sequence[int],
                      stores: tuple[int, int] = (0, 0), to_move: int = 1,
                      first_step_done: bool = True, last_capturer: int = 0) -> SowingGame:
        """A game starting from the given position.

        ``holes1`` and ``holes2`` list each player's holes from his own hole 1; ``stores`` is
        (first, second). ``first_step_done=False`` keeps Dracala's first-step exemption;
        ``last_capturer`` (0, 1 or 2) is who last put seeds into his store. If the position is
        already over (an empty side, a Dracala majority) the game starts ended, leftovers
        going as if the player not to move had made the last step.
        """
        game = cls(rules)
        pits = game.pits
        for name, holes in (("holes1", holes1), ("holes2", holes2)):
            if len(holes) != pits:
                raise NugarError(f"{name} must list {pits} holes (pits={pits}), got {len(holes)}")
        values = [*holes1, *holes2, *stores]
        if len(stores) != 2:
            raise NugarError(f"stores must be two numbers (first, second), got {stores!r}")
        for v in values:
            if isinstance(v, bool) or not isinstance(v, int | np.integer) or v < 0:
                raise NugarError(f"seed counts must be whole numbers >= 0, got {v!r}")
        if to_move not in (1, 2):
            raise NugarError(f"to_move must be 1 or 2, got {to_move!r}")
        if last_capturer not in (0, 1, 2):
            raise NugarError(f"last_capturer must be 0 (nobody yet), 1 or 2, got "
                             f"{last_capturer!r}")
        state = np.zeros_like(game.state)
        state[ST_TO_MOVE] = to_move
        state[HEADER:HEADER + pits] = list(holes1)
        state[HEADER + pits] = stores[0]
        state[HEADER + pits + 1:HEADER + 2 * pits + 1] = list(holes2)
        state[HEADER + 2 * pits + 1] = stores[1]
        ext = HEADER + 2 * pits + 2
        state[ext + K.F_FIRST_DONE] = 1 if first_step_done else 0
        state[ext + K.F_LAST_CAPTURER] = last_capturer
        K.setup_state(game.params, state)
        game.state = state
        return game

    # --- what the base class needs ---------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._resigned is not None:
            return []
        n = K.legal_actions(self.params, self.state, self._buf)
        return [int(a) for a in self._buf[:n]]

    def action_to_move(self, action: int) -> Move:
        if not 0 <= action < self.pits:
            raise InvalidMoveError(f"action {action} is outside 0..{self.pits - 1} "
                                   f"(a step from hole k is action k-1)")
        return Move.sow(action + 1)

    def move_to_action(self, move: Move) -> int:
        if move.kind != "sow":
            raise InvalidMoveError(
                f"{move} is not a sowing move; {self.rules.game} moves are hole numbers "
                f"1..{self.pits}, and a turn joins them with '-', e.g. '1-6'")
        if not 1 <= move.hole <= self.pits:
            raise InvalidMoveError(
                f"there is no hole {move.hole} in {self.rules.text}; holes are 1..{self.pits}")
        return move.hole - 1

    def _apply_action(self, action: int) -> None:
        self._stack.append(self.state.copy())
        K.apply_action(self.params, self.state, action)
        self._captures.append(int(self.state[K.fields_start(self.params) + K.F_LAST_CAPTURES]))

    def _restore(self) -> None:
        self.state = self._stack.pop()
        self._captures.pop()

    @property
    def to_move(self) -> int:
        return int(self.state[ST_TO_MOVE])

    def _engine_outcome(self) -> Outcome | None:
        code = int(self.state[ST_OUTCOME])
        if code == OUTCOME_RUNNING:
            return None
        winner = None if code == OUTCOME_DRAW else (1 if code == OUTCOME_FIRST else 2)
        return Outcome(winner, REASON_NAMES[int(self.state[ST_REASON])])

    @property
    def score(self) -> tuple[int, int]:
        return self.stores

    # --- sowing extras ---------------------------------------------------------------------
    @property
    def holes(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Seeds in each player's holes, each from his own hole 1: (first's, second's)."""
        p = self.pits
        s = self.state
        return (tuple(int(v) for v in s[HEADER:HEADER + p]),
                tuple(int(v) for v in s[HEADER + p + 1:HEADER + 2 * p + 1]))

    @property
    def stores(self) -> tuple[int, int]:
        """Seeds in the two stores, first player first."""
        p = self.pits
        return int(self.state[HEADER + p]), int(self.state[HEADER + 2 * p + 1])

    @property
    def key(self) -> int:
        """The position's Zobrist-style key."""
        return int(self.state[ST_KEY])

    def step_captures(self) -> list[int | None]:
        """Seeds each of the mover's holes would put into his store if sown now (``None`` for
        an empty hole), whether or not the step is legal; leftovers excluded."""
        caps = np.empty(self.pits, dtype=np.int64)
        bonus = np.empty(self.pits, dtype=np.int64)
        K.step_captures(self.params, self.state, caps, bonus)
        return [None if c < 0 else int(c) for c in caps]

    def turn_captures(self) -> list[int]:
        """Seeds each turn of :meth:`turn_list` put into the mover's store, leftovers excluded
        (the ``(-N)`` of Mancala World records; 0 for a turn without it)."""
        out: list[int] = []
        i = 0
        for _, moves in self.turn_list():
            out.append(sum(self._captures[i:i + len(moves)]))
            i += len(moves)
        return out

    def copy(self) -> SowingGame:
        """An independent copy, history included (the params array is shared, read only)."""
        new = SowingGame.__new__(SowingGame)
        new.__dict__.update(self.__dict__)
        new.state = self.state.copy()
        new._stack = [s.copy() for s in self._stack]
        new._captures = list(self._captures)
        new._moves = list(self._moves)
        new._movers = list(self._movers)
        new._buf = np.empty(self.pits, dtype=np.int64)
        return new

    def __str__(self) -> str:
        holes1, holes2 = self.holes
        store1, store2 = self.stores
        width = max(2, *(len(str(v)) for v in (*holes1, *holes2, store1, store2)))
        cell = width + 3

        def row(values: Sequence[int | str]) -> str:
            return "".join(f"{v:>{width}}".center(cell) for v in values)

        pad = " " * cell
        lines = [
            pad + row(list(range(self.pits, 0, -1))) + "  player 2's holes",
            pad + row(holes2[::-1]),
            f"{store2:>{width}}".center(cell) + " " * (cell * self.pits)
            + f"{store1:>{width}}".center(cell) + "  stores: 2 left, 1 right",
            pad + row(holes1),
            pad + row(list(range(1, self.pits + 1))) + "  player 1's holes",
        ]
        turns = self.turn_list()
        last = (f"last turn: player {turns[-1][0]} {'-'.join(str(m) for m in turns[-1][1])}"
                if turns else "no turn played yet")
        outcome = self.outcome
        if outcome is None:
            status = f"player {self.to_move} to move"
        else:
            status = f"game over: {outcome}, score {store1} : {store2}"
        header = f"{self.rules.game} ({self.rules.text}): {status}; {last}"
        return "\n".join(line.rstrip() for line in [header, *lines])
