"""The rules' own words that people read, gathered for the message catalogs.

``nugar rules`` and the web app's new-game form show each option's meaning and each preset's
description, and ``nugar play`` names the players and how a game ended. Those words are
written once, as data, in the rules layer (``rules/options.py``, the family descriptors,
:class:`~nugar.rules.Termination`); :func:`extract_rule_texts` is the Babel extractor that
reads them from the rules themselves (``src/nugar/locale/cli.cfg`` and ``webjs.cfg`` map it),
so a catalog cannot miss one that the data gains.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, Any

from .base import Termination
from .family import family_of
from .options import PRESETS, option_fields


def rule_texts() -> list[str]:
    """Every sentence or word of the rules' data that the terminal shows, in a stable order,
    each once."""
    seen: dict[str, None] = {}
    for preset in PRESETS.values():
        seen.setdefault(preset.description)
        # a source's title and link stay as published; the words around them are translated
        seen.setdefault(preset.source)
        seen.setdefault(preset.family)
        for f in option_fields(type(preset.options)):
            doc = f.metadata.get("doc", "")
            if doc:
                seen.setdefault(doc)
        for name in family_of(preset.name).player_names:
            seen.setdefault(name)
    for termination in Termination:
        seen.setdefault(termination.value)
    return list(seen)


def extract_rule_texts(fileobj: IO[bytes], keywords: Any, comment_tags: Any,
                       options: Any) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extractor (``nugar.rules.texts:extract_rule_texts``): yields :func:`rule_texts`,
    whatever file it is mapped to (the mapping names one file of the rules layer)."""
    for text in rule_texts():
        yield 0, "", text, ["the rules' own data (nugar rules, nugar play, the new-game form)"]
