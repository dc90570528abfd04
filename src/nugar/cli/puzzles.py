"""The ``puzzles`` sub-command: mining puzzles and looking at them.

``nugar puzzles build RULES --count N [--out FILE] [--batches B] [--workers W | --ray
ADDRESS] [--time S] [--seed S] [--db-dir DIR]`` mines about ``N`` new puzzles of a rule set
(:mod:`nugar.puzzles.mine`: the exact solver for Kalah and Dracala, the tablebases built
by ``nugar solve RULES --build-tb N`` for Dara and Dala), each proven unique as it is made,
and merges them into ``FILE`` (JSON lines, gzipped when it ends in ``.gz``).
``nugar puzzles show FILE`` prints a file's puzzles; ``nugar puzzles stats FILE`` counts
them by theme and rating.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from .common import (
    EXIT_FAILED,
    EXIT_OK,
    CliError,
    command,
    connect_ray,
    positive_float,
    positive_int,
)


def register(subparsers: Any) -> None:
    """Add ``puzzles`` to the ``nugar`` command line."""
    p = subparsers.add_parser(
        "puzzles", help="mine puzzles (one best turn, proven) and look at them",
        description="Puzzles: positions where one turn alone is best, proven by the exact "
                    "solver (Kalah, Dracala) or the endgame tablebases (Dara, Dala).")
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="mine puzzles into a file (merged with what it holds)",
                       description="Mine about COUNT new puzzles of RULES from engine games "
                                   "(Kalah, Dracala) or tablebase positions (Dara, Dala), "
                                   "each proven unique when made, into FILE.")
    b.add_argument("rules", metavar="RULES", help="rule set, e.g. kalah, dracala, dara, dala")
    b.add_argument("--count", type=positive_int, default=100,
                   help="new puzzles to mine (default 100)")
    b.add_argument("--out", default=None, metavar="FILE",
                   help="the file to write, merged with the puzzles it holds "
                        "(default: puzzles-RULES.jsonl.gz)")
    b.add_argument("--batches", type=positive_int, default=None, metavar="B",
                   help="batches of mining, each with its own seed (default: the workers)")
    b.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="mine in N local processes (default 1)")
    b.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="mine the batches as tasks on a Ray cluster: 'auto', 'local' or its "
                        "address (Dara and Dala: the tablebases at --db-dir on every node)")
    b.add_argument("--time", type=positive_float, default=None, metavar="SECONDS",
                   help="stop each batch after SECONDS")
    b.add_argument("--seed", type=int, default=0, help="seed of the first batch (default 0)")
    b.add_argument("--db-dir", default=None, metavar="DIR",
                   help="the tablebases' root folder (Dara, Dala; as nugar solve --db-dir)")
    b.add_argument("--quiet", action="store_true", help="no line per batch")
    b.set_defaults(func=cmd_build)
    s = sub.add_parser("show", help="print a file's puzzles, one a line")
    s.add_argument("file", metavar="FILE")
    s.add_argument("--limit", type=positive_int, default=None, metavar="N",
                   help="the first N only")
    s.set_defaults(func=cmd_show)
    t = sub.add_parser("stats", help="count a file's puzzles by theme and rating")
    t.add_argument("file", metavar="FILE")
    t.set_defaults(func=cmd_stats)


def _read(path: Path) -> list[Any]:
    from ..puzzles import PuzzleError, read

    try:
        return list(read(path))
    except FileNotFoundError:
        raise CliError(f"no file {path}", EXIT_FAILED) from None
    except (OSError, PuzzleError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}", EXIT_FAILED) from None


@command("puzzles build")
def cmd_build(args: argparse.Namespace) -> int:
    from ..puzzles import data_name, write
    from ..puzzles.build import build, local_runner
    from ..rules.options import parse_rules
    from ..solver.core import SolverError

    try:
        rules = parse_rules(args.rules).text
    except ValueError as exc:
        raise CliError(str(exc)) from None
    out = Path(args.out) if args.out else Path("puzzles-" + data_name(rules))
    keep = _read(out) if out.exists() else []
    wrong = [p.rules for p in keep if p.rules != rules]
    if wrong:
        raise CliError(f"{out} holds puzzles of {wrong[0]}, not {rules}: choose another --out",
                       EXIT_FAILED)
    runner = local_runner(args.workers)
    if args.ray is not None:
        connect_ray(args.ray)
        from ..scale.puzzles_ray import ray_batches
        runner = ray_batches

    def said(batch: Any) -> None:
        if not args.quiet:
            print(f"batch: {len(batch.puzzles)} puzzles from {batch.positions} positions in "
                  f"{batch.seconds:.1f} s", file=sys.stderr)

    try:
        built = build(rules, args.count, seed=args.seed, batches=args.batches or args.workers,
                      seconds=args.time, tb_root=Path(args.db_dir) if args.db_dir else None,
                      runner=runner, keep=keep, on_batch=said)
    except SolverError as exc:
        raise CliError(str(exc), EXIT_FAILED) from None
    write(out, built.puzzles)
    print(f"{built.new} new puzzles of {rules} ({built.positions} positions tried, "
          f"{built.seconds:.1f} s); {len(built.puzzles)} in {out}")
    return EXIT_OK


@command("puzzles show")
def cmd_show(args: argparse.Namespace) -> int:
    for p in _read(Path(args.file))[:args.limit]:
        print(f"{p.id}  {p.rating}  {p.solution:<14} {','.join(p.themes):<36} {p.position}")
    return EXIT_OK


@command("puzzles stats")
def cmd_stats(args: argparse.Namespace) -> int:
    found = _read(Path(args.file))
    themes = Counter(t for p in found for t in p.themes)
    ratings = Counter(p.rating // 250 * 250 for p in found)
    print(f"{len(found)} puzzles")
    for name, n in themes.most_common():
        print(f"  {name:<12} {n}")
    for low in sorted(ratings):
        print(f"  rating {low}-{low + 249}: {ratings[low]}")
    return EXIT_OK
