"""A puzzle as data: a position, the one turn that solves it, the proof that it is the only
one, its themes and its rating; read from and written to JSON lines.

A puzzle is always one turn of the player to move (a turn may be several steps: a sowing
that ends in the store goes on, a step that makes a three goes on with its capture). The
answer to an attempt is :meth:`Puzzle.answer`, the same judgement as a lesson's step
(:meth:`nugar.lessons.Step.answer`): the whole solution is ``right``, its first steps
``goes_on``, any other legal turn ``wrong``; a move the rules refuse or a text that is no
move is ``illegal`` or ``unreadable`` (no attempt: nothing is rated).
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..errors import NugarError
from ..lessons import Answer, Step
from ..rules import Game, from_position

#: the version of the JSON lines a puzzle file holds (``format`` of each row)
FORMAT = 1

#: the themes a puzzle may carry, each with what it means (docs/puzzles.md)
THEMES: dict[str, str] = {
    "only-win": "the solution is the only turn that keeps a win",
    "only-draw": "the solution is the only turn that keeps a draw",
    "best-margin": "every turn keeps the same result; the solution wins by the most seeds "
                   "(or loses by the fewest)",
    "store": "the solution sows into its own store and plays again",
    "capture": "the solution captures",
    "quiet": "the solution captures nothing",
    "endgame": "few seeds or pieces are left",
    "misere": "the misère rule decides: too many seeds in a store lose",
    "win-in-1": "the solution wins at once",
    "win-in-2": "the win comes on the solver's second turn",
    "win-in-3": "the win comes on the solver's third turn",
    "long": "the win takes four turns or more of the solver",
}


class PuzzleError(NugarError):
    """A puzzle file or row that cannot be read, or a puzzle that is not what it claims."""


@dataclass(frozen=True)
class Puzzle:
    """One puzzle: ``position`` (a position text, ``docs/records.md``) with ``rules`` its
    rule set's text, ``solution`` the turn text that solves it, ``themes`` (:data:`THEMES`),
    ``rating`` its starting difficulty (Glicko-2 scale), and ``proof``: what the exact solver
    or the tablebases found when it was made (the best value, the best value of any other
    turn, the number of legal turns and how it was proven), kept so a check can be redone."""

    id: str
    rules: str
    position: str
    solution: str
    themes: tuple[str, ...]
    rating: int
    proof: dict[str, Any] = field(default_factory=dict)

    def game(self) -> Game:
        """A new game at the puzzle's position."""
        return from_position(self.position)

    def step(self) -> Step:
        """The puzzle as a lesson's step: the judge of an attempt (:meth:`answer`)."""
        return Step(title=self.id, text="", position=self.position, instruction="",
                    expected=(self.solution,), wrong="", tags=())

    def answer(self, turn_text: str) -> Answer:
        """What ``turn_text`` (a whole turn or its first steps) is: ``right``, ``goes_on``,
        ``wrong``, ``illegal`` or ``unreadable`` (see the module's docstring)."""
        return self.step().answer(turn_text)

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["themes"] = list(self.themes)
        return {"format": FORMAT, **out}


def puzzle_id(rules: str, position: str) -> str:
    """The puzzle's id: the first 12 hex digits of the SHA-256 of its rules and position (the
    same position mined twice is one puzzle)."""
    return hashlib.sha256(f"{rules}\n{position}".encode()).hexdigest()[:12]


def from_json(row: dict[str, Any]) -> Puzzle:
    """A puzzle from one JSON row; :class:`PuzzleError` saying what is wrong."""
    if not isinstance(row, dict) or row.get("format") != FORMAT:
        raise PuzzleError(f"a puzzle row must be an object with \"format\": {FORMAT}")
    try:
        themes = tuple(row["themes"])
        unknown = [t for t in themes if t not in THEMES]
        if unknown:
            raise PuzzleError(f"unknown theme {unknown[0]!r}; themes: {', '.join(THEMES)}")
        return Puzzle(id=str(row["id"]), rules=str(row["rules"]), position=str(row["position"]),
                      solution=str(row["solution"]), themes=themes, rating=int(row["rating"]),
                      proof=dict(row.get("proof", {})))
    except (KeyError, TypeError, ValueError) as exc:
        raise PuzzleError(f"a puzzle row lacks or mistypes a field: {exc}") from None


def read(path: Path | Any) -> Iterator[Puzzle]:
    """The puzzles of a JSON-lines file, gzipped when its name ends in ``.gz`` (a path or a
    package resource)."""
    raw = path.read_bytes()
    text = gzip.decompress(raw).decode() if str(path.name).endswith(".gz") else raw.decode()
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PuzzleError(f"{path.name}, line {n}: not JSON ({exc.msg})") from None
        yield from_json(row)


def write(path: Path, puzzles: Iterable[Puzzle]) -> int:
    """Write ``puzzles`` as JSON lines (gzipped when the name ends in ``.gz``, with no time
    stamp so the same puzzles make the same bytes); the number written."""
    rows = [json.dumps(p.to_json(), separators=(",", ":"), sort_keys=True) for p in puzzles]
    data = ("\n".join(rows) + "\n").encode() if rows else b""
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    return len(rows)
