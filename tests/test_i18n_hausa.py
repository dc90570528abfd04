"""The Hausa catalogs (issue 39, item 6) hold the glossary's terms (docs/translations.md,
"Hausa") and no English copied in place of a translation: the completeness checks of
``test_i18n_catalogs.py`` see an entry as translated as soon as it is not empty, so an entry
left as its English would pass them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from nugar.i18n import DOMAINS, say

LOCALE = Path(__file__).resolve().parent.parent / "src" / "nugar" / "locale"
#: messages that are only fields, punctuation and names, the same in every language (and
#: "misère", which the glossary keeps in Hausa)
SAME = {"{source}, {position}", "{where}: {reason}", "'rules': {error}", "'result': {problem}",
        "{first} ({first_name}), {second} ({second_name})", "{player} ({place})",
        "{error}; {legal}", "{head}: {why}", "nugar - Dara, Dala, Kalah, Dracala",
        "{steps}, {puzzles}", "{name} ({place})", "misère"}
#: English words that a Hausa sentence never needs (data such as option names and move texts
#: are in code or quotes, and are removed before looking; not "game", which is Hausa too:
#: *game da*, "about")
ENGLISH = re.compile(r"\b(the|and|of|is|not|must|with|from|your|you|this|piece|pieces|seeds?|"
                     r"move|turn|board|hole|store|player|rules?)\b")
#: the glossary's words for the players, a draw and the game's parts
TERMS = [("Black", "engine", "Baƙi"), ("White", "engine", "Fari"), ("South", "engine", "Kudu"),
         ("North", "engine", "Arewa"), ("draw", "web", "kunnen doki"),
         ("three in a row", "engine", "uku a jere"), ("Resign", "webjs", "Mika wuya"),
         ("Lessons", "webjs", "Darussa"), ("Rules page", "web", "Shafin dokoki")]


def catalog(domain: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    with (LOCALE / "ha" / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        po = read_po(f, locale="ha")
    return [((m.id,) if isinstance(m.id, str) else tuple(m.id),
             (m.string,) if isinstance(m.string, str) else tuple(m.string)) for m in po if m.id]


def words(text: str) -> str:
    """The prose of a message: placeholders, quoted data, option texts and URLs removed (a
    capitalised name such as a record's tag ``Rules`` or the class ``Move`` is data too, and
    the English words looked for are lower case)."""
    return re.sub(r"\{[^{}]*\}|'[^']*'|\"[^\"]*\"|https?://\S+|\S*[=_]\S*|<[^>]+>", " ", text)


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_hausa_entry_is_its_english(domain: str) -> None:
    copied = [ids[0] for ids, strings in catalog(domain)
              if ids[0] not in SAME and any(s == i for s, i in zip(strings, ids, strict=False))]
    assert copied == []
    english = [(ids[0], s) for ids, strings in catalog(domain) for s in strings
               if ENGLISH.search(words(s))]
    assert english == [], "English words in Hausa entries"


@pytest.mark.parametrize(("english", "domain", "hausa"), TERMS)
def test_the_glossary_s_terms(english: str, domain: str, hausa: str) -> None:
    assert say(english, "ha", domain) == hausa


def test_a_hausa_plural_entry_has_its_two_forms() -> None:
    plural = [(ids, strings) for d in DOMAINS for ids, strings in catalog(d) if len(ids) == 2]
    assert plural, "the catalogs have plural entries"
    assert all(len(strings) == 2 and all(strings) for _, strings in plural)
