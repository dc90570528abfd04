"""Level 8 and the endgame tables: in a position the Dara and Dala tablebases cover, they
decide (``solver/tablebase.py``; docs/solving.md, "Dara and Dala endgame tablebases"), and
level 8's search probes them, and the Kalah endgame databases, below its root
(:func:`endgames_for`; docs/solving.md, "Probing in the search").

The tables are those built under the user's data folder (``nugar solve RULES --build-tb N``,
``--build-db N``); where none are built nothing changes. A won position is played for the
shortest win whose next capture comes before the quiet limit, a drawn one for a draw, a lost
one for the longest resistance.
"""

from __future__ import annotations

import threading
import time

from ..kernels.endgames import EG_DATABASE, NO_ENDGAMES, Endgames
from ..kernels.search_core import WIN
from ..rules.base import Game
from ..solver.tablebase import Tablebase, TablebaseError, options_of
from .base import Analysis

_lock = threading.RLock()
_tables: dict[str, Tablebase | None] = {}
_records: dict[str, Endgames] = {}
_open: dict[str, object] = {}     # what a record's arrays are mapped from, kept open
_stamps: dict[str, int | None] = {}  # the database folder's stamp a record was mapped at


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


def endgames_for(game: Game) -> Endgames:
    """The endgame tables built on disk for ``game``'s rules, as the record the alpha-beta
    search probes (``kernels/endgames.py``): the Dara and Dala tablebases
    (``Tablebase.endgames``), the Kalah databases (every sound level from 0 up, as the
    solver maps them: ``egdb.DiskDB``), else ``NO_ENDGAMES``. One per rule set and process,
    mapped on the first call; the Kalah databases are mapped again when a level was
    finished since (a build in the background, ``solver/autodb.py``, or in another process:
    the folder's stamp, one ``stat`` a call, says so). A search running meanwhile keeps the
    record it was given: its arrays keep their mapping alive."""
    key = game.rules.text
    with _lock:
        record = _records.get(key)
        stamp = _stamps.get(key)
        if record is not None and (stamp is None or stamp == _stamp_of(game)):
            return record
        record = NO_ENDGAMES
        base = tablebase_for(game)
        if base is not None:
            record = base.endgames()
            _stamps[key] = None
        else:
            _stamps[key] = _stamp_of(game)  # before mapping: a level finished meanwhile
            record = _database_record(game, key)  # is seen at the next call
        _records[key] = record
        return record


def _stamp_of(game: Game) -> int | None:
    """The stamp of the Kalah database folder of ``game``'s rules (-1 while it has none)."""
    from ..solver import db, egdb

    if not db.supported(game.rules):
        return None
    stamp = egdb.directory_stamp(game.rules)
    return -1 if stamp is None else stamp


def _database_record(game: Game, key: str) -> Endgames:
    from ..solver import db, egdb

    if not db.supported(game.rules):
        return NO_ENDGAMES
    try:
        disk = egdb.DiskDB(game.rules)
    except (egdb.EGDBError, OSError, ValueError):
        return NO_ENDGAMES
    if disk.levels < 0:
        disk.close()
        return NO_ENDGAMES
    _open[key] = disk
    none = NO_ENDGAMES
    return Endgames(EG_DATABASE, disk.levels, 0, 0, disk.binom, none.symtab, none.slots,
                    none.words, none.codes, disk.table, disk.base)
