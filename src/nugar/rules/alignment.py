"""Dara and Dala as :class:`~nugar.rules.base.Game` objects over ``kernels/alignment.py``.

The game keeps one state array (``docs/architecture.md``), a stack of copies for undo, and the
keys of earlier turn-start positions for the repetition rule; the rules themselves live only in
the compiled kernels. Besides the base API it offers :meth:`AlignmentGame.from_diagram` and
:meth:`AlignmentGame.diagram` (positions as ASCII boards, for tests and analysis).
"""

from __future__ import annotations

from functools import lru_cache
from typing import ClassVar

import numpy as np

from ..errors import InvalidMoveError, NugarError
from ..kernels import alignment as K
from ..kernels.common import (
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    REASON_NAMES,
    ST_KEY,
    ST_OUTCOME,
    ST_REASON,
    ST_TO_MOVE,
)
from ..notation import FILES, parse_square, square_name
from .base import Game, Move, Outcome
from .options import AlignmentOptions, Family, RuleSet

SYMBOLS = {0: ".", 1: "X", 2: "O"}
COLOUR_NAMES = {1: "Black", 2: "White"}
_DIRECTION_OF = {(0, 1): 0, (1, 0): 1, (0, -1): 2, (-1, 0): 3}


@lru_cache(maxsize=64)
def alignment_params(options: AlignmentOptions) -> K.IntArray:
    """The kernel params of an alignment rule set, shared by its games (never written: a
    read-only flag would make numba compile every kernel a second time for that array type)."""
    return K.make_params(options)


