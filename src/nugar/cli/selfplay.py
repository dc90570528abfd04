"""The ``selfplay`` sub-command: training data from an agent playing itself.

``nugar selfplay AGENT --rules R --games N --out DIR [--workers N | --ray ADDRESS]`` writes
one Parquet file of rows and one record per game into ``DIR`` (the columns are described in
:mod:`nugar.scale.selfplay` and docs/scaling.md), skipping games already there. pyarrow (and
Ray with ``--ray``) are imported only when the command runs.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..ai.agents import LEVEL_RANGE_TEXT
from .ai import _add_limits, _limits, ray_runner
from .common import EXIT_OK, CliError, command, count, positive_int


def register(subparsers: Any) -> None:
    """Add ``selfplay`` to the ``nugar`` command line."""
    p = subparsers.add_parser(
        "selfplay", help="self-play games as training data (Parquet)",
        description="AGENT plays both sides of GAMES games; every decision becomes a row "
                    "(observation, legal mask, move, search score, evaluation features, "
                    "result) in DIR/rows/*.parquet, every game a record in DIR/records. "
                    "Games already in DIR are skipped. Agents: random, greedy, alphabeta, "
                    f"mcts or level:N ({LEVEL_RANGE_TEXT}) with options; a search bounded by "
                    "--depth or --nodes writes the same rows for the same --seed.")
    p.add_argument("agent", metavar="AGENT")
    p.add_argument("--rules", default="dara", metavar="RULES",
                   help="rule set, e.g. dara, dala, kalah, dracala")
    p.add_argument("--games", type=positive_int, default=100, help="games (default 100)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder of the data set")
    _add_limits(p)
    p.add_argument("--opening", type=count, default=4, metavar="N",
                   help="random decisions opening each game (default 4)")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (default 0)")
    p.add_argument("--no-move-scores", dest="move_scores", action="store_false",
                   help="leave the move_scores column NaN: scoring every legal move costs "
                        "about 3 to 5 times the agent's own search (docs/scaling.md)")
    p.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="play the games in N local processes (default 1)")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="play the games as tasks on a Ray cluster: 'auto', 'local' or its "
                        "address (docs/scaling.md)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_selfplay)


@command("selfplay")
def cmd_selfplay(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    try:
        from ..scale import selfplay
    except ImportError as exc:  # numpy is there; pyarrow is checked when writing
        raise CliError(str(exc)) from None
    try:
        limits = _limits(args)
        selfplay.check_available()
    except (ValueError, RuntimeError) as exc:
        raise CliError(str(exc)) from None
    runner = None
    if args.ray is not None:
        ray_runner(args.ray, args.workers)  # connects (one-line errors)
        runner = selfplay.ray_selfplay_runner()
    elif args.workers > 1:
        runner = selfplay.process_selfplay_runner(args.workers)
    console = Console(stderr=True)
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), console=console, disable=args.quiet)
    with progress:
        task = progress.add_task(f"self-play {args.agent}", total=args.games)

        def on_game(played: selfplay.SelfPlayGame | None) -> None:
            progress.update(task, advance=1)

        try:
            new = selfplay.run_selfplay(args.agent, args.rules, args.games, args.out, limits,
                                        args.opening, args.seed, runner, on_game,
                                        args.move_scores)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    print(f"{len(new)} games played, {args.games - len(new)} already in {args.out}")
    return EXIT_OK
