"""``nugar solve RULES [TURNS...]``: the exact value of a sowing position under perfect play.

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
from .common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, CliError, command, play_turns, turn_texts


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
                   help="keep built endgame databases under ~/.cache/nugar and reuse them")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def register(subparsers: Any) -> None:
    """Add ``solve`` to the ``nugar`` command line."""
    p = subparsers.add_parser(
        "solve", help="exact value of a Kalah or Dracala position under perfect play",
        description="Solve the position after TURNS (the start if none) by exhaustive "
                    "search: the result and final margin for the player to move, with a "
                    "principal variation. Progress goes to stderr about once a second.")
    _add_arguments(p)
    p.set_defaults(func=cmd_solve)


@command("solve")
def cmd_solve(args: argparse.Namespace) -> int:
    """Run ``nugar solve``: exit 2 for bad usage, 1 when a turn is illegal or the search
    gave up at its limit."""
    from ..rules import new_game, parse_rules
    from ..solver.core import DEFAULT_MEMORY_MB, Progress, SolveAborted, Solver, check_solvable

    try:
        rules = parse_rules(args.rules)
        check_solvable(rules)
        memory = DEFAULT_MEMORY_MB if args.memory is None else args.memory
        if args.db_seeds is not None and args.db_seeds < 0:
            raise CliError(f"--db-seeds must be >= 0, not {args.db_seeds}")
        solver = Solver(rules, max_memory_mb=memory, db_seeds=args.db_seeds,
                        db_cache=args.db_cache)
    except NugarError as exc:
        raise CliError(str(exc)) from None
    if args.max_nodes is not None and args.max_nodes < 1:
        raise CliError(f"--max-nodes must be >= 1, not {args.max_nodes}")
    if args.time is not None and not args.time > 0:
        raise CliError(f"--time must be a positive number of seconds, not {args.time}")
    game = new_game(rules)
    play_turns(game, turn_texts(args.turns))

    def report(p: Progress) -> None:
        print(f"solving {rules.text}: {p}", file=sys.stderr, flush=True)

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
    print(f"principal variation: {' '.join(s.pv_turns) or '(game over)'}")
    rate = s.nodes / s.seconds if s.seconds > 0 else 0.0
    print(f"{s.nodes:,} positions in {s.seconds:.2f} s ({rate:,.0f}/s); table "
          f"{s.table_used:,} of {s.table_size:,} slots used, hit rate {s.hit_rate:.1%}")
    if solver.db is not None:
        print(f"endgame database: positions with <= {solver.db.levels} seeds on the board, "
              f"{solver.db.nbytes / 2**20:,.1f} MB, built in {solver.db.cpu_seconds:.2f} CPU s"
              f"{' (from the cache)' if solver.db.loaded_from else ''}; {s.db_hits:,} look-ups")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``nugar solve`` as a program of its own (``main(["kalah(pits=3,seeds=3)"])``)."""
    parser = argparse.ArgumentParser(prog="nugar solve", description=__doc__.splitlines()[0])
    _add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    return cmd_solve(args)


if __name__ == "__main__":
    sys.exit(main())
