"""``nugar solve RULES [TURNS...]``: the exact value of a sowing position under perfect play;
``nugar solve RULES --build-db K``: build the Kalah endgame databases on disk;
``nugar solve RULES --build-tb N``, ``--position TEXT`` and ``--positions FILE``: the Dara
and Dala endgame tablebases (build them; answer positions from them);
``nugar solve RULES [TURNS...] --steps`` (also ``nugar analyse RULES [TURNS...] --exact``):
the exact value of every legal step of a position.

``register(subparsers)`` adds the sub-command to the ``nugar`` command line; ``main(argv)``
runs it on its own. Imports stay light here: the solver and its compiled search load in the
handler.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import NugarError
from .common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    command,
    connect_ray,
    play_turns,
    turn_texts,
)


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("rules", metavar="RULES",
                   help="a sowing rule set, e.g. dracala or 'kalah(pits=4,seeds=4)'")
    p.add_argument("turns", nargs="*", metavar="TURN",
                   help="turns played from the start before solving, e.g. 3-1 5")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--memory", type=float, default=None, metavar="MB",
                   help="size of the table in megabytes (default 256)")
    p.add_argument("--max-nodes", type=int, default=None, metavar="N",
                   help="give up after N positions (exit 1)")
    p.add_argument("--time", type=float, default=None, metavar="S",
                   help="give up after S seconds (exit 1)")
    p.add_argument("--db-seeds", type=int, default=None, metavar="K",
                   help="Kalah endgame database of every position with at most K seeds on "
                        "the board (0: none; default: chosen by board size)")
    p.add_argument("--db-cache", action="store_true",
                   help="keep built in-memory endgame databases under ~/.cache/nugar")
    p.add_argument("--build-db", type=int, default=None, metavar="K",
                   help="build (or complete, or repair) the Kalah endgame database on disk "
                        "of every position with at most K seeds on the board, then stop")
    p.add_argument("--steps", action="store_true",
                   help="the exact value of every legal step instead of one line of play")
    p.add_argument("--no-book", action="store_true",
                   help="with --steps: solve even where the shipped opening book has the "
                        "values (to check it, or to time the solver)")
    p.add_argument("--workers", type=int, default=None, metavar="N",
                   help="processes building the database (default 2), threads building "
                        "the tablebases (default 2; with --ray: the driver's own phases), "
                        "or solving the steps of --steps (default 1; each gets 1/N of "
                        "--memory)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="with --build-db: compute the levels' index ranges as tasks on a Ray "
                        "cluster ('auto', 'local' or its address; the database folder must "
                        "be on a file system every node sees); with --build-tb: generate "
                        "the layers' turns as Ray tasks, the files written here "
                        "(docs/scaling.md)")
    _add_db_arguments(p)
    _add_tb_arguments(p)
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _add_tb_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--build-tb", type=int, default=None, metavar="N",
                   help="Dara, Dala: build (or complete) the endgame tablebases of every "
                        "movement-phase position of at most N pieces, then stop")
    p.add_argument("--position", default=None, metavar="TEXT",
                   help="Dara, Dala: answer a position text (all pieces dropped, hand=0,0) "
                        "from the tablebases")
    p.add_argument("--positions", default=None, metavar="FILE",
                   help="Dara, Dala: answer every position text of FILE ('-': stdin) from "
                        "the tablebases, one JSON line per input line, in order")


def _add_db_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db-dir", default=None, metavar="DIR",
                   help="where the databases on disk live (default $NUGAR_DATA_DIR, else "
                        "$XDG_DATA_HOME/nugar or ~/.local/share/nugar)")
    p.add_argument("--no-disk-db", action="store_true",
                   help="do not use the databases on disk")


def register(subparsers: Any) -> None:
    """Add ``solve`` to the ``nugar`` command line."""
    p = subparsers.add_parser(
        "solve", help="exact value of a Kalah or Dracala position under perfect play",
        description="Solve the position after TURNS (the start if none) by exhaustive "
                    "search: the result and final margin for the player to move, with a "
                    "principal variation. Progress goes to stderr about once a second. Dara "
                    "and Dala: --build-tb builds the endgame tablebases, --position and "
                    "--positions answer from them.")
    _add_arguments(p)
    p.set_defaults(func=cmd_solve)


def _db_root(args: argparse.Namespace) -> Any:
    from pathlib import Path

    db_dir = getattr(args, "db_dir", None)
    return None if db_dir is None else Path(db_dir)


def _build_db(args: argparse.Namespace, rules: Any) -> int:
    """``--build-db K``: build levels 0..K on disk, one progress line per second."""
    import time

    from ..solver import egdb
    from ..solver.db import MAX_DB_SEEDS, supported

    if not supported(rules):
        raise CliError(f"no endgame database for {rules.text}: Kalah with leftovers=owner "
                       f"or last_mover only")
    if not 0 <= args.build_db <= MAX_DB_SEEDS:
        raise CliError(f"--build-db must be 0..{MAX_DB_SEEDS} seeds, not {args.build_db}")
    ray_address = getattr(args, "ray", None)
    if ray_address is not None and args.workers is not None:
        raise CliError("--workers and --ray cannot be combined: on Ray every index range is "
                       "a task and the cluster's CPUs set how many run at once")
    workers = 2 if args.workers is None else args.workers
    if not 1 <= workers <= 256:
        raise CliError(f"--workers must be 1..256, not {workers}")
    root = _db_root(args)
    pits = rules.sowing_options.pits
    total = sum(egdb.level_count(pits, n) for n in range(args.build_db + 1))
    print(f"endgame database of {rules.text} up to {args.build_db} seeds: {total:,} "
          f"positions, {total / 2**20:,.1f} MB in {egdb.db_directory(rules, root)}",
          file=sys.stderr, flush=True)
    shown = [0.0]

    def progress(n: int, done: int, count: int, seconds: float) -> None:
        now = time.monotonic()
        if args.quiet or (now < shown[0] + 1.0 and done < count):
            return
        shown[0] = now
        width = 30
        bar = "#" * (width * done // max(count, 1))
        print(f"level {n:3d} [{bar:<{width}}] {done:,}/{count:,} {seconds:.0f} s",
              file=sys.stderr, flush=True)

    def level_done(r: Any) -> None:
        if r.status == "kept" and args.quiet:
            return
        rate = f", {r.rate / 1e6:.2f} M positions/s" if r.seconds > 0 else ""
        print(f"level {r.level:3d}: {r.positions:,} positions, {r.bytes / 2**20:,.1f} MB, "
              f"{r.status}, {r.seconds:.1f} s ({r.cpu_seconds:.1f} CPU s){rate}",
              file=sys.stderr, flush=True)

    try:
        if ray_address is None:
            egdb.build(rules, args.build_db, root=root, workers=workers, progress=progress,
                       level_done=level_done, on_wait=lambda: print(
                           "another build of these databases is running (a nugar play, "
                           "a server, or another --build-db): waiting for it, then going "
                           "on from what it built", file=sys.stderr, flush=True))
        else:
            from ..scale import egdb_ray

            connect_ray(ray_address)
            egdb_ray.build_on_ray(rules, args.build_db, root=root, progress=progress,
                                  level_done=level_done)
    except (egdb.EGDBError, OSError) as exc:
        raise CliError(f"building the endgame database failed: {exc}", EXIT_FAILED) from None
    print(f"endgame database complete: levels 0..{args.build_db} in "
          f"{egdb.db_directory(rules, root)}")
    return EXIT_OK


def _build_tb_on_ray(address: str, rules: Any, pieces: int, root: Any, workers: int,
                     progress: Any, layer_done: Any) -> None:
    """``--build-tb N --ray ADDRESS``: the layers' moves phases as Ray tasks
    (``scale/tb_ray.py``)."""
    from ..scale import tb_ray

    connect_ray(address)
    tb_ray.build_on_ray(rules, pieces, root=root, workers=workers, progress=progress,
                        layer_done=layer_done)


#: said under the results of misère rules (Dracala), where a bigger store is worse
MISERE_NOTE = ("misère rules: the smaller store wins (a store holding more than half of all "
               "seeds loses at once)")

#: a solve's progress lines start once it has run this many seconds, and come this often
PROGRESS_AFTER = 3.0
PROGRESS_EVERY = 10.0


def _duration(seconds: float) -> str:
    """``40 s``, ``3 min``, ``1.5 h``: a time left, as precise as an estimate deserves."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def database_hint(rules: Any, solver: Any) -> str | None:
    """Where Kalah endgame databases on disk would make this solve faster and none is used:
    how to build them (``None`` where they would not, or are used already)."""
    from ..solver.db import supported

    if not supported(rules) or solver.disk is not None:
        return None
    base = rules.text if "(" not in rules.text else repr(rules.text)
    return (f"no endgame database on disk is used: building one once (nugar solve {base} "
            f"--build-db 22: about 0.5 GB, a few minutes; docs/solving.md) makes long solves "
            f"like this one much faster")


