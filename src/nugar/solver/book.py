"""The shipped table of solved opening positions (``data/book.json``) and the script that
builds it.

The perfect player (``perfect``, level 8 of Dracala) solves each position it is asked about,
but near the start of Dracala that is slow: the starting position takes about 8 million
positions and 10 CPU seconds, the positions one step in up to 2 CPU seconds, two steps in up
to half a second, and only from about four decisions in does a fresh solve take a tenth of
a second or less. So the book holds every position of the Dracala presets reachable in at
most ``BOOK_DEPTH`` decisions (the game not over), each with its exact value, the first
``PV_KEPT`` steps of a principal variation and that line's length, and the step the swindle
plays there (``perfect:swindle=1``); the starting positions keep the whole line and also
list every optimal first step and the final score. With it the perfect
player answers the opening at once and plays perfectly from the first move even under a
time limit of a fraction of a second. Positions are written out in plain text
(:func:`position_text`), not by hash key, so the file stays readable and independent of the
solver's key tables.

Rebuild it from a checkout with::

    python -m nugar.solver.book --output src/nugar/solver/data/book.json

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
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import NugarError
from ..kernels import sowing as K
from ..kernels.common import HEADER, ST_TO_MOVE
from ..rules.options import parse_rules
from ..rules.sowing import SowingGame

BOOK_RULES = ("dracala", "dracala(leftovers=last_capturer)")
FORMAT = 2

#: the book holds the positions up to this many decisions into the game
BOOK_DEPTH = 4

#: steps of the principal variation kept for a position other than the start (``length``
#: is the whole line's)
PV_KEPT = 8


def position_text(params: np.ndarray[Any, Any], state: np.ndarray[Any, Any]) -> str:
    """Everything that decides a position's value, as text: both rows of holes (each from
    its owner's hole 1), both stores, player to move, first-step flag and last capturer."""
    pits = int(params[K.P_PITS])
    ext = HEADER + 2 * pits + 2
    row1 = ",".join(str(int(v)) for v in state[HEADER:HEADER + pits])
    row2 = ",".join(str(int(v)) for v in state[HEADER + pits + 1:HEADER + 2 * pits + 1])
    return (f"{row1}|{int(state[HEADER + pits])}|{row2}|{int(state[HEADER + 2 * pits + 1])}"
            f"|{int(state[ST_TO_MOVE])}|{int(state[ext + K.F_FIRST_DONE])}"
            f"|{int(state[ext + K.F_LAST_CAPTURER])}")


@lru_cache(maxsize=1)
def load() -> dict[tuple[str, str], dict[str, Any]]:
    """The shipped entries, keyed by (rule-set text, position text); empty if none."""
    try:
        text = resources.files("nugar.solver").joinpath("data/book.json").read_text("utf-8")
    except FileNotFoundError:
        return {}
    data = json.loads(text)
    if data.get("format") != FORMAT:
        return {}
    return {(e["rules"], e["position"]): e for e in data["entries"]}


def lookup(rules_text: str, params: np.ndarray[Any, Any], state: np.ndarray[Any, Any]
           ) -> dict[str, Any] | None:
    """The book entry of a position, if the book has it."""
    return load().get((rules_text, position_text(params, state)))


def opening_positions(rules_text: str, depth: int = BOOK_DEPTH) -> list[SowingGame]:
    """Every position of ``rules_text`` reachable from the start in at most ``depth``
    decisions with the game not over, each once, nearest the start first."""
    from .. import new_game

    start = new_game(rules_text)
    assert isinstance(start, SowingGame)
    seen = {position_text(start.params, start.state)}
    found, frontier = [start], [start]
    for _ in range(depth):
        following: list[SowingGame] = []
        for game in frontier:
            for action in game.legal_actions():
                child = game.copy()
                child.push_action(action)
                text = position_text(child.params, child.state)
                if child.is_over or text in seen:
                    continue
                seen.add(text)
                assert isinstance(child, SowingGame)
                following.append(child)
        found += following
        frontier = following
    return found


def build(rules_list: tuple[str, ...] = BOOK_RULES, depth: int = BOOK_DEPTH,
          memory_mb: int = 1024) -> dict[str, Any]:
    """Solve the opening positions of each rule set and return the book as a JSON object."""
    from .agent import PerfectAgent

    entries = []
    for text in rules_list:
        rules = parse_rules(text)
        agent = PerfectAgent(max_memory_mb=memory_mb, swindle=True)
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
    """``python -m nugar.solver.book --output PATH [--rules TEXT]... [--depth N]``: build the
    book and write it to ``PATH`` (see the module's docstring)."""
    parser = argparse.ArgumentParser(
        prog="python -m nugar.solver.book",
        description="Solve the opening positions of Dracala and write the book as JSON.")
    parser.add_argument("--output", "-o", required=True, type=Path, metavar="PATH",
                        help="the file to write (the shipped one is "
                             "src/nugar/solver/data/book.json in a checkout)")
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
            family = parse_rules(text).family
        except NugarError as exc:
            parser.error(f"--rules {text!r}: {exc}")
        if family != "sowing":
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
