"""Board symmetries: the maps of a board onto itself that the rules of a rule set keep.

A symmetry maps every position to one that plays the same: the moves of the image are the
images of the moves, the image of a move's result is the result of the image move, and the
game ends the same way. Learning code uses them to multiply its training positions (AlphaZero
turned and mirrored Go positions; "Mastering the game of Go without human knowledge", Silver
et al., Nature 2017, https://www.nature.com/articles/nature24270) or to average a network over
them. A :class:`Symmetry` carries its maps of action codes and of observations as index arrays,
so that one gather applies it to NumPy and JAX arrays alike, batched or not.

Each family says which maps its rule sets keep (``FamilyParts.symmetries``):

* **alignment** (Dara, Dala): the rules know squares, the four directions and lines along rows
  and columns, and nothing of a side of the board (drops go anywhere, ``centre_first`` names
  the centre squares, which every map below keeps in place as a set). So the symmetries of the
  rectangle are kept: the identity, the mirror that reverses the columns (left and right), the
  one that reverses the rows (the first player's side and the far side) and the half turn.
  A board that is not square (Dara's 5 x 6) has no more: a quarter turn would not map it onto
  itself. A square board (Dala's 6 x 6) also keeps the two diagonal mirrors and the two
  quarter turns, which exchange rows and columns: eight in all.
* **sowing** (Kalah, Dracala): the identity only. Seeds are sown one way round the board
  (counter-clockwise), so the mirror image of a position, sown the other way, is a different
  game; and the observation already shows the holes from the observer's own first hole, so
  changing the sides of the players gives the same observation again.

``tests/test_symmetry.py`` checks every listed symmetry against the kernels (a game and its
image played side by side, masks and observations compared at every decision) and that the
mirror of the sowing holes is not one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, Self, TypeVar

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]


class ArrayLike(Protocol):
    """What the maps need of an array: NumPy's and JAX's arrays both have it."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def reshape(self, shape: tuple[int, ...]) -> Self: ...

    def __getitem__(self, index: Any) -> Self: ...


A = TypeVar("A", bound=ArrayLike)  # a NumPy or a JAX array


@dataclass(frozen=True, eq=False)
class Symmetry:
    """One symmetry of a rule set's board.

    ``name``; ``actions[a]``: the code of the image of action ``a`` (a permutation of the
    action space); ``board_shape``: the trailing axes of an observation that are the board
    (``(rows, cols)`` for Dara and Dala; every plane, history planes included, is mapped
    alike); ``board_index``: the gather over those axes, flattened, that makes the image
    (``image[..., i] = obs[..., board_index[i]]``; ``None``: observations do not change);
    ``squares[sq]``: the image of square ``sq`` (``None`` without squares);
    ``action_index``: the gather for a vector over the action codes (a mask, a policy), the
    inverse of ``actions``."""

    name: str
    actions: IntArray
    board_index: IntArray | None = None
    board_shape: tuple[int, ...] = ()
    squares: IntArray | None = None

    @property
    def action_index(self) -> IntArray:
        return np.argsort(self.actions)

    def action(self, code: int) -> int:
        """The code of the image of the action ``code``."""
        return int(self.actions[code])

    def observation(self, obs: A) -> A:
        """The image of an observation, NumPy or JAX, whose last axes are the board (any
        leading axes: planes, history planes, a batch): what the observer sees in the image
        position."""
        if self.board_index is None:
            return obs
        shape = tuple(obs.shape)
        dims = len(self.board_shape)
        if shape[len(shape) - dims:] != self.board_shape:
            raise ValueError(f"an observation ending in the board's axes {self.board_shape} "
                             f"was expected, not shape {shape}")
        flat = obs.reshape((*shape[:len(shape) - dims], -1))
        return flat[..., self.board_index].reshape(shape)

    def action_vector(self, values: A) -> A:
        """The image of a vector over the action codes (shape ``(..., num_actions)``): a legal
        mask, a policy, visit counts. ``image[..., actions[a]] = values[..., a]``."""
        return values[..., self.action_index]

    def __repr__(self) -> str:
        return f"Symmetry({self.name!r})"


def identity(num_actions: int) -> Symmetry:
    """The identity of an action space (observations unchanged)."""
    return Symmetry("identity", np.arange(num_actions, dtype=np.int64))


#: the alignment family's maps, as (name, transpose, reverse rows, reverse columns) applied in
#: that order; the last four only on square boards. Row 0 is the first player's side, drawn at
#: the bottom, so that the quarter turn is counter-clockwise in the usual picture.
GRID_MAPS = (
    ("identity", False, False, False),
    ("mirror_columns", False, False, True),
    ("mirror_rows", False, True, False),
    ("half_turn", False, True, True),
    ("transpose", True, False, False),
    ("quarter_turn", True, False, True),
    ("three_quarter_turn", True, True, False),
    ("anti_transpose", True, True, True),
)

#: the step directions of the alignment action codes: (row change, column change)
_DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))


def grid_symmetries(rows: int, cols: int) -> tuple[Symmetry, ...]:
    """The symmetries of an alignment board of ``rows x cols`` squares: the action codes of
    ``docs/envs.md`` (drops, steps, captures, pass) and the board planes of observations."""
    n = rows * cols
    out = []
    for name, transpose, flip_rows, flip_cols in GRID_MAPS:
        if transpose and rows != cols:
            continue

        def image(r: int, c: int, transpose: bool = transpose, flip_rows: bool = flip_rows,
                  flip_cols: bool = flip_cols) -> tuple[int, int]:
            if transpose:
                r, c = c, r
            return (rows - 1 - r if flip_rows else r), (cols - 1 - c if flip_cols else c)

        squares = np.zeros(n, np.int64)
        for sq in range(n):
            r, c = image(*divmod(sq, cols))
            squares[sq] = r * cols + c
        directions = []
        for dr, dc in _DIRECTIONS:
            if transpose:
                dr, dc = dc, dr
            directions.append(_DIRECTIONS.index((-dr if flip_rows else dr,
                                                 -dc if flip_cols else dc)))
        actions = np.arange(6 * n + 1, dtype=np.int64)
        actions[:n] = squares
        for sq in range(n):
            for d in range(4):
                actions[n + 4 * sq + d] = n + 4 * squares[sq] + directions[d]
        actions[5 * n:6 * n] = 5 * n + squares
        out.append(Symmetry(name, actions, np.argsort(squares), (rows, cols), squares))
    return tuple(out)
