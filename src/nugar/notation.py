"""Move and turn text for both families (the rules page, nugar/docs/rules.md, "Notation").

Alignment: a drop ``c3``, a step ``c3-c4``, a capture ``xe5``, ``pass``; a turn appends its
capture: ``c3-c4xe5``, ``c3xe5``. Sowing: a step is a hole number ``4``; a turn joins its steps
with ``-``: ``1-6``. Squares name the column by a letter from the first player's left and the
row by a number from the first player's side.

Plain text functions, below the rules: each family's descriptor (``nugar.rules.family``) names
the splitter of its turns and the text that joins its moves.
"""

from __future__ import annotations

import re

from .errors import InvalidMoveError
from .i18n import Text

FILES = "abcdefghijklmnopqrstuvwxyz"

_SQUARE = r"[a-z][1-9][0-9]?"
_SQUARE_RE = re.compile(rf"^{_SQUARE}$")
_ALIGN_MOVE_RE = re.compile(rf"^(?:(?P<drop>{_SQUARE})|(?P<from>{_SQUARE})-(?P<to>{_SQUARE})"
                            rf"|x(?P<cap>{_SQUARE})|(?P<pass>pass))$")
_ALIGN_TURN_RE = re.compile(rf"^(?P<main>{_SQUARE}(?:-{_SQUARE})?|pass)(?:x(?P<cap>{_SQUARE}))?$")
_SOW_TURN_RE = re.compile(r"^[0-9]+(?:-[0-9]+)*$")


def square_name(col: int, row: int) -> str:
    """Name of the square at 0-based ``col``, ``row``: ``square_name(2, 2) == "c3"``."""
    return f"{FILES[col]}{row + 1}"


def parse_square(text: str) -> tuple[int, int]:
    """0-based ``(col, row)`` of a square name such as ``c3`` (no board bounds checked)."""
    t = text.strip().lower()
    if not _SQUARE_RE.match(t):
        raise InvalidMoveError(Text("{text} is not a square name; write a column letter and "
                                    "a row number, e.g. c3", text=f"{text!r}"))
    return FILES.index(t[0]), int(t[1:]) - 1


def normalize(text: str) -> str:
    """Lower-case, strip, and drop inner spaces of a move or turn text."""
    return re.sub(r"\s+", "", text.strip().lower())


def split_alignment_turn(text: str) -> list[str]:
    """Split an alignment turn text into move texts: ``"c3-c4xe5"`` -> ``["c3-c4", "xe5"]``."""
    t = normalize(text)
    if _ALIGN_MOVE_RE.match(t):
        return [t]
    m = _ALIGN_TURN_RE.match(t)
    if not m:
        raise InvalidMoveError(Text(
            "cannot read {text} as an alignment move or turn; forms: drop 'c3', step 'c3-c4', "
            "capture 'xe5', 'pass', or a turn such as 'c3-c4xe5'", text=f"{text!r}"))
    parts = [m.group("main")]
    if m.group("cap"):
        parts.append("x" + m.group("cap"))
    return parts


def split_sowing_turn(text: str) -> list[str]:
    """Split a sowing turn text into step texts: ``"1-6"`` -> ``["1", "6"]``."""
    t = normalize(text)
    if not _SOW_TURN_RE.match(t):
        raise InvalidMoveError(Text(
            "cannot read {text} as a sowing move or turn; write a hole number such as '4', or "
            "a turn of several steps such as '1-6'", text=f"{text!r}"))
    return t.split("-")
