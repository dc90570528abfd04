"""The French reads as French typography and the glossary want it (issue 39).

- a no-break space (U+00A0, the one nugar uses everywhere) before ``: ; ! ?`` and ``»`` and
  after ``«``, never a plain space, and never the punctuation glued to the word before it;
- elision: no « de », « que », « ne », « le », « la », « se » before a word starting with a
  vowel (« impossible de abandonner »), including once a sentence's fields are filled in;
- the glossary's terms: one word for a game record (« partie notée »), for a hint
  (« indice »), for a bonus step (« semis supplémentaire ») and for a preset (« variante
  prédéfinie »).

Checked on every French catalog, rules page and lesson, outside code spans, placeholders,
links and HTML tags (data such as ``25 : 23`` in a code span is left alone).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from nugar import IllegalMoveError, new_game
from nugar.i18n import say
from translated_texts import lesson_strings

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "nugar"
#: what is not French prose: code, fenced code, placeholders, links, HTML tags, option texts
#: (``result={result}:{reason}``)
NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\{[^{}\s]*\}|https?://[^\s)>\]]+|<[^<>\n]*>"
                       r"|\]\([^)\s]*\)|\b\w+=[^\s,;)]*|\S*/\S*", re.S)
#: a word that elides before a vowel, followed by a word starting with one (not a square)
UNELIDED = re.compile(r"(?<![\w'’-])(de|que|ne|le|la|je|se|me|te|jusque|lorsque|puisque) "
                      r"(?![a-h]\d)([aeiouyéèêàâîôûAEIOUÉÈÀ]\w*)")
#: glossary drift: (wrong, right)
DRIFT = [(re.compile(r"\bsemis bonus\b|\bcoup bonus\b"), "semis supplémentaire"),
         (re.compile(r"\bConseil\b"), "Indice"),
         (re.compile(r"\benregistrement\b|\bfeuille de partie\b|\bparties? enregistrées?\b",
                     re.I), "partie notée")]


def _french() -> Iterator[tuple[str, str]]:
    for path in sorted((PACKAGE / "locale" / "fr" / "LC_MESSAGES").glob("*.po")):
        with path.open("rb") as f:
            for message in read_po(f, locale="fr"):
                if message.id:
                    strings = ([message.string] if isinstance(message.string, str)
                               else list(message.string))
                    first = message.id if isinstance(message.id, str) else message.id[0]
                    for s in strings:
                        yield f"{path.name}: {first[:50]!r}", s
    for path in sorted((PACKAGE / "docs" / "fr").rglob("*.md")):
        yield str(path.relative_to(PACKAGE)), path.read_text(encoding="utf-8")
    for path in sorted((PACKAGE / "lessons" / "data" / "fr").glob("*.json")):
        for s in lesson_strings(json.loads(path.read_text(encoding="utf-8"))):
            yield str(path.relative_to(PACKAGE)), s


FRENCH = list(_french())


def _prose(text: str) -> str:
    return NOT_PROSE.sub(" X ", text)


def test_there_is_french_to_check() -> None:
    assert len(FRENCH) > 900


def test_a_no_break_space_before_high_punctuation_and_inside_guillemets() -> None:
    wrong = []
    for where, text in FRENCH:
        prose = _prose(text)
        for m in re.finditer(r"[ \u202f\t]+[:;!?»]|«[ \u202f]+|[^\s\u00a0X([\"'/][;!?](?=\s|$)"
                             r"|[^\W\d_][:](?=\s)", prose):
            wrong.append(f"{where}: {prose[max(0, m.start() - 20):m.end() + 10]!r}")
    assert wrong == [], "write U+00A0 before : ; ! ? » and after « (docs/translations.md)"


def test_no_word_is_left_unelided_before_a_vowel() -> None:
    wrong = [f"{where}: {m.group(0)!r}" for where, text in FRENCH
             for m in UNELIDED.finditer(_prose(text))]
    assert wrong == []


@pytest.mark.parametrize(("pattern", "right"), DRIFT, ids=[r for _p, r in DRIFT])
def test_the_glossary_s_one_word_for_each_thing(pattern: re.Pattern[str], right: str) -> None:
    wrong = [f"{where}: {m.group(0)!r}" for where, text in FRENCH
             for m in pattern.finditer(_prose(text))]
    assert wrong == [], f"the glossary says « {right} »"


@pytest.mark.parametrize("end", ["resign", "agree_draw"])
def test_an_ending_refused_after_the_game_is_over_reads_in_french(end: str) -> None:
    """« impossible de abandonner »: the verb filled into the sentence is elided right."""
    game = new_game("dara")
    game.resign(1)
    with pytest.raises(IllegalMoveError) as info:
        getattr(game, end)(2) if end == "resign" else game.agree_draw()
    said = say(info.value, "fr")
    assert not UNELIDED.search(said), said
    assert said.startswith("on ne peut pas ")


def test_a_declined_takeback_says_what_happened() -> None:
    """« a refusé de reprendre le coup » said the opposite: the opponent refused that *you*
    take your move back."""
    from nugar.i18n import gettext_for

    _ = gettext_for("fr", "webjs")
    assert _("Your opponent declined your takeback offer.") == (
        "Votre adversaire a refusé que vous repreniez votre coup.")
