"""``nugar replay FILE``: check every game of a record file and show it."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from rich.table import Table

from .. import record
from ..rules import new_game
from ..textboard import render
from .common import (
    EXIT_ILLEGAL,
    EXIT_OK,
    CliError,
    LineInput,
    command,
    console,
    misere_note,
    rules_arg,
)

if TYPE_CHECKING:
    from rich.console import Console


def register(sub: Any) -> None:
    """Add ``replay`` to the ``nugar`` command line."""
    p = sub.add_parser("replay", help="check a game record and show it turn by turn",
                       description="Replay every game of a record file, checking each turn; "
                                   "exit 1 with the line and column of any problem.")
    p.add_argument("file", metavar="FILE", help="record file ('-' reads stdin)")
    p.add_argument("--step", action="store_true", help="show the board after each turn, "
                                                       "waiting for Enter")
    p.add_argument("--rules", type=rules_arg, metavar="RULES",
                   help="rules for games without a [Rules] or [Game] tag")
    p.set_defaults(func=cmd_replay)


@command("replay")
def cmd_replay(args: argparse.Namespace) -> int:
    out = console()
    source = "stdin" if args.file == "-" else args.file
    if args.file == "-":
        if args.step:
            raise CliError("--step reads Enter from stdin, so the record must come from a file")
        parsed = record.parse(sys.stdin.read(), args.rules, source=source)
    else:
        if os.path.isdir(args.file):
            raise CliError(f"{args.file} is a directory; give a record file in it (or '-' "
                           f"for stdin)")
        if not os.path.isfile(args.file):
            raise CliError(f"no such record file: {args.file}")
        parsed = record.parse_file(args.file, args.rules)
    for skipped in parsed.skipped:  # the words around moves copied from a web page
        print(f"nugar replay: note: {skipped.note(source)}", file=sys.stderr)
    records = parsed.records
    if not records:
        raise CliError(f"{source}: no game found in the record", EXIT_ILLEGAL)
    reader = LineInput(out) if args.step else None
    for n, rec in enumerate(records, 1):
        if len(records) > 1:
            out.rule(f"Game {n} of {len(records)}")
        tags = Table(show_header=False, box=None)
        for key, value in rec.tags.items():
            tags.add_row(key, value)
        out.print(tags)
        if reader is not None:
            _step_through(out, reader, rec)
        else:
            out.print(record.movetext(rec.turns, rec.result), markup=False)
            out.print(render(rec.game))
        result = rec.result or "*"
        reason = rec.game.outcome.reason if rec.game.outcome else (
            "unfinished" if rec.result is None else "stated by the record")
        out.print(f"Result: {result} ({reason}){misere_note(rec.game)}", markup=False)
        what = rec.game.descriptor.score_label
        out.print(f"Score: {record.score_text(rec.game)} ({what})", markup=False)
    return EXIT_OK


def _step_through(out: Console, reader: LineInput, rec: record.Record) -> None:
    game = new_game(rec.rules)
    out.print(render(game))
    for i, turn in enumerate(rec.turns):
        line = reader.ask("[Enter: next turn, q: skip to the end] ")
        if line is None or line.lower() == "q":
            game = rec.game
            out.print(render(game))
            return
        game.play(turn)
        out.print(f"\n{i // 2 + 1}{'.' if i % 2 == 0 else '...'} {turn}", markup=False)
        out.print(render(game))
