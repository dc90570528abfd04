"""Dara and Dala as :class:`~nugar.rules.base.Game` objects over ``kernels/alignment.py``.

The game keeps one state array (``docs/architecture.md``), a stack of copies for undo, and the
keys of earlier turn-start positions for the repetition rule; the rules themselves live only in
the compiled kernels. Besides the base API it offers :meth:`AlignmentGame.from_diagram` and
:meth:`AlignmentGame.diagram` (positions as ASCII boards, for tests and analysis).

This module is also the family's implementation (``family.ALIGNMENT.parts``, :data:`PARTS`):
the kernel params of a rule set (:func:`make_params`), its action codes, score, observations,
board data (its AI profiles, with their evaluation weights, are in ``profiles.py``).
"""

from __future__ import annotations

from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from ..errors import InvalidMoveError, NugarError
from ..i18n import Text
from ..kernels import alignment as kernel
from ..kernels.common import (
    OUTCOME_DRAW,
    OUTCOME_RUNNING,
    REASON_REPETITION,
    ST_OUTCOME,
    ST_REASON,
    ST_TO_MOVE,
)
from ..kernels.dispatch import FAM_ALIGNMENT, fam_apply_held
from ..notation import FILES, parse_square, square_name
from .base import (
    FamilyDescriptor,
    FamilyParts,
    Game,
    Observation,
    position_fields,
    whole_number,
)
from .boards import GridBoard
from .codec import ActionCodec, codec_from_moves
from .family import ALIGNMENT
from .moves import Move, Outcome
from .options import AlignmentOptions, Options, RuleSet
from .symmetry import Symmetry, grid_symmetries

if TYPE_CHECKING:
    from .base import IntArray

SYMBOLS = {0: ".", 1: "X", 2: "O"}
#: the squares of a position text: b for Black (first player), w for White, . empty
POSITION_SYMBOLS = {0: ".", 1: "b", 2: "w"}
_FROM_SYMBOL = {ch: p for p, ch in POSITION_SYMBOLS.items()}
_DIRECTION_OF = {(0, 1): 0, (1, 0): 1, (0, -1): 2, (-1, 0): 3}


_ZOBRIST_SEED = 0x6E75676172  # "nugar"
#: the step directions of the action codes ``N + 4*sq + d``: (column, row) change of each d
DIRECTIONS = ("up", "right", "down", "left")
_DELTAS = ((0, 1), (1, 0), (0, -1), (-1, 0))


