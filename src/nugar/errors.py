"""The small error classes of nugar.

Every error a user can cause is a ``ValueError`` subclass whose message says what was
given and what is allowed, so callers can catch ``ValueError`` alone.
"""

from __future__ import annotations


class NugarError(ValueError):
    """Base class of every error nugar raises on bad input."""


class RulesError(NugarError):
    """A rule-set text names an unknown preset or option, or an option has a bad value."""


class InvalidMoveError(NugarError):
    """A move or turn text cannot be parsed, or names something outside this board."""


class IllegalMoveError(NugarError):
    """A well-formed move that is not legal in the current position (or the game is over)."""