class StepsProgress:
    """``--steps`` progress on stderr once the solve has run :data:`PROGRESS_AFTER` seconds:
    a line as each step is solved and every :data:`PROGRESS_EVERY` seconds between, with the
    steps done and an estimate of the time left (the mean time of the steps done so far, for
    each step still to do), and once the database hint (:func:`database_hint`)."""

    def __init__(self, what: str, hint: str | None) -> None:
        import threading
        import time

        self.what, self.hint = what, hint
        self.start = time.monotonic()
        self.done = self.total = 0
        self.done_seconds = 0.0
        self.next_line = self.start + PROGRESS_AFTER
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="nugar-steps-progress",
                                       daemon=True)

    def __enter__(self) -> StepsProgress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()

    def step_done(self, done: int, total: int) -> None:
        """The solver's ``step_done`` callback."""
        import time

        with self.lock:
            self.done, self.total = done, total
            self.done_seconds = time.monotonic() - self.start
            if time.monotonic() >= self.start + PROGRESS_AFTER:
                self._line()

    def _run(self) -> None:
        import time

        while not self.stop.wait(min(0.5, PROGRESS_EVERY)):
            with self.lock:
                if time.monotonic() >= self.next_line:
                    self._line()

    def _line(self) -> None:
        import time

        now = time.monotonic()
        self.next_line = now + PROGRESS_EVERY
        elapsed = now - self.start
        if self.done and self.total:
            left = max(0.0, self.done_seconds / self.done * self.total - elapsed)
            estimate = (f"about {_duration(left)} left" if self.done < self.total
                        else "all solved")
            where = f"{self.done} of {self.total} steps solved"
        else:
            estimate = "the time left is estimated once the first step is solved"
            where = "solving the first step"
        print(f"{self.what}: {where}, {_duration(elapsed)} so far; {estimate}",
              file=sys.stderr, flush=True)
        if self.hint is not None:
            print(f"{self.what}: {self.hint}", file=sys.stderr, flush=True)
            self.hint = None


