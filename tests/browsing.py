"""What the browser tests share: Debian's Chromium, a page that records its script errors,
and the waits on a game page (its version, its moves). The fixtures (``server``, ``browser``,
``shots``) are in ``conftest.py``."""

from __future__ import annotations

from collections.abc import Callable
from weakref import WeakKeyDictionary

from playwright.sync_api import Browser, Page, Request

from nugar.rules import Game

#: script errors seen by each page (filled by its 'pageerror' listener)
PAGE_ERRORS: WeakKeyDictionary[Page, list[str]] = WeakKeyDictionary()

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT = 30_000  # ms for any one wait (the machine may be busy)


def new_page(browser: Browser, width: int = 1100, height: int = 820) -> Page:
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # a script, style or connection refused by the Content-Security-Policy counts as an error
    page.on("console", lambda m: errors.append(m.text)
            if "Content Security Policy" in m.text else None)
    PAGE_ERRORS[page] = errors
    return page


def start_game(page: Page, base: str, preset: str, mode: str, level: int = 1,
               seat: int = 1) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", preset)
    page.check(f'input[name="mode"][value="{mode}"]')
    if mode == "ai":
        page.select_option("#level", str(level))
    if mode != "hotseat":
        page.select_option("#seat", str(seat))
    page.click("#start")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#board svg")
    page.wait_for_function("() => document.body.dataset.v !== undefined")


def play_lit_holes(page: Page, most: int,
                   after: Callable[[int], object] = lambda clicks: None) -> int:
    """Click the first lit hole of a sowing board until the result shows, each click waited
    for (the game's version rises); ``after(clicks)`` after each; the number of clicks, at
    most ``most``."""
    clicks = 0
    while True:
        page.wait_for_function(
            "() => !document.getElementById('result').hidden || "
            "document.querySelector('#board .hole.lit') !== null", timeout=TIMEOUT)
        if not page.is_hidden("#result"):
            return clicks
        v = version(page)
        page.click("#board .hole.lit")
        clicks += 1
        wait_version_above(page, v)
        assert clicks < most
        after(clicks)


def version(page: Page) -> int:
    return int(page.evaluate("document.body.dataset.v"))


def wait_version_above(page: Page, v: int) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.v) > {v}")


def moves_text(page: Page) -> list[str]:
    texts: list[str] = page.eval_on_selector_all("#moves .turn",
                                                 "els => els.map(e => e.textContent)")
    return texts


# --- tests ------------------------------------------------------------------------------------


def move_posts(page: Page) -> list[str]:
    """The moves this page sends from now on (the bodies of its POST .../move requests)."""
    sent: list[str] = []

    def seen(r: Request) -> None:
        if r.method == "POST" and r.url.endswith("/move"):
            sent.append(r.post_data or "")

    page.on("request", seen)
    return sent


def why(page: Page) -> str:
    """The reason shown beside the board for the last refused click, once it is there."""
    page.wait_for_function("() => document.getElementById('why').textContent.length > 0")
    return page.text_content("#why") or ""


def answers(page: Page) -> int:
    """How many answers a lessons' or puzzles' page has shown (``data-answers``)."""
    return int(page.evaluate("Number(document.body.dataset.answers || 0)"))


def click_and_wait(page: Page, selector: str) -> None:
    """Click a cell (or button) that sends a move, and wait for the answer to be shown."""
    n = answers(page)
    page.click(selector)
    page.wait_for_function(f"() => Number(document.body.dataset.answers || 0) > {n}")


def play_turn(page: Page, game: Game, turn: str,
              after: Callable[[], object] = lambda: None) -> None:
    """Play ``turn`` from ``game``'s position (played on too) on a lessons' or puzzles' board
    as a player does: a square for a drop or a capture, a piece then its target for a step, a
    hole for a sowing, each answer waited for; ``after()`` after each move."""
    for text in game.descriptor.split_turn(turn):
        move = game.parse_move(text)
        if move.kind == "pass":
            click_and_wait(page, "#pass")
        elif move.kind == "sow":
            click_and_wait(page, f'#board [data-player="{game.to_move}"][data-hole="{text}"]')
        elif move.kind == "step":
            page.click(f'#board [data-square="{move.squares[0]}"]')
            page.wait_for_selector(f'#board .sel[data-square="{move.squares[0]}"]')
            click_and_wait(page, f'#board [data-square="{move.squares[1]}"]')
        else:
            click_and_wait(page, f'#board [data-square="{move.squares[0]}"]')
        game.play(move)
        after()
