"""Moves as values and how games end: :class:`Move`, :class:`Termination`, :class:`Outcome`.

Plain data, shared by every family (no kernels, no game objects).
"""

from __future__ import annotations

import enum
import functools
import re
from dataclasses import dataclass
from typing import Literal

from ..errors import InvalidMoveError
from ..i18n import Text
from ..notation import normalize

MoveKind = Literal["drop", "step", "capture", "pass", "sow"]

_MOVE_RE = re.compile(r"^(?:(?P<drop>[a-z][1-9][0-9]?)|(?P<from>[a-z][1-9][0-9]?)-"
                      r"(?P<to>[a-z][1-9][0-9]?)|x(?P<cap>[a-z][1-9][0-9]?)|(?P<pass>pass)"
                      r"|(?P<hole>[0-9]+))$")


@dataclass(frozen=True, slots=True)
class Move:
    """One decision. Immutable and hashable; ``str(move)`` is its canonical text.

    >>> Move.parse("c3-c4")
    Move.parse('c3-c4')
    >>> str(Move.sow(4))
    '4'
    """

    kind: MoveKind
    squares: tuple[str, ...] = ()
    hole: int = 0

    @classmethod
    def drop(cls, square: str) -> Move:
        return cls("drop", (square.strip().lower(),))

    @classmethod
    def step(cls, origin: str, target: str) -> Move:
        return cls("step", (origin.strip().lower(), target.strip().lower()))

    @classmethod
    def capture(cls, square: str) -> Move:
        return cls("capture", (square.strip().lower(),))

    @classmethod
    def pass_(cls) -> Move:
        return cls("pass")

    @classmethod
    def sow(cls, hole: int) -> Move:
        return cls("sow", (), hole)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the text of one move (not a whole turn) of either family."""
        if cls is Move and isinstance(text, str) and len(text) <= 16:
            return _parse_cached(text)  # a move is immutable: the same text, the same move
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> Move:
        t = normalize(text) if isinstance(text, str) else ""
        m = _MOVE_RE.match(t)
        if not m:
            raise InvalidMoveError(Text(
                "cannot read {text} as a move; forms: drop 'c3', step 'c3-c4', capture "
                "'xe5', 'pass', or a hole number such as '4'", text=f"{text!r}"))
        if m.group("drop"):
            return cls.drop(m.group("drop"))
        if m.group("from"):
            return cls.step(m.group("from"), m.group("to"))
        if m.group("cap"):
            return cls.capture(m.group("cap"))
        if m.group("pass"):
            return cls.pass_()
        return cls.sow(int(m.group("hole")))

    @property
    def text(self) -> str:
        return str(self)

    def __str__(self) -> str:
        if self.kind == "sow":
            return str(self.hole)
        if self.kind == "pass":
            return "pass"
        if self.kind == "capture":
            return "x" + self.squares[0]
        return "-".join(self.squares)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


class Termination(enum.StrEnum):
    """Why a game ended: a closed list. The value is the word records and position texts use
    (the ``Termination`` tag, ``result=1-0:pieces``); as a ``str`` it compares equal to it."""

    PIECES = "pieces"              # alignment: a player is down to loss_at pieces
    BLOCKED = "blocked"            # a player could not move (blocked=lose), or both were blocked
    REPETITION = "repetition"      # the same position for the repetition-th time
    QUIET_LIMIT = "quiet_limit"    # too many move-phase turns without a capture
    MAJORITY = "majority"          # misère: a store holds more than half of all seeds
    EMPTY_SIDE = "empty_side"      # sowing: holes ran empty and the stores were counted
    RESIGNATION = "resigned"       # a player resigned
    AGREEMENT = "agreement"        # both players agreed a draw
    ADJUDICATION = "adjudication"  # someone outside the game (an arbiter) decided the result
    TIME = "time"                  # a flag fell: a loss, or a draw if the other could not win

    @property
    def by_rules(self) -> bool:
        """Whether the rules reach this ending by themselves (from the moves played), rather
        than a player or an arbiter imposing it on a running game."""
        return self not in _IMPOSED

    @property
    def results(self) -> tuple[str, ...]:
        """The results a game ended this way may have (``"1-0"``, ``"0-1"``, ``"1/2-1/2"``)."""
        return _RESULTS_OF[self]


_IMPOSED = frozenset({Termination.RESIGNATION, Termination.AGREEMENT, Termination.ADJUDICATION,
                      Termination.TIME})
_DECISIVE = ("1-0", "0-1")
_ANY = ("1-0", "0-1", "1/2-1/2")
_RESULTS_OF: dict[Termination, tuple[str, ...]] = {
    Termination.PIECES: _DECISIVE, Termination.BLOCKED: _ANY,
    Termination.REPETITION: ("1/2-1/2",), Termination.QUIET_LIMIT: ("1/2-1/2",),
    Termination.MAJORITY: _DECISIVE, Termination.EMPTY_SIDE: _ANY,
    Termination.RESIGNATION: _DECISIVE, Termination.AGREEMENT: ("1/2-1/2",),
    Termination.ADJUDICATION: _ANY, Termination.TIME: _ANY,
}


@dataclass(frozen=True, slots=True, init=False)
class Outcome:
    """How a game ended: the winner (1, 2, or ``None`` for a draw) and why
    (:class:`Termination`; given as its word, ``Outcome(1, "pieces")``, it is read as one).

    >>> Outcome(2, "resigned")
    Outcome(winner=2, termination=<Termination.RESIGNATION: 'resigned'>)
    >>> str(Outcome(None, Termination.AGREEMENT))
    '1/2-1/2 (agreement)'
    """

    winner: int | None
    termination: Termination

    def __init__(self, winner: int | None, termination: Termination | str) -> None:
        object.__setattr__(self, "winner", winner)
        object.__setattr__(self, "termination", Termination(termination))

    @property
    def reason(self) -> Termination:
        """The termination (a ``str``: ``outcome.reason == "resigned"`` works)."""
        return self.termination

    @property
    def result(self) -> str:
        return {1: "1-0", 2: "0-1", None: "1/2-1/2"}[self.winner]

    def __str__(self) -> str:
        return f"{self.result} ({self.termination})"


@functools.lru_cache(maxsize=4096)
def _parse_cached(text: str) -> Move:
    """:meth:`Move.parse` of a short text, remembered (a game's moves are a few hundred
    texts; a refusal is not remembered, as ``lru_cache`` keeps no exceptions)."""
    return Move._parse(text)
