"""The agents' sub-commands: ``match``, ``tournament`` and ``analyse``.

``nugar match AGENT_A AGENT_B --rules dara --games 200 --time 0.2 --workers 2 --save DIR``
plays a match (who starts alternates) with a progress bar and prints the table (``--json``
for JSON). ``nugar tournament A B C ...`` plays a round robin. ``nugar analyse`` shows what
an agent thinks of a position. Imports here stay light: the search is loaded by the handlers.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from ..ai.agents import LEVEL_RANGE_TEXT
from .common import (
    EXIT_OK,
    CliError,
    command,
    connect_ray,
    count,
    positive_float,
    positive_int,
)

AGENT_HELP = (f"random, greedy, alphabeta, mcts or level:N ({LEVEL_RANGE_TEXT}), with options "
              "such as alphabeta:depth=6, mcts:playouts=2000, random:seed=3")


def _add_limits(p: argparse.ArgumentParser) -> None:
    p.add_argument("--time", type=positive_float, default=None, metavar="SECONDS",
                   help="time per decision (default: each agent's own budget)")
    p.add_argument("--depth", type=positive_int, default=None, metavar="N",
                   help="search depth per decision, in decisions")
    p.add_argument("--nodes", type=positive_int, default=None, metavar="N",
                   help="nodes (alphabeta) or playouts (mcts) per decision")


def _add_match_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--rules", default="dara", metavar="RULES",
                   help="rule set, e.g. dara, dala, kalah, dracala(leftovers=last_capturer)")
    _add_limits(p)
    p.add_argument("--workers", type=positive_int, default=1, metavar="N",
                   help="parallel worker processes (default 1)")
    p.add_argument("--save", default=None, metavar="DIR", help="save every game's record there")
    p.add_argument("--opening", type=count, default=2, metavar="N",
                   help="random decisions opening each pair of games (default 2)")
    p.add_argument("--seed", type=int, default=None, help="seed of the random openings")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--ray", default=None, metavar="ADDRESS",
                   help="play the games as tasks on a Ray cluster: 'auto' (the cluster "
                        "running here), 'local' (start one in this process) or its address "
                        "(needs pip install -e '.[ray]' in nugar's checkout; "
                        "docs/scaling.md)")


def ray_runner(address: str | None, workers: int) -> Any:
    """The runner that plays games on the Ray cluster at ``address`` (None: no cluster, the
    local worker processes play). Ray is imported only here, and only with ``--ray``."""
    if address is None:
        return None
    if workers != 1:
        raise CliError("--workers and --ray cannot be combined: on Ray every game is a task "
                       "and the cluster's CPUs set how many run at once")
    from ..scale.ray_runner import RayRunner

    connect_ray(address)
    return RayRunner()


def register(subparsers: Any) -> None:
    """Add ``match``, ``tournament`` and ``analyse`` to the ``nugar`` command line."""
    p = subparsers.add_parser(
        "match", help="play a match between two agents",
        description="Play GAMES games between two agents, alternating who starts, and print "
                    "wins, draws, losses, score and Elo difference of the first agent. "
                    "Agents: " + AGENT_HELP)
    p.add_argument("agent_a", metavar="AGENT_A")
    p.add_argument("agent_b", metavar="AGENT_B")
    p.add_argument("--games", type=positive_int, default=200, help="games (default 200)")
    _add_match_options(p)
    p.set_defaults(func=cmd_match)

    p = subparsers.add_parser(
        "tournament", help="round robin between several agents",
        description="Every pair of agents plays GAMES games; prints the standings. "
                    "Agents: " + AGENT_HELP)
    p.add_argument("agents", nargs="+", metavar="AGENT")
    p.add_argument("--games", type=positive_int, default=20,
                   help="games per pair (default 20)")
    _add_match_options(p)
    p.set_defaults(func=cmd_tournament)

    p = subparsers.add_parser(
        "analyse", help="what an agent thinks of a position, or the analysis of a game",
        description="Play the given turns from the start, then print the agent's move, score, "
                    "depth, nodes and principal variation. With --game FILE: analyse every "
                    "position of the game recorded there at a fixed effort and print the "
                    "record with each turn's evaluation and mark as comments (docs/ai.md, "
                    "\"Analysis of a game\").")
    p.add_argument("rules", metavar="RULES", nargs="?")
    p.add_argument("turns", nargs="*", metavar="TURN")
    p.add_argument("--agent", default="alphabeta", help="agent (default alphabeta). "
                   + AGENT_HELP)
    _add_limits(p)
    p.add_argument("--json", action="store_true", help="print the analysis as JSON")
    p.add_argument("--exact", action="store_true",
                   help="Kalah, Dracala: the exact value of every legal step (the solver; "
                        "the opening book where it has them); Dara, Dala: the endgame "
                        "tablebases' value of the position and of every turn")
    p.add_argument("--no-book", action="store_true",
                   help="with --exact: solve even where the opening book has the values")
    p.add_argument("--game", default=None, metavar="FILE",
                   help="analyse the whole game of a record file (--nodes: search nodes per "
                        "decision, default that of the analysis)")
    p.set_defaults(func=cmd_analyse)


def _limits(args: argparse.Namespace) -> Any:
    from ..ai import Limits

    return Limits(args.time, args.depth, args.nodes)


def _fmt_elo(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:+.0f}"


@command("match")
def cmd_match(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    from rich.table import Table

    from ..ai import tournament

    try:
        tournament.check_match_args((args.agent_a, args.agent_b), args.rules, args.games,
                                    args.workers)
        limits = _limits(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    runner = ray_runner(args.ray, args.workers)
    console = Console(stderr=True)
    tally = [0, 0, 0]
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        MofNCompleteColumn(), TextColumn("{task.fields[tally]}"),
                        console=console, disable=args.quiet or args.json, transient=False)
    with progress:
        task = progress.add_task(f"{args.agent_a} vs {args.agent_b}", total=args.games,
                                 tally="")

        def on_result(r: tournament.GameResult) -> None:
            idx = 0 if r.points_a == 1.0 else (2 if r.points_a == 0.0 else 1)
            tally[idx] += 1
            progress.update(task, advance=1,
                            tally=f"+{tally[0]} ={tally[1]} -{tally[2]}")

        table = tournament.run_match(args.agent_a, args.agent_b, args.rules, args.games,
                                     limits, args.workers, args.save, args.opening, args.seed,
                                     on_result, runner)
    data = table.to_json()
    if args.json:
        print(json.dumps({k: (None if isinstance(v, float) and math.isinf(v) else v)
                          for k, v in data.items()}))
        return EXIT_OK
    out = Table(title=f"{args.agent_a} vs {args.agent_b} ({args.rules}, "
                      f"{table.games} games)")
    for col in ("agent", "wins", "draws", "losses", "score %", "Elo diff (95%)"):
        out.add_column(col, justify="right" if col != "agent" else "left")
    elo, lo, hi = table.elo()
    out.add_row(args.agent_a, str(table.wins), str(table.draws), str(table.losses),
                f"{100 * table.score:.1f}",
                f"{_fmt_elo(elo)} [{_fmt_elo(lo)}, {_fmt_elo(hi)}]")
    Console().print(out)
    if args.save:
        Console().print(f"records saved in {args.save}")
    return EXIT_OK


@command("tournament")
def cmd_tournament(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ..ai import tournament

    try:
        if len(args.agents) < 2:
            raise ValueError("a tournament needs at least two agents")
        tournament.check_match_args(args.agents, args.rules, args.games, args.workers)
        limits = _limits(args)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    runner = ray_runner(args.ray, args.workers)
    n_pairs = len(args.agents) * (len(args.agents) - 1) // 2
    progress = Progress(console=Console(stderr=True), disable=args.quiet or args.json)
    with progress:
        task = progress.add_task("round robin", total=n_pairs * args.games)

        def on_result(r: tournament.GameResult) -> None:
            progress.update(task, advance=1)

        rr = tournament.run_round_robin(args.agents, args.rules, args.games, limits,
                                        args.workers, args.save, args.opening, args.seed,
                                        on_result, runner)
    data = rr.to_json()
    if args.json:
        print(json.dumps(data, default=lambda x: None))
        return EXIT_OK
    out = Table(title=f"round robin ({args.rules}, {args.games} games per pair)")
    for col in ("rank", "agent", "points", "games", "score %", "Elo (95%)"):
        out.add_column(col)
    rows = sorted(data["standings"], key=lambda s: -s["points"])
    ratings = {r["agent"]: r for r in data["ratings"]}
    for rank, s in enumerate(rows, 1):
        r = ratings[s["agent"]]
        out.add_row(str(rank), s["agent"], f"{s['points']:g}", str(s["games"]),
                    f"{100 * s['score']:.1f}",
                    f"{_fmt_elo(r['elo'])} [{_fmt_elo(r['elo_low'])}, "
                    f"{_fmt_elo(r['elo_high'])}]")
    Console().print(out)
    return EXIT_OK


@command("analyse")
def cmd_analyse(args: argparse.Namespace) -> int:
    from ..ai import make_agent
    from ..rules import new_game

    if args.game is not None:
        return analyse_record(args)
    if args.rules is None:
        raise CliError("give the RULES (and turns) of a position, or --game FILE")
    if args.exact:
        from .solve import analyse_steps

        return analyse_steps(args)
    try:
        game = new_game(args.rules)
        for turn in args.turns:
            game.play(turn)
        agent = make_agent(args.agent)
        limits = _limits(args)
        if game.is_over:
            raise ValueError(f"the game is over ({game.outcome})")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    a = agent.analyse(game, limits)
    pv = [str(m) for m in a.pv]
    data = {"move": str(a.move), "score": a.score, "depth": a.depth, "nodes": a.nodes,
            "pv": pv, "seconds": round(a.seconds, 4)}
    if args.json:
        print(json.dumps(data))
    else:
        print(f"move {data['move']}  score {a.score}  depth {a.depth}  nodes {a.nodes}  "
              f"time {a.seconds:.3f}s\npv {' '.join(pv)}")
    return EXIT_OK


def analyse_record(args: argparse.Namespace) -> int:
    """``nugar analyse --game FILE``: every position of the recorded game evaluated, and the
    record printed with each turn's evaluation and mark as comments (``--json``: the turns as
    data, as ``GET /api/games/{id}/analysis`` gives them)."""
    import sys

    from ..ai.analysis import ANALYSIS_NODES, analyse_game, record_comments
    from ..record import read_file

    if args.rules is not None or args.turns:
        raise CliError("--game FILE analyses a recorded game: give no RULES or turns")
    records = read_file(args.game)
    if len(records) != 1:
        raise CliError(f"{args.game} holds {len(records)} games; give a file of one game")
    record = records[0]
    nodes = args.nodes or ANALYSIS_NODES

    def progress(done: int, total: int) -> None:
        if not args.json and sys.stderr.isatty():
            print(f"\ranalysing: position {done} of {total}", end="", file=sys.stderr,
                  flush=True)

    plies = analyse_game(record.game, nodes=nodes, progress=progress)
    if args.json:
        print(json.dumps({"rules": record.rules.text, "nodes": nodes,
                          "plies": [p.to_json() for p in plies]}))
        return EXIT_OK
    if sys.stderr.isatty():
        print(file=sys.stderr)
    # the record as read (its own result: a game may have ended off the board), its comments
    # replaced by the analysis'
    record.tags["Annotator"] = f"nugar analysis ({nodes} nodes per decision)"
    record.comments = record_comments(plies)
    print(record.dumps(), end="")
    return EXIT_OK
