"""The solver's Python face: :class:`Solver` (a rule set plus its table) and :func:`solve`.

A :class:`Solver` owns one bounds table (``kernels.py``) sized by ``max_memory_mb`` and keeps
it between calls, so positions met while solving one position speed up the next (the perfect
agent relies on this). The compiled search runs in a worker thread (it releases the GIL),
which lets the caller report progress and stop it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import NugarError
from ..kernels import sowing
from ..kernels.common import ST_OUTCOME, ST_TO_MOVE
from ..rules.base import Game, Move
from ..rules.family import FAMILIES, family_of
from ..rules.options import PRESETS, RuleSet, parse_rules
from . import db, egdb
from . import kernels as solver_kernels

DEFAULT_MEMORY_MB = 256
MAX_SEEDS = 255          # the solver's key tables cover counts 0..255 per cell
_ENTRY_BYTES = 16        # one int64 key and one int64 of packed bounds
AUTO_DB_MIN_TOTAL = 24   # smaller boards solve in a fraction of a second: no database
AUTO_DB_MAX_ENTRIES = 1 << 27  # the automatic database stays within 128 MB
#: enhanced transposition cut-offs are tried only with at least this many seeds on the
#: board above the database's reach: nearer the leaves the subtrees are too small to pay
#: for probing every child. Since the move order puts the hole nearest the store first,
#: the first child usually cuts off and the probes no longer pay below about 20 seeds
#: (docs/solving.md, "Move order", has the measurements)
ETC_MIN_SEEDS = 20


class SolverError(NugarError):
    """The solver cannot do what was asked (wrong family, too many seeds, bad limits)."""


class SolveAborted(SolverError):
    """The search stopped before it had the value (node limit, time limit or stop())."""


@dataclass(frozen=True)
class Progress:
    """A snapshot handed to ``progress`` callbacks while a search runs."""

    nodes: int
    seconds: float
    table_used: int
    table_size: int
    hit_rate: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0

    def __str__(self) -> str:
        return (f"{self.nodes:,} nodes in {self.seconds:.1f} s "
                f"({self.nodes_per_second / 1e6:.2f} M/s), table "
                f"{self.table_used:,}/{self.table_size:,} used, hit rate {self.hit_rate:.1%}")


ProgressCallback = Callable[[Progress], None]


@dataclass(frozen=True)
class Solution:
    """The exact value of a position under perfect play, from the player to move's view.

    ``margin`` is that player's final store minus the opponent's; ``final`` is the two
    stores at the end of the principal variation, first player first (in Dracala a game
    stopped by the misère rule leaves seeds in the holes, so they need not add up to all the
    seeds). ``value`` is the solver's raw objective (see ``docs/solving.md``).
    """

    rules: str
    to_move: int
    result: str
    margin: int
    final: tuple[int, int]
    pv: list[Move]
    pv_turns: list[str]
    value: int
    nodes: int
    seconds: float
    table_size: int
    table_used: int
    probes: int
    hits: int
    cpu_seconds: float = 0.0
    db_seeds: int = 0
    db_hits: int = 0
    db_seconds: float = 0.0

    @property
    def hit_rate(self) -> float:
        return self.hits / self.probes if self.probes else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``nugar solve --json`` object."""
        return {"rules": self.rules, "to_move": self.to_move, "result": self.result,
                "margin": self.margin, "final": list(self.final), "pv": self.pv_turns,
                "value": self.value, "nodes": self.nodes, "seconds": round(self.seconds, 3),
                "cpu_seconds": round(self.cpu_seconds, 3),
                "table_size": self.table_size, "table_used": self.table_used,
                "hit_rate": round(self.hit_rate, 4), "db_seeds": self.db_seeds,
                "db_hits": self.db_hits, "db_seconds": round(self.db_seconds, 3)}

    def __str__(self) -> str:
        verb = {"win": "wins", "draw": "draws", "loss": "loses"}[self.result]
        family = family_of(self.rules)
        me = family.player_name(self.to_move)
        return (f"{self.rules}: {me} to move {verb} with perfect play, final stores "
                f"{family.player_name(1)} {self.final[0]} : {family.player_name(2)} "
                f"{self.final[1]} (margin {self.margin:+d} for {me})")


