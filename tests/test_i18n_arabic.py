"""The Arabic follows its glossary and reads right to left without reordering data (issue 39).

- the glossary's words (docs/translations.md) and none of the words a reviewer found drifting:
  Dala is دالا (never ضالة, "the stray one"), the board الرقعة (never لوح), a three ثلاثية
  (never « صف من ثلاث »), a position الموقف (الوضع is the drop), a legal move مشروعة,
  blocked محاصَر (never انسداد); in the sowing games a step is خطوة (never the alignment
  games' نقلة) and a capture الأسر (never their أخذ);
- every move or rule-set run of several parts (``3-6``, ``c3-c4xe5``, ``6x6``) written inside
  an Arabic sentence of a catalog or a lesson is isolated left to right (LRI/FSI ... PDI):
  else the Arabic letters before it turn ``3-6`` into « 6-3 »;
- the pieces-in-hand label of a board is laid out right to left (« الأبيض في اليد: 12 »).

Checked on every Arabic catalog, rules page and lesson.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from nugar import new_game
from nugar.server.play.render import svg
from translated_texts import lesson_strings

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "nugar"
#: what no Arabic text writes, and the glossary's word instead
DRIFT = [
    (r"ضالة", "دالا"),
    (r"(?<![\w])(ال)?لوح(?!ة|ات)", "الرقعة"),
    (r"صفّ?ًّ?ا? من ثلاث|صفوف من ثلاث", "ثلاثية (a line: خطّ)"),
    (r"صفّ?ًّ?ا? من أربع|صفوف من أربع|صفوف الأربع", "خطّ من أربع"),
    (r"انسداد", "محاصَر"),
    (r"قانوني|حركات? مسموحة|النقلات المسموحة|الحركات الممكنة", "مشروعة"),
    (r"(نص|تكرار|مفتاح) الوضع|الوضع نفسه|الوضعية", "الموقف"),
]
#: in the sowing games (their pages, lessons and the catalog entries about seeds and holes)
SOWING_DRIFT = [(r"(?<![\w\u064b-\u0652])(ال)?نقل(ة|ات)?(?!\w)", "خطوة"),
                (r"(?<![\w])(ال)?أخذ|تأخذ|يأخذ(?! صاحب| البذور الباقية)", "الأسر / يأسر")]
SOWING_WORDS = re.compile(r"seed|hole|store|sow|Kalah|Dracala|bonus step", re.I)
#: a message about both families (the move parser's forms) keeps each family's words
BOTH = re.compile(r"drop|three|piece|square", re.I)
#: a move, a turn or a board size of several parts: it reorders inside Arabic unless isolated
RUN = re.compile(r"(?<![\w\u2066\u2068])[a-z]?\d+(?:[-x:/][a-z]?\d+)+")


def _arabic() -> Iterator[tuple[str, str, bool]]:
    """``(where, text, about sowing)`` of every Arabic text."""
    for path in sorted((PACKAGE / "locale" / "ar" / "LC_MESSAGES").glob("*.po")):
        with path.open("rb") as f:
            for message in read_po(f, locale="ar"):
                if message.id:
                    first = message.id if isinstance(message.id, str) else message.id[0]
                    strings = ([message.string] if isinstance(message.string, str)
                               else list(message.string))
                    for s in strings:
                        yield (f"{path.name}: {first[:50]!r}", s,
                               bool(SOWING_WORDS.search(first)) and not BOTH.search(first))
    for path in sorted((PACKAGE / "docs" / "ar").rglob("*.md")):
        yield (str(path.relative_to(PACKAGE)), path.read_text(encoding="utf-8"),
               path.stem in ("kalah", "dracala"))
    for path in sorted((PACKAGE / "lessons" / "data" / "ar").glob("*.json")):
        for s in lesson_strings(json.loads(path.read_text(encoding="utf-8"))):
            yield str(path.relative_to(PACKAGE)), s, path.stem in ("kalah", "dracala")


ARABIC = list(_arabic())


def _code_free(text: str) -> str:
    return re.sub(r"```.*?```|`[^`\n]*`|\{[^{}]*\}|https?://\S+", " ", text, flags=re.S)


def test_there_is_arabic_to_check() -> None:
    assert len(ARABIC) > 900


@pytest.mark.parametrize(("pattern", "right"), DRIFT, ids=[r for _p, r in DRIFT])
def test_the_glossary_s_word(pattern: str, right: str) -> None:
    wrong = [f"{where}: {m.group(0)!r}" for where, text, _sowing in ARABIC
             for m in re.finditer(pattern, _code_free(text))]
    assert wrong == [], f"the glossary says {right}"


@pytest.mark.parametrize(("pattern", "right"), SOWING_DRIFT, ids=[r for _p, r in SOWING_DRIFT])
def test_the_sowing_games_words(pattern: str, right: str) -> None:
    wrong = [f"{where}: {m.group(0)!r}" for where, text, sowing in ARABIC if sowing
             for m in re.finditer(pattern, _code_free(text))]
    assert wrong == [], f"in the sowing games the glossary says {right}"


def _isolated(text: str, at: int) -> bool:
    opens = [m.start() for m in re.finditer("[\u2066\u2067\u2068]", text[:at])]
    return bool(opens) and "\u2069" not in text[opens[-1]:at]


def test_moves_inside_arabic_sentences_are_isolated_left_to_right() -> None:
    """« 3-6 » after Arabic letters reads « 6-3 » (the digits take the Arabic letters'
    direction): catalogs and lessons isolate it; the rules pages put it in a code span, which
    the page isolates."""
    wrong = []
    for where, text, _sowing in ARABIC:
        if where.endswith(".md"):
            continue
        prose = re.sub(r"\{[^{}]*\}", " ", text)
        wrong += [f"{where}: {m.group(0)!r}" for m in RUN.finditer(prose)
                  if not _isolated(prose, m.start())]
    assert wrong == []


def test_the_pieces_in_hand_read_right_to_left_on_an_arabic_board() -> None:
    picture = svg(new_game("dara"), lang="ar")
    labels = re.findall(r'<text x="26"[^>]*>([^<]*)</text>', picture)
    assert labels == ["\u2067\u2068الأبيض\u2069 في اليد: 12\u2069",
                      "\u2067\u2068الأسود\u2069 في اليد: 12\u2069"]
    assert "في اليد" not in svg(new_game("dara"))  # English stays as board.js draws it
