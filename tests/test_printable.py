"""The pages for teachers and museums (``nugar.server.http.printable``), served: a rule sheet and a
board to print and a page on each game's people and history, in every language, through the
same language negotiation as the rules pages; the history pages exist in every language with
the English page's structure. Printing them (one A4 page, through Chromium) is checked in
``test_browser_printable.py``."""

from __future__ import annotations

import re
from html import escape
from urllib.parse import unquote

import pytest
from fastapi.testclient import TestClient

from doc_outline import DOCS, exists, outline, read
from nugar.i18n import LANGUAGES, SOURCE, Text, direction, say
from nugar.rules import PRESETS
from nugar.server.http import pages, printable

COOKIE = "nugar_lang"
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
GAMES = ["dara", "dala", "kalah", "dracala"]
HISTORY = [f"{printable.HISTORY}/{game}.md" for game in GAMES]


def get(client: TestClient, path: str, lang: str) -> str:
    r = client.get(path, headers={"Cookie": f"{COOKIE}={lang}"})
    assert r.status_code == 200, (path, lang, r.text[:200])
    assert "Accept-Language" in r.headers["vary"]
    html = r.text
    assert f'<html lang="{lang}" dir="{direction(lang)}">' in html
    return html


def h1(markdown: str) -> str:
    return next(line[2:].replace("`", "").strip() for line in markdown.split("\n")
                if line.startswith("# "))


def h2s(markdown: str) -> list[str]:
    return [line[3:].replace("`", "").strip() for line in markdown.split("\n")
            if line.startswith("## ")]


def headings(html: str, level: int) -> list[str]:
    """The text of the page's headings of ``level``, without their markup."""
    return [re.sub(r"<[^>]+>", "", h).strip()
            for h in re.findall(rf"<h{level}[^>]*>(.*?)</h{level}>", html)]


# --- the history pages' files ---------------------------------------------------------------


def test_every_game_has_a_history_page() -> None:
    assert [rel for rel in HISTORY if not exists(DOCS, rel)] == []


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("rel", HISTORY)
def test_a_history_page_is_translated_with_the_english_structure(rel: str, lang: str) -> None:
    where = f"docs/{lang}/{rel}"
    assert exists(DOCS, f"{lang}/{rel}"), f"{where} is missing"
    english, translated = outline(read(DOCS, rel)), outline(read(DOCS, f"{lang}/{rel}"))
    assert translated["headings"] == english["headings"], f"{where}: headings differ"
    assert translated["code"] == english["code"], f"{where}: code spans differ"
    assert translated["external"] == english["external"], f"{where}: source links differ"
    assert len(translated["relative"]) == len(english["relative"]), f"{where}: links differ"
    text = read(DOCS, f"{lang}/{rel}")
    assert h2s(text) != h2s(read(DOCS, rel)), f"{where}: headings not translated"
    if lang == "ar":  # a code span reads left to right inside Arabic
        for match in re.finditer(r"`[^`]+`", text):
            assert text[match.start() - 1] == "\u2066" and text[match.end()] == "\u2069"


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rel", HISTORY)
def test_a_history_page_s_links_lead_somewhere(rel: str, lang: str) -> None:
    """Its relative links name shipped pages of its language (and headings there); its
    links to the pages to print name a game that has them."""
    here = rel if lang == SOURCE else f"{lang}/{rel}"
    html, _ = pages.render(read(DOCS, here), here)
    for href in re.findall(r'href="([^"]+)"', html):
        if href.startswith("http"):
            continue
        path, _, fragment = href.partition("#")
        name = path.removeprefix("/rules/").split("/")[0]
        assert path.startswith("/rules/") and (pages.page_of(name) or name == "rules"), href
        if fragment:
            target = pages.shipped()[name]
            target = target if lang == SOURCE else f"{lang}/{target}"
            found, _ = pages.render(read(DOCS, target), target)
            assert f'id="{unquote(fragment)}"' in found, f"{here}: {href}: no such heading"


