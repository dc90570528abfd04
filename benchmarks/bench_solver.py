"""Solver figures: Kalah(pits, seeds) solved boards, Dracala, and search speed.

Run (each part on its own; everything is single-threaded):

    python benchmarks/bench_solver.py speed             # nodes/s, table use, hit rate, memory
    python benchmarks/bench_solver.py dracala           # dracala and dracala(leftovers=...)
    python benchmarks/bench_solver.py kalah --limit 600 --max-pits 6 --max-seeds 6
    python benchmarks/bench_solver.py db --pits 6 --db-seeds 8 12 16 20   # database builds
    python benchmarks/bench_solver.py compare --rules 'kalah(pits=5,seeds=4)' --db-seeds 0 12 16
    python benchmarks/bench_solver.py egdb --pits 6 --db-seeds 20 --workers 2   # on disk
    python benchmarks/bench_solver.py first-turns --rules kalah --memory 2048    # every opening
    python benchmarks/bench_solver.py perfect-play --rules kalah --games 10 \
        --opponents random level:5 perfect              # the perfect player's time per move
    python benchmarks/bench_solver.py db-open --rules kalah  # checksums of the databases on disk
    python benchmarks/bench_solver.py tb-build --tb-rules dara dala --pieces 3 4 5 6 \
        --workers 2                                     # Dara and Dala tablebases
    python benchmarks/bench_solver.py tb-stats --tb-rules dara dala --pieces 7 \
        --db-dir DIR                                    # their statistics per material
    python benchmarks/bench_solver.py tb-play --tb-rules dara --games 200 --db-dir DIR
        # level 8 with the tables against level 8 without, from won and drawn positions
    python benchmarks/bench_solver.py tb-probe --tb-rules dara --material 4 3 --depth 6 \
        --games 20 --db-dir DIR        # the search probing the tables below its root
    python benchmarks/bench_solver.py tb-probe --tb-rules kalah --db-seeds 14 --depth 9 \
        --games 20 --db-dir DIR        # ... and the Kalah databases

``kalah`` solves every board from pits 1, seeds 1 upwards under ``empty_capture=none`` and
``=single``; a board that does not finish within ``--limit`` CPU seconds ends its row (more
seeds only take longer). CPU seconds, not wall-clock, because the machine is shared.
Each part prints a Markdown table for ``docs/solving.md`` or ``docs/benchmarks.md``;
``--memory`` sets the table size in MB (default 1024). ``--db-seeds K`` gives the Kalah
endgame database's reach (default: the solver's automatic choice; 0: none); ``db`` builds
databases alone (size, CPU seconds, steps played) and ``compare`` solves one board with
several reaches (database build included in the CPU seconds).
``tb-build`` builds the Dara and Dala endgame tablebases from 3 pieces up, each piece count
on top of the smaller ones (in a fresh folder unless ``--db-dir``; the kernels compiled
first, on a 3x3 board): per count the layers
built, positions stored, size on disk, wall and CPU seconds and the load average; with the
presets' ``loss_at=2`` the smallest tables have 6 pieces, so ``--loss-at`` lowers it (0: from
one piece a side) to show the growth below that. ``tb-stats`` reads the tables' statistics;
``tb-play`` plays level 8 (with the tables in ``--db-dir``) against level 8's search
without them from ``--games`` random won and as many drawn positions of ``--material``.
``tb-probe`` searches ``--games`` positions (Dara, Dala: random ones of ``--material``;
Kalah: from random games, ``--db-seeds`` + 6 seeds on the board) to ``--depth`` decisions
with and without probing the tables or databases in ``--db-dir``: per position the score,
nodes and probes of each, with the exact value where one is known (the solver's in Kalah).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time

from nugar.rules.options import parse_rules
from nugar.solver import Progress, SolveAborted, Solver
from nugar.solver.db import EndgameDB


def machine() -> str:
    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def progress_line(p: object) -> None:
    print(f"  ... {p}", file=sys.stderr, flush=True)


def run_kalah(args: argparse.Namespace) -> None:
    print(f"Machine: {machine()}; table {args.memory} MB; limit {args.limit:g} CPU seconds "
          f"per board.\n")
    print("| pits | seeds | empty_capture | result for player 1 | final | nodes | CPU s | "
          "wall s | db seeds | db hits |")
    print("| ---: | ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    captures = ("none", "single") if args.capture == "both" else (args.capture,)
    for capture in captures:
        for pits in range(args.min_pits, args.max_pits + 1):
            for seeds in range(1, args.max_seeds + 1):
                rules = f"kalah(pits={pits},seeds={seeds},empty_capture={capture})"
                db = None if args.db_seeds is None else args.db_seeds[0]
                solver = Solver(rules, max_memory_mb=args.memory, db_seeds=db)
                cpu0 = time.process_time()

                def watch(p: Progress, solver: Solver = solver, cpu0: float = cpu0) -> None:
                    if args.verbose:
                        print(f"  ... {solver.rules.text}: {p}", file=sys.stderr, flush=True)
                    if time.process_time() - cpu0 > args.limit:
                        solver.stop()

                start = time.perf_counter()
                try:
                    s = solver.solve(progress=watch, interval=2.0)
                except SolveAborted:
                    print(f"| {pits} | {seeds} | {capture} | not solved | | "
                          f"> {int(solver.stats[0]):,} | > {time.process_time() - cpu0:.0f} | "
                          f"{time.perf_counter() - start:.0f} | {solver.db_seeds} | |",
                          flush=True)
                    break
                print(f"| {pits} | {seeds} | {capture} | {s.result} by {abs(s.margin)} | "
                      f"{s.final[0]} : {s.final[1]} | {s.nodes:,} | {s.cpu_seconds:.2f} | "
                      f"{s.seconds:.2f} | {s.db_seeds} | {s.db_hits:,} |", flush=True)
                del solver


def run_dracala(args: argparse.Namespace) -> None:
    print(f"Machine: {machine()}; table {args.memory} MB.\n")
    for rules in ("dracala", "dracala(leftovers=last_capturer)"):
        solver = Solver(rules, max_memory_mb=args.memory)
        s = solver.solve(progress=progress_line if args.verbose else None, interval=30.0)
        print(f"{s}\n  pv: {' '.join(s.pv_turns)}\n  nodes {s.nodes:,}, {s.cpu_seconds:.1f} "
              f"CPU s, {s.seconds:.1f} wall s, {s.nodes / s.cpu_seconds / 1e6:.2f} M nodes per "
              f"CPU s, table {s.table_used:,}/"
              f"{s.table_size:,}, hit rate {s.hit_rate:.1%}, peak RSS {peak_rss_mb():.0f} MB",
              flush=True)


def run_speed(args: argparse.Namespace) -> None:
    boards = ("kalah(pits=4,seeds=4)", "kalah(pits=5,seeds=3)", "kalah(pits=6,seeds=2)",
              "dracala(pits=5,seeds=5)", "dracala")
    Solver("kalah(pits=1,seeds=1)", max_memory_mb=1).solve()  # load the compiled code
    print(f"Machine: {machine()}; table {args.memory} MB "
          f"({args.memory * 2**20 // 16:,} slots of 16 bytes).\n")
    print("| position | nodes | CPU s | wall s | nodes per CPU s | table used | hit rate | "
          "peak RSS MB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for rules in boards:
        solver = Solver(rules, max_memory_mb=args.memory)
        s = solver.solve()
        print(f"| `{rules}` start | {s.nodes:,} | {s.cpu_seconds:.2f} | {s.seconds:.2f} | "
              f"{s.nodes / s.cpu_seconds / 1e6:.2f} M | {s.table_used / s.table_size:.1%} | "
              f"{s.hit_rate:.1%} | {peak_rss_mb():.0f} |", flush=True)
        del solver


def run_db(args: argparse.Namespace) -> None:
    print(f"Machine: {machine()}.\n")
    print("| pits | seeds on board | positions (bytes) | CPU s | steps played | "
          "positions per CPU s |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    EndgameDB(parse_rules("kalah(pits=1,seeds=1)"), 2)  # load the compiled code
    for k in args.db_seeds or [8, 12, 16]:
        db = EndgameDB(parse_rules(f"kalah(pits={args.pits},seeds=1,empty_capture="
                                   f"{'single' if args.capture == 'single' else 'none'})"), k)
        print(f"| {args.pits} | {k} | {db.size:,} | {db.cpu_seconds:.2f} | {db.steps:,} | "
              f"{db.size / max(db.cpu_seconds, 1e-9) / 1e6:.2f} M |", flush=True)
        del db


def run_compare(args: argparse.Namespace) -> None:
    print(f"Machine: {machine()}; table {args.memory} MB.\n")
    print("| rules | db seeds | db MB | db CPU s | nodes | db hits | CPU s in all | result |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for k in args.db_seeds or [0]:
        solver = Solver(args.rules, max_memory_mb=args.memory, db_seeds=k)
        cpu0 = time.process_time()

        def watch(p: Progress, solver: Solver = solver, cpu0: float = cpu0) -> None:
            if time.process_time() - cpu0 > args.limit:
                solver.stop()

        try:
            s = solver.solve(progress=watch, interval=2.0)
        except SolveAborted:
            print(f"| `{args.rules}` | {k} | | | > {int(solver.stats[0]):,} | | "
                  f"> {time.process_time() - cpu0:.0f} | not solved |", flush=True)
            continue
        db = solver.db
        print(f"| `{args.rules}` | {k} | {db.nbytes / 2**20 if db else 0:.1f} | "
              f"{db.cpu_seconds if db else 0:.2f} | {s.nodes:,} | {s.db_hits:,} | "
              f"{s.cpu_seconds:.2f} | {s.result} by {abs(s.margin)} |", flush=True)
        del solver


def load() -> str:
    return " ".join(open("/proc/loadavg").read().split()[:3]) if os.path.exists(
        "/proc/loadavg") else "?"


def run_egdb(args: argparse.Namespace) -> None:
    """Build the disk database level by level (``--db-dir``, else a temporary folder that is
    removed afterwards): size, wall and CPU seconds and rate per level, with the load."""
    import shutil
    import tempfile
    from pathlib import Path

    from nugar.solver import egdb as E

    root = Path(args.db_dir) if args.db_dir else Path(tempfile.mkdtemp(prefix="egdb-"))
    rules = parse_rules(f"kalah(pits={args.pits},seeds=1,empty_capture="
                        f"{'single' if args.capture == 'single' else 'none'})")
    print(f"Machine: {machine()}; {args.workers} workers; {root}.\n")
    print("| level | positions | MB | status | wall s | CPU s | positions per CPU s | load |")
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |")

    def row(r: E.LevelReport) -> None:
        rate = r.positions / r.cpu_seconds / 1e6 if r.cpu_seconds > 0 else 0.0
        print(f"| {r.level} | {r.positions:,} | {r.bytes / 2**20:.1f} | {r.status} | "
              f"{r.seconds:.1f} | {r.cpu_seconds:.1f} | {rate:.2f} M | {load()} |", flush=True)

    try:
        E.build(rules, max(args.db_seeds or [16]), root=root, workers=args.workers,
                level_done=row)
    finally:
        if not args.db_dir:
            shutil.rmtree(root, ignore_errors=True)


def run_first_turns(args: argparse.Namespace) -> None:
    """The value of the start and of every first step of ``--rules``, with the databases on
    disk (``--db-dir`` or the data directory) when there are any."""
    from pathlib import Path

    from nugar.kernels import sowing as K
    from nugar.kernels.common import ST_OUTCOME, ST_TO_MOVE
    from nugar.solver.kernels import terminal_value

    solver = Solver(args.rules, max_memory_mb=args.memory,
                    db_root=Path(args.db_dir) if args.db_dir else None)
    print(f"Machine: {machine()}; table {args.memory} MB; database reach "
          f"{solver.db_seeds} seeds; load at start {load()}.\n")
    print("| first step | value for player 1 | nodes | wall s | CPU s | load |")
    print("| ---: | ---: | ---: | ---: | ---: | --- |")
    start = solver.start_state
    for a in range(solver.pits):
        child = start.copy()
        K.apply_action(solver.params, child, a)
        t0, c0, n0 = time.perf_counter(), time.process_time(), int(solver.stats[0])
        if int(child[ST_OUTCOME]) != 0:
            v = int(terminal_value(solver.params, child))
        else:
            v = solver.value(child, progress=progress_line if args.verbose else None,
                             interval=10.0)
        value = v if int(child[ST_TO_MOVE]) == 1 else -v
        print(f"| {a + 1}{' (bonus)' if int(child[ST_TO_MOVE]) == 1 else ''} | {value:+d} | "
              f"{int(solver.stats[0]) - n0:,} | {time.perf_counter() - t0:.1f} | "
              f"{time.process_time() - c0:.1f} | {load()} |", flush=True)


def run_growth(args: argparse.Namespace) -> None:
    """How the search's work grows with the seeds on the board: positions of ``--rules``
    reached by random play (seeds 1 and 2) until at most N seeds are left, each solved from
    an empty table (with the databases on disk when there are any)."""
    import random

    from nugar import new_game
    from nugar.rules.sowing import SowingGame

    print(f"Machine: {machine()}; table {args.memory} MB; limit {args.limit:g} s.\n")
    print("| seeds on the board | seed | value | nodes | CPU s | wall s | db reach | load |")
    print("| ---: | ---: | --- | ---: | ---: | ---: | ---: | --- |")
    for on in args.seeds_on_board or [38, 40]:
        for seed in (1, 2):
            rng = random.Random(seed * 1000 + on)
            game = new_game(args.rules)
            assert isinstance(game, SowingGame)
            while sum(map(sum, game.holes)) > on and not game.is_over:
                game.push_action(rng.choice(game.legal_actions()))
            solver = Solver(args.rules, max_memory_mb=args.memory)
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                value = f"{solver.solve(game, time_limit=args.limit).margin:+d}"
            except SolveAborted:
                value = "not solved"
            print(f"| {sum(map(sum, game.holes))} | {seed} | {value} | "
                  f"{int(solver.stats[0]):,} | {time.process_time() - c0:.1f} | "
                  f"{time.perf_counter() - t0:.1f} | {solver.db_reach} | {load()} |",
                  flush=True)


def run_perfect_play(args: argparse.Namespace) -> None:
    """Whole games of the perfect player against each of ``--opponents`` (agent specs; a
    seeded opponent gets the game number as its seed), a fresh player each game as a
    person starting one would get, alternating who begins. Every decision of the perfect
    player is timed (wall clock, the book, the databases on disk in ``--db-dir`` or the
    data directory). Checks that it never ends below the start's value for its side."""
    from pathlib import Path

    from nugar import new_game
    from nugar.ai import make_agent
    from nugar.ai.base import Limits
    from nugar.ai.book import BOOK_DEPTHS, BOOK_SEEDS, lookup, seeds_on_board
    from nugar.ai.perfect import PerfectAgent
    from nugar.rules.sowing import SowingGame
    from nugar.solver import egdb as E

    if args.db_dir:
        os.environ[E.DATA_ENV] = args.db_dir
    rules = parse_rules(args.rules)
    reach = E.levels_on_disk(rules, Path(args.db_dir) if args.db_dir else None)
    value = PerfectAgent(memory=args.memory).analyse(new_game(rules)).score
    book_text = (f"book to {BOOK_DEPTHS.get(rules.text, 0)} decisions and the player's lines "
                 f"to {BOOK_SEEDS.get(rules.text, '-')} seeds")
    print(f"Machine: {machine()}; {args.rules}, databases on disk to {reach} seeds, table "
          f"{args.memory} MB, {book_text}; start value {value:+g} for the first player; "
          f"load at start {load()}.\n")
    print("| opponent | games | decisions | from the book | mean s | 95th pct s | max s | "
          "seeds on board at max | lowest margin - value | load |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    assert value is not None
    first: tuple[float, int, str] | None = None  # the process's first solve
    for spec in args.opponents or ["random"]:
        times: list[float] = []
        book = 0
        worst = (0.0, 0)
        lowest = 10**9
        for g in range(args.games):
            me = 1 + g % 2
            agent = PerfectAgent(memory=args.memory)
            other = make_agent(f"{spec}{',' if ':' in spec else ':'}seed={g}"
                               if spec.split(":")[0] in ("random", "greedy") else spec)
            game = new_game(rules)
            assert isinstance(game, SowingGame)
            while not game.is_over:
                if game.to_move == me:
                    t0 = time.perf_counter()
                    a = agent.analyse(game, Limits())
                    dt = time.perf_counter() - t0
                    times.append(dt)
                    booked = lookup(rules.text, game.params, game.state) is not None
                    book += booked
                    if first is None and not booked:
                        first = (dt, seeds_on_board(game), spec)
                    if dt > worst[0]:
                        worst = (dt, seeds_on_board(game))
                    game.push(a.move)
                else:
                    game.push(other.analyse(game, Limits()).move)
            s1, s2 = game.score
            margin = (s1 - s2) if me == 1 else (s2 - s1)
            lowest = min(lowest, margin - (int(value) if me == 1 else -int(value)))
        times.sort()
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        print(f"| {spec} | {args.games} | {len(times)} | {book} | "
              f"{sum(times) / len(times):.3f} | {p95:.3f} | {worst[0]:.2f} | {worst[1]} | "
              f"{lowest:+d} | {load()} |", flush=True)
    if first is not None:
        print(f"\nThe process's first solve (against {first[2]}, {first[1]} seeds on the board; "
              f"it waits for the databases' checksums and the compiled search to load, which "
              f"start with the first book answer): {first[0]:.2f} s.")


def run_db_open(args: argparse.Namespace) -> None:
    """The checksums of ``--rules``' databases on disk (``--db-dir`` or the data directory),
    as opening them computes them: in threads (``egdb.check_levels``, what ``DiskDB`` and
    ``levels_on_disk`` do) and one file after the other, alternating, three times each, the
    remembered answers forgotten before each run (the files stay in the file cache)."""
    from pathlib import Path

    from nugar.solver import egdb as E

    rules = parse_rules(args.rules)
    directory = E.db_directory(rules, Path(args.db_dir) if args.db_dir else None)
    reach = E.levels_on_disk(rules, Path(args.db_dir) if args.db_dir else None)
    print(f"Machine: {machine()}; {args.rules}, databases on disk to {reach} seeds "
          f"({directory}); load at start {load()}.\n")
    print("| run | in threads s | one after the other s | load |")
    print("| ---: | ---: | ---: | --- |")
    for run in range(1, 4):
        seconds = []
        for threaded in (True, False):
            E._VERIFIED.clear()  # forget the answers of the previous run
            t0 = time.perf_counter()
            if threaded:
                E.check_levels(rules, directory)
            for n in range(reach + 1):
                assert E.check_level(rules, directory, n) is None
            seconds.append(time.perf_counter() - t0)
        print(f"| {run} | {seconds[0]:.2f} | {seconds[1]:.2f} | {load()} |", flush=True)


def run_tb_build(args: argparse.Namespace) -> None:
    import tempfile
    from pathlib import Path

    from nugar.solver import tablebase as tb

    with tempfile.TemporaryDirectory() as tmp:   # compile every kernel before timing
        tb.build(parse_rules("dara(rows=3,cols=3,loss_at=0)"), 4, root=Path(tmp))
    print(f"Machine: {machine()}; {args.workers} worker threads; load average "
          f"{os.getloadavg()[0]:.1f} at the start.\n")
    print("| rules | pieces | materials built | positions | MB | wall s | CPU s | load |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: |")
    for name in args.tb_rules:
        text = name if args.loss_at is None else f"{name}(loss_at={args.loss_at})"
        rules = parse_rules(text)
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(args.db_dir) if args.db_dir else Path(tmp)
            for pieces in args.pieces:
                cpu0 = time.process_time()
                start = time.perf_counter()
                results = tb.build(rules, pieces, root=root, workers=args.workers)
                wall = time.perf_counter() - start
                built = [r for r in results if r.status == "built"]
                mats = " ".join(f"{a}-{b}" for r in built for a, b in r.materials)
                print(f"| {text} | {pieces} | {mats or 'none'} | "
                      f"{sum(r.positions for r in built):,} | "
                      f"{sum(r.bytes for r in built) / 2**20:,.1f} | {wall:.1f} | "
                      f"{time.process_time() - cpu0:.1f} | {os.getloadavg()[0]:.1f} |",
                      flush=True)


def run_tb_stats(args: argparse.Namespace) -> None:
    from pathlib import Path

    from nugar.solver import tablebase as tb

    print("| rules | material | positions (classes) | MB | win | draw | loss | longest win "
          "(plies) | its position | longest win to a capture | cursed |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    boards = []
    for name in args.tb_rules:
        base = tb.Tablebase(parse_rules(name), Path(args.db_dir) if args.db_dir else None)
        for m, o in base.geo.materials(max(args.pieces)):
            st = tb.statistics(base, m, o)
            if st is None:
                continue
            n = st["positions"]
            print(f"| {name} | {m}-{o} | {n:,} | {st['bytes'] / 2**20:,.1f} | "
                  f"{st['win'] / n:.1%} | {st['draw'] / n:.1%} | {st['loss'] / n:.1%} | "
                  f"{st.get('longest_win', '-')} | `{st.get('longest_win_position', '-')}` | "
                  f"{st['longest_to_capture']} | {st['cursed']:,} |", flush=True)
            if "longest_win_board" in st:
                boards.append(f"{name} {m}-{o}:\n{st['longest_win_board']}")
    print("\n```\n" + "\n\n".join(boards) + "\n```")


def run_tb_play(args: argparse.Namespace) -> None:
    import random
    from pathlib import Path

    if args.db_dir:
        os.environ["NUGAR_DATA_DIR"] = args.db_dir   # where level 8 finds the tables
    from nugar.ai import Limits, level_spec, make_agent
    from nugar.solver import tablebase as tb

    print(f"Machine: {machine()}; {args.time_per_move:g} s a decision for the search; load "
          f"average {os.getloadavg()[0]:.1f} at the start.\n")
    print("| rules | material | from | games | level 8 with the tables won | drawn | lost | "
          "turns (mean) |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    limits = Limits(time=args.time_per_move)
    for name in args.tb_rules:
        rules = parse_rules(name)
        base = tb.Tablebase(rules, Path(args.db_dir) if args.db_dir else None)
        n = base.geo.n
        m, o = args.material
        rng = random.Random(args.seed)
        for wanted in (1, 0):
            counts = {"won": 0, "drawn": 0, "lost": 0}
            turns_all = 0
            games = 0
            while games < args.games:
                squares = rng.sample(range(n), m + o)
                mover = sum(1 << q for q in squares[:m])
                other = sum(1 << q for q in squares[m:])
                game = tb.game_of(rules, mover, other, rng.choice((1, 2)))
                entry = base.probe(game)
                if game.outcome is not None or entry is None or entry.value != wanted:
                    continue
                games += 1
                me = game.to_move
                with_tables = make_agent("level:8")
                # level 8's search alone: no tables at the root nor below it
                without = make_agent(level_spec(8, rules).replace(",probe=1", "")
                                     .replace(":probe=1", ""))
                turns = 0
                while game.outcome is None and turns < 400:
                    mover_now = game.to_move
                    agent = with_tables if mover_now == me else without
                    game.play(agent.choose(game, limits))
                    turns += game.to_move != mover_now
                turns_all += turns
                winner = None if game.outcome is None else game.outcome.winner
                counts["won" if winner == me else "lost" if winner == 3 - me
                       else "drawn"] += 1
            print(f"| {name} | {m}-{o} | {'won' if wanted else 'drawn'} | {games} | "
                  f"{counts['won']} | {counts['drawn']} | {counts['lost']} | "
                  f"{turns_all / max(games, 1):.1f} |", flush=True)


def run_tb_probe(args: argparse.Namespace) -> None:
    import random

    if args.db_dir:
        os.environ["NUGAR_DATA_DIR"] = args.db_dir
    from nugar import new_game
    from nugar.ai.alphabeta import score_to_float
    from nugar.ai.endgame import endgames_for
    from nugar.ai.search_setup import SearchBuffers, kernels_for, turn_start_keys
    from nugar.kernels import search_core, sowing
    from nugar.kernels.endgames import NO_ENDGAMES, Endgames
    from nugar.rules.base import Game
    from nugar.rules.options import AlignmentOptions
    from nugar.solver import tablebase as tb

    def search(game: Game, endgames: Endgames) -> tuple[float, int, int, float]:
        fam = kernels_for(game)
        state = game.state
        buf = SearchBuffers(state.shape[0], fam.n_actions, 64, endgames)
        buf.new_search(turn_start_keys(game), None)
        buf.tables.stack[0] = state
        t0 = time.process_time()
        score = 0
        for d in range(1, args.depth + 1):
            score = search_core.search_root(fam, buf.tables, d)
        ctx = buf.tables.ctx
        return (score_to_float(int(score)), int(ctx[search_core.CX_NODES]),
                int(ctx[search_core.CX_ENDGAME]), time.process_time() - t0)

    print(f"Machine: {machine()}; load average {os.getloadavg()[0]:.1f} at the start; "
          f"depth {args.depth}, iterative deepening, nodes of all iterations.\n")
    print("| rules | position | exact | score without | nodes | score with | nodes | "
          "probes | CPU s without / with |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    rng = random.Random(args.seed)
    for name in args.tb_rules:
        rules = parse_rules(name)
        for _ in range(args.games):
            exact = ""
            opts = rules.options
            if not isinstance(opts, AlignmentOptions):
                reach = args.db_seeds[0] if args.db_seeds else 14
                pits = rules.sowing_options.pits
                while True:
                    game = new_game(rules)
                    while (game.outcome is None
                           and sowing.seeds_on_board(pits, game.state) > reach + 6):
                        game.push_action(rng.choice(game.legal_actions()))
                    if game.outcome is None:
                        break
                solver = Solver(rules, max_memory_mb=256, build_db=False)
                exact = str(solver.solve(game).value)
            else:
                n = opts.rows * opts.cols
                m, o = args.material
                while True:
                    squares = rng.sample(range(n), m + o)
                    game = tb.game_of(rules, sum(1 << q for q in squares[:m]),
                                      sum(1 << q for q in squares[m:]), rng.choice((1, 2)))
                    if game.outcome is None:
                        break
            record = endgames_for(game)
            plain = search(game, NO_ENDGAMES)
            probed = search(game, record)
            print(f"| {name} | `{game.position_text()}` | {exact} | {plain[0]:g} | "
                  f"{plain[1]:,} | {probed[0]:g} | {probed[1]:,} | {probed[2]:,} | "
                  f"{plain[3]:.2f} / {probed[3]:.2f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("speed", "dracala", "kalah", "db", "compare",
                                         "egdb", "first-turns", "growth", "perfect-play",
                                         "db-open", "tb-build", "tb-stats", "tb-play",
                                         "tb-probe"))
    parser.add_argument("--memory", type=int, default=1024, help="table size in MB")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per Kalah board")
    parser.add_argument("--min-pits", type=int, default=1)
    parser.add_argument("--max-pits", type=int, default=6)
    parser.add_argument("--max-seeds", type=int, default=6)
    parser.add_argument("--capture", choices=("none", "single", "both"), default="both",
                        help="empty_capture values to solve (kalah part)")
    parser.add_argument("--db-seeds", type=int, nargs="+", default=None,
                        help="endgame database reach(es) (kalah: the first; default automatic)")
    parser.add_argument("--pits", type=int, default=6, help="board of the db part")
    parser.add_argument("--rules", default="kalah(pits=5,seeds=4)",
                        help="rule set of the compare, first-turns, growth, perfect-play and "
                             "db-open parts")
    parser.add_argument("--verbose", action="store_true", help="progress on stderr")
    parser.add_argument("--workers", type=int, default=2, help="egdb part: build processes")
    parser.add_argument("--db-dir", default=None,
                        help="egdb, first-turns, perfect-play, db-open: databases on disk")
    parser.add_argument("--seeds-on-board", type=int, nargs="+", default=None,
                        help="growth part: seeds left on the board")
    parser.add_argument("--games", type=int, default=10, help="perfect-play: games an opponent")
    parser.add_argument("--opponents", nargs="+", default=None,
                        help="perfect-play: opponents' agent specs (default random)")
    parser.add_argument("--tb-rules", nargs="+", default=["dara", "dala"],
                        help="tb-build: alignment rule sets")
    parser.add_argument("--pieces", type=int, nargs="+", default=[6],
                        help="tb-build: piece counts built, each on top of the smaller")
    parser.add_argument("--loss-at", type=int, default=None,
                        help="tb-build: loss_at of the rule sets (default the preset's)")
    parser.add_argument("--material", type=int, nargs=2, default=[3, 3],
                        help="tb-play: pieces of the side to move and of the other")
    parser.add_argument("--time-per-move", type=float, default=0.2,
                        help="tb-play: seconds a decision for both level 8s")
    parser.add_argument("--seed", type=int, default=1, help="tb-play: positions drawn")
    parser.add_argument("--depth", type=int, default=6, help="tb-probe: search depth")
    args = parser.parse_args()
    {"speed": run_speed, "dracala": run_dracala, "kalah": run_kalah, "db": run_db,
     "compare": run_compare, "egdb": run_egdb, "first-turns": run_first_turns,
     "growth": run_growth, "perfect-play": run_perfect_play,
     "db-open": run_db_open, "tb-build": run_tb_build,
     "tb-stats": run_tb_stats, "tb-play": run_tb_play,
     "tb-probe": run_tb_probe}[args.part](args)


if __name__ == "__main__":
    main()