def _disk_db_notes(solver: Any) -> None:
    for n, why in solver.db_problems:
        print(f"warning: endgame database level {n} {why}; not used (rebuild it with "
              f"nugar solve RULES --build-db K)", file=sys.stderr)


@command("solve")
def cmd_solve(args: argparse.Namespace) -> int:
    """Run ``nugar solve``: exit 2 for bad usage, 1 when a turn is illegal or the search
    gave up at its limit."""
    from ..rules import new_game, parse_rules
    from ..solver.core import DEFAULT_MEMORY_MB, Progress, SolveAborted, Solver, check_solvable

    if (getattr(args, "build_tb", None) is not None or getattr(args, "position", None)
            or getattr(args, "positions", None)):
        return _tablebase(args)
    try:
        rules = parse_rules(args.rules)
        check_solvable(rules)
        memory = DEFAULT_MEMORY_MB if args.memory is None else args.memory
        if args.db_seeds is not None and args.db_seeds < 0:
            raise CliError(f"--db-seeds must be >= 0, not {args.db_seeds}")
        if args.build_db is not None:
            return _build_db(args, rules)
        if getattr(args, "ray", None) is not None:
            raise CliError("--ray goes with --build-db only (the search itself runs here)")
        if args.steps:
            return analyse_steps(args)
        solver = Solver(rules, max_memory_mb=memory, db_seeds=args.db_seeds,
                        db_cache=args.db_cache, disk_db=not args.no_disk_db,
                        db_root=_db_root(args))
    except NugarError as exc:
        raise CliError(str(exc)) from None
    _disk_db_notes(solver)
    if args.max_nodes is not None and args.max_nodes < 1:
        raise CliError(f"--max-nodes must be >= 1, not {args.max_nodes}")
    if args.time is not None and not args.time > 0:
        raise CliError(f"--time must be a positive number of seconds, not {args.time}")
    game = new_game(rules)
    play_turns(game, turn_texts(args.turns))

    hint = [database_hint(rules, solver)]

    def report(p: Progress) -> None:
        print(f"solving {rules.text}: {p}", file=sys.stderr, flush=True)
        if hint[0] is not None and p.seconds >= PROGRESS_AFTER:  # said once, in a long solve
            print(f"solving {rules.text}: {hint[0]}", file=sys.stderr, flush=True)
            hint[0] = None

    try:
        s = solver.solve(game, progress=None if args.quiet else report,
                         max_nodes=args.max_nodes, time_limit=args.time)
    except SolveAborted as exc:
        raise CliError(str(exc), EXIT_FAILED) from None
    except NugarError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        import json

        print(json.dumps(s.to_json()))
        return EXIT_OK
    print(s)
    if rules.misere:
        print(MISERE_NOTE)
    print(f"principal variation: {' '.join(s.pv_turns) or '(game over)'}")
    rate = s.nodes / s.seconds if s.seconds > 0 else 0.0
    print(f"{s.nodes:,} positions in {s.seconds:.2f} s ({rate:,.0f}/s); table "
          f"{s.table_used:,} of {s.table_size:,} slots used, hit rate {s.hit_rate:.1%}")
    if solver.disk is not None:
        print(f"endgame database on disk: positions with <= {solver.db_reach} seeds on the "
              f"board, {solver.disk.nbytes / 2**20:,.1f} MB, checked in "
              f"{solver.disk.open_seconds:.2f} s; {s.db_hits:,} look-ups")
    if solver.db is not None:
        print(f"endgame database: positions with <= {solver.db.levels} seeds on the board, "
              f"{solver.db.nbytes / 2**20:,.1f} MB, built in {solver.db.cpu_seconds:.2f} CPU s"
              f"{' (from the cache)' if solver.db.loaded_from else ''}; {s.db_hits:,} look-ups")
    return EXIT_OK


