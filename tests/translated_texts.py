"""The human texts of the translated lessons, for the tests that read them (the French and
Arabic typography and glossary checks): every string of a lesson file but its data fields."""

from __future__ import annotations

from collections.abc import Iterator

#: lesson fields that are data, not prose
DATA_FIELDS = frozenset({"rules", "position", "expected", "tags", "goal", "order", "puzzle",
                         "unique", "depth", "id"})


def lesson_strings(value: object, key: str = "") -> Iterator[str]:
    """The prose strings of a lesson's JSON ``value`` (its data fields left out)."""
    if key in DATA_FIELDS:
        return
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from lesson_strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from lesson_strings(v, key)
