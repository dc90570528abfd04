"""The board as people expect it, in a real browser (Debian's chromium through playwright, as
``test_browser.py``, whose helpers these tests share): refused clicks
that say why, the hint on the board, keyboard play on the ARIA grid, sowings drawn one after
the other with no input meanwhile, the phone width, the not-found pages, a connection error
that goes once the connection is back, and the rematch after a game.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser

# test_browser.py's module fixtures (server, browser, shots) serve these tests too
from browsing import (
    PAGE_ERRORS,
    move_posts,
    moves_text,
    new_page,
    start_game,
    version,
    wait_version_above,
    why,
)

#: the game page's module (the same one the page runs) held where a test's script reads it
GAME_MODULE = "async () => { window.nugarGame = await import('/static/game.js'); }"

def test_refused_clicks_say_why_from_the_engine(server: str, browser: Browser,
                                                shots: Path) -> None:
    page = new_page(browser)
    start_game(page, server, "dala", "friend", seat=1)
    sent = move_posts(page)
    page.click('[data-square="a1"]')  # dala: the first drops fill the centre
    assert "centre squares" in why(page) and "must be filled first" in why(page)
    assert page.locator('[data-square="a1"].refused').count() == 1  # shown on the board too
    page.screenshot(path=str(shots / "refused-click.png"))
    v = version(page)
    page.click('[data-square="c3"]')
    wait_version_above(page, v)
    assert page.text_content("#why") == ""  # the new position clears it
    page.click('[data-square="d4"]')  # a legal square, but it is White's turn
    assert why(page).startswith("It is not your turn: White is to move")
    page.click('[data-square="c3"]')
    assert "not your turn" in why(page)
    assert [json.loads(body)["move"] for body in sent] == ["c3"]  # only the legal click
    assert moves_text(page) == ["c3"]

    # sowing, hot-seat: an empty hole, the opponent's hole, a store
    page = new_page(browser)
    start_game(page, server, "kalah", "hotseat")
    sent = move_posts(page)
    v = version(page)
    page.click('[data-player="1"][data-hole="3"]')  # 4 seeds: the last in the store, again
    wait_version_above(page, v)
    page.wait_for_function("() => document.body.dataset.queued === '0'")
    page.click('[data-player="1"][data-hole="3"]')
    assert why(page) == "Hole 3 is empty."
    page.click('[data-player="2"][data-hole="2"]')
    assert why(page).startswith("That hole is North's")
    page.click('.store[data-player="1"]')
    assert why(page).startswith("A store is not played")
    assert len(sent) == 1
    # the hint is marked on the board, not only written
    page.click("#hint")
    page.wait_for_function(
        "() => document.getElementById('hint-text').textContent.startsWith('Hint')")
    hint = (page.text_content("#hint-text") or "").removeprefix("Hint: ")
    assert page.locator(f'[data-player="1"][data-hole="{hint}"].hinted').count() == 1
    assert not PAGE_ERRORS[page]


def test_step_phase_refusals(server: str, browser: Browser) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.click("#options-box summary")
    page.fill('[data-option="pieces"]', "4")
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_function("() => document.body.dataset.v !== undefined")
    gid = page.url.split("/g/")[1].split("#")[0]
    key = page.evaluate(f"() => JSON.parse(localStorage.getItem('nugar:seat:{gid}')).key")
    for square in ["a1", "a5", "b1", "b5", "c2", "d5", "f3", "e3"]:
        r = httpx.post(f"{server}/api/games/{gid}/move", json={"key": key, "move": square})
        assert r.status_code == 200, r.text
    page.wait_for_function("() => Number(document.body.dataset.ply) === 8")
    page.click('[data-square="a5"]')  # White's piece, Black to move
    assert why(page) == "The piece on a5 is White's, not Black's."
    page.click('[data-square="c4"]')  # empty, nothing chosen
    assert why(page).startswith("c4 is empty: choose one of Black's pieces first")
    page.click('[data-square="c2"]')  # chosen; then a square it cannot reach
    page.click('[data-square="c4"]')
    assert why(page).startswith("c2-c4 is not a step: a piece moves one square")
    # a step by keyboard (the piece, then its target) that forms a three: a capture is
    # pending, and an empty square cannot be taken
    page.evaluate("document.querySelector('[data-square=\"c2\"]').focus()")
    page.keyboard.press("Enter")
    assert page.get_attribute('[data-square="c2"]', "aria-selected") == "true"
    assert page.get_attribute('[data-square="c2"]', "aria-label") == "c2, Black piece, chosen"
    page.keyboard.press("ArrowDown")
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        "c1, empty, a target of the chosen piece"
    v = version(page)
    page.keyboard.press("Enter")
    wait_version_above(page, v)
    page.click('[data-square="b2"]')
    assert why(page) == ("Black formed a three and must first capture a White piece; "
                         "there is no piece on b2 to capture.")
    page.click('[data-square="b1"]')
    assert why(page).endswith("; b1 holds Black's own piece; capture a White piece.")


def test_keyboard_play_on_the_board_grid(server: str, browser: Browser) -> None:
    page = new_page(browser)
    start_game(page, server, "dara", "hotseat")
    grid = page.locator("#board svg")
    assert grid.get_attribute("role") == "grid"
    assert page.locator('#board [role="row"]').count() == 5
    assert page.get_attribute('[data-square="c3"]', "aria-label") == "c3, empty, playable"
    assert page.locator('#board [tabindex="0"]').count() == 1  # one stop for Tab
    # Shift+Tab from the buttons below the board reaches the board's one stop
    page.focus("#nav-first")
    page.keyboard.press("Shift+Tab")
    start = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert start and start.endswith(", empty, playable")
    page.evaluate("document.querySelector('[data-square=\"a1\"]').focus()")
    for key in ["ArrowRight", "ArrowRight", "ArrowUp", "ArrowUp"]:  # a1 -> c1 -> c3
        page.keyboard.press(key)
    assert page.evaluate("document.activeElement.dataset.square") == "c3"
    v = version(page)
    page.keyboard.press("Enter")
    wait_version_above(page, v)
    assert moves_text(page) == ["c3"]
    # the focus stays on the square played, now labelled with its piece
    page.wait_for_function("() => document.activeElement.dataset.square === 'c3'")
    assert page.get_attribute('[data-square="c3"]', "aria-label") == "c3, Black piece"
    page.keyboard.press(" ")  # c3 is taken: Space plays too, and is refused
    assert why(page) == "c3 is occupied (by a Black piece)."
    page.keyboard.press("ArrowDown")
    v = version(page)
    page.keyboard.press("Space")
    wait_version_above(page, v)
    assert moves_text(page) == ["c3", "c2"]
    # holes and stores are cells too
    page = new_page(browser)
    start_game(page, server, "kalah", "hotseat")
    assert page.get_attribute('[data-player="1"][data-hole="4"]', "aria-label") == \
        "South hole 4, 4 seeds, playable"
    assert page.get_attribute('.store[data-player="2"]', "aria-label") == "North's store, 0 seeds"
    page.evaluate("document.querySelector('[data-player=\"1\"][data-hole=\"1\"]').focus()")
    page.keyboard.press("ArrowUp")  # the hole drawn above: North's 6
    assert page.evaluate("document.activeElement.getAttribute('aria-label')") == \
        "North hole 6, 4 seeds"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowRight")
    v = version(page)
    page.keyboard.press("Enter")
    wait_version_above(page, v)
    assert moves_text(page) == ["2"]
    assert not PAGE_ERRORS[page]


def test_computer_reply_waits_for_the_animation_and_input_waits_for_both(
        server: str, browser: Browser) -> None:
    page = new_page(browser)
    page.add_init_script("window.nugarSlowMotion = 6")  # sowings drawn six times slower
    start_game(page, server, "kalah", "ai", level=1, seat=1)
    gid = page.url.split("/g/")[1].split("#")[0]
    sent = move_posts(page)
    page.click('[data-player="1"][data-hole="1"]')  # 4 seeds, no bonus: the computer replies
    # the computer's reply is stored long before both sowings are drawn (about 3 s each)
    end = time.monotonic() + 30
    while True:
        state = httpx.get(f"{server}/api/games/{gid}").json()
        if state["to_move"] == 1 and state["ply"] >= 2:
            break
        assert time.monotonic() < end, "the computer did not reply"
        time.sleep(0.05)
    final = state["v"]
    # clicks on a hole of mine until the page shows the computer's reply, each made in the
    # page only while the board is not yet drawn up to it
    click_before_final = f"""() => {{
        if (Number(document.body.dataset.v) >= {final}) return false;
        document.querySelector('[data-player="1"][data-hole="3"] circle')
            .dispatchEvent(new MouseEvent('click', {{bubbles: true}}));
        return true;
    }}"""
    clicks = 0
    while page.evaluate(click_before_final):
        clicks += 1
        page.wait_for_timeout(100)
    assert clicks >= 5
    # nothing was sent from a half-drawn board: the last click, kept, is played once the
    # computer's reply is drawn (it leaves me to move), on the version drawn last
    page.evaluate(GAME_MODULE)  # the page's own game.js, for the test to read
    page.wait_for_function("() => nugarGame.ui.state && nugarGame.ui.state.moves.length >= 3")
    assert len(sent) == 2 and json.loads(sent[1]) == {**json.loads(sent[0]), "move": "3",
                                                       "v": final}
    assert not PAGE_ERRORS[page]


def test_updates_merge_onto_the_latest_state_received_not_the_one_drawn(
        server: str, browser: Browser) -> None:
    """While states wait in the drawing queue, each update the server sends (what changed
    since a version) merges onto the latest state received: no version is asked for again,
    and the page ends on the stored game."""
    page = new_page(browser)
    start_game(page, server, "kalah", "hotseat")
    gid = page.url.split("/g/")[1].split("#")[0]
    key = page.evaluate(f"JSON.parse(localStorage.getItem('nugar:seat:{gid}')).key")
    page.wait_for_function("() => document.getElementById('conn').textContent === 'live'")
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if "since=" in r.url else None)
    # hold the drawing queue: nothing newer than version 1 is drawn until released
    page.evaluate(GAME_MODULE)  # the page's own game.js, for the test to read
    page.evaluate("() => { const ui = nugarGame.ui; ui.queue = ui.queue.then(() =>"
                  " new Promise((go) => { window.releaseQueue = go; })); }")
    played = []
    for _ in range(3):  # three turns played elsewhere: three updates on the websocket
        state = httpx.get(f"{server}/api/games/{gid}").json()
        move = state["legal"][-1]
        r = httpx.post(f"{server}/api/games/{gid}/move",
                       json={"key": key, "move": move, "v": state["v"]})
        assert r.status_code == 200, r.text
        played.append(move)
    final = httpx.get(f"{server}/api/games/{gid}").json()
    page.wait_for_function(
        f"() => nugarGame.ui.received && nugarGame.ui.received.v === {final['v']}")
    assert version(page) == 1  # still drawing nothing newer
    page.evaluate("() => window.releaseQueue()")
    page.wait_for_function(f"() => Number(document.body.dataset.v) === {final['v']}")
    assert page.evaluate("nugarGame.ui.state.moves") == final["moves"]
    assert asked == []  # every update merged: none was asked for again
    assert not PAGE_ERRORS[page]


def test_phone_width_home_with_the_options_open(server: str, browser: Browser,
                                                shots: Path) -> None:
    page = new_page(browser, 390, 844)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.click("#options-box summary")
    for preset in ["dara", "dala", "kalah", "dracala"]:
        page.select_option("#preset", preset)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, (preset, width)
        info = page.text_content("#preset-info") or ""
        first = info.split(":")[0].split()[0]
        assert not info.startswith(f"{first}: {first}"), info  # no "Dracala: Dracala: ..."
    page.screenshot(path=str(shots / "home-phone-options.png"), full_page=True)


def test_unknown_game_and_rules_pages_are_404_pages(server: str, browser: Browser) -> None:
    page = new_page(browser)
    answer = page.goto(server + "/g/nosuchgame")
    assert answer is not None and answer.status == 404
    assert page.text_content("h1") == "No such game"
    assert page.locator("#board, #resign").count() == 0
    answer = page.goto(server + "/rules/nosuch")
    assert answer is not None and answer.status == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert page.text_content("h1") == "No such rules page"
    page.click("text=Start a new game")
    page.wait_for_selector("#preset option", state="attached")


def test_connection_error_goes_when_the_connection_is_back(server: str,
                                                           browser: Browser) -> None:
    page = new_page(browser)
    start_game(page, server, "dara", "hotseat")
    page.route("**/api/games/*/move", lambda route: route.abort())
    page.click('[data-square="c3"]')
    page.wait_for_function("() => document.getElementById('error').textContent !== ''")
    assert "cannot be reached" in (page.text_content("#error") or "")
    page.unroute("**/api/games/*/move")
    page.evaluate(GAME_MODULE)  # the page's own game.js, for the test to read
    page.evaluate("nugarGame.ui.ws.close()")  # the websocket drops and comes back
    page.wait_for_function("() => document.getElementById('error').textContent === ''")
    assert page.text_content("#conn") == "live"


def test_rematch_with_colours_swapped(server: str, browser: Browser, shots: Path) -> None:
    first = new_page(browser)
    start_game(first, server, "dara", "friend", seat=1)
    gid = first.url.split("/g/")[1].split("#")[0]
    link = first.input_value("#share-seat")
    second = new_page(browser)
    second.goto(link)
    second.wait_for_function("() => document.body.dataset.v !== undefined")
    v = version(second)
    first.click('[data-square="c3"]')
    wait_version_above(second, v)
    first.on("dialog", lambda d: d.accept())
    first.click("#resign")
    second.wait_for_selector("#after:not([hidden])")
    # after the game: the record and its replay one click away
    assert second.get_attribute("#record-link", "href") == f"/api/games/{gid}/record"
    third = new_page(browser)
    third.goto(server + (second.get_attribute("#replay-link", "href") or ""))
    third.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 1")
    assert moves_text(third) == ["c3"]
    # a rematch: the first player asks, and is led to the new game as White
    first.click("#rematch")
    first.wait_for_url(lambda url: "/g/" in url and gid not in url)
    first.wait_for_function("() => document.body.dataset.v !== undefined")
    assert first.text_content("#you") == "You play White (second)."
    new_gid = first.url.split("/g/")[1].split("#")[0]
    # the link for the friend: their old secret, now for the first seat of the new game
    old_key = link.split("key=")[1]
    assert first.input_value("#share-seat").endswith(f"/g/{new_gid}#seat=1&key={old_key}")
    # the opponent is offered it live, and plays Black there
    second.wait_for_function("() => document.getElementById('rematch').textContent"
                             " === 'Play the rematch'")
    assert "offers a rematch" in (second.text_content("#rematch-text") or "")
    second.screenshot(path=str(shots / "rematch-offer.png"))
    second.click("#rematch")
    second.wait_for_url(f"**/g/{new_gid}")
    second.wait_for_function("() => document.body.dataset.v !== undefined")
    assert second.text_content("#you") == "You play Black (first)."
    v = version(first)
    second.click('[data-square="d4"]')
    wait_version_above(first, v)
    assert moves_text(first) == ["d4"]
    assert not PAGE_ERRORS[first] and not PAGE_ERRORS[second]
