"""The web app in English, French and Arabic, in the browser (the shared server and browser of
``test_browser.py``): per language, one page plays a hot-seat Kalah game to the end, has a
click refused, opens a lesson, and is checked for text overflowing its box at 390 px and
1280 px wide; Arabic pages are right to left. Screenshots (game and lesson, French and Arabic,
both widths) go to ``$NUGAR_SCREENSHOTS`` (``docs/screenshots`` is made that way).

The refusals the server writes (the API's ``message``) and the rules pages are translated
by the server's catalogs: ``test_the_server_s_refusal_and_the_rules_page_in_the_language``
checks them, and passes once those are merged (marked so until then).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, language_page, new_page, no_overflow, play_lit_holes
from nugar import i18n

LANGS = ["en", "fr", "ar", "ha"]

def tr(lang: str, msgid: str, **fields: object) -> str:
    """``msgid`` as the page writes it in ``lang`` (the isolates i18n.js puts around a field
    in a right-to-left page included)."""
    text = i18n.gettext_for(lang, "webjs")(msgid)
    for key, value in fields.items():
        shown = f"\u2068{value}\u2069" if lang in i18n.RTL else str(value)
        text = text.replace("{" + key + "}", shown)
    return text


def check_language(page: Page, lang: str) -> None:
    assert page.get_attribute("html", "lang") == lang
    assert page.get_attribute("html", "dir") == i18n.direction(lang)
    assert page.input_value("#lang-switch") == lang
    # the board is never mirrored
    if page.locator("#board").count():
        assert page.get_attribute("#board", "dir") == "ltr"


@pytest.mark.parametrize("lang", LANGS)
def test_a_game_a_refused_click_and_a_lesson_in_the_language(
        server: str, browser: Browser, shots: Path, lang: str) -> None:
    page = language_page(browser, server, lang)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    check_language(page, lang)
    assert page.text_content("#start") == tr(lang, "Start")
    # the seats carry the names of the players, in the language
    page.select_option("#preset", "kalah")
    assert page.text_content('#seat option[value="1"]') == tr(
        lang, "{name} (first)", name=tr(lang, "South"))
    # the rules' own words (the preset's description, each option's meaning) too
    description = tr(lang, "Kalah, the base game of Dracala (6 holes, 4 seeds)")
    assert description in (page.text_content("#preset-info") or "")
    assert tr(lang, "seeds per hole at the start") in (
        page.text_content("#options") or "")
    page.click("#options-box summary")
    page.fill('[data-option="pits"]', "3")
    page.fill('[data-option="seeds"]', "2")
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#board svg")
    page.wait_for_function("() => document.body.dataset.v !== undefined")
    check_language(page, lang)
    assert page.text_content("#you") == tr(lang, "Both players share this screen.")

    # a click refused by the page: South's turn, a hole of North's
    page.click('#board .hole[data-player="2"][data-hole="1"]')
    south, north = tr(lang, "South"), tr(lang, "North")
    said = tr(lang, "that hole is {other}'s: {me} sows from {me}'s own holes",
              other=north, me=south)
    assert page.text_content("#why") == said[0].upper() + said[1:] + "."

    play_lit_holes(page, 100)
    result = page.text_content("#result") or ""
    wins, draw = tr(lang, "{name} wins {a} : {b} ({first}'s store : {second}'s store)"), \
        tr(lang, "Draw {a} : {b} ({first}'s store : {second}'s store)")
    plain = result.replace("\u2068", "").replace("\u2069", "")
    assert plain.startswith((wins.split("{")[0], draw.split("{")[0]))
    assert south in plain and north in plain  # the stores, named in the language
    assert page.text_content("#status") == tr(lang, "Game over")
    no_overflow(page, shots if lang != "en" else None, f"game-{lang}")

    # a lesson: its page and its step count in the language
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(server + "/learn/kalah")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    check_language(page, lang)
    assert (page.text_content("#step-count") or "").startswith(
        tr(lang, "Step {i} of {n}", i=1, n=0).split("{")[0][:6])
    assert page.text_content("#again") == tr(lang, "Start the step again")
    no_overflow(page, shots if lang != "en" else None, f"lesson-{lang}")
    assert not PAGE_ERRORS[page]


@pytest.mark.parametrize("lang", ["fr", "ar", "ha"])
def test_the_language_switch_keeps_the_choice(server: str, browser: Browser, lang: str) -> None:
    page = new_page(browser, width=390)
    page.goto(server + "/learn")
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    assert page.get_attribute("html", "lang") == "en"
    with page.expect_navigation():
        page.select_option("#lang-switch", lang)
    page.wait_for_function("() => document.body.dataset.ready === '1'")
    check_language(page, lang)
    cookie = [c for c in page.context.cookies() if c["name"] == "nugar_lang"]
    assert cookie and cookie[0]["value"] == lang and cookie[0]["sameSite"] == "Lax"
    assert page.text_content("#lessons h1") == tr(lang, "Learn to play")
    no_overflow(page)
    # the other pages, at both widths
    for path, heading, text in (("/", "#home h1", "Start a game"),
                                ("/signin", "#signin h1", "Sign in"),
                                ("/leaderboard", "#leaderboard h1", "Leaderboard")):
        page.goto(server + path)
        page.wait_for_selector(heading)  # its section shown
        check_language(page, lang)
        assert page.text_content(heading) == tr(lang, text)
        no_overflow(page)
    # a page the server writes without the scripts' catalog (a rules page) gets i18n.js, and
    # so the switch, from accounts.js
    page.goto(server + "/rules/dara")
    page.wait_for_selector("#lang-switch")
    page.wait_for_selector("#menu-leaderboard")
    assert not PAGE_ERRORS[page]


@pytest.mark.parametrize("lang", ["fr", "ar", "ha"])
def test_the_server_s_refusal_and_the_rules_page_in_the_language(
        server: str, browser: Browser, lang: str) -> None:
    page = language_page(browser, server, lang, width=1280)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", "dara")
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_selector("#board svg")
    page.fill("#move-input", "z9")  # not a square: the server refuses it, in the language
    page.click("#move-go")
    page.wait_for_function("() => document.getElementById('error').textContent !== ''")
    refusal = page.text_content("#error") or ""
    assert "z9" in refusal
    # the same move asked without the language cookie: the English sentence, which the
    # page in French or Arabic does not show
    english = page.evaluate("""async (id) => {
      const seat = JSON.parse(localStorage.getItem(`nugar:seat:${id}`));
      const r = await fetch(`/api/games/${id}/move`, { method: "POST", credentials: "omit",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ key: seat.key, move: "z9" }) });
      return (await r.json()).detail;
    }""", page.url.split("/g/")[1].split("#")[0])
    assert english and refusal != english
    page.goto(server + "/rules/dara")
    assert page.get_attribute("html", "lang") == lang
    # its account menu and switch in the language (the server embeds the catalog there too)
    page.wait_for_selector("#menu-leaderboard")
    assert page.text_content("#menu-leaderboard") == tr(lang, "Leaderboard")
    assert page.input_value("#lang-switch") == lang
    assert page.get_attribute("html", "dir") == i18n.direction(lang)
    no_overflow(page)


def test_the_switch_lists_the_servers_languages(server: str, browser: Browser) -> None:
    # the switch's languages come from the server (nugar.i18n.LANGUAGES, each in its own
    # name), on the pages of static/ and on the rules pages the server writes alike
    page = new_page(browser, width=390)
    for path in ("/learn", "/rules/dara"):
        page.goto(server + path)
        page.wait_for_selector("#menu-leaderboard")
        options = page.eval_on_selector_all("#lang-switch option",
                                            "os => os.map((o) => [o.value, o.textContent])")
        assert options == [[code, i18n.NATIVE_NAMES[code]] for code in i18n.LANGUAGES], path
    assert not PAGE_ERRORS[page]
