"""Puzzles: positions where one turn alone is best, mined from engine games and proven by
the exact solver (Kalah, Dracala) or the endgame tablebases (Dara, Dala) when they are made
(:mod:`.mine`); the puzzles shipped with the package (``data/<rules>.jsonl.gz``, read by
:func:`shipped`); a puzzle as data and the judge of an attempt (:mod:`.model`). The method
and the figures: ``docs/puzzles.md``.
"""

from __future__ import annotations

import functools
from importlib import resources

from .model import FORMAT, THEMES, Puzzle, PuzzleError, from_json, puzzle_id, read, write

__all__ = [
    "FORMAT",
    "THEMES",
    "Puzzle",
    "PuzzleError",
    "data_name",
    "from_json",
    "puzzle_id",
    "read",
    "shipped",
    "shipped_rules",
    "write",
]


def data_name(rules: str) -> str:
    """The file name of a rule set's shipped puzzles: its text made safe for a file name."""
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in rules)
    return f"{safe}.jsonl.gz"


@functools.cache
def shipped_rules() -> tuple[str, ...]:
    """The rule sets (texts) the package ships puzzles of, sorted."""
    found = []
    for path in resources.files(__package__).joinpath("data").iterdir():
        if path.name.endswith(".jsonl.gz"):
            for p in read(path):
                found.append(p.rules)
                break
    return tuple(sorted(found))


@functools.cache
def shipped(rules: str) -> tuple[Puzzle, ...]:
    """The shipped puzzles of the rule set ``rules`` (its text), easiest first; none when the
    package has no file for it."""
    path = resources.files(__package__).joinpath("data", data_name(rules))
    if not path.is_file():
        return ()
    return tuple(sorted(read(path), key=lambda p: (p.rating, p.id)))
