"""The rules pages written for players: each game's page opens with how to play (the board,
the pieces, a turn, how a game is won, the sources), with diagrams drawn from positions by the
board's own SVG; module names and code wait in a developers' section at the end; and every
page fits a 390 px screen, wide tables scrolling in their own box (checked in chromium, as
``test_browser.py``)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser

from browsing import PAGE_ERRORS, new_page
from nugar.errors import NugarError
from nugar.rules import from_position
from nugar.server.http import pages
from nugar.server.play.render import svg

GAMES = ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]
PLAYERS_PART = ["The board", "The pieces", "A turn", "How a game is won", "Sources"]


def parts(name: str) -> tuple[str, str]:
    """A game page's HTML before its developers' heading, and from it on."""
    html = pages.rules_page(name)
    assert html is not None
    head, mark, dev = html.partition('<h2 id="for-developers">')
    assert mark, f"{name}: no developers' section"
    return head, dev


@pytest.mark.parametrize("name", GAMES)
def test_a_game_page_opens_with_how_to_play(name: str) -> None:
    head, dev = parts(name)
    h2 = re.findall(r"<h2 id=\"[^\"]*\">(.*?)</h2>", head)
    assert h2[0] == "How to play"
    h3 = re.findall(r"<h3 id=\"[^\"]*\">(.*?)</h3>", head.split("</h2>")[1].split("<h2")[0])
    assert h3 == PLAYERS_PART
    # diagrams drawn by the board's own SVG, from positions, before anything for programmers
    assert head.count('<figure class="diagram"><svg') >= 1
    assert 'class="board ' in head
    for said in ("nugar.", "&gt;&gt;&gt;", "kernel", "import "):
        assert said not in head, f"{name}: {said!r} before the developers' section"
    assert "&gt;&gt;&gt; import nugar" in dev and "nugar.kernels" in dev
    # every table scrolls in a box of its own
    html = head + dev
    assert html.count("<table>") == html.count('<div class="table-scroll">\n<table>')


def test_a_diagram_is_the_boards_own_picture_with_its_caption() -> None:
    text = "kalah 4,4,0,5,5,5:1/4,4,4,4,4,4:0 s\nSouth sowed hole 3 & sows again."
    html = pages.diagram(text)
    assert html == ('<figure class="diagram">' + svg(from_position(text.split("\n")[0]))
                    + "<figcaption>South sowed hole 3 &amp; sows again.</figcaption>"
                      "</figure>\n")
    with pytest.raises(NugarError):
        pages.diagram("kalah 4,4:0/4,4:0 s")  # a broken diagram is an error, never shipped
    body, _ = pages.render("# T\n\n```position\ndara ....../....../....../....../...... b "
                           "hand=12,12\n```\n\n|a|b|\n|-|-|\n|1|2|\n", "games/t.md", {})
    assert '<figure class="diagram"><svg' in body and "<figcaption>" not in body
    assert '<div class="table-scroll">\n<table>' in body


def test_every_rules_page_fits_a_phone(server: str, browser: Browser) -> None:
    page = new_page(browser, 390, 844)
    for name in ["rules", *GAMES]:
        page.goto(f"{server}/rules/{name}")
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        # the wide tables scroll inside their own box
        boxes = page.eval_on_selector_all(
            ".table-scroll", "els => els.map(e => [e.scrollWidth, e.clientWidth])")
        assert all(client <= 390 for _, client in boxes)
        widths = page.eval_on_selector_all("figure.diagram svg",
                                           "els => els.map(e => e.getBoundingClientRect().right)")
        assert all(right <= 390 for right in widths), name
    assert not PAGE_ERRORS[page]
