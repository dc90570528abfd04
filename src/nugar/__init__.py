"""nugar: rules engines, players' tools and research tools for Dara, Dala, Kalah and Dracala.

>>> import nugar
>>> game = nugar.new_game("dara")
>>> game.play("c3")
>>> game.turns()
['c3']
"""

from __future__ import annotations

from .errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from .rules import (
    PRESETS,
    AlignmentOptions,
    Game,
    Move,
    Outcome,
    Preset,
    RuleSet,
    SowingOptions,
    Termination,
    from_position,
    new_game,
    parse_rules,
    perft,
    presets,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "AlignmentOptions",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "NugarError",
    "Outcome",
    "Preset",
    "RuleSet",
    "RulesError",
    "SowingOptions",
    "Termination",
    "__version__",
    "from_position",
    "new_game",
    "parse_rules",
    "perft",
    "presets",
]
