"""Rules engines: rule sets as data and one game class per family."""

from __future__ import annotations

from .base import Game, Move, Outcome, perft
from .options import (
    PRESETS,
    AlignmentOptions,
    Preset,
    RuleSet,
    SowingOptions,
    parse_rules,
    presets,
)


def new_game(rules: str | RuleSet = "dara") -> Game:
    """Start a game from a rule-set text such as ``"dara"`` or ``"kalah(pits=4,seeds=3)"``.

    >>> new_game("kalah").legal_moves()[:3]
    [Move.parse('1'), Move.parse('2'), Move.parse('3')]
    """
    rule_set = parse_rules(rules)
    if rule_set.family == "alignment":
        from .alignment import AlignmentGame

        return AlignmentGame(rule_set)
    from .sowing import SowingGame

    return SowingGame(rule_set)


__all__ = [
    "PRESETS",
    "AlignmentOptions",
    "Game",
    "Move",
    "Outcome",
    "Preset",
    "RuleSet",
    "SowingOptions",
    "new_game",
    "parse_rules",
    "perft",
    "presets",
]
