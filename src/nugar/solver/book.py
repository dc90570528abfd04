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

Rebuild with ``python -m nugar.solver.book`` (under a CPU minute per rule set here).
"""

from __future__ import annotations

import json
import sys
import time
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

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


def main() -> None:
    book = build()
    path = resources.files("nugar.solver").joinpath("data/book.json")
    with resources.as_file(path) as target:
        target.parent.mkdir(exist_ok=True)
        target.write_text(dumps(book), encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