# --- the pages, served -----------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(PRESETS))
def test_the_rule_sheet_is_the_rules_page_s_first_part(client: TestClient, name: str,
                                                       lang: str) -> None:
    rel = pages.page_of(name)
    assert rel is not None
    text, _, _ = pages.localized_text(rel, lang)
    html = get(client, f"/rules/{name}/sheet", lang)
    assert 'class="doc sheet"' in html
    # the page's title and its "How to play", and none of its later parts
    first, *later = h2s(text)
    assert headings(html, 1) == [h1(text)] and headings(html, 2) == [first]
    assert html.count('<figure class="diagram">') == text.split(f"## {later[0]}")[0].count(
        "```position")
    for words in ("Board to print", "People and history", "Rules page", "Print"):
        assert say(words, lang, "web") in html


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(PRESETS))
def test_the_board_to_print_is_the_preset_s_board(client: TestClient, name: str,
                                                  lang: str) -> None:
    from nugar.rules import new_game
    from nugar.rules.boards import GridBoard

    html = get(client, f"/rules/{name}/board", lang)
    board = new_game(name).descriptor.parts.board(new_game(name))
    svg = html[html.index("<svg"):html.index("</svg>")]
    width, height = (float(v) for v in re.search(
        r'width="([\d.]+)mm" height="([\d.]+)mm"', svg).groups())
    assert width <= 186 and height <= 210  # A4 less its margins, the title above
    if isinstance(board, GridBoard):
        assert svg.count("<rect") == board.rows * board.cols
        bring = Text.plural("Print this page on A4 paper. Each player needs {count} piece of "
                            "his own colour: a stone, a seed, a bottle top or a short stick.",
                            "Print this page on A4 paper. Each player needs {count} pieces of "
                            "his own colour: stones, seeds, bottle tops or short sticks.",
                            12, domain="web", count=12)
        assert escape(say(bring, lang, "web")) in html
    else:
        assert svg.count("<circle") == 2 * len(board.holes[0]) and svg.count("<rect") == 2
    # each side named after its player, in the language
    game = new_game(name)
    for player in (1, 2):
        assert f">{say(game.player_name(player), lang)}</text>" in svg
    assert '<div class="print-board" dir="ltr">' in html  # never mirrored


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("name", list(PRESETS))
def test_the_history_page_is_the_game_s_in_the_language(client: TestClient, name: str,
                                                         lang: str) -> None:
    game = PRESETS[name].game.lower()
    rel = f"{printable.HISTORY}/{game}.md"
    text = read(DOCS, rel if lang == SOURCE else f"{lang}/{rel}")
    html = get(client, f"/rules/{name}/history", lang)
    assert headings(html, 1) == [h1(text)] and headings(html, 2) == h2s(text)
    assert f'href="/rules/{name}/sheet"' in html and f'href="/rules/{name}/board"' in html


def test_the_pages_follow_the_browser_s_language(client: TestClient) -> None:
    for header, lang in (("ha-NG,ha;q=0.9,en;q=0.5", "ha"), ("ar-SD", "ar"), ("fr-NE", "fr"),
                         ("de", "en")):
        for what in ("sheet", "board", "history"):
            r = client.get(f"/rules/dala/{what}", headers={"Accept-Language": header})
            assert f'<html lang="{lang}"' in r.text, (what, header)


@pytest.mark.parametrize("path", ["/rules/chess/sheet", "/rules/chess/board",
                                  "/rules/chess/history", "/rules/rules/sheet",
                                  "/rules/rules/board", "/rules/rules/history",
                                  "/rules/x%20y/sheet"])
def test_a_missing_page_is_a_page_saying_so(client: TestClient, path: str) -> None:
    r = client.get(path, headers={"Cookie": f"{COOKIE}=ha"})
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert '<html lang="ha"' in r.text and say("No such rules page", "ha", "web") in r.text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_game_pages_lead_to_the_pages_to_print(client: TestClient, lang: str) -> None:
    for name in PRESETS:
        html = get(client, f"/rules/{name}", lang)
        for what, words in (("sheet", "Rule sheet to print"), ("board", "Board to print"),
                            ("history", "People and history")):
            assert f'<a href="/rules/{name}/{what}">{say(words, lang, "web")}</a>' in html
    assert "/sheet" not in get(client, "/rules/rules", lang)  # the contract has none


def test_the_first_part_stops_at_the_second_heading_outside_code() -> None:
    text = "# T\n\nintro\n\n## One\n\n```python\n## not a heading\n```\n\nx\n\n## Two\n\ny\n"
    assert printable.first_part(text) == "# T\n## One\n\n```python\n## not a heading\n```\n\nx\n"
    assert printable.first_part("# T\n\nno parts\n") == "# T"
