"""The pages for teachers and museums in Chromium (the shared server and browser of
``conftest.py``): printed to PDF on A4 (``page.pdf()``), every game's rule sheet and board
is one page in every language; on screen at 390 and 1280 px nothing overflows; the Print
button prints; /learn leads to the pages. Screenshots (every page in every language, both
widths, a rules page with its links to them, and the printed sheet) go to
``$NUGAR_SCREENSHOTS`` (``docs/screenshots`` is made that way)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, language_page, no_overflow
from nugar.i18n import LANGUAGES, say
from nugar.rules import PRESETS

#: the page objects of a PDF (the page tree's ``/Pages`` node excluded)
PAGE_OBJECT = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")


def pdf_pages(pdf: bytes) -> int:
    assert pdf.startswith(b"%PDF-")
    return len(PAGE_OBJECT.findall(pdf))


def printed(page: Page) -> bytes:
    """The page printed by Chromium, on the page size its stylesheet asks for (A4)."""
    page.emulate_media(media="print")
    pdf = page.pdf(prefer_css_page_size=True, print_background=False)
    page.emulate_media(media="screen")
    return pdf


def open_page(browser: Browser, server: str, lang: str, path: str, width: int = 1280) -> Page:
    page = language_page(browser, server, lang, width=width)
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    return page


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_rule_sheet_and_board_prints_on_one_a4_page(server: str, browser: Browser,
                                                          shots: Path, lang: str) -> None:
    page = open_page(browser, server, lang, "/")
    for name in PRESETS:
        for what in ("sheet", "board"):
            page.goto(f"{server}/rules/{name}/{what}")
            page.wait_for_load_state("networkidle")
            pdf = printed(page)
            assert pdf_pages(pdf) == 1, (lang, name, what)
            if name == "dara" and what == "sheet":
                (shots / f"sheet-{lang}.pdf").write_bytes(pdf)
    assert not PAGE_ERRORS[page]


def test_a_long_page_prints_on_several(server: str, browser: Browser) -> None:
    """The count of pages is real: a whole rules page takes several A4 pages."""
    page = open_page(browser, server, "en", "/rules/dara")
    assert pdf_pages(printed(page)) > 3


def test_the_printed_sheet_hides_the_links_and_keeps_its_diagrams(server: str,
                                                                   browser: Browser) -> None:
    page = open_page(browser, server, "ha", "/rules/dara/sheet")
    page.emulate_media(media="print")
    assert not page.is_visible("p.teach") and not page.is_visible("header.top")
    assert page.locator("figure.diagram svg").count() >= 3
    assert all(page.locator("figure.diagram svg").nth(i).is_visible()
               for i in range(page.locator("figure.diagram svg").count()))
    # two columns on the paper: diagrams at most 58 mm (about 219 CSS px) wide
    widths = page.eval_on_selector_all("figure.diagram svg",
                                       "els => els.map(e => e.getBoundingClientRect().width)")
    assert max(widths) <= 220


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_pages_to_print_on_screen(server: str, browser: Browser, shots: Path,
                                      lang: str) -> None:
    for what, path in (("sheet", "/rules/dara/sheet"), ("board", "/rules/kalah/board"),
                       ("history", "/rules/dala/history"), ("rules", "/rules/dala")):
        page = open_page(browser, server, lang, path, width=390)
        assert page.get_attribute("html", "lang") == lang
        assert page.input_value("#lang-switch") == lang  # the language switch is there
        no_overflow(page, shots, f"{what}-{lang}")
        assert not PAGE_ERRORS[page]
        page.context.close()


def test_the_print_button_prints(server: str, browser: Browser) -> None:
    page = language_page(browser, server, "fr", width=1280)
    page.add_init_script("window.print = () => { window.printed = (window.printed || 0) + 1; }")
    page.goto(server + "/rules/kalah/board")
    page.click(f"button:has-text('{say('Print', 'fr', 'web')}')")
    assert page.evaluate("window.printed") == 1


@pytest.mark.parametrize("lang", ["en", "ha"])
def test_learn_leads_to_the_pages_to_print(server: str, browser: Browser, lang: str) -> None:
    page = open_page(browser, server, lang, "/learn", width=390)
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    card = page.locator('li[data-lesson="dala"] p.teach a')
    assert card.count() == 3
    assert [card.nth(i).get_attribute("href") for i in range(3)] == [
        "/rules/dala/sheet", "/rules/dala/board", "/rules/dala/history"]
    with page.expect_navigation():
        card.nth(2).click()
    assert page.url.endswith("/rules/dala/history")
    assert page.get_attribute("html", "lang") == lang
    page.goto(server + "/learn/kalah")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    links = page.locator("#teaching-links a")
    assert links.count() == 3 and links.nth(0).get_attribute("href") == "/rules/kalah/sheet"
    assert links.nth(1).text_content() == say("Board to print", lang, "web")
