"""The shipped table of solved positions (``data/book.json``) and the script that builds it.

Every Dracala position after the first step solves from an empty table in about two CPU
seconds or less here, but the starting position takes about 8 million positions and 10 CPU
seconds (each of its six first steps has to be solved in full), so the book holds the
starting positions of the Dracala presets: their value, every optimal first step and a
principal variation. Positions are written out in plain text (:func:`position_text`), not
by hash key, so the file stays readable and independent of the solver's key tables.

Rebuild with ``python -m nugar.solver.book`` (about 10 CPU seconds per rule set here).
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
from .core import Progress, Solver

BOOK_RULES = ("dracala", "dracala(leftovers=last_capturer)")
FORMAT = 1


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


def _report(p: Progress) -> None:
    print(f"  ... {p}", file=sys.stderr, flush=True)


def build(rules_list: tuple[str, ...] = BOOK_RULES, memory_mb: int = 1024) -> dict[str, Any]:
    """Solve the starting position of each rule set and return the book as a JSON object."""
    entries = []
    for text in rules_list:
        rules = parse_rules(text)
        solver = Solver(rules, max_memory_mb=memory_mb)
        s = solver.solve(progress=_report, interval=30.0)
        state = solver.start_state
        best = solver.best_actions(state, s.value)
        entries.append({
            "rules": rules.text, "position": position_text(solver.params, state),
            "value": s.value, "result": s.result, "margin": s.margin, "final": list(s.final),
            "best": best, "pv": [m.hole - 1 for m in s.pv], "nodes": s.nodes,
            "cpu_seconds": round(s.cpu_seconds, 1)})
        print(f"{s}; optimal first steps {[a + 1 for a in best]}; {s.nodes:,} nodes, "
              f"{s.cpu_seconds:.1f} CPU s", file=sys.stderr)
    return {"format": FORMAT, "made": time.strftime("%Y-%m-%d"), "entries": entries}


def main() -> None:
    book = build()
    path = resources.files("nugar.solver").joinpath("data/book.json")
    with resources.as_file(path) as target:
        target.parent.mkdir(exist_ok=True)
        target.write_text(json.dumps(book, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
