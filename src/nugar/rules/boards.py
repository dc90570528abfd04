"""A position as plain data for the pictures of a board (terminal, web page, SVG).

Each family turns its state into one of these shapes (``FamilyParts.board``); the renderers
(``nugar.textboard``, ``nugar.server.play.render``) draw a shape, never ask for a family, so a new
variant of a family needs no drawing code, and a new family drawn on a grid or on rows of
holes reuses the pictures.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GridBoard:
    """Pieces on a grid of squares, with pieces in hand (the alignment family).

    ``grid[row][col]`` is 0 (empty), 1 or 2 (the owner); row 0 is the first player's side.
    """

    rows: int
    cols: int
    grid: tuple[tuple[int, ...], ...]
    hands: tuple[int, int]
    on_board: tuple[int, int]

    def owner(self, col: int, row: int) -> int:
        return self.grid[row][col]

    def as_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "cols": self.cols, "grid": [list(r) for r in self.grid],
                "hands": list(self.hands)}


@dataclass(frozen=True)
class PitBoard:
    """Two rows of holes and a store each (the sowing family).

    ``holes[p - 1]`` are player ``p``'s holes from his own hole 1; ``stores`` first player
    first; ``skip_origin``: a lap of sowing passes over the emptied starting hole (the web page
    animates the sowing with it).
    """

    holes: tuple[tuple[int, ...], tuple[int, ...]]
    stores: tuple[int, int]
    skip_origin: bool

    @property
    def pits(self) -> int:
        return len(self.holes[0])

    def as_json(self) -> dict[str, Any]:
        return {"pits": self.pits, "holes": [list(h) for h in self.holes],
                "stores": list(self.stores), "skip_origin": self.skip_origin}


@dataclass(frozen=True)
class Sowing:
    """What one sowing move did, for a picture that shows it seed by seed.

    Cells are numbered as :meth:`PitBoard.as_json` lays the board out: the first player's
    holes from his hole 1 (0 to P-1), his store (P), the second player's holes (P+1 to 2P),
    his store (2P+1). ``ply``: the moves played before it; ``player``: who sowed; ``start``:
    the emptied hole; ``path``: the cell each seed fell into, in order; ``taken``: the holes
    emptied into a store once the seeds were down (a capture, the leftovers at the end);
    ``after``: every cell's seeds once the move was made.
    """

    ply: int
    player: int
    start: int
    path: tuple[int, ...]
    taken: tuple[int, ...]
    after: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        return {"ply": self.ply, "player": self.player, "start": self.start,
                "path": list(self.path), "taken": list(self.taken), "after": list(self.after)}


#: every board shape a family may draw
Board = GridBoard | PitBoard
