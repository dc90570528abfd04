"""The AI profiles: everything the AI tunes per kind of game, one object each.

A rule set plays with one of them (``RuleSet.ai_profile``), chosen from its options, never
from its preset's name; each family's descriptor lists its own (``FamilyDescriptor
.ai_profiles``). A profile holds its search's evaluation weights, the scale that turns an
evaluation into a win chance for MCTS, its table of levels and the depth of the opening
book. The levels are agent spec texts, plain data that ``nugar.ai`` reads: holding them here
keeps every fact about a profile in one object while ``nugar.rules`` imports nothing of
``nugar.ai`` (docs/architecture.md, "Variants as data").

The levels' handicaps and why they differ between games are in docs/ai.md ("Levels"); each
level is measured against the one below in docs/strength.md.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True, eq=False)
class AiProfile:
    """One AI profile. Profiles are compared and hashed by identity: there is one object per
    profile, and a rule set returns that object."""

    #: the profile's name in texts and data files: ``dara``, ``dala``, ``kalah``, ``dracala``
    name: str
    #: level (1 to 8, ``nugar.ai.LEVEL_RANGE``) -> the agent spec that plays it
    levels: Mapping[int, str]
    #: the width of the logistic curve by which MCTS turns an evaluation into a win chance
    #: (the sowing evaluations count seeds on a larger scale than the alignment ones)
    eval_scale: float
    #: returns the compiled evaluation's tuned weights (imports the kernels on first call)
    load_weights: Callable[[], IntArray]
    #: decisions from the start whose positions the shipped opening book holds for this
    #: profile's rule sets in the book (``nugar.ai.book.BOOK_RULES``); ``None``: no book
    book_depth: int | None = None
    #: beyond ``book_depth``, the book also holds the perfect player's lines down to this
    #: many seeds on the board (``nugar.ai.book.line_positions``); ``None``: no lines
    book_seeds: int | None = None
    #: how much a move must lose, in the unit of the profile's evaluation (pieces or seeds),
    #: to be marked an inaccuracy, a mistake and a blunder by the game analysis
    #: (``nugar.ai.analysis``; docs/ai.md, "Analysis of a game")
    marks: tuple[float, float, float] = (0.5, 1.0, 2.0)

    def weights(self) -> IntArray:
        """A fresh copy of the tuned evaluation weights (the search's defaults)."""
        return self.load_weights().copy()

    def __repr__(self) -> str:
        return f"AiProfile({self.name!r})"

    def __str__(self) -> str:
        return self.name


def _levels(*specs: str) -> Mapping[int, str]:
    """Levels 1, 2, ... played by ``specs`` in order, read only."""
    return MappingProxyType(dict(enumerate(specs, start=1)))


def _dara_weights() -> IntArray:
    from ..kernels.search_alignment import DARA_WEIGHTS

    return DARA_WEIGHTS


def _dala_weights() -> IntArray:
    from ..kernels.search_alignment import DALA_WEIGHTS

    return DALA_WEIGHTS


def _kalah_weights() -> IntArray:
    from ..kernels.search_sowing import KALAH_WEIGHTS

    return KALAH_WEIGHTS


def _dracala_weights() -> IntArray:
    from ..kernels.search_sowing import DRACALA_WEIGHTS

    return DRACALA_WEIGHTS


#: Dara (every alignment rule set without drop captures or lines of four): levels held back
#: by evaluation noise that shrinks level by level; level 8 plays on for a win rather than
#: repeat moves (contempt), and its search probes the endgame tablebases built on disk
DARA_PROFILE = AiProfile(
    name="dara",
    levels=_levels("greedy:noise=0.9",
                   "greedy:noise=0.3",
                   "alphabeta:nodes=40,noise=120",
                   "alphabeta:nodes=200,noise=100",
                   "alphabeta:nodes=1000,noise=80",
                   "alphabeta:nodes=4000,noise=70",
                   "alphabeta:nodes=16000,noise=15",
                   "alphabeta:contempt=30,probe=1"),
    eval_scale=150.0,
    load_weights=_dara_weights,
    marks=(0.5, 1.0, 2.0))

#: Dala (captures in the drop phase or lines of four allowed): noise as in Dara, smaller node
#: budgets, and level 3 still greedy (larger budgets did not play better there)
DALA_PROFILE = AiProfile(
    name="dala",
    levels=_levels("greedy:noise=0.9",
                   "greedy:noise=0.6",
                   "greedy:noise=0.2",
                   "alphabeta:nodes=60,noise=130",
                   "alphabeta:nodes=250,noise=100",
                   "alphabeta:nodes=1000,noise=60",
                   "alphabeta:nodes=4000,noise=60",
                   "alphabeta:probe=1"),
    eval_scale=150.0,
    load_weights=_dala_weights,
    marks=(0.5, 1.0, 2.0))

#: Kalah (sowing without misère): levels held back by blunders, random moves at a decision
#: with a choice, since only an outright slip tells two strong Kalah players apart; level 8
#: is the perfect player's book, the search with the move's time, and the solver (reading
#: only the databases on disk, swindling where it cannot win) where it is expected to finish
#: within a small share of that time (``nugar.ai.agents.LevelAgent``)
KALAH_PROFILE = AiProfile(
    name="kalah",
    levels=_levels("random",
                   "greedy:noise=0.73",
                   "alphabeta:depth=1,blunder=0.42",
                   "alphabeta:nodes=250,blunder=0.28",
                   "alphabeta:nodes=1000,blunder=0.19",
                   "alphabeta:nodes=4000,blunder=0.13",
                   "alphabeta:nodes=16000,blunder=0.04",
                   "perfect:swindle=1,build=0"),
    eval_scale=400.0,
    load_weights=_kalah_weights,
    marks=(2.0, 4.0, 8.0),
    book_depth=3,
    book_seeds=42)

#: Dracala (sowing under misère): the levels the matches chose, not a rule; level 1 plays for
#: Kalah's goal (worse than random moves), level 8 is the exact solver (after the book,
#: within a share of the time: it finishes almost every position), swindling where it
#: cannot win; levels 2 and 4 to 7 choose at random by themselves, so matches from the
#: starting position vary
DRACALA_PROFILE = AiProfile(
    name="dracala",
    levels=_levels("alphabeta:depth=4,w=100/0/10/30/-30",
                   "random",
                   "alphabeta:nodes=60",
                   "alphabeta:depth=4,blunder=0.1",
                   "alphabeta:nodes=1000,blunder=0.05",
                   "alphabeta:nodes=2000,blunder=0.1",
                   "alphabeta:nodes=8000,noise=20",
                   "perfect:swindle=1"),
    eval_scale=400.0,
    load_weights=_dracala_weights,
    marks=(2.0, 4.0, 8.0),
    book_depth=4)


__all__ = ["DALA_PROFILE", "DARA_PROFILE", "DRACALA_PROFILE", "KALAH_PROFILE", "AiProfile"]
