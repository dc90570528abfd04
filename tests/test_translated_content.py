"""The translated content files (issue 33): every lesson and rules page of the package has its
translation in every language besides English (``nugar.i18n.LANGUAGES``), and a translation
changes the words only.

- A lesson (``lessons/data/<lang>/<name>.json``) has exactly the English file's structure;
  every field but the human texts (title, intro, a step's title, text, instruction, right,
  wrong and the reply texts of ``replies``) is equal, every human text is non-empty and not
  the English one, the squares and moves a text names are those of the English text, and the
  lesson passes the checks the English ones pass (:func:`nugar.lessons.validate`).
- A rules page (``docs/<lang>/rules.md``, ``docs/<lang>/games/<name>.md``) keeps the English
  page's headings (the same levels in the same order), its fenced blocks (a ``position``
  block's position text, a code example whole), its code spans (moves, squares, rule-set
  texts, option names) and its links to sources; its relative links go to pages of its own
  language, and their ``#fragments`` to headings there; it renders as the server renders the
  English pages (every diagram drawn).

docs/translations.md is the glossary and the conventions these files follow.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterator
from importlib import resources
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote

import pytest

from doc_outline import DOCS, exists, outline, read
from nugar.i18n import LANGUAGES, SOURCE
from nugar.lessons import lesson_from_json, validate
from nugar.server.http import pages

TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
LESSON_DATA = resources.files("nugar.lessons").joinpath("data")

#: the human text fields of a lesson and of one of its steps
LESSON_TEXTS = ("title", "intro")
STEP_TEXTS = ("title", "text", "instruction", "right", "wrong")
#: texts that are the same in every language by nature: a title that is only a game's name
SAME_BY_NATURE = {"Dara", "Dala", "Kalah", "Dracala"}
#: a square, a step or a move with its capture, as a lesson's text names them (``c3``,
#: ``c2-c1xa5``, ``xd3``); kept as written in every language
MOVE_RE = re.compile(r"(?<![A-Za-z0-9-])x?[a-z][1-9](?:[-x][a-z][1-9])*(?![A-Za-z0-9-])")
#: the Unicode isolates an Arabic text keeps moves left to right with
LRI, PDI = "\u2066", "\u2069"


# --- files ---------------------------------------------------------------------------------


def english_lessons() -> list[str]:
    return sorted(p.name[:-5] for p in LESSON_DATA.iterdir() if p.name.endswith(".json"))


def english_pages() -> list[str]:
    """Every shipped English page, as a path relative to the docs folder."""
    games = DOCS.joinpath(pages.GAMES)
    found = [pages.CONTRACT] if DOCS.joinpath(pages.CONTRACT).is_file() else []
    return found + sorted(f"{pages.GAMES}/{p.name}" for p in games.iterdir()
                          if p.name.endswith(".md"))


LESSONS = [(lang, name) for lang in TRANSLATED for name in english_lessons()
           if exists(LESSON_DATA, f"{lang}/{name}.json")]
PAGES = [(lang, rel) for lang in TRANSLATED for rel in english_pages()
         if exists(DOCS, f"{lang}/{rel}")]


def pair_id(item: tuple[str, str]) -> str:
    return "-".join(item)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_lesson_has_its_translation(lang: str) -> None:
    missing = [f"lessons/data/{lang}/{name}.json" for name in english_lessons()
               if not exists(LESSON_DATA, f"{lang}/{name}.json")]
    assert not missing, f"lessons not translated into {lang}: {missing}"
    extra = sorted(p.name for p in LESSON_DATA.joinpath(lang).iterdir()
                   if p.name.endswith(".json") and p.name[:-5] not in english_lessons())
    assert not extra, f"translated lessons without an English one: {extra}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_rules_page_has_its_translation(lang: str) -> None:
    missing = [f"docs/{lang}/{rel}" for rel in english_pages()
               if not exists(DOCS, f"{lang}/{rel}")]
    assert not missing, f"rules pages not translated into {lang}: {missing}"


# --- lessons -------------------------------------------------------------------------------


def texts_of(lesson: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every human text of a lesson file, with where it is."""
    for key in LESSON_TEXTS:
        yield key, lesson[key]
    for i, step in enumerate(lesson["steps"], 1):
        for key in STEP_TEXTS:
            if key in step:
                yield f"step {i} {key}", step[key]
        for turn, reply in step.get("replies", {}).items():
            yield f"step {i} reply to {turn}", reply


def without_texts(lesson: dict[str, Any]) -> dict[str, Any]:
    """The lesson file with every human text replaced by a mark: what must stay equal."""
    out: dict[str, Any] = json.loads(json.dumps(lesson))
    for key in LESSON_TEXTS:
        out[key] = "<text>"
    for step in out["steps"]:
        for key in STEP_TEXTS:
            if key in step:
                step[key] = "<text>"
        if "replies" in step:
            step["replies"] = {turn: "<text>" for turn in step["replies"]}
    return out


