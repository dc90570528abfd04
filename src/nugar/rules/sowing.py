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
from .base import Game, Move, Outcome, position_fields, whole_number
from .options import Family, RuleSet, SowingOptions, player_name

#: the player to move in a position text: s for South (first player), n for North
POSITION_SYMBOLS = {1: "s", 2: "n"}
_FROM_SYMBOL = {ch: p for p, ch in POSITION_SYMBOLS.items()}


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

    # --- position text (Game.position_text, nugar.from_position) ----------------------------
    def _position_fields(self) -> list[str]:
        (holes1, holes2), (store1, store2) = self.holes, self.stores
        board = (",".join(str(v) for v in holes1) + f":{store1}/"
                 + ",".join(str(v) for v in holes2) + f":{store2}")
        fields = [board, POSITION_SYMBOLS[self.to_move]]
        ext = K.fields_start(self.params)
        if self.rules.is_dracala and self.state[ext + K.F_FIRST_DONE] == 0:
            fields.append("opening")
        capturer = int(self.state[ext + K.F_LAST_CAPTURER])
        if self.options.leftovers == "last_capturer" and capturer:
            fields.append(f"capturer={POSITION_SYMBOLS[capturer]}")
        return fields

    @classmethod
    def _setup_position(cls, rules: RuleSet, fields: list[str]) -> SowingGame:
        options = rules.options
        assert isinstance(options, SowingOptions)
        pits = options.pits
        names = {p: player_name("sowing", p) for p in (1, 2)}
        symbols = ", ".join(f"{POSITION_SYMBOLS[p]} ({names[p]})" for p in (1, 2))
        example = ("/".join([",".join([str(options.seeds)] * pits) + ":0"] * 2)
                   + f" {POSITION_SYMBOLS[1]}")
        if len(fields) < 2:
            raise NugarError(f"after the rule set come the board and the player to move "
                             f"({symbols}), e.g. {example}")
        board, mover, *rest = fields
        sides = board.split("/")
        if len(sides) != 2 or any(side.count(":") != 1 for side in sides):
            raise NugarError(f"the board is {names[1]}'s holes from his hole 1 and ':' his store, "
                             f"'/', then {names[2]}'s the same way, e.g. {example.split()[0]}; "
                             f"not {board!r}")
        holes: list[list[int]] = []
        stores: list[int] = []
        for player, side in zip((1, 2), sides, strict=True):
            counts, store = side.split(":")
            values = counts.split(",")
            if len(values) != pits:
                raise NugarError(f"{names[player]} has {len(values)} holes; {rules.text} has "
                                 f"{pits} (pits={pits})")
            holes.append([whole_number(v, "a seed count") for v in values])
            stores.append(whole_number(store, "a seed count"))
        total = sum(holes[0]) + sum(holes[1]) + sum(stores)
        in_play = 2 * pits * options.seeds
        if total != in_play:
            raise NugarError(f"the seeds add up to {total}; {rules.text} has {in_play} in play "
                             f"(2 x {pits} holes x {options.seeds} seeds)")
        to_move = _FROM_SYMBOL.get(mover, 0)
        if not to_move:
            raise NugarError(f"the player to move is {symbols}, not {mover!r}")
        given = position_fields(rest, {"opening": "opening", "capturer": "capturer=s"})
        if "opening" in given and not rules.is_dracala:
            raise NugarError("opening (the first step of the game still to come) matters only "
                             "in Dracala")
        capturer = 0
        if "capturer" in given:
            if options.leftovers != "last_capturer":
                raise NugarError(f"capturer= matters only under leftovers=last_capturer, not "
                                 f"leftovers={options.leftovers}")
            capturer = _FROM_SYMBOL.get(given["capturer"], 0)
            if not capturer:
                raise NugarError(f"capturer= is {symbols}, not {given['capturer']!r}")
        return cls.from_position(rules, holes[0], holes[1], (stores[0], stores[1]), to_move,
                                 first_step_done="opening" not in given,
                                 last_capturer=capturer)

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

    # --- why a step is refused (error path only) -------------------------------------------
    def _why_illegal(self, move: Move) -> str:
        caps = np.empty(self.pits, dtype=np.int64)
        bonus = np.empty(self.pits, dtype=np.int64)
        K.step_captures(self.params, self.state, caps, bonus)
        hole = move.hole
        if caps[hole - 1] < 0:
            return f"hole {hole} is empty"
        if not self.rules.is_dracala:
            return ""
        best = max(int(c) for c in caps)
        mine = int(caps[hole - 1])
        if mine < best:
            holes = [str(h + 1) for h in range(self.pits) if caps[h] == best]
            verb = "captures" if len(holes) == 1 else "capture"
            return (f"hole {hole} would capture {_seeds(mine)} while "
                    f"hole{'s' if len(holes) > 1 else ''} {', '.join(holes)} {verb} {best}, and "
                    "a step must capture as many seeds as possible")
        first_done = self.state[K.fields_start(self.params) + K.F_FIRST_DONE] != 0
        givers = [h + 1 for h in range(self.pits) if caps[h] == best and bonus[h]]
        if givers and first_done:
            if bonus[hole - 1]:
                return (f"hole {hole} gives a bonus step, but so does hole {givers[-1]}, and the "
                        "rightmost step giving a bonus step must be taken")
            return (f"hole {givers[-1]} captures as many seeds ({best}) and gives a bonus step, "
                    "and among the steps capturing the most the rightmost one giving a bonus "
                    "step must be taken")
        return ""

    def _why_turn_ended(self) -> str:
        return (f"the last seed of {self._moves[-1]} did not fall into "
                f"{self.player_name(self._movers[-1])}'s store")

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
        south, north = self.player_name(1), self.player_name(2)
        lines = [
            pad + row(list(range(self.pits, 0, -1))) + f"  holes of {self.player_label(2)}",
            pad + row(holes2[::-1]),
            f"{store2:>{width}}".center(cell) + " " * (cell * self.pits)
            + f"{store1:>{width}}".center(cell)
            + f"  {north}'s store {store2} on the left, {south}'s store {store1} on the right",
            pad + row(holes1),
            pad + row(list(range(1, self.pits + 1))) + f"  holes of {self.player_label(1)}",
        ]
        turns = self.turn_list()
        last = (f"last turn: {self.player_name(turns[-1][0])} "
                f"{'-'.join(str(m) for m in turns[-1][1])}" if turns else "no turn played yet")
        outcome = self.outcome
        if outcome is None:
            status = f"{self.player_name(self.to_move)} to move"
        else:
            status = f"game over: {outcome}, stores {south} {store1}, {north} {store2}"
        header = f"{self.rules.game} ({self.rules.text}): {status}; {last}"
        return "\n".join(line.rstrip() for line in [header, *lines])


def _seeds(count: int) -> str:
    return f"{count} seed{'' if count == 1 else 's'}"
