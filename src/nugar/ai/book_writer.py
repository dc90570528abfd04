"""``python -m nugar.ai.book_writer --output PATH``: builds the opening book of the perfect
player (``book.py`` says what it holds) by solving every position in it.

Rebuild the shipped book from a checkout with::

    python -m nugar.ai.book_writer --output src/nugar/ai/data/book.json

(the ``kalah`` part needs the endgame databases on disk, ``nugar solve kalah --build-db
26``; docs/solving.md has how long each part takes). ``--output PATH`` is required: the
script writes only there, never into the installed package. ``--rules TEXT`` (repeatable;
default ``BOOK_RULES``), ``--depth N`` (default each rule set's ``BOOK_DEPTHS``, its AI
profile's ``book_depth``) and ``--seeds N`` (default each rule set's ``BOOK_SEEDS``) make a
different book, e.g. a small one to try the script; the shipped file must be made with the defaults.
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
from ..rules.sowing import SowingGame
from .book import (
    BOOK_DEPTH,
    BOOK_DEPTHS,
    BOOK_RULES,
    BOOK_SEEDS,
    FORMAT,
    PV_KEPT,
    line_positions,
    opening_positions,
    position_text,
)
from .perfect import PerfectAgent


def build(rules_list: tuple[str, ...] = BOOK_RULES, depth: int | None = None,
          memory_mb: int = 1024, seeds: int | None = None) -> dict[str, Any]:
    """Solve the opening positions of each rule set (to ``depth`` decisions, or each one's
    ``BOOK_DEPTHS``), then the positions on the perfect player's lines with at least
    ``seeds`` seeds on the board (default each one's ``BOOK_SEEDS``, none if absent; 0:
    none), and return the book as a JSON object. Kalah rule sets use the endgame databases
    on disk where they are built (``nugar solve RULES --build-db K``)."""
    entries: list[dict[str, Any]] = []
    depths: dict[str, int] = {}
    line_seeds: dict[str, int] = {}
    for text in rules_list:
        rules = parse_rules(text)
        # the swindle is level 8 of Dracala; Kalah's perfect player plays without it
        swindle = rules.misere
        agent = PerfectAgent(memory=memory_mb, swindle=int(swindle))
        started = time.process_time()
        rules_depth = BOOK_DEPTHS.get(text, BOOK_DEPTH) if depth is None else depth
        depths[rules.text] = rules_depth
        positions = opening_positions(text, rules_depth)
        inner = {position_text(g.params, g.state)
                 for g in opening_positions(text, rules_depth - 1)} if rules_depth else set()
        solver = None
        for i, game in enumerate(positions):
            s, step = agent.decide(game)
            solver = agent.solver_for(game)
            pv = [m.hole - 1 for m in s.pv]
            text_of = position_text(game.params, game.state)
            entry: dict[str, Any] = {
                "rules": rules.text, "position": text_of,
                "value": s.value, "result": s.result, "length": len(pv),
                "pv": pv if i == 0 else pv[:PV_KEPT]}
            if swindle:
                entry["swindle"] = step
            if text_of in inner:  # every child is in the book: the value of each step
                entry["steps"] = [[a, v] for a, v, _ in solver.step_values(game.state)]
            if i == 0:  # the starting position: every optimal first step, the final score
                entry.update(best=solver.best_actions(game.state, s.value), margin=s.margin,
                             final=list(s.final), nodes=s.nodes,
                             cpu_seconds=round(s.cpu_seconds, 1), db_seeds=solver.db_reach)
                print(f"{text}: {s}; optimal first steps {[a + 1 for a in entry['best']]}; "
                      f"{s.nodes:,} nodes, {s.cpu_seconds:.1f} CPU s, endgame databases to "
                      f"{solver.db_reach} seeds", file=sys.stderr)
            entries.append(entry)
        print(f"{text}: {len(positions)} positions up to {rules_depth} decisions in, "
              f"{time.process_time() - started:.1f} CPU s", file=sys.stderr)
        rules_seeds = BOOK_SEEDS.get(text, 0) if seeds is None else seeds
        if rules_seeds > 0:
            line_seeds[rules.text] = rules_seeds
            entries += _line_entries(agent, rules.text, rules_seeds, entries, swindle)
    return {"format": FORMAT, "made": time.strftime("%Y-%m-%d"), "depth": depths,
            "seeds": line_seeds, "entries": entries}


def _line_entries(agent: PerfectAgent, rules_text: str, min_seeds: int,
                  known: list[dict[str, Any]], swindle: bool) -> list[dict[str, Any]]:
    """The entries of the positions the perfect player meets, following the book's steps,
    with at least ``min_seeds`` seeds on the board (``book.line_positions``) that ``known``
    (the entries so far, of ``rules_text`` and others) lacks, each solved as it is
    reached."""
    steps = {e["position"]: (e["swindle"] if swindle else e["pv"][0])
             for e in known if e["rules"] == rules_text}
    added: list[dict[str, Any]] = []
    started = time.process_time()

    def step(game: SowingGame) -> int:
        position = position_text(game.params, game.state)
        if position in steps:
            return int(steps[position])
        s, chosen = agent.decide(game)
        pv = [m.hole - 1 for m in s.pv]
        entry: dict[str, Any] = {"rules": rules_text, "position": position, "value": s.value,
                                 "result": s.result, "length": len(pv), "pv": pv[:PV_KEPT]}
        if swindle:
            entry["swindle"] = chosen
        added.append(entry)
        steps[position] = chosen
        if len(added) % 100 == 0:
            print(f"{rules_text}: {len(added)} positions on the perfect player's lines, "
                  f"{time.process_time() - started:.1f} CPU s", file=sys.stderr)
        return chosen

    line_positions(rules_text, min_seeds, step)
    print(f"{rules_text}: {len(added)} more positions on the perfect player's lines with at least "
          f"{min_seeds} seeds on the board, {time.process_time() - started:.1f} CPU s",
          file=sys.stderr)
    return added


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
        description="Solve the opening positions of Dracala and Kalah and write the book "
                    "as JSON.")
    parser.add_argument("--output", "-o", required=True, type=Path, metavar="PATH",
                        help="the file to write (the shipped one is "
                             "src/nugar/ai/data/book.json in a checkout)")
    parser.add_argument("--rules", action="append", metavar="TEXT",
                        help=f"a sowing rule set to include (repeatable; default {BOOK_RULES})")
    parser.add_argument("--depth", type=int, default=None, metavar="N",
                        help="decisions from the start to include (default: each rule set's "
                             f"depth in the shipped book, {BOOK_DEPTH} for others)")
    parser.add_argument("--seeds", type=int, default=None, metavar="N",
                        help="also the positions the perfect player meets, following the "
                             "book's steps, with at least N seeds on the board (default: "
                             f"each rule set's in the shipped book, {BOOK_SEEDS}; 0: none)")
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
    if args.depth is not None and not 0 <= args.depth <= 8:
        parser.error(f"--depth must be 0..8, got {args.depth}")
    if args.seeds is not None and args.seeds < 0:
        parser.error(f"--seeds must be 0 or more, got {args.seeds}")
    if args.memory < 1:
        parser.error(f"--memory must be at least 1 MB, got {args.memory}")
    target: Path = args.output
    if target.is_dir() or not target.parent.is_dir():
        parser.error(f"--output {str(target)!r} must be a file in an existing directory")
    book = build(rules_list, args.depth, args.memory, args.seeds)
    try:
        target.write_text(dumps(book), encoding="utf-8")
    except OSError as exc:
        print(f"cannot write {target}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
