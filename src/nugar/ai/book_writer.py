"""``python -m nugar.ai.book_writer --output PATH``: builds the opening book of the perfect
player (``book.py`` says what it holds) by solving every position in it.

Rebuild the shipped book from a checkout with::

    python -m nugar.ai.book_writer --output src/nugar/ai/data/book.json

(under a CPU minute per rule set here). ``--output PATH`` is required: the script writes only
there, never into the installed package. ``--rules TEXT`` (repeatable; default the Dracala
presets ``BOOK_RULES``) and ``--depth N`` (default ``BOOK_DEPTH``) make a different book, e.g.
a small one to try the script; the shipped file must be made with the defaults.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import NugarError
from ..rules.family import family_of
from ..rules.options import parse_rules
from .book import BOOK_DEPTH, BOOK_RULES, FORMAT, PV_KEPT, opening_positions, position_text
from .perfect import PerfectAgent


def build(rules_list: tuple[str, ...] = BOOK_RULES, depth: int = BOOK_DEPTH,
          memory_mb: int = 1024) -> dict[str, Any]:
    """Solve the opening positions of each rule set and return the book as a JSON object."""
    entries = []
    for text in rules_list:
        rules = parse_rules(text)
        agent = PerfectAgent(memory=memory_mb, swindle=1)
        started = time.process_time()
        positions = opening_positions(text, depth)
        for i, game in enumerate(positions):
            s, swindle = agent.decide(game)
            pv = [m.hole - 1 for m in s.pv]
            entry: dict[str, Any] = {
                "rules": rules.text, "position": position_text(game.params, game.state),
                "value": s.value, "result": s.result, "length": len(pv),
                "pv": pv if i == 0 else pv[:PV_KEPT], "swindle": swindle}
            if i == 0:  # the starting position: every optimal first step, the final score
                solver = agent.solver_for(game)
                entry.update(best=solver.best_actions(game.state, s.value), margin=s.margin,
                             final=list(s.final), nodes=s.nodes,
                             cpu_seconds=round(s.cpu_seconds, 1))
                print(f"{text}: {s}; optimal first steps {[a + 1 for a in entry['best']]}; "
                      f"{s.nodes:,} nodes, {s.cpu_seconds:.1f} CPU s", file=sys.stderr)
            entries.append(entry)
        print(f"{text}: {len(positions)} positions up to {depth} decisions in, "
              f"{time.process_time() - started:.1f} CPU s", file=sys.stderr)
    return {"format": FORMAT, "made": time.strftime("%Y-%m-%d"), "depth": depth,
            "entries": entries}


def dumps(book: dict[str, Any]) -> str:
    """The book as JSON text, one entry a line."""
    lines = [json.dumps(e, separators=(",", ":")) for e in book["entries"]]
    meta = {k: v for k, v in book.items() if k != "entries"}
    return (json.dumps(meta)[:-1] + ', "entries": [\n' + ",\n".join(lines) + "\n]}\n")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m nugar.ai.book_writer --output PATH [--rules TEXT]... [--depth N]``: build the
    book and write it to ``PATH`` (see the module's docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m nugar.ai.book_writer",
        description="Solve the opening positions of Dracala and write the book as JSON.")
    parser.add_argument("--output", "-o", required=True, type=Path, metavar="PATH",
                        help="the file to write (the shipped one is "
                             "src/nugar/ai/data/book.json in a checkout)")
    parser.add_argument("--rules", action="append", metavar="TEXT",
                        help=f"a sowing rule set to include (repeatable; default {BOOK_RULES})")
    parser.add_argument("--depth", type=int, default=BOOK_DEPTH, metavar="N",
                        help=f"decisions from the start to include (default {BOOK_DEPTH})")
    parser.add_argument("--memory", type=int, default=1024, metavar="MB",
                        help="the solver's table size in MB (default 1024)")
    args = parser.parse_args(argv)
    rules_list = tuple(args.rules or BOOK_RULES)
    for text in rules_list:
        try:
            solvable = family_of(parse_rules(text)).solvable
        except NugarError as exc:
            parser.error(f"--rules {text!r}: {exc}")
        if not solvable:
            parser.error(f"--rules {text!r} is not a sowing game; the book holds Kalah and "
                         "Dracala rule sets only")
    if not 0 <= args.depth <= 8:
        parser.error(f"--depth must be 0..8, got {args.depth}")
    if args.memory < 1:
        parser.error(f"--memory must be at least 1 MB, got {args.memory}")
    target: Path = args.output
    if target.is_dir() or not target.parent.is_dir():
        parser.error(f"--output {str(target)!r} must be a file in an existing directory")
    book = build(rules_list, args.depth, args.memory)
    try:
        target.write_text(dumps(book), encoding="utf-8")
    except OSError as exc:
        print(f"cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
