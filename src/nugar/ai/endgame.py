"""Level 8 and the Dara and Dala endgame tablebases: in a position the tables cover, they
decide (``solver/tablebase.py``; docs/solving.md, "Dara and Dala endgame tablebases").

The tables are those built under the user's data folder (``nugar solve RULES --build-tb N``);
where none are built, or the game is no alignment game, nothing changes. A won position is
played for the shortest win whose next capture comes before the quiet limit, a drawn one
for a draw, a lost one for the longest resistance.
"""

from __future__ import annotations

import threading
import time

from ..kernels.search_core import WIN
from ..rules.base import Game
from ..solver.tablebase import Tablebase, TablebaseError, options_of
from .base import Analysis

_lock = threading.Lock()
_tables: dict[str, Tablebase | None] = {}


def tablebase_for(game: Game) -> Tablebase | None:
    """The tablebases of ``game``'s rules (``None`` where the tables cannot cover them),
    one object per rule set and process; each table is mapped when first probed."""
    key = game.rules.text
    with _lock:
        if key not in _tables:
            try:
                options_of(game.rules)
                _tables[key] = Tablebase(game.rules)
            except TablebaseError:
                _tables[key] = None
        return _tables[key]


def tablebase_analysis(game: Game) -> Analysis | None:
    """The tables' decision for ``game`` as an analysis (score ``WIN - plies`` for a win,
    its negation for a loss, 0 for a draw), or ``None`` where they do not cover it."""
    start = time.perf_counter()
    base = tablebase_for(game)
    if base is None:
        return None
    choice = base.decide(game)
    if choice is None:
        return None
    pv = [game.action_to_move(a) for a in choice.actions]
    score = 0.0 if choice.value == 0 else float(choice.value * (WIN - choice.plies))
    return Analysis(pv[0], score, choice.plies, 0, pv, time.perf_counter() - start)