def _tablebase(args: argparse.Namespace) -> int:
    """``--build-tb N`` and ``--position TEXT``: the Dara and Dala endgame tablebases."""
    import json
    import time

    from ..rules import from_position, parse_rules
    from ..solver import tablebase as tb

    try:
        rules = parse_rules(args.rules)
        tb.options_of(rules)
    except NugarError as exc:
        raise CliError(str(exc)) from None
    root = _db_root(args)
    workers = 2 if args.workers is None else args.workers
    if not 1 <= workers <= 256:
        raise CliError(f"--workers must be 1..256, not {workers}")
    ray_address = getattr(args, "ray", None)
    if ray_address is not None and args.build_tb is None:
        raise CliError("--ray goes with --build-tb (or --build-db) only: the tables answer "
                       "positions here")
    if args.build_tb is not None:
        if not 2 <= args.build_tb <= 2 * tb.MAX_SIDE_PIECES:
            raise CliError(f"--build-tb must be 2..{2 * tb.MAX_SIDE_PIECES} pieces, "
                           f"not {args.build_tb}")
        shown = [0.0]
        began: dict[tuple[tuple[int, int], str], float] = {}

        def progress(material: tuple[int, int], phase: str, done: int, total: int,
                     seconds: float) -> None:
            start = began.setdefault((material, phase), seconds)
            now = time.monotonic()
            if args.quiet or (now < shown[0] + 1.0 and done < total):
                return
            shown[0] = now
            spent = seconds - start
            left = spent * (total - done) / done if done and phase == "moves" else None
            eta = "" if left is None else f", about {left:.0f} s left in this phase"
            print(f"{material[0]} against {material[1]}: {phase} {done:,}/{total:,} "
                  f"({seconds:.0f} s{eta})", file=sys.stderr, flush=True)

        def layer_done(r: Any) -> None:
            if args.quiet:
                return
            mats = ", ".join(f"{a} against {b}" for a, b in r.materials)
            print(f"{mats}: {r.positions:,} positions, {r.bytes / 2**20:,.1f} MB, {r.status}"
                  f"{f', {r.seconds:.1f} s' if r.status == 'built' else ''}",
                  file=sys.stderr, flush=True)

        try:
            if ray_address is None:
                tb.build(rules, args.build_tb, root=root, workers=workers, progress=progress,
                         layer_done=layer_done)
            else:
                _build_tb_on_ray(ray_address, rules, args.build_tb, root, workers, progress,
                                 layer_done)
        except (tb.TablebaseError, OSError) as exc:
            raise CliError(f"building the tablebases failed: {exc}", EXIT_FAILED) from None
        print(f"tablebases complete: up to {args.build_tb} pieces in "
              f"{tb.tb_directory(rules, root)}")
        return EXIT_OK
    base = tb.Tablebase(rules, root)
    key = tb.rules_key(rules)

    def answer_of(text: str) -> dict[str, Any]:
        game = from_position(text)
        if tb.rules_key(game.rules) != key:
            raise tb.TablebaseError(f"the position's rules ({game.rules.text}) have other "
                                    f"tables than {rules.text}")
        return tb.answer(base, game)

    if args.positions is not None:
        lines = sys.stdin if args.positions == "-" else _read_lines(args.positions)
        for line in lines:
            try:
                row = answer_of(line.strip())
            except NugarError as exc:
                row = {"error": str(exc)}
            print(json.dumps(row), flush=True)
        return EXIT_OK
    try:
        answer = answer_of(args.position)
    except NugarError as exc:
        raise CliError(str(exc), EXIT_FAILED if isinstance(exc, tb.TablebaseError)
                       else EXIT_USAGE) from None
    if args.json:
        print(json.dumps(answer))
        return EXIT_OK
    names = {1: "win", 0: "draw", -1: "loss"}
    print(f"{names[answer['value']]} for the side to move"
          + (f" in {answer['plies']} plies, next capture in {answer['to_capture']}"
             if answer["value"] else ""))
    for c in answer["best"]:
        extra = f" in {c['plies']} ({c['to_capture']} to a capture)" if c["value"] else ""
        print(f"  {c['move']}: {names[c['value']]}{extra}")
    return EXIT_OK