def make_params(options: AlignmentOptions) -> IntArray:
    """The kernel params array of an alignment rule set (plain Python; the games of a rule set
    share one array through :func:`alignment_params`)."""
    rows, cols = options.rows, options.cols
    n = rows * cols
    words = (n + 62) // 63
    off_nb = kernel.P_FIXED
    off_zpiece = off_nb + 4 * n
    off_zhand = off_zpiece + 2 * n
    off_zlast = off_zhand + 2 * 2 * 64
    size = off_zlast + 2 * 2 * n
    p = np.zeros(size, dtype=np.int64)
    p[kernel.P_ROWS], p[kernel.P_COLS], p[kernel.P_N], p[kernel.P_W] = rows, cols, n, words
    p[kernel.P_PIECES] = options.pieces
    p[kernel.P_CENTRE_FIRST] = int(options.centre_first)
    p[kernel.P_DROP_CAPTURE] = int(options.drop_capture)
    p[kernel.P_DROP_MAX] = {"none": kernel.UNLIMITED, "no_four": 3,
                            "no_three": 2}[options.drop_limit]
    p[kernel.P_STEP_MAX] = {"forbidden": 3, "allowed": kernel.UNLIMITED}[options.long_lines]
    p[kernel.P_PROTECT] = int(options.protect_threes)
    p[kernel.P_TAKE_ANY] = int(options.all_protected == "take_any")
    p[kernel.P_NO_RETURN] = int(options.no_return)
    p[kernel.P_BLOCKED_LOSE] = int(options.blocked == "lose")
    p[kernel.P_LOSS_AT] = options.loss_at
    p[kernel.P_REPETITION] = options.repetition or 0
    p[kernel.P_QUIET] = options.quiet_limit or 0
    # centre: rows floor(R/2) and floor(R/2)+1, columns likewise, counted from 1 (rules page)
    k = 0
    for r1 in (rows // 2, rows // 2 + 1):
        for c1 in (cols // 2, cols // 2 + 1):
            inside = 1 <= r1 <= rows and 1 <= c1 <= cols
            p[kernel.P_CENTRE + k] = (r1 - 1) * cols + (c1 - 1) if inside else -1
            k += 1
    for sq in range(n):
        r, c = divmod(sq, cols)
        p[off_nb + 4 * sq + 0] = sq + cols if r + 1 < rows else -1
        p[off_nb + 4 * sq + 1] = sq + 1 if c + 1 < cols else -1
        p[off_nb + 4 * sq + 2] = sq - cols if r > 0 else -1
        p[off_nb + 4 * sq + 3] = sq - 1 if c > 0 else -1
    rng = np.random.default_rng(_ZOBRIST_SEED + 1000 * rows + cols)
    keys = rng.integers(-(2**63), 2**63 - 1, size=size - off_zpiece + 2, dtype=np.int64)
    p[off_zpiece:size] = keys[: size - off_zpiece]
    p[kernel.P_Z_SIDE] = keys[-2]
    p[kernel.P_Z_PENDING] = keys[-1]
    p[kernel.P_OFF_NB], p[kernel.P_OFF_ZPIECE] = off_nb, off_zpiece
    if words == 1:
        last = sum(1 << (r * cols + cols - 1) for r in range(rows))
        full = (1 << n) - 1
        p[kernel.P_FULL], p[kernel.P_NOT_LAST_COL] = full, full & ~last
        p[kernel.P_BELOW_TOP] = full >> cols
        p[kernel.P_CENTRE_MASK] = sum(1 << int(c) for c in p[kernel.P_CENTRE:kernel.P_CENTRE + 4]
                                      if c >= 0)
    p[kernel.P_OFF_ZHAND], p[kernel.P_OFF_ZLAST] = off_zhand, off_zlast
    return p


@lru_cache(maxsize=64)
def alignment_params(options: AlignmentOptions) -> IntArray:
    """The kernel params of an alignment rule set, shared by its games (never written: a
    read-only flag would make numba compile every kernel a second time for that array type)."""
    return make_params(options)


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

    descriptor: ClassVar[FamilyDescriptor] = ALIGNMENT
    _kernel: ClassVar[ModuleType] = kernel

    def __init__(self, rules: RuleSet | str = "dara") -> None:
        self._history = np.empty(64, dtype=np.int64)
        super().__init__(rules)
        assert isinstance(self.rules.options, AlignmentOptions)
        self.options: AlignmentOptions = self.rules.options
        self.rows: int = self.options.rows
        self.cols: int = self.options.cols
        self._n = self.rows * self.cols

    def _start(self, state: IntArray) -> None:
        super()._start(state)
        self._history_count = int(kernel.note_position(self._params, self._state, self._history, 0))

    # --- setup -----------------------------------------------------------------------------
    @classmethod
    def from_diagram(cls, rules: RuleSet | str, diagram: str, to_move: int = 1,
                     in_hand: tuple[int, int] = (0, 0),
                     last_steps: tuple[str | None, str | None] = (None, None), *,
                     capture: bool = False, quiet: int = 0) -> AlignmentGame:
        """A game starting from an ASCII board.

        ``diagram`` has one line per row, the top line being the highest row number; each
        line has one character per column: ``X`` first player, ``O`` second, ``.`` empty
        (spaces between them are ignored, blank lines too). ``in_hand`` gives the pieces each
        player still holds (the drop phase lasts while the second player holds some);
        ``last_steps`` each player's previous step such as ``"c3-c4"`` (for ``no_return``).
        ``capture=True``: the player to move has formed a three and owes a capture now;
        ``quiet``: the ``quiet_limit`` counter (move-phase turns since the last capture).
        A position that is already decided (too few pieces, ``quiet`` at the limit, a blocked
        player) starts ended.

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
            raise NugarError(Text.plural(
                "the diagram has {count} row; {rules} has {rows} (one line per row, highest "
                "row first)", "the diagram has {count} rows; {rules} has {rows} (one line per "
                "row, highest row first)", len(lines), count=len(lines), rules=game.rules.text,
                rows=rows))
        if to_move not in (1, 2):
            raise NugarError(Text("to_move must be 1 or 2, got {value!r}", value=to_move))
        if (len(in_hand) != 2 or any(isinstance(h, bool) or not isinstance(h, int) or h < 0
                                     for h in in_hand)):
            raise NugarError(Text("in_hand must be two whole numbers >= 0, got {value!r}",
                                  value=in_hand))
        state = kernel.empty_state(game._params)
        state[ST_TO_MOVE] = to_move
        counts = [0, 0, 0]
        for i, line in enumerate(lines):
            row = rows - 1 - i
            if len(line) != cols:
                raise NugarError(Text.plural(
                    "diagram row {number} {row!r} has {count} square; {rules} has {cols} "
                    "columns", "diagram row {number} {row!r} has {count} squares; {rules} has "
                    "{cols} columns", len(line), number=row + 1, row=line, count=len(line),
                    rules=game.rules.text, cols=cols))
            for col, ch in enumerate(line):
                owner = {"X": 1, "O": 2, ".": 0}.get(ch.upper())
                if owner is None:
                    raise NugarError(Text("diagram row {number} has {char!r}; use X (Black, "
                                          "first), O (White, second) or . (empty)",
                                          number=row + 1, char=ch))
                counts[owner] += 1
                if owner:
                    sq = row * cols + col
                    word = kernel.ST_BOARD + (owner - 1) * int(game._params[kernel.P_W]) + sq // 63
                    state[word] |= 1 << (sq % 63)
        pieces = game.options.pieces
        for player in (1, 2):
            state[kernel.ST_HAND1 + player - 1] = in_hand[player - 1]
            if counts[player] + in_hand[player - 1] > pieces:
                raise NugarError(Text.plural(
                    "{player} has {count} piece on the board and {hand} in hand, more than "
                    "pieces={pieces}", "{player} has {count} pieces on the board and {hand} in "
                    "hand, more than pieces={pieces}", counts[player],
                    player=game.player_name(player), count=counts[player],
                    hand=in_hand[player - 1], pieces=pieces))
        for player, text in zip((1, 2), last_steps, strict=True):
            if text is None:
                continue
            move = game.parse_move(text)
            if move.kind != "step":
                raise NugarError(Text("a last step is written like 'c3-c4', not {text!r}",
                                      text=text))
            origin, target = (game._square(s) for s in move.squares)
            if not kernel.owns(game._params, state, player, target):
                raise NugarError(Text("last step {step} of {player}: no {player} piece on "
                                      "{square}", step=text, player=game.player_name(player),
                                      square=move.squares[1]))
            state[kernel.ST_LAST1 + 2 * (player - 1)] = origin
            state[kernel.ST_LAST1 + 2 * (player - 1) + 1] = target
        game._check_quiet_and_capture(state, quiet, capture)
        state[kernel.ST_QUIET] = quiet
        state[kernel.ST_PENDING] = 1 if capture else 0
        kernel.finish_setup(game._params, state)
        if capture and (state[ST_OUTCOME] != OUTCOME_RUNNING
                        or kernel.legal_actions(game._params, state, game._buf) == 0):
            raise NugarError(Text("{player} cannot owe a capture here: no {other} piece may "
                                  "be taken", player=game.player_name(to_move),
                                  other=game.player_name(3 - to_move)))
        game._start(state)
        return game

    def _check_quiet_and_capture(self, state: IntArray, quiet: int, capture: bool) -> None:
        """The checks of :meth:`from_diagram` on its ``quiet`` and ``capture`` arguments."""
        limit = self.options.quiet_limit
        if isinstance(quiet, bool) or not isinstance(quiet, int) or quiet < 0:
            raise NugarError(Text("the quiet counter must be a whole number >= 0, not "
                                  "{value!r}", value=quiet))
        if limit is not None and quiet > limit - (1 if capture else 0):
            if capture:
                raise NugarError(Text("the quiet counter is at most {most} while a capture is "
                                      "owed (quiet_limit={limit}), not {quiet}",
                                      most=limit - 1, limit=limit, quiet=quiet))
            raise NugarError(Text("the quiet counter is at most {most} (quiet_limit={limit}), "
                                  "not {quiet}", most=limit, limit=limit, quiet=quiet))
        drop_phase = bool(state[kernel.ST_HAND2] > 0)
        if quiet and drop_phase:
            raise NugarError(Text("the quiet counter starts with the move phase, but {player} "
                                  "still has pieces in hand", player=self.player_name(2)))
        if not capture:
            return
        mover = int(state[ST_TO_MOVE])
        if drop_phase and not self.options.drop_capture:
            raise NugarError(Text("no capture can be owed in the drop phase of a game with "
                                  "drop_capture=off"))
        if not any(kernel.owns(self._params, state, mover, sq)
                   and kernel.in_three(self._params, state, mover, sq)
                   for sq in range(self._n)):
            raise NugarError(Text("{player} owes a capture only after forming a three, and "
                                  "has none on the board", player=self.player_name(mover)))

    def diagram(self) -> str:
        """The board as :meth:`from_diagram` reads it (highest row first, no coordinates)."""
        out = []
        for row in range(self.rows - 1, -1, -1):
            out.append(" ".join(SYMBOLS[self.owner(row * self.cols + c)]
                                for c in range(self.cols)))
        return "\n".join(out)

    # --- position text (Game.position_text, nugar.from_position) ----------------------------
    def _owners(self) -> list[int]:
        """Who is on each square (0, 1 or 2), read off the bitboards in one pass."""
        words = int(self._params[kernel.P_W])
        out = [0] * self._n
        for player in (1, 2):
            base = kernel.ST_BOARD + (player - 1) * words
            for k in range(words):
                word = int(self._state[base + k])
                while word:
                    low = word & -word
                    out[63 * k + low.bit_length() - 1] = player
                    word ^= low
        return out

    def _live_last_step(self, player: int) -> str | None:
        """``player``'s last step where ``no_return`` can still forbid its way back: his piece
        still stands on its target (once it is taken, the step restricts nothing)."""
        i = kernel.ST_LAST1 + 2 * (player - 1)
        origin, target = int(self._state[i]), int(self._state[i + 1])
        if origin < 0 or not kernel.owns(self._params, self._state, player, target):
            return None
        return f"{self._name(origin)}-{self._name(target)}"

    def _position_fields(self) -> list[str]:
        owners = self._owners()
        cols = self.cols
        rows = ["".join(POSITION_SYMBOLS[owners[row * cols + c]] for c in range(cols))
                for row in range(self.rows - 1, -1, -1)]
        h1, h2 = self.in_hand
        fields = ["/".join(rows), POSITION_SYMBOLS[self.to_move], f"hand={h1},{h2}"]
        if self.capture_pending:
            fields.append("capture")
        if self.options.quiet_limit is not None and self.quiet_turns:
            fields.append(f"quiet={self.quiet_turns}")
        if self.options.no_return:
            steps = [self._live_last_step(player) for player in (1, 2)]
            if any(steps):
                fields.append("last=" + ",".join(step or "-" for step in steps))
        return fields

    @classmethod
    def _setup_position(cls, rules: RuleSet, fields: list[str]) -> AlignmentGame:
        options = rules.options
        assert isinstance(options, AlignmentOptions)
        names = {p: ALIGNMENT.player_name(p) for p in (1, 2)}
        symbols = Text("{first} ({first_name}), {second} ({second_name})",
                       first=POSITION_SYMBOLS[1], first_name=names[1],
                       second=POSITION_SYMBOLS[2], second_name=names[2])
        if len(fields) < 2:
            raise NugarError(Text("after the rule set come the board, its rows joined by '/' "
                                  "from the highest, and the player to move ({symbols})",
                                  symbols=symbols))
        board, mover, *rest = fields
        rows = board.split("/")
        if len(rows) != options.rows:
            raise NugarError(Text.plural(
                "the board has {count} row; {rules} has {rows} (rows joined by '/', the "
                "highest row first)", "the board has {count} rows; {rules} has {rows} (rows "
                "joined by '/', the highest row first)", len(rows), count=len(rows),
                rules=rules.text, rows=options.rows))
        lines = []
        for i, row in enumerate(rows):
            number = options.rows - i
            if len(row) != options.cols:
                raise NugarError(Text.plural(
                    "board row {number} {row!r} has {count} square; {rules} has {cols} "
                    "columns", "board row {number} {row!r} has {count} squares; {rules} has "
                    "{cols} columns", len(row), number=number, row=row, count=len(row),
                    rules=rules.text, cols=options.cols))
            bad = [ch for ch in row if ch not in _FROM_SYMBOL]
            if bad:
                raise NugarError(Text("board row {number} {row!r} has {char!r}; a square is "
                                      "{symbols} or . (empty)", number=number, row=row,
                                      char=bad[0], symbols=symbols))
            lines.append("".join(SYMBOLS[_FROM_SYMBOL[ch]] for ch in row))
        to_move = _FROM_SYMBOL.get(mover, 0)
        if not to_move:
            raise NugarError(Text("the player to move is {symbols}, not {mover!r}",
                                  symbols=symbols, mover=mover))
        given = position_fields(rest, {"hand": "hand=12,12", "capture": "capture",
                                       "quiet": "quiet=10", "last": "last=c3-c4,-"})
        hand = (0, 0)
        if "hand" in given:
            parts = given["hand"].split(",")
            if len(parts) != 2:
                raise NugarError(Text("hand= gives the pieces in hand of {first} and {second}, "
                                      "e.g. hand=12,12, not hand={value}", first=names[1],
                                      second=names[2], value=given["hand"]))
            hand = (whole_number(parts[0], Text("a hand")),
                    whole_number(parts[1], Text("a hand")))
        quiet = 0
        if "quiet" in given:
            if options.quiet_limit is None:
                raise NugarError(Text("quiet= counts turns towards a quiet_limit, which {rules} "
                                      "does not have", rules=rules.text))
            quiet = whole_number(given["quiet"], "quiet")
        last: tuple[str | None, str | None] = (None, None)
        if "last" in given:
            if not options.no_return:
                raise NugarError(Text("last= matters only under no_return, which {rules} has "
                                      "off", rules=rules.text))
            steps = given["last"].split(",")
            if len(steps) != 2 or not all(steps):
                raise NugarError(Text("last= gives the last steps of {first} and {second}, '-' "
                                      "for none, e.g. last=c3-c4,-, not last={value}",
                                      first=names[1], second=names[2], value=given["last"]))
            last = (None if steps[0] == "-" else steps[0], None if steps[1] == "-" else steps[1])
            if hand[1] > 0 and any(last):
                raise NugarError(Text("no step has been made during the drop phase (while "
                                      "{player} still has pieces in hand)", player=names[2]))
        return cls.from_diagram(rules, "\n".join(lines), to_move, hand, last,
                                capture="capture" in given, quiet=quiet)

    def _impose_outcome(self, outcome: Outcome) -> bool:
        derived = self.outcome
        if self.capture_pending or self._imposed is not None:
            return False
        if (outcome == Outcome(None, "repetition") and self.options.repetition is not None
                and (derived is None or derived.reason in ("quiet_limit", "blocked"))):
            # repetition comes before quiet_limit and the blocked rule (rules page, "End of
            # the game"), so it can end a game that they would end too
            self._state[ST_OUTCOME] = OUTCOME_DRAW
            self._state[ST_REASON] = REASON_REPETITION
            return True
        if outcome == Outcome(None, "blocked") and derived is None:
            # both blocked in a row: the turn before was a pass, and this player is blocked
            self._state[kernel.ST_PASSED] = 1
            kernel.start_turn(self._params, self._state)
            if self.outcome == outcome:
                return True
            self._state[kernel.ST_PASSED] = 0
        return False

    def _may_win(self, player: int) -> bool:
        """The opponent loses only by falling to ``loss_at`` pieces, which takes captures, and
        a capture takes a three of ``player``'s: so ``player`` needs three pieces (board plus
        hand) and a board with a row or column of three squares. With ``blocked=lose`` the
        opponent can also lose by being hemmed in, which any piece may help to do: no test
        then. A repetition, the quiet limit or both players blocked are draws, never wins."""
        if self.options.blocked == "lose":
            return True
        pieces = self.in_hand[player - 1] + self.on_board[player - 1]
        return pieces >= 3 and max(self.rows, self.cols) >= 3

    # --- position --------------------------------------------------------------------------
    def owner(self, sq: int) -> int:
        """0 (empty), 1 or 2: who has a piece on square number ``sq`` (``row * cols + col``)."""
        for player in (1, 2):
            if kernel.owns(self._params, self._state, player, sq):
                return player
        return 0

    def piece_at(self, square: str) -> int:
        """0 (empty), 1 or 2: who has a piece on the named square, e.g. ``"c3"``."""
        return self.owner(self._square(square))

    @property
    def in_hand(self) -> tuple[int, int]:
        """Pieces still in hand, first player first."""
        return int(self._state[kernel.ST_HAND1]), int(self._state[kernel.ST_HAND2])

    @property
    def on_board(self) -> tuple[int, int]:
        """Pieces on the board, first player first."""
        return int(self._state[kernel.ST_ON1]), int(self._state[kernel.ST_ON2])

    @property
    def in_drop_phase(self) -> bool:
        """True while the second player still holds pieces (rules page, phases)."""
        return bool(self._state[kernel.ST_HAND2] > 0)

    @property
    def capture_pending(self) -> bool:
        """True when the player to move has formed a three and must now choose a capture."""
        return bool(self._state[kernel.ST_PENDING])

    @property
    def quiet_turns(self) -> int:
        """Move-phase turns since the last capture (the ``quiet_limit`` counter)."""
        return int(self._state[kernel.ST_QUIET])

    def repetition_keys(self) -> list[int]:
        """Keys of the turn-start positions since the last drop or capture, oldest first
        (older positions cannot recur); the current position is last when it starts a turn.
        The search scores a return to one as a draw."""
        return [int(k) for k in self._history[: int(self._history_count)]]

    # --- what the base class needs ---------------------------------------------------------
    def _name(self, sq: int) -> str:
        return square_name(sq % self.cols, sq // self.cols)

    def _square(self, name: str) -> int:
        return _square_index(self.rules, name)

    def _apply_action(self, action: int) -> None:
        self._stack.append((self._state.copy(), self._history_count))
        fam_apply_held(self._fam, self._params, self._state, action)
        if self._history_count + 1 >= self._history.shape[0]:
            self._history = np.concatenate([self._history, np.empty_like(self._history)])
        self._history_count = int(kernel.note_position_held(self._params, self._state,
                                                       self._history, self._history_count))

    def _restore(self) -> None:
        self._state, self._history_count = self._stack.pop()

    def _copy_into(self, new: AlignmentGame) -> None:
        new._stack = [(state.copy(), count) for state, count in self._stack]
        new._history = self._history.copy()

    # --- why a move is refused (error path only) ------------------------------------------------
    def _runs(self, player: int, sq: int, skip: int = -1) -> tuple[int, int]:
        """Lengths of ``player``'s row and column lines through ``sq`` with his piece assumed
        there and the square ``skip`` counted as empty."""
        row0, col0 = divmod(sq, self.cols)
        lengths = []
        for d_row, d_col in ((0, 1), (1, 0)):
            length = 1
            for sign in (1, -1):
                row, col = row0 + sign * d_row, col0 + sign * d_col
                while (0 <= row < self.rows and 0 <= col < self.cols
                       and row * self.cols + col != skip
                       and self.owner(row * self.cols + col) == player):
                    length += 1
                    row, col = row + sign * d_row, col + sign * d_col
            lengths.append(length)
        return lengths[0], lengths[1]

    def _centre_squares(self) -> list[int]:
        return [int(c) for c in self._params[kernel.P_CENTRE:kernel.P_CENTRE + 4] if c >= 0]

    def _why_illegal(self, move: Move) -> str:
        player = self.to_move
        me, other = self.player_name(player), self.player_name(3 - player)
        if self.capture_pending:
            if move.kind != "capture":
                return Text("{me} formed a three and must first capture a {other} piece",
                            me=me, other=other)
            name = move.squares[0]
            owner = self.piece_at(name)
            if owner == 0:
                return Text("there is no piece on {square} to capture", square=name)
            if owner == player:
                return Text("{square} holds {me}'s own piece; capture a {other} piece",
                            square=name, me=me, other=other)
            if 3 in self._runs(owner, self._square(name)):
                return Text("the {other} piece on {square} stands in a three and is protected "
                            "(protect_threes=on)", other=other, square=name)
            return ""
        if move.kind == "capture":
            return Text("there is nothing to capture, as {me} has not just formed a three",
                        me=me)
        if move.kind == "pass":
            count = len(self.legal_moves())
            return Text.plural("{me} may pass only when blocked, and has {count} legal move",
                               "{me} may pass only when blocked, and has {count} legal moves",
                               count, me=me, count=count)
        if move.kind == "drop":
            return self._why_drop_illegal(player, move.squares[0])
        if move.kind == "step":
            return self._why_step_illegal(player, *move.squares)
        return ""

    def _why_drop_illegal(self, player: int, name: str) -> str:
        me = self.player_name(player)
        if not self.in_drop_phase:
            return Text("the drop phase is over ({second} has no piece left in hand), so a "
                        "piece steps to a neighbouring empty square instead",
                        second=self.player_name(2))
        if self.in_hand[player - 1] == 0:
            return Text("{me} has no piece left in hand", me=me)
        sq = self._square(name)
        owner = self.owner(sq)
        if owner:
            return Text("{square} is occupied (by a {owner} piece)", square=name,
                        owner=self.player_name(owner))
        centre = self._centre_squares()
        dropped = 2 * self.options.pieces - sum(self.in_hand)
        if (self.options.centre_first and dropped < 4 and sq not in centre
                and any(self.owner(c) == 0 for c in centre)):
            names = ", ".join(self._name(c) for c in centre)
            return Text("the centre squares {squares} must be filled first (centre_first=on)",
                        squares=names)
        length = max(self._runs(player, sq))
        limit = self.options.drop_limit
        if (limit == "no_four" and length >= 4) or (limit == "no_three" and length >= 3):
            return Text("a drop on {square} would make {line} (drop_limit={limit})",
                        square=name, line=_line(length), limit=limit)
        return ""

    def _why_step_illegal(self, player: int, origin_name: str, target_name: str) -> str:
        me = self.player_name(player)
        if self.in_drop_phase:
            left = int(self._state[kernel.ST_HAND2])
            return Text.plural(
                "it is still the drop phase ({second} has {left} piece in hand), and steps "
                "come only after it", "it is still the drop phase ({second} has {left} pieces "
                "in hand), and steps come only after it", left, second=self.player_name(2),
                left=left)
        origin, target = self._square(origin_name), self._square(target_name)
        owner = self.owner(origin)
        if owner == 0:
            return Text("there is no piece on {square}", square=origin_name)
        if owner != player:
            return Text("the piece on {square} is {owner}'s, not {me}'s", square=origin_name,
                        owner=self.player_name(owner), me=me)
        occupant = self.owner(target)
        if occupant:
            return Text("{square} is occupied (by a {owner} piece)", square=target_name,
                        owner=self.player_name(occupant))
        last = kernel.ST_LAST1 + 2 * (player - 1)
        if (self.options.no_return and int(self._state[last]) == target
                and int(self._state[last + 1]) == origin):
            return Text("the piece on {origin} just came from {target} and may not step "
                        "straight back (no_return=on)", origin=origin_name, target=target_name)
        length = max(self._runs(player, target, skip=origin))
        if self.options.long_lines == "forbidden" and length > 3:
            return Text("{step} would make {line} (long_lines=forbidden)",
                        step=f"{origin_name}-{target_name}", line=_line(length))
        return ""

    def _why_turn_ended(self) -> str:
        move, mover = self._moves[-1], self._movers[-1]
        if move.kind not in ("drop", "step"):
            return ""
        if 3 not in self._runs(mover, self._square(move.squares[-1])):
            return Text("{move} formed no three", move=str(move))
        if move.kind == "drop" and not self.options.drop_capture:
            return Text("a three made by a drop captures nothing (drop_capture=off)")
        return Text("every {other} piece was protected", other=self.player_name(3 - mover))

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
        lines.append(f"{SYMBOLS[1]} {self.player_label(1)}, {SYMBOLS[2]} {self.player_label(2)}; "
                     f"in hand: {self.player_name(1)} {h1}, {self.player_name(2)} {h2}")
        outcome = self.outcome
        if outcome is not None:
            lines.append(f"game over: {outcome}")
        else:
            mover = self.to_move
            what = " (must capture)" if self.capture_pending else ""
            lines.append(f"to move: {self.player_name(mover)}{what}")
        turns = self.turns()
        lines.append(f"last move: {turns[-1] if turns else '-'}")
        return "\n".join(lines)


def _line(length: int) -> str:
    """``"three in a row"``, ``"a line of four"``: the words of a line's length."""
    if length == 3:
        return Text("three in a row")
    words = {4: Text("four"), 5: Text("five"), 6: Text("six")}.get(length, str(length))
    return Text("a line of {length}", length=words)


# --- the family's parts (family.ALIGNMENT.parts) ---------------------------------------------

def _square_index(rules: RuleSet, name: str) -> int:
    """The number ``row * cols + col`` of a square name, checked against the board."""
    options = rules.options
    assert isinstance(options, AlignmentOptions)
    rows, cols = options.rows, options.cols
    col, row = parse_square(name)
    if col >= cols or row >= rows:
        last = square_name(cols - 1, rows - 1)
        raise InvalidMoveError(Text("square {square} is off the {rows}x{cols} board of "
                                    "{rules}; squares are a1..{last}", square=f"{name!r}",
                                    rows=rows, cols=cols, rules=rules.text, last=last))
    return row * cols + col


@lru_cache(maxsize=64)
def alignment_codec(rules: RuleSet) -> ActionCodec:
    """The action codes of an alignment rule set (``kernels/alignment.py``): with
    ``N = rows * cols``, ``sq`` drop, ``N + 4*sq + d`` step (d: 0 up, 1 right, 2 down, 3 left),
    ``5N + sq`` capture, ``6N`` pass. A step off the board has a code and a name
    (``a1-left``) but no move."""
    options = rules.options
    assert isinstance(options, AlignmentOptions)
    rows, cols = options.rows, options.cols
    n = rows * cols
    squares = [square_name(sq % cols, sq // cols) for sq in range(n)]
    moves: list[Move | None] = [Move.drop(name) for name in squares]
    names = list(squares)
    for sq, origin in enumerate(squares):
        col, row = sq % cols, sq // cols
        for d, (d_col, d_row) in enumerate(_DELTAS):
            if 0 <= col + d_col < cols and 0 <= row + d_row < rows:
                target = squares[sq + d_col + d_row * cols]
                moves.append(Move.step(origin, target))
                names.append(f"{origin}-{target}")
            else:
                moves.append(None)
                names.append(f"{origin}-{DIRECTIONS[d]}")
    moves += [Move.capture(name) for name in squares]
    names += ["x" + name for name in squares]
    moves.append(Move.pass_())
    names.append("pass")

    def resolve(move: Move) -> int:
        if move.kind == "drop":
            return _square_index(rules, move.squares[0])
        if move.kind == "capture":
            return 5 * n + _square_index(rules, move.squares[0])
        if move.kind == "pass":
            return 6 * n
        if move.kind == "step":
            origin, target = (_square_index(rules, s) for s in move.squares)
            delta = (target % cols - origin % cols, target // cols - origin // cols)
            d = _DIRECTION_OF.get(delta)
            if d is None:
                raise InvalidMoveError(Text(
                    "{move} is not a step: a piece moves one square up, down, left or right "
                    "(never diagonally), e.g. c3-c4", move=str(move)))
            return n + 4 * origin + d
        raise InvalidMoveError(Text(
            "{move} is not an alignment move; {game} moves are a drop 'c3', a step 'c3-c4', "
            "a capture 'xe5' or 'pass' (a turn such as 'c3-c4xe5')", move=str(move),
            game=rules.game))

    def no_move(action: int) -> str:
        return Text("action {action} steps from {square} off the board", action=action,
                    square=squares[(action - n) // 4])

    return codec_from_moves(moves, names, resolve, no_move, f"for a {rows}x{cols} board")


def _params_of(options: Options) -> IntArray:
    assert isinstance(options, AlignmentOptions)
    return alignment_params(options)


def _score(params: IntArray, state: IntArray) -> tuple[int, int]:
    """Pieces left (board plus hand), first player first."""
    return (int(state[kernel.ST_ON1] + state[kernel.ST_HAND1]),
            int(state[kernel.ST_ON2] + state[kernel.ST_HAND2]))


def _board(game: Game) -> GridBoard:
    assert isinstance(game, AlignmentGame)
    rows, cols = game.rows, game.cols
    owners = game._owners()
    grid = tuple(tuple(owners[r * cols:(r + 1) * cols]) for r in range(rows))
    return GridBoard(rows, cols, grid, game.in_hand, game.on_board)


def _observation() -> Observation:
    from ..kernels import batch

    def shape(params: IntArray) -> tuple[int, ...]:
        return (batch.ALIGN_PLANES, int(params[kernel.P_ROWS]), int(params[kernel.P_COLS]))

    # the first two planes: the observer's pieces and the opponent's
    return Observation(shape, batch.alignment_observe, lambda params: 2)


def _symmetries(rules: RuleSet) -> tuple[Symmetry, ...]:
    """The mirror images and turns of the board (``rules/symmetry.py`` says why)."""
    opts = rules.options
    assert isinstance(opts, AlignmentOptions)
    return grid_symmetries(opts.rows, opts.cols)


#: what the alignment family brings with its kernels (``family.ALIGNMENT.parts``)
PARTS = FamilyParts(kernel=kernel, code=FAM_ALIGNMENT, game_class=AlignmentGame, params=_params_of,
                    codec=alignment_codec, score=_score, board=_board,
                    observation=_observation, symmetries=_symmetries)