class AlignmentGame(Game):
    """A game of Dara or Dala (``new_game("dara")``, ``new_game("dala")``).

    >>> from nugar import new_game
    >>> g = new_game("dala")
    >>> [str(m) for m in g.legal_moves()]     # the first drops go into the centre
    ['c3', 'd3', 'c4', 'd4']
    >>> g.play("c3")
    >>> g.to_move, g.score
    (2, (12, 12))
    """

    family: ClassVar[Family] = "alignment"

    def __init__(self, rules: RuleSet | str = "dara") -> None:
        super().__init__(rules)
        assert isinstance(self.rules.options, AlignmentOptions)
        self.options: AlignmentOptions = self.rules.options
        self.rows: int = self.options.rows
        self.cols: int = self.options.cols
        self.params: K.IntArray = alignment_params(self.options)
        self._n = self.rows * self.cols
        self._buf = np.empty(int(K.num_actions(self.params)), dtype=np.int64)
        self._history = np.empty(64, dtype=np.int64)
        self._stack: list[tuple[K.IntArray, int]] = []
        self._start(K.initial_state(self.params))

    def _start(self, state: K.IntArray) -> None:
        self.state: K.IntArray = state
        self._stack.clear()
        self._history_count = int(K.note_position(self.params, self.state, self._history, 0))

    # --- setup -----------------------------------------------------------------------------
    @classmethod
    def from_diagram(cls, rules: RuleSet | str, diagram: str, to_move: int = 1,
                     in_hand: tuple[int, int] = (0, 0),
                     last_steps: tuple[str | None, str | None] = (None, None)) -> AlignmentGame:
        """A game starting from an ASCII board.

        ``diagram`` has one line per row, the top line being the highest row number; each
        line has one character per column: ``X`` first player, ``O`` second, ``.`` empty
        (spaces between them are ignored, blank lines too). ``in_hand`` gives the pieces each
        player still holds (the drop phase lasts while the second player holds some);
        ``last_steps`` each player's previous step such as ``"c3-c4"`` (for ``no_return``).
        A position that is already decided (too few pieces, a blocked player) starts ended.

        >>> g = AlignmentGame.from_diagram("dara", '''
        ...     . . . . . .
        ...     . . . . . .
        ...     X X . X . .
        ...     O O . . . .
        ...     O . . . . .''')
        >>> [str(m) for m in g.legal_moves()][:3]
        ['a3-a4', 'b3-b4', 'b3-c3']
        """
        game = cls(rules)
        rows, cols = game.rows, game.cols
        lines = [line.replace(" ", "").replace("\t", "") for line in diagram.splitlines()]
        lines = [line for line in lines if line]
        if len(lines) != rows:
            raise NugarError(f"the diagram has {len(lines)} rows; {game.rules.text} has {rows} "
                             f"(one line per row, highest row first)")
        if to_move not in (1, 2):
            raise NugarError(f"to_move must be 1 or 2, got {to_move!r}")
        if (len(in_hand) != 2 or any(isinstance(h, bool) or not isinstance(h, int) or h < 0
                                     for h in in_hand)):
            raise NugarError(f"in_hand must be two whole numbers >= 0, got {in_hand!r}")
        state = K.empty_state(game.params)
        state[ST_TO_MOVE] = to_move
        counts = [0, 0, 0]
        for i, line in enumerate(lines):
            row = rows - 1 - i
            if len(line) != cols:
                raise NugarError(f"diagram row {row + 1} {line!r} has {len(line)} squares; "
                                 f"{game.rules.text} has {cols} columns")
            for col, ch in enumerate(line):
                owner = {"X": 1, "O": 2, ".": 0}.get(ch.upper())
                if owner is None:
                    raise NugarError(f"diagram row {row + 1} has {ch!r}; use X (first "
                                     "player), O (second player) or . (empty)")
                counts[owner] += 1
                if owner:
                    sq = row * cols + col
                    state[K.ST_BOARD + (owner - 1) * int(game.params[K.P_W]) + sq // 63] |= (
                        1 << (sq % 63))
        pieces = game.options.pieces
        for player in (1, 2):
            state[K.ST_HAND1 + player - 1] = in_hand[player - 1]
            if counts[player] + in_hand[player - 1] > pieces:
                raise NugarError(f"player {player} has {counts[player]} pieces on the board and "
                                 f"{in_hand[player - 1]} in hand, more than pieces={pieces}")
        for player, text in zip((1, 2), last_steps, strict=True):
            if text is None:
                continue
            move = game.parse_move(text)
            if move.kind != "step":
                raise NugarError(f"a last step is written like 'c3-c4', not {text!r}")
            origin, target = (game._square(s) for s in move.squares)
            if not K.owns(game.params, state, player, target):
                raise NugarError(f"last step {text} of player {player}: no piece of his on "
                                 f"{move.squares[1]}")
            state[K.ST_LAST1 + 2 * (player - 1)] = origin
            state[K.ST_LAST1 + 2 * (player - 1) + 1] = target
        K.finish_setup(game.params, state)
        game._start(state)
        return game

    def diagram(self) -> str:
        """The board as :meth:`from_diagram` reads it (highest row first, no coordinates)."""
        out = []
        for row in range(self.rows - 1, -1, -1):
            out.append(" ".join(SYMBOLS[self.owner(row * self.cols + c)]
                                for c in range(self.cols)))
        return "\n".join(out)

    # --- position --------------------------------------------------------------------------
    def owner(self, sq: int) -> int:
        """0 (empty), 1 or 2: who has a piece on square number ``sq`` (``row * cols + col``)."""
        for player in (1, 2):
            if K.owns(self.params, self.state, player, sq):
                return player
        return 0

    def piece_at(self, square: str) -> int:
        """0 (empty), 1 or 2: who has a piece on the named square, e.g. ``"c3"``."""
        return self.owner(self._square(square))

    @property
    def in_hand(self) -> tuple[int, int]:
        """Pieces still in hand, first player first."""
        return int(self.state[K.ST_HAND1]), int(self.state[K.ST_HAND2])

    @property
    def on_board(self) -> tuple[int, int]:
        """Pieces on the board, first player first."""
        return int(self.state[K.ST_ON1]), int(self.state[K.ST_ON2])

    @property
    def in_drop_phase(self) -> bool:
        """True while the second player still holds pieces (RULES.md, Phases)."""
        return bool(self.state[K.ST_HAND2] > 0)

    @property
    def capture_pending(self) -> bool:
        """True when the player to move has formed a three and must now choose a capture."""
        return bool(self.state[K.ST_PENDING])

    @property
    def quiet_turns(self) -> int:
        """Move-phase turns since the last capture (the ``quiet_limit`` counter)."""
        return int(self.state[K.ST_QUIET])

    def repetition_keys(self) -> list[int]:
        """Keys of the turn-start positions since the last drop or capture, oldest first
        (older positions cannot recur); the current position is last when it starts a turn."""
        return [int(k) for k in self._history[: int(self._history_count)]]

    @property
    def key(self) -> int:
        """64-bit key of the position (board, hands, side to move, owed capture, last steps
        where ``no_return`` is on)."""
        return int(self.state[ST_KEY])

    # --- what the base class needs ---------------------------------------------------------
    def legal_actions(self) -> list[int]:
        if self._resigned is not None:
            return []
        n = K.legal_actions(self.params, self.state, self._buf)
        return [int(a) for a in self._buf[:n]]

    def _name(self, sq: int) -> str:
        return square_name(sq % self.cols, sq // self.cols)

    def _square(self, name: str) -> int:
        col, row = parse_square(name)
        if col >= self.cols or row >= self.rows:
            last = square_name(self.cols - 1, self.rows - 1)
            raise InvalidMoveError(f"square {name!r} is off the {self.rows}x{self.cols} board "
                                   f"of {self.rules.text}; squares are a1..{last}")
        return row * self.cols + col

    def action_to_move(self, action: int) -> Move:
        n = self._n
        if not 0 <= action <= 6 * n:
            raise InvalidMoveError(f"action {action} is outside 0..{6 * n} for a "
                                   f"{self.rows}x{self.cols} board")
        if action < n:
            return Move.drop(self._name(action))
        if action < 5 * n:
            origin = (action - n) // 4
            target = int(self.params[int(self.params[K.P_OFF_NB]) + action - n])
            if target < 0:
                raise InvalidMoveError(f"action {action} steps from {self._name(origin)} off "
                                       "the board")
            return Move.step(self._name(origin), self._name(target))
        if action < 6 * n:
            return Move.capture(self._name(action - 5 * n))
        return Move.pass_()

    def move_to_action(self, move: Move) -> int:
        n = self._n
        if move.kind == "drop":
            return self._square(move.squares[0])
        if move.kind == "capture":
            return 5 * n + self._square(move.squares[0])
        if move.kind == "pass":
            return 6 * n
        if move.kind == "step":
            origin, target = (self._square(s) for s in move.squares)
            delta = (target % self.cols - origin % self.cols,
                     target // self.cols - origin // self.cols)
            d = _DIRECTION_OF.get(delta)
            if d is None:
                raise InvalidMoveError(
                    f"{move} is not a step: a piece moves one square up, down, left or right "
                    "(never diagonally), e.g. c3-c4")
            return n + 4 * origin + d
        raise InvalidMoveError(
            f"{move} is not an alignment move; {self.rules.game} moves are a drop 'c3', a "
            "step 'c3-c4', a capture 'xe5' or 'pass' (a turn such as 'c3-c4xe5')")

    def _apply_action(self, action: int) -> None:
        self._stack.append((self.state.copy(), self._history_count))
        K.apply_action(self.params, self.state, action)
        if self._history_count + 1 >= self._history.shape[0]:
            self._history = np.concatenate([self._history, np.empty_like(self._history)])
        self._history_count = int(
            K.note_position(self.params, self.state, self._history, self._history_count))

    def _restore(self) -> None:
        self.state, self._history_count = self._stack.pop()

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
        """Pieces left (board plus hand), first player first."""
        on1, on2 = self.on_board
        h1, h2 = self.in_hand
        return on1 + h1, on2 + h2

    def __str__(self) -> str:
        cols = self.cols
        width = len(str(self.rows))
        letters = " " * (width + 1) + " ".join(FILES[:cols])
        lines = [letters]
        for row in range(self.rows - 1, -1, -1):
            cells = " ".join(SYMBOLS[self.owner(row * cols + c)] for c in range(cols))
            lines.append(f"{row + 1:>{width}} {cells} {row + 1}")
        lines.append(letters)
        h1, h2 = self.in_hand
        lines.append(f"in hand: X {h1}, O {h2}")
        outcome = self.outcome
        if outcome is not None:
            lines.append(f"game over: {outcome}")
        else:
            mover = self.to_move
            what = " (must capture)" if self.capture_pending else ""
            lines.append(f"to move: {SYMBOLS[mover]} ({COLOUR_NAMES[mover]}){what}")
        turns = self.turns()
        lines.append(f"last move: {turns[-1] if turns else '-'}")
        return "\n".join(lines)