def _tablebase_steps(args: argparse.Namespace, rules: Any) -> int:
    """``--steps`` / ``nugar analyse --exact`` of Dara and Dala: the tablebases' answer for
    the position after the turns (every turn with its value)."""
    from ..rules import new_game

    game = new_game(rules)
    play_turns(game, turn_texts(args.turns))
    text = game.position_text()
    inner = argparse.Namespace(**{**vars(args), "build_tb": None, "position": text,
                                   "positions": None, "workers": None,
                                   "json": getattr(args, "json", False)})
    return _tablebase(inner)


def _read_lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.readlines()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None


def analyse_steps(args: argparse.Namespace) -> int:
    """``nugar solve --steps`` and ``nugar analyse --exact``: the exact value of every legal
    step; exit 2 for bad usage, 1 when a turn is illegal or the time ran out. Reads
    ``args.rules``, ``turns``, ``json`` and, where given, ``memory``, ``time``, ``db_dir``,
    ``no_disk_db``."""
    import time

    from ..kernels import sowing
    from ..kernels.common import ST_OUTCOME, ST_TO_MOVE
    from ..rules import new_game, parse_rules
    from ..rules.options import AlignmentOptions
    from ..solver.core import DEFAULT_MEMORY_MB, SolveAborted, Solver, check_solvable

    try:
        rules = parse_rules(args.rules)
        if isinstance(rules.options, AlignmentOptions):
            return _tablebase_steps(args, rules)
        check_solvable(rules)
        memory = getattr(args, "memory", None) or DEFAULT_MEMORY_MB
        solver = Solver(rules, max_memory_mb=memory,
                        disk_db=not getattr(args, "no_disk_db", False),
                        db_root=_db_root(args))
    except NugarError as exc:
        raise CliError(str(exc)) from None
    time_limit = getattr(args, "time", None)
    if time_limit is not None and not time_limit > 0:
        raise CliError(f"--time must be a positive number of seconds, not {time_limit}")
    _disk_db_notes(solver)
    game = new_game(rules)
    play_turns(game, turn_texts(args.turns))
    state = game.state.copy()
    if int(state[ST_OUTCOME]) != 0:
        raise CliError("the game is over: no step to analyse", EXIT_FAILED)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    start = time.perf_counter()
    me = int(state[ST_TO_MOVE])
    rows: list[dict[str, Any]] = []
    workers = getattr(args, "workers", 1) or 1
    if not 1 <= workers <= 256:
        raise CliError(f"--workers must be 1..256, not {workers}")
    from ..ai.book import step_values as book_steps

    known = None if getattr(args, "no_book", False) else \
        book_steps(rules.text, solver.params, state)
    try:
        if known is not None:
            values = [(a, v, 0) for a, v in known]
        elif getattr(args, "quiet", False):
            values = solver.step_values(state, workers=workers, deadline=deadline)
        else:
            with StepsProgress(f"solving the steps of {rules.text}",
                               database_hint(rules, solver)) as shown:
                values = solver.step_values(state, workers=workers, deadline=deadline,
                                            step_done=shown.step_done)
    except SolveAborted as exc:
        raise CliError(str(exc), EXIT_FAILED) from None
    nodes = 0
    for action, value, step_nodes in values:
        child = state.copy()
        sowing.apply_action(solver.params, child, action)
        result, margin = solver.describe(state, value)
        rows.append({"step": action + 1, "value": value, "result": result, "margin": margin,
                     "nodes": step_nodes,
                     "bonus": bool(int(child[ST_TO_MOVE]) == me and int(child[ST_OUTCOME]) == 0)})
        nodes += step_nodes
    seconds = time.perf_counter() - start
    best = max(r["value"] for r in rows)
    for r in rows:
        r["best"] = r["value"] == best
    if args.json:
        import json

        print(json.dumps({"rules": rules.text, "to_move": me, "steps": rows, "value": best,
                          "nodes": nodes, "seconds": round(seconds, 3),
                          "db_seeds": solver.db_reach, "book": known is not None}))
        return EXIT_OK
    from ..rules.family import family_of

    name = family_of(rules).player_name(me)
    print(f"{rules.text}: {name} to move; exact value of each step (final margin for {name}, "
          f"perfect play afterwards)")
    if rules.misere:
        print(MISERE_NOTE)
    for r in rows:
        mark = " *" if r["best"] else ""
        extra = ", bonus step" if r["bonus"] else ""
        print(f"  hole {r['step']}: {r['result']} by {abs(r['margin'])} "
              f"({r['margin']:+d}{extra}){mark}")
    if known is not None:
        print(f"from the opening book (solved ahead of time) in {seconds:.2f} s")
    else:
        print(f"{nodes:,} positions in {seconds:.2f} s; endgame database reach "
              f"{solver.db_reach} seeds")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``nugar solve`` as a program of its own (``main(["kalah(pits=3,seeds=3)"])``)."""
    parser = Parser(prog="nugar solve", description=__doc__.splitlines()[0])
    _add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return cmd_solve(args)


if __name__ == "__main__":
    sys.exit(main())
