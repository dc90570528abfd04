"""The one small interface every nugar player implements, and the text that names an agent.

An agent decides one decision for the player to move. It takes a :class:`Limits` (time in
seconds, depth in decisions, nodes searched; any mix) and returns an :class:`Analysis`: the
move, its score from the mover's point of view, the depth reached, the nodes visited and the
principal variation.
"""

from __future__ import annotations

import math
import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..rules.base import Game, Move


@dataclass(frozen=True)
class Limits:
    """How much an agent may spend on one decision. ``None`` means "no limit of this kind".

    When every field is ``None`` the agent uses its own default budget. When several are
    given, the search stops at the first one reached.
    """

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None

    def __post_init__(self) -> None:
        if self.time is not None and not (isinstance(self.time, int | float)
                                          and math.isfinite(self.time) and self.time > 0):
            raise ValueError(f"time limit must be a positive number of seconds, not {self.time!r}")
        for name in ("depth", "nodes"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or value < 1):
                raise ValueError(f"{name} limit must be a whole number >= 1, not {value!r}")

    @property
    def is_empty(self) -> bool:
        return self.time is None and self.depth is None and self.nodes is None

    def merged(self, other: Limits | None) -> Limits:
        """The tighter of two limits, kind by kind (``None`` on one side takes the other)."""
        if other is None:
            return self

        def tighter(a: float | int | None, b: float | int | None) -> float | int | None:
            if a is None:
                return b
            if b is None:
                return a
            return min(a, b)

        time = tighter(self.time, other.time)
        depth = tighter(self.depth, other.depth)
        nodes = tighter(self.nodes, other.nodes)
        return Limits(None if time is None else float(time),
                      None if depth is None else int(depth),
                      None if nodes is None else int(nodes))


@dataclass(frozen=True)
class Analysis:
    """What an agent found: the chosen move and how it got there.

    ``score`` is from the point of view of the player to move (positive is good for him);
    search agents report won positions as large values (see ``docs/ai.md``) and ``None``
    means the agent does not score positions (``random``).
    """

    move: Move
    score: float | None
    depth: int
    nodes: int
    pv: list[Move] = field(default_factory=list)
    seconds: float = 0.0
    #: false when the move is not the one the agent's search found: a level's deliberate
    #: blunder, a greedy agent's noise, a random agent's pick (``score`` is still the
    #: search's, for the move it found)
    searched: bool = True
    #: MCTS: the visits of each root action code (None for other agents)
    root_visits: dict[int, int] | None = None


class Agent(ABC):
    """A player: ``analyse`` a game for the player to move, or just ``choose`` a move."""

    #: the spec text that makes this agent (``make_agent(agent.spec)`` builds a twin)
    spec: str = ""

    @abstractmethod
    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        """Decide one decision for ``game.to_move`` within ``limits``."""

    def choose(self, game: Game, limits: Limits | None = None) -> Move:
        """The move :meth:`analyse` picks."""
        return self.analyse(game, limits).move

    def reseed(self, value: int) -> None:
        """Seed whatever this agent draws at random, so that the games that follow can be
        replayed (the Gymnasium environment calls it on a seeded ``reset``). By default the
        agent's ``rng`` (a ``random.Random``) if it has one; agents that play the same move
        every time need nothing."""
        rng = getattr(self, "rng", None)
        if isinstance(rng, random.Random):
            rng.seed(value)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec!r}>"


def check_playable(game: Game) -> None:
    """Raise a clear ``ValueError`` when there is nothing to decide."""
    outcome = game.outcome
    if outcome is not None:
        raise ValueError(f"no move to choose: the game is over ({outcome})")


# --- agent specs -----------------------------------------------------------------------------

_OPTION_RE = re.compile(r"^([a-z_]+)=([^=,:]+)$")


def parse_spec(spec: str) -> tuple[str, str | None, dict[str, str]]:
    """Split ``"name[:N][:k=v,...]"`` into name, positional argument and options.

    >>> parse_spec("alphabeta:depth=6")
    ('alphabeta', None, {'depth': '6'})
    >>> parse_spec("level:3,seed=2")
    ('level', '3', {'seed': '2'})
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"an agent is named by text such as 'alphabeta:depth=6', not {spec!r}")
    text = spec.strip().lower()
    name, _, rest = text.partition(":")
    positional: str | None = None
    options: dict[str, str] = {}
    for token in filter(None, re.split(r"[,:]", rest)):
        token = token.strip()
        m = _OPTION_RE.match(token)
        if m:
            if m.group(1) in options:
                raise ValueError(f"agent {spec!r}: option {m.group(1)!r} given twice")
            options[m.group(1)] = m.group(2)
        elif positional is None and not options and "=" not in token:
            positional = token
        else:
            raise ValueError(f"agent {spec!r}: cannot read {token!r}; write options as "
                             "key=value, e.g. 'alphabeta:depth=6,time=0.5'")
    return name.strip(), positional, options