def _rules_of(game_or_rules: Game | RuleSet | str) -> RuleSet:
    if isinstance(game_or_rules, Game):
        return game_or_rules.rules
    return parse_rules(game_or_rules)


def check_solvable(rules: RuleSet) -> None:
    """Raise :class:`SolverError` unless ``rules`` is a sowing rule set the solver covers."""
    family = family_of(rules)
    if not family.solvable:
        covered = [f for f in FAMILIES.values() if f.solvable]
        games = ", ".join(p.name for p in PRESETS.values()
                          if any(p.family == f.name for f in covered))
        article = "an" if family.name[0] in "aeiou" else "a"
        raise SolverError(f"solving covers the {' and '.join(f.name for f in covered)} games "
                          f"({games}); {rules.text} is {article} {family.name} game, far beyond "
                          f"exact solution here")
    opts = rules.sowing_options
    total = 2 * opts.pits * opts.seeds
    if total > MAX_SEEDS:
        raise SolverError(f"{rules.text} has {total} seeds; the solver handles at most "
                          f"{MAX_SEEDS} seeds in play")


def auto_db_seeds(rules: RuleSet) -> int:
    """The endgame database's reach chosen when none is given (``docs/solving.md``)."""
    if not db.supported(rules):
        return 0
    opts = rules.sowing_options
    pits = opts.pits
    total = 2 * pits * opts.seeds
    if total < AUTO_DB_MIN_TOTAL:
        return 0
    # the best reaches measured (docs/solving.md, "Endgame databases"): about 45 % of the
    # seeds in play, as long as the database stays within AUTO_DB_MAX_ENTRIES (its build
    # time grows with its positions)
    k = 0
    while k < (9 * total) // 20 and db.entries(pits, k + 1) <= AUTO_DB_MAX_ENTRIES:
        k += 1
    return k