def plain(text: str) -> str:
    return text.replace(LRI, "").replace(PDI, "")


@pytest.mark.parametrize("item", LESSONS, ids=pair_id)
def test_a_translated_lesson_changes_only_its_texts(item: tuple[str, str]) -> None:
    lang, name = item
    english = json.loads(read(LESSON_DATA, f"{name}.json"))
    source = read(LESSON_DATA, f"{lang}/{name}.json")
    translated = json.loads(source)
    # the same keys in the same order, the same steps, every field but the texts equal
    assert json.dumps(without_texts(translated)) == json.dumps(without_texts(english))
    for (where, theirs), (_, ours) in zip(texts_of(english), texts_of(translated), strict=True):
        assert isinstance(ours, str) and ours.strip(), f"{lang}/{name}: {where} is empty"
        if theirs not in SAME_BY_NATURE:
            assert plain(ours) != theirs, f"{lang}/{name}: {where} is not translated"
        assert sorted(MOVE_RE.findall(plain(ours))) == sorted(MOVE_RE.findall(theirs)), (
            f"{lang}/{name}: {where} names other squares or moves than the English text")
        assert "`" not in ours, f"{lang}/{name}: {where} has a Markdown mark"
        assert ours.count(LRI) == ours.count(PDI), f"{lang}/{name}: {where}: unbalanced isolates"
    lesson = lesson_from_json(source, name)
    assert validate(lesson) == []


# --- rules pages ---------------------------------------------------------------------------


def page_names(lang: str) -> dict[str, str]:
    """The pages of a language as the server names them: name -> path under the docs folder."""
    return {("rules" if rel == pages.CONTRACT else PurePosixPath(rel).stem): f"{lang}/{rel}"
            for rel in english_pages() if exists(DOCS, f"{lang}/{rel}")}


def anchors(lang: str, rel: str) -> set[str]:
    html, _ = pages.render(read(DOCS, f"{lang}/{rel}"), f"{lang}/{rel}", page_names(lang))
    return set(re.findall(r'<h[1-6] id="([^"]*)"', html))


@pytest.mark.parametrize("item", PAGES, ids=pair_id)
def test_a_translated_page_keeps_the_english_pages_structure(item: tuple[str, str]) -> None:
    lang, rel = item
    english, translated = outline(read(DOCS, rel)), outline(read(DOCS, f"{lang}/{rel}"))
    where = f"docs/{lang}/{rel}"
    assert translated["headings"] == english["headings"], f"{where}: headings differ"
    assert translated["fences"] == english["fences"], f"{where}: fenced blocks differ"
    for ours, theirs in zip(translated["captions"], english["captions"], strict=True):
        assert ours and ours != theirs, f"{where}: caption not translated: {theirs!r}"
    missing = english["code"] - translated["code"]
    extra = translated["code"] - english["code"]
    assert not missing and not extra, f"{where}: code spans differ: {missing=} {extra=}"
    assert translated["external"] == english["external"], f"{where}: source links differ"
    assert len(translated["relative"]) == len(english["relative"]), f"{where}: links differ"


@pytest.mark.parametrize("item", PAGES, ids=pair_id)
def test_a_translated_pages_links_stay_in_its_language(item: tuple[str, str]) -> None:
    lang, rel = item
    text = read(DOCS, f"{lang}/{rel}")
    html, title = pages.render(text, f"{lang}/{rel}", page_names(lang))  # draws every diagram
    assert title, f"docs/{lang}/{rel}: no title"
    assert html.count('<figure class="diagram">') == len(outline(text)["captions"])
    for href in outline(text)["relative"]:
        path, _, fragment = href.partition("#")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(rel), path)) if path else rel
        assert exists(DOCS, f"{lang}/{target}"), f"docs/{lang}/{rel}: {unquote(href)} goes nowhere"
        if fragment:
            fragment = unquote(fragment)
            assert fragment in anchors(lang, target), (
                f"docs/{lang}/{rel}: {unquote(href)}: no such heading in docs/{lang}/{target}")


@pytest.mark.parametrize("item", [p for p in PAGES if p[0] in ("ar",)], ids=pair_id)
def test_arabic_pages_keep_code_left_to_right(item: tuple[str, str]) -> None:
    """Every code span of an Arabic page outside a table or a heading sits in a pair of
    Unicode isolates, so moves, squares and scores read left to right."""
    lang, rel = item
    text = read(DOCS, f"{lang}/{rel}")
    assert text.count(LRI) == text.count(PDI)
    inside = False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            inside = not inside
            continue
        if inside or line.lstrip().startswith(("|", "#")):
            continue
        for match in re.finditer(r"`[^`]+`", line):
            before, after = line[:match.start()], line[match.end():]
            assert before.endswith(LRI) and after.startswith(PDI), (
                f"docs/{lang}/{rel}: {match.group()} is not isolated: {line!r}")
