"""Action codes <-> moves: one table per rule set, built by the family module.

Every family numbers its decisions with small integers (``docs/architecture.md``, "Action
codes"): the kernels, the search, the RL interfaces and the records all use these codes. An
:class:`ActionCodec` holds, for one rule set, the move of every code, a readable name for every
code (also for codes no move has, such as a step off the board), and the code of every move,
so decoding and encoding are a table look-up written once for all families.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import InvalidMoveError
from ..i18n import Text
from .moves import Move


@dataclass(frozen=True, eq=False)
class ActionCodec:
    """The action space of one rule set.

    ``moves[code]`` is the move of a code (``None`` for a code that is no move, such as a step
    off the board); ``names[code]`` its name; ``resolve(move)`` the slow path of
    :meth:`to_action` for a move not in the table (it returns the code of an unusual spelling
    or raises ``InvalidMoveError`` saying why the move cannot exist in this game);
    ``no_move(code)`` says why a code in range has no move; ``space`` describes the codes for
    the error of a code out of range, e.g. ``"for a 5x6 board"``.
    """

    moves: tuple[Move | None, ...]
    names: tuple[str, ...]
    resolve: Callable[[Move], int]
    no_move: Callable[[int], str]
    space: str
    codes: Mapping[Move, int] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "codes", {m: a for a, m in enumerate(self.moves)
                                           if m is not None})

    @property
    def size(self) -> int:
        """How many codes there are: ``0 .. size - 1``."""
        return len(self.moves)

    def to_move(self, action: int) -> Move:
        """The move of an action code; ``InvalidMoveError`` for a code that has none."""
        if 0 <= action < len(self.moves):
            move = self.moves[action]
            if move is not None:
                return move
            raise InvalidMoveError(self.no_move(int(action)))
        raise InvalidMoveError(Text("action {action} is outside 0..{last} {space}",
                                    action=action, last=len(self.moves) - 1, space=self.space))

    def to_action(self, move: Move) -> int:
        """The code of a move; ``InvalidMoveError`` if it cannot exist under these rules."""
        code = self.codes.get(move)
        return code if code is not None else self.resolve(move)


def codec_from_moves(moves: Sequence[Move | None], names: Sequence[str],
                     resolve: Callable[[Move], int], no_move: Callable[[int], str],
                     space: str) -> ActionCodec:
    """An :class:`ActionCodec` from lists (the family modules build them code by code)."""
    if len(moves) != len(names):
        raise ValueError(f"{len(moves)} moves but {len(names)} names")
    return ActionCodec(tuple(moves), tuple(names), resolve, no_move, space)