class Solver:
    """Exact search for one sowing rule set, with a table kept between calls.

    >>> from nugar.solver import Solver
    >>> Solver("kalah(pits=3,seeds=3)", max_memory_mb=4).solve().result
    'win'
    """

    def __init__(self, rules: RuleSet | str, *, max_memory_mb: float = DEFAULT_MEMORY_MB,
                 db_seeds: int | None = None, db_cache: bool = False,
                 disk_db: bool = True, db_root: Path | None = None,
                 build_db: bool = True) -> None:
        # build_db=False: no endgame database is built in memory (a player answering within a
        # move's time cannot wait for one); the databases on disk are used as far as they reach
        self.rules = parse_rules(rules)
        check_solvable(self.rules)
        if isinstance(max_memory_mb, bool) or not isinstance(max_memory_mb, int | float) \
                or not max_memory_mb >= 1:
            raise SolverError(f"max_memory_mb must be a number >= 1 (megabytes for the "
                              f"table), not {max_memory_mb!r}")
        from ..rules.sowing import SowingGame

        self._template = SowingGame(self.rules)
        self.params = self._template.params
        self.pits = self._template.pits
        entries = 1 << max(10, int(max_memory_mb * 2**20 // _ENTRY_BYTES).bit_length() - 1)
        self.tt_keys = _zeroed_table(entries)
        self.tt_data = _zeroed_table(entries)
        self.keys = solver_kernels.make_keys(int(sowing.cell_count(self.pits)))
        self.stats = np.zeros(solver_kernels.N_STATS, dtype=np.int64)
        self.stats[solver_kernels.S_ETC_MIN] = ETC_MIN_SEEDS
        self.misere = self.rules.misere  # the value is win/draw/loss first (docs/solving.md)
        self._origin: tuple[float, int] | None = None
        self._next_report = 0.0
        if db_seeds is not None and (isinstance(db_seeds, bool) or not isinstance(db_seeds, int)
                                     or not 0 <= db_seeds <= db.MAX_DB_SEEDS):
            raise SolverError(f"db_seeds must be an integer 0..{db.MAX_DB_SEEDS} (seeds on "
                              f"the board), or None for automatic, not {db_seeds!r}")
        if db_seeds is not None and db_seeds > 0 and not db.supported(self.rules):
            raise SolverError(f"no endgame database for {self.rules.text}: Kalah with "
                              f"leftovers=owner or last_mover only")
        self.db: db.EndgameDB | None = None
        self.disk: egdb.DiskDB | None = None
        asked = db_seeds
        stamp = egdb.directory_stamp(self.rules, db_root)  # before mapping: see refresh_disk
        #: ``(level, why)`` for database files on disk found unsound and left out
        self.db_problems: list[tuple[int, str]] = []
        if disk_db and db_seeds != 0 and db.supported(self.rules) \
                and egdb.db_directory(self.rules, db_root).is_dir():
            try:
                disk = egdb.DiskDB(self.rules, root=db_root)
            except (egdb.EGDBError, OSError) as exc:
                raise SolverError(f"cannot open the endgame databases on disk: {exc} "
                                  f"(--no-disk-db / disk_db=False solves without them)") from None
            self.db_problems = disk.problems
            if self._worth(disk, db_seeds, build_db):
                self.disk = disk
                db_seeds = disk.levels if db_seeds is None else db_seeds
            else:
                disk.close()
        #: what refresh_disk needs: whether this solver reads the databases on disk, the
        #: reach asked for, and the folder's stamp when they were mapped
        self._disk_wanted = disk_db and asked != 0 and db.supported(self.rules)
        self._disk_args = (asked, build_db)
        self._disk_stamp = stamp if self._disk_wanted else None
        if db_seeds is None:
            db_seeds = auto_db_seeds(self.rules) if build_db else 0
        if not build_db and self.disk is None:
            db_seeds = 0
        self.db_seeds = db_seeds
        self._db_cache = db_cache
        self._disk_root = db_root
        self._db_table: np.ndarray[Any, Any] = np.zeros(1, dtype=np.int8)
        self._db_binom: np.ndarray[Any, Any] = np.zeros((1, 1), dtype=np.int64)
        self._db_base: np.ndarray[Any, Any] = np.zeros(1, dtype=np.int64)
        if self.disk is not None:
            self._db_table = self.disk.table
            self._db_binom = self.disk.binom
            self._db_base = self.disk.base

    def _worth(self, disk: egdb.DiskDB, db_seeds: int | None, build_db: bool) -> bool:
        """Whether the databases on disk are used: when they reach as far as asked, or (no
        reach given) at least as far as the in-memory database would."""
        wanted = auto_db_seeds(self.rules) if db_seeds is None else db_seeds
        return disk.levels >= max(wanted if build_db or db_seeds is not None else 1, 1)

    def refresh_disk(self) -> bool:
        """Map the levels of the databases on disk finished since this solver mapped them
        (a build in the background: ``autodb.py``, or in another process), when they now
        reach further; ``True`` if it did. Costs a ``stat`` when nothing changed;
        :meth:`solve` calls it first. The table's entries stay sound: exact values do not
        depend on the reach. Not while the in-memory database is in use."""
        if not self._disk_wanted or self.db is not None:
            return False
        stamp = egdb.directory_stamp(self.rules, self._disk_root)
        if stamp is None or stamp == self._disk_stamp:
            return False
        self._disk_stamp = stamp
        try:
            disk = egdb.DiskDB(self.rules, root=self._disk_root)
        except (egdb.EGDBError, OSError):
            return False  # the next solve tries again only after the next change
        db_seeds, build_db = self._disk_args
        if disk.levels <= self._reach() or not self._worth(disk, db_seeds, build_db):
            disk.close()
            return False
        old, self.disk = self.disk, disk
        self.db_problems = disk.problems
        self.db_seeds = disk.levels if db_seeds is None else db_seeds
        self._db_table, self._db_binom, self._db_base = disk.table, disk.binom, disk.base
        if old is not None:
            old.close()
        return True

    @property
    def db_reach(self) -> int:
        """Seeds on the board up to which the search reads exact values from a database."""
        return max(self._reach(), 0)

    def _reach(self) -> int:
        """The reach handed to the search: -1 or 0 while no level is built."""
        if self.disk is not None:
            return min(self.disk.levels, self.db_seeds)
        return self.db.levels if self.db is not None else 0

    def build_db(self, deadline: float | None = None, upto: int | None = None
                 ) -> db.EndgameDB | None:
        """Build (or load from the cache) the endgame database's levels up to ``upto``
        seeds on the board (default: all), if this solver uses one; each search does it
        for the seeds on the board of its root (no deeper level can be met). Raises
        :class:`SolveAborted` when ``deadline`` (a ``time.monotonic()`` instant) passes
        first; the levels done so far are kept, used, and not built again."""
        if self.db_seeds <= 0 or self.disk is not None:
            return None
        if self.db is None:
            self.db = db.EndgameDB(self.rules, self.db_seeds, cache=self._db_cache,
                                  build=False)
            self._db_table = self.db.table
            self._db_binom = self.db.binom
            m = 2 * self.pits
            self._db_base = np.array([self.db.binom[n + m - 1, m] if n > 0 else 0
                                      for n in range(self.db_seeds + 1)], dtype=np.int64)
        top = self.db_seeds if upto is None else min(upto, self.db_seeds)
        if self.db.levels < top and not self.db.build(deadline, top):
            raise SolveAborted(f"the endgame database was not ready in time (levels "
                               f"0..{self.db.levels} of {self.db_seeds} built)")
        return self.db

    @property
    def start_state(self) -> np.ndarray[Any, Any]:
        """A copy of the rule set's starting position."""
        return self._template.state.copy()

    # --- table ------------------------------------------------------------------------
    @property
    def table_size(self) -> int:
        return int(self.tt_keys.shape[0])

    @property
    def memory_bytes(self) -> int:
        """The table's bytes (the endgame database's are ``db.nbytes``)."""
        return int(self.tt_keys.nbytes + self.tt_data.nbytes)

    def clear(self) -> None:
        """Empty the table and the counters."""
        self.tt_keys[:] = 0
        self.tt_data[:] = 0
        self.stats[:] = 0
        self.stats[solver_kernels.S_ETC_MIN] = ETC_MIN_SEEDS

    def stop(self) -> None:
        """Ask a running search (in another thread) to stop; it raises SolveAborted."""
        self.stats[solver_kernels.S_STOP] = 1

    # --- search ---------------------------------------------------------------------------
    def _check_state(self, state: np.ndarray[Any, Any]) -> None:
        if state.shape != self._template.state.shape:
            raise SolverError("state does not belong to this rule set "
                              f"({self.rules.text}: {self._template.state.shape[0]} fields)")
        total = int(sowing.seeds_in_play(self.pits, state))
        if total > MAX_SEEDS:
            raise SolverError(f"the position has {total} seeds; the solver handles at most "
                              f"{MAX_SEEDS}")

    def search(self, state: np.ndarray[Any, Any], alpha: int, beta: int, *,
               progress: ProgressCallback | None = None, interval: float = 1.0,
               node_limit: int | None = None, deadline: float | None = None) -> int:
        """Fail-soft value of ``state`` in the window ``(alpha, beta)`` (see kernels.search).

        Raises :class:`SolveAborted` when the solver's node counter reaches ``node_limit``
        (an absolute count, so that a series of searches shares one budget) or the
        ``deadline`` (a ``time.monotonic()`` instant) comes first."""
        self._check_state(state)
        stats = self.stats
        stats[solver_kernels.S_STOP] = 0
        stats[solver_kernels.S_LIMIT] = 0 if node_limit is None else max(1, node_limit)
        root = np.ascontiguousarray(state, dtype=np.int64).copy()
        self.build_db(deadline, int(sowing.seeds_on_board(self.pits, root)))
        args = (self.params, self.keys, self.tt_keys, self.tt_data, stats, root,
                int(alpha), int(beta), self._db_table, self._db_binom, self._db_base,
                self._reach())
        if progress is None and deadline is None:
            value = int(solver_kernels.search(*args))
        else:
            value = self._search_in_thread(args, progress, interval, deadline)
        if stats[solver_kernels.S_TOO_DEEP]:
            stats[solver_kernels.S_TOO_DEEP] = 0
            raise SolverError(f"a line of play is longer than {solver_kernels.MAX_PLY} steps; "
                              f"the solver cannot follow it")
        if stats[solver_kernels.S_ABORTED]:
            raise SolveAborted("the search stopped before it had the value "
                               f"({int(stats[solver_kernels.S_NODES]):,} nodes searched so far)")
        return value

    def _search_in_thread(self, args: tuple[Any, ...], progress: ProgressCallback | None,
                          interval: float, deadline: float | None) -> int:
        box: list[int] = []
        errors: list[BaseException] = []

        def work() -> None:
            try:
                box.append(int(solver_kernels.search(*args)))
            except BaseException as exc:  # handed to the calling thread below
                errors.append(exc)

        worker = threading.Thread(target=work, name="nugar-solver", daemon=True)
        start, nodes0 = self._origin or (time.monotonic(), int(self.stats[solver_kernels.S_NODES]))
        # one report per interval across the many searches of one solve
        next_report = max(self._next_report, time.monotonic() + min(interval, 0.2))
        worker.start()
        try:
            while worker.is_alive():
                # wake at the deadline itself: a move's short solver attempt (level 8) must
                # not overrun its share by the polling interval
                wait = 0.05 if deadline is None else \
                    min(0.05, max(0.0005, deadline - time.monotonic()))
                worker.join(wait)
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    self.stop()
                if progress is not None and now >= next_report and worker.is_alive():
                    next_report = self._next_report = now + interval
                    progress(self.snapshot(now - start, nodes0))
        except BaseException:  # Ctrl-C: stop the search before leaving
            self.stop()
            worker.join()
            raise
        if errors:
            raise errors[0]
        return box[0]

    def snapshot(self, seconds: float, nodes_from: int = 0) -> Progress:
        st = self.stats
        probes = int(st[solver_kernels.S_PROBES])
        return Progress(int(st[solver_kernels.S_NODES]) - nodes_from, seconds,
                        int(st[solver_kernels.S_USED]), self.table_size,
                        int(st[solver_kernels.S_HITS]) / probes if probes else 0.0)

    def value(self, state: np.ndarray[Any, Any], *, guess: int = 0, **kw: Any) -> int:
        """The exact value (the objective of ``docs/solving.md``) for the player to move.

        MTD(f): a series of null-window searches closing in on the value from a first guess
        (``guess``, default 0: an even game; a value known nearby, such as the previous
        position's, saves searches); each one leaves bounds in the table that the next one
        reuses, so that together they cost fewer nodes than one full-window search
        (docs/solving.md, "Search"). The guess changes the work, never the value."""
        lower, upper = -solver_kernels.INF, solver_kernels.INF
        guess = max(-solver_kernels.INF + 1, min(solver_kernels.INF - 1, int(guess)))
        while lower < upper:
            beta = guess + 1 if guess == lower else guess
            guess = self.search(state, beta - 1, beta, **kw)
            if guess < beta:
                upper = guess
            else:
                lower = guess
        return guess

    def result(self, state: np.ndarray[Any, Any], **kw: Any) -> int:
        """The exact result for the player to move: 1 a win, 0 a draw, -1 a loss.

        Cheaper than :meth:`value`: one or two null-window searches at the edges between
        results (a margin above 0 in Kalah; above half of the seeds in Dracala)."""
        if int(state[ST_OUTCOME]) != 0:
            return self.result_of(state, int(solver_kernels.terminal_value(self.params, state)))
        edge = self._result_edge(state)
        if self.search(state, edge, edge + 1, **kw) > edge:
            return 1
        # a fail-soft bound below -edge proves a loss; anything else is a draw
        return self.result_of(state, self.search(state, -edge - 1, -edge, **kw))

    def result_of(self, state: np.ndarray[Any, Any], value: int) -> int:
        """The result (1, 0, -1) that ``value`` means for ``state``'s player to move."""
        edge = self._result_edge(state)
        return 1 if value > edge else -1 if value < -edge else 0

    def _result_edge(self, state: np.ndarray[Any, Any]) -> int:
        """The largest value that is not yet a win (the objective of ``docs/solving.md``)."""
        if not self.misere:
            return 0
        return int(sowing.seeds_in_play(self.pits, state))

    def best_actions(self, state: np.ndarray[Any, Any], value: int, **kw: Any) -> list[int]:
        """Every legal action of ``state`` that keeps ``value`` (the state's exact value)."""
        buf = np.empty(self.pits, dtype=np.int64)
        n = sowing.legal_actions(self.params, state, buf)
        me = int(state[ST_TO_MOVE])
        out: list[int] = []
        for a in buf[:n]:
            child = state.copy()
            sowing.apply_action(self.params, child, int(a))
            if int(child[ST_TO_MOVE]) == me:
                ok = self.search(child, value - 1, value, **kw) >= value
            else:
                ok = self.search(child, -value, -value + 1, **kw) <= -value
            if ok:
                out.append(int(a))
        return out

    def step_values(self, state: np.ndarray[Any, Any], *, workers: int = 1,
                    deadline: float | None = None,
                    step_done: Callable[[int, int], None] | None = None
                    ) -> list[tuple[int, int, int]]:
        """``(action, value, nodes)`` for every legal action of ``state``: the exact value
        for ``state``'s player to move if he plays it (perfect play afterwards), and the
        positions searched for it. ``workers > 1`` solves the steps in that many forked
        processes, each with its own table of ``1/workers`` of this solver's memory (so the
        bound holds) and the same databases on disk; this solver's table is not used then.
        Raises :class:`SolveAborted` when ``deadline`` (``time.monotonic()``) passes.
        ``step_done(done, total)``, when given, is called as each step's value is known (for
        a caller's progress report)."""
        buf = np.empty(self.pits, dtype=np.int64)
        actions = [int(a) for a in buf[:sowing.legal_actions(self.params, state, buf)]]
        out: list[tuple[int, int, int]] = []
        if workers <= 1 or len(actions) < 2:
            for a in actions:
                out.append(self._step_value(state, a, deadline))
                if step_done is not None:
                    step_done(len(out), len(actions))
            return out
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        memory = max(1.0, self.memory_bytes / 2**20 / workers)
        jobs = [(self.rules.text, state.copy(), a, memory, self.db_seeds, self._disk_root,
                 self.disk is not None, deadline) for a in actions]
        with ProcessPoolExecutor(max_workers=min(workers, len(actions)),
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            for value in pool.map(_step_job, jobs):  # in order: done counts the first ones
                out.append(value)
                if step_done is not None:
                    step_done(len(out), len(actions))
        return out

    def _step_value(self, state: np.ndarray[Any, Any], action: int,
                    deadline: float | None) -> tuple[int, int, int]:
        child = state.copy()
        sowing.apply_action(self.params, child, action)
        nodes0 = int(self.stats[solver_kernels.S_NODES])
        if int(child[ST_OUTCOME]) != 0:
            v = int(solver_kernels.terminal_value(self.params, child))
        else:
            v = self.value(child, deadline=deadline)
        same = int(child[ST_TO_MOVE]) == int(state[ST_TO_MOVE])
        return action, v if same else -v, int(self.stats[solver_kernels.S_NODES]) - nodes0

    def principal_variation(self, state: np.ndarray[Any, Any], value: int, **kw: Any
                            ) -> tuple[list[int], np.ndarray[Any, Any]]:
        """A line of optimal actions to the end of the game, and the final state."""
        state = state.copy()
        line: list[int] = []
        buf = np.empty(self.pits, dtype=np.int64)
        while int(state[ST_OUTCOME]) == 0:
            me = int(state[ST_TO_MOVE])
            n = sowing.legal_actions(self.params, state, buf)
            legal = [int(a) for a in buf[:n]]
            first = self.table_move(state, legal)  # usually passes: one test, not several
            chosen = -1
            for a in [first] + [b for b in legal if b != first]:
                child = state.copy()
                sowing.apply_action(self.params, child, int(a))
                if n == 1:
                    chosen = int(a)
                elif int(child[ST_TO_MOVE]) == me:
                    if self.search(child, value - 1, value, **kw) >= value:
                        chosen = int(a)
                elif self.search(child, -value, -value + 1, **kw) <= -value:
                    chosen = int(a)
                if chosen >= 0:
                    break
            if chosen < 0:  # only a hash-key collision could do this
                raise SolverError("no step keeps the solved value; the table is inconsistent")
            sowing.apply_action(self.params, state, chosen)
            line.append(chosen)
            if int(state[ST_TO_MOVE]) != me:
                value = -value
        return line, state

    def table_move(self, state: np.ndarray[Any, Any], legal: list[int]) -> int:
        """The best step the table holds for ``state`` if it is legal, else ``legal[0]``."""
        key = int(solver_kernels.position_key(self.params, self.keys, state))
        slot = int(solver_kernels.tt_probe(self.tt_keys, self.tt_data, key))
        if slot >= 0:
            move = int((self.tt_data[slot] >> 40) & 255) - 1
            if move in legal:
                return move
        return legal[0]

    # --- decoding -------------------------------------------------------------------------
    def describe(self, state: np.ndarray[Any, Any], value: int) -> tuple[str, int]:
        """(result, margin) of a value for ``state``'s player to move."""
        if not self.misere:
            return ("win" if value > 0 else "loss" if value < 0 else "draw"), value
        total = self._result_edge(state)
        result = self.result_of(state, value)
        margin = -(value - result * (2 * total + 1))
        return ("win", "draw", "loss")[1 - result], margin

    def solve(self, game: Game | None = None, *, progress: ProgressCallback | None = None,
              interval: float = 1.0, max_nodes: int | None = None,
              time_limit: float | None = None, guess: int = 0) -> Solution:
        """Solve ``game``'s current position (the starting position if ``None``); ``guess``
        is the first guess of the value (see :meth:`value`)."""
        from ..rules.sowing import SowingGame

        if game is None:
            game = self._template
        if not isinstance(game, SowingGame):
            check_solvable(game.rules)  # raises for alignment games
            raise SolverError(f"solve needs a SowingGame, not {type(game).__name__}")
        if game.rules.text != self.rules.text:
            raise SolverError(f"this solver is for {self.rules.text}, not {game.rules.text}")
        state = game.state.copy()
        deadline = None if time_limit is None else time.monotonic() + time_limit
        self.refresh_disk()
        kw: dict[str, Any] = {"progress": progress, "interval": interval,
                              "deadline": deadline}
        nodes0 = int(self.stats[solver_kernels.S_NODES])
        if max_nodes is not None:
            kw["node_limit"] = nodes0 + max_nodes
        self._origin = (time.monotonic(), nodes0)  # progress counts from here
        self._next_report = self._origin[0] + interval
        probes0 = int(self.stats[solver_kernels.S_PROBES])
        hits0 = int(self.stats[solver_kernels.S_HITS])
        db_hits0 = int(self.stats[solver_kernels.S_DB_HITS])
        db_seconds0 = self.db.seconds if self.db is not None else 0.0
        start = time.perf_counter()
        cpu_start = time.process_time()
        me = int(state[ST_TO_MOVE])
        try:
            if int(state[ST_OUTCOME]) != 0:
                value = int(solver_kernels.terminal_value(self.params, state))
            else:
                value = self.value(state, guess=guess, **kw)
            line, final_state = self.principal_variation(state, value, **kw)
        finally:
            self._origin = None
        seconds = time.perf_counter() - start
        result, margin = self.describe(state, value)
        final = (int(final_state[sowing.store_at(self.pits, 1)]),
                 int(final_state[sowing.store_at(self.pits, 2)]))
        check = final[0] - final[1] if me == 1 else final[1] - final[0]
        if check != margin:  # the line must realise the value it was walked from
            raise SolverError(f"principal variation ends {final} but the value says margin "
                              f"{margin}; the table is inconsistent")
        return Solution(
            rules=self.rules.text, to_move=me, result=result, margin=margin, final=final,
            pv=[Move.sow(a + 1) for a in line], pv_turns=_turn_texts(self.params, state, line),
            value=value, nodes=int(self.stats[solver_kernels.S_NODES]) - nodes0, seconds=seconds,
            table_size=self.table_size, table_used=int(self.stats[solver_kernels.S_USED]),
            probes=int(self.stats[solver_kernels.S_PROBES]) - probes0,
            hits=int(self.stats[solver_kernels.S_HITS]) - hits0,
            cpu_seconds=time.process_time() - cpu_start,
            db_seeds=self.db_reach,
            db_hits=int(self.stats[solver_kernels.S_DB_HITS]) - db_hits0,
            db_seconds=self.db.seconds - db_seconds0 if self.db is not None else 0.0)


def _zeroed_table(entries: int) -> np.ndarray[Any, Any]:
    """``entries`` zeroed int64 slots for the table: on Linux private anonymous memory with
    ``madvise(MADV_HUGEPAGE)`` (the table is probed at random, so huge pages save TLB
    misses; docs/solving.md, "Table", has the measurement), elsewhere, or if the system
    refuses, NumPy's."""
    import mmap

    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    private = getattr(mmap, "MAP_PRIVATE", None)
    anonymous = getattr(mmap, "MAP_ANONYMOUS", None)
    if advice is None or private is None or anonymous is None or entries < 1 << 16:
        return np.zeros(entries, dtype=np.int64)
    try:
        buffer = mmap.mmap(-1, entries * 8, flags=private | anonymous)
    except OSError:
        return np.zeros(entries, dtype=np.int64)
    try:
        buffer.madvise(advice)
    except OSError:
        pass  # huge pages switched off: ordinary pages, still zeroed
    return np.frombuffer(buffer, dtype=np.int64)


def _step_job(job: tuple[Any, ...]) -> tuple[int, int, int]:
    """One step of :meth:`Solver.step_values` in a worker process."""
    rules, state, action, memory, db_seeds, root, disk, deadline = job
    solver = Solver(rules, max_memory_mb=memory, db_seeds=db_seeds, disk_db=disk,
                    db_root=root)
    return solver._step_value(state, action, deadline)


def _turn_texts(params: np.ndarray[Any, Any], state: np.ndarray[Any, Any], line: list[int]
                ) -> list[str]:
    """Group a line of actions into turn texts (``"3-1"``: a bonus step then another)."""
    state = state.copy()
    turns: list[list[int]] = []
    mover = 0
    for a in line:
        if int(state[ST_TO_MOVE]) != mover or not turns:
            turns.append([])
            mover = int(state[ST_TO_MOVE])
        turns[-1].append(a + 1)
        sowing.apply_action(params, state, a)
    return ["-".join(str(h) for h in t) for t in turns]


def solve(game: Game | RuleSet | str, *, max_memory_mb: float = DEFAULT_MEMORY_MB,
          progress: ProgressCallback | None = None, max_nodes: int | None = None,
          time_limit: float | None = None, db_seeds: int | None = None,
          db_cache: bool = False) -> Solution:
    """Exact value of ``game`` (a sowing game, or a rule set for its starting position)
    under perfect play by both sides, with a principal variation.

    ``max_memory_mb`` bounds the table; ``progress`` is called about once a second with a
    :class:`Progress`; ``max_nodes`` / ``time_limit`` (seconds) raise :class:`SolveAborted`
    when reached first. ``db_seeds`` is the endgame database's reach in seeds on the board
    (0: none; ``None``: chosen by :func:`auto_db_seeds`); ``db_cache`` keeps built databases
    on disk (``db.py``).

    >>> from nugar.solver import solve
    >>> s = solve("kalah(pits=2,seeds=2)", max_memory_mb=4)
    >>> s.result, s.margin, s.final, s.pv_turns
    ('loss', -2, (3, 5), ['2', '1', '1', '1', '2'])
    """
    rules = _rules_of(game)
    solver = Solver(rules, max_memory_mb=max_memory_mb, db_seeds=db_seeds, db_cache=db_cache)
    return solver.solve(game if isinstance(game, Game) else None, progress=progress,
                        max_nodes=max_nodes, time_limit=time_limit)
