"""The rules: rule sets as data (``options``), the family registry (``family``), one game
class per family, and the ways to start a game: :func:`new_game`, :func:`from_state`,
:func:`from_position`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .base import Game, Move, Outcome, Termination, perft
from .family import family_of, presets

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
from .options import (
    PRESETS,
    AlignmentOptions,
    Preset,
    RuleSet,
    SowingOptions,
    parse_rules,
)


def new_game(rules: str | RuleSet = "dara") -> Game:
    """Start a game from a rule-set text such as ``"dara"`` or ``"kalah(pits=4,seeds=3)"``.

    >>> new_game("kalah").legal_moves()[:3]
    [Move.parse('1'), Move.parse('2'), Move.parse('3')]
    """
    rule_set = parse_rules(rules)
    return family_of(rule_set).parts.game_class(rule_set)


def from_state(rules: str | RuleSet, state: NDArray[np.int64]) -> Game:
    """A game of ``rules`` whose position is a kernel state array (copied), such as a row of
    the batched simulator's states (``Game.from_state``)."""
    rule_set = parse_rules(rules)
    return family_of(rule_set).parts.game_class.from_state(rule_set, state)


def from_position(text: str) -> Game:
    """A game set up from a position text, as ``Game.position_text()`` writes it (format:
    ``docs/records.md``, "Positions"). The game has no move history: ``undo`` finds nothing
    to take back. Bad text raises a ``NugarError`` (a ``ValueError``) saying what is wrong.

    >>> g = from_position("dara ....../....../..b.../...w../...... b hand=11,11")
    >>> g.to_move, g.score, [str(m) for m in g.legal_moves()][:3]
    (1, (12, 12), ['a1', 'b1', 'c1'])
    >>> from_position(g.position_text()) == g
    True
    """
    from ..errors import NugarError
    from ..i18n import Text
    from .base import _said

    if not isinstance(text, str):
        raise NugarError(Text("a position is given as text, not {kind}",
                              kind=type(text).__name__))
    m = _POSITION_RE.match(text)
    if m is None or not (m.group(2) or "").strip():
        raise NugarError(Text("a position text is the rule set, the board and the player to "
                              "move, e.g. {sowing} or {alignment}",
                              sowing="'kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s'",
                              alignment="'dara ....../....../..b.../...w../...... b "
                                        "hand=11,11'"))
    rule_set = parse_rules(m.group(1))
    game_class = family_of(rule_set).parts.game_class
    try:
        return game_class._read_position(rule_set, m.group(2).lower().split())
    except NugarError as exc:
        raise type(exc)(Text("position text for {rules}: {error}", rules=rule_set.text,
                             error=_said(exc))) from None


# the rule set (which may hold spaces inside its parentheses), then the other fields
_POSITION_RE = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]*\s*(?:\([^()]*\))?)(\s.*)?$", re.S)


__all__ = [
    "PRESETS",
    "AlignmentOptions",
    "Game",
    "Move",
    "Outcome",
    "Preset",
    "RuleSet",
    "SowingOptions",
    "Termination",
    "from_position",
    "from_state",
    "new_game",
    "parse_rules",
    "perft",
    "presets",
]
