"""The browser UI, driven by playwright through Debian's chromium (headless).

A real server runs in a subprocess on a free loopback port with its own SQLite file. The
browser is Debian's ``/usr/bin/chromium`` (``playwright install`` is never used). Screenshots
go to ``$NUGAR_SCREENSHOTS`` when set (``docs/screenshots`` is made that way), else to a
temporary folder.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser

import nugar
from browsing import (
    PAGE_ERRORS,
    TIMEOUT,
    moves_text,
    new_page,
    play_lit_holes,
    start_game,
    version,
    wait_version_above,
)


def test_full_game_against_the_ai_by_clicks(server: str, browser: Browser, shots: Path) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.screenshot(path=str(shots / "home.png"))
    page.select_option("#preset", "kalah")
    page.click("#options-box summary")
    page.fill('[data-option="pits"]', "4")
    page.fill('[data-option="seeds"]', "2")
    assert page.text_content("#rules-text") == "kalah(pits=4,seeds=2)"
    # each option says what it means and what it allows (the server's preset JSON)
    from nugar.rules.family import preset_json

    docs = page.eval_on_selector_all("#options .doc", "els => els.map(e => e.textContent)")
    options = preset_json(nugar.PRESETS["kalah"])["options"]
    assert docs == [f"{o['meaning']} ({o['allowed']})" for o in options]
    assert "holes per player (int 1..32)" in docs
    # the seats carry the names the server gives for the family
    assert page.text_content('#seat option[value="1"]') == "South (first)"
    assert page.text_content('#seat option[value="2"]') == "North (second)"
    page.select_option("#level", "1")
    page.click("#start")
    page.wait_for_selector("#board svg")
    page.wait_for_function("() => document.getElementById('you').textContent.length > 0")
    assert page.text_content("#you") == "You play South (first)."
    play_lit_holes(page, 200, lambda clicks: clicks == 2 and page.screenshot(
        path=str(shots / "kalah-against-ai.png")))
    result = page.text_content("#result") or ""
    assert ("wins" in result or "Draw" in result) and "(South's store : North's store)" in result
    page.screenshot(path=str(shots / "kalah-result.png"))
    gid = page.url.split("/g/")[1].split("#")[0]
    state = httpx.get(f"{server}/api/games/{gid}").json()
    assert state["over"] and state["mode"] == "ai"
    # the turns shown are the stored ones, and the engine agrees with the stored result
    assert moves_text(page) == [t["text"] for t in state["turns"]]
    game = nugar.new_game(state["rules"])
    for m in state["moves"]:
        game.play(m)
    assert game.result == state["result"]
    assert not PAGE_ERRORS[page]


def test_two_people_by_link_with_a_spectator(server: str, browser: Browser,
                                             shots: Path) -> None:
    alice = new_page(browser)
    start_game(alice, server, "dara", "friend", seat=1)
    link = alice.input_value("#share-seat")
    watch = alice.input_value("#share-watch")
    assert "#seat=2&key=" in link and "#" not in watch
    bob = new_page(browser)
    bob.goto(link)
    bob.wait_for_selector("#board svg")
    spectator = new_page(browser)
    spectator.goto(watch)
    spectator.wait_for_selector("#board svg")
    assert "watching" in (spectator.text_content("#you") or "")
    assert spectator.is_hidden("#typed") and spectator.is_hidden("#resign")

    v = version(alice)
    alice.click('[data-square="c3"]')
    for page in (alice, bob, spectator):
        wait_version_above(page, v)
        assert page.locator('[data-square="c3"] .piece.p1').count() == 1
    assert spectator.locator("#board .lit").count() == 0
    assert bob.locator("#board .lit").count() > 0 and alice.locator("#board .lit").count() == 0
    v = version(bob)
    bob.click('[data-square="d4"]')
    for page in (alice, bob, spectator):
        wait_version_above(page, v)
    assert moves_text(spectator) == ["c3", "d4"]
    spectator.screenshot(path=str(shots / "spectator.png"))

    # a takeback: Alice asks, Bob accepts, both turns are gone and Alice is to move again
    v = version(bob)
    alice.click("#takeback")
    for page in (alice, bob):  # each page shows the offer once it has the new version
        wait_version_above(page, v)
    assert "offers a takeback" in (bob.text_content("#offer-text") or "")
    alice.wait_for_function("() => document.getElementById('offer-text').textContent"
                            ".includes('You offered')")
    bob.click("#offer-accept")
    for page in (alice, bob, spectator):
        page.wait_for_function("() => document.querySelectorAll('#moves .turn').length === 0")
    assert alice.locator("#board .lit").count() > 0

    # a draw offer, seen by the other player and accepted
    v = version(bob)
    alice.click("#draw")
    wait_version_above(bob, v)
    assert "offers a draw" in (bob.text_content("#offer-text") or "")
    bob.click("#offer-accept")
    for page in (alice, bob, spectator):
        page.wait_for_selector("#result:not([hidden])")
        assert "Draw" in (page.text_content("#result") or "")
        assert "agreed" in (page.text_content("#result") or "")
    for page in (alice, bob, spectator):
        assert not PAGE_ERRORS[page]


def test_reload_mid_game_and_continue(server: str, browser: Browser, shots: Path) -> None:
    page = new_page(browser)
    start_game(page, server, "dara-sheet", "hotseat")
    for square in ["a1", "f5", "b1"]:
        v = version(page)
        page.click(f'[data-square="{square}"]')
        wait_version_above(page, v)
    url = page.url
    page.reload()
    page.wait_for_function("() => document.body.dataset.v !== undefined")
    assert page.url == url
    assert moves_text(page) == ["a1", "f5", "b1"]
    assert page.locator("#board .piece").count() == 3
    assert (page.text_content("#status") or "").startswith("White to move")
    # continue by typing a move (the keyboard path)
    v = version(page)
    page.fill("#move-input", "e5")
    page.press("#move-input", "Enter")
    wait_version_above(page, v)
    assert moves_text(page) == ["a1", "f5", "b1", "e5"]
    # a typed illegal move is refused with the engine's reason, nothing changes
    page.fill("#move-input", "e5")
    page.press("#move-input", "Enter")
    page.wait_for_function("() => document.getElementById('error').textContent.length > 0")
    assert (page.text_content("#error") or "").startswith(
        "e5 is not legal here: e5 is occupied (by a White piece); Black may play: ")
    assert moves_text(page) == ["a1", "f5", "b1", "e5"]
    # history: arrow keys step back and forth through the turns
    page.click("h2")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('turn 3')")
    assert page.locator("#board .piece").count() == 3
    assert page.locator('#board [data-square="b1"].last').count() == 1  # turn 3 marked
    page.keyboard.press("Home")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('turn 0')")
    assert page.locator("#board .piece").count() == 0
    page.keyboard.press("End")
    page.wait_for_function(
        "() => !document.getElementById('status').textContent.includes('Viewing')")
    assert page.locator("#board .piece").count() == 4
    page.screenshot(path=str(shots / "dara-hotseat.png"))


def test_a_link_never_replaces_the_seat_key_held(server: str, browser: Browser) -> None:
    page = new_page(browser)
    start_game(page, server, "kalah", "ai", seat=1)
    game_id = page.url.split("/g/")[1].split("#")[0]
    # the secret left the address bar as soon as it was read, and stays in this browser only
    assert "key=" not in page.url and page.evaluate("location.hash") == ""
    held = page.evaluate(f"JSON.parse(localStorage.getItem('nugar:seat:{game_id}'))")
    assert held["seat"] == 1 and len(held["key"]) > 8
    # a crafted link to the same game, opened in the same browser, keeps the seat held
    other = page.context.new_page()
    other.set_default_timeout(TIMEOUT)
    errors: list[str] = []
    other.on("pageerror", lambda e: errors.append(str(e)))
    other.goto(f"{server}/g/{game_id}#seat=2&key=forged-key")
    other.wait_for_function("() => document.body.dataset.v !== undefined")
    assert other.evaluate(f"JSON.parse(localStorage.getItem('nugar:seat:{game_id}'))") == held
    assert "key=" not in other.url
    assert (other.text_content("#you") or "").startswith("You play")
    assert "ignored" in (other.text_content("#error") or "")
    # and the player can still play with the key kept
    v = version(other)
    other.fill("#move-input", "1")
    other.press("#move-input", "Enter")
    wait_version_above(other, v)
    assert moves_text(other)[0].startswith("1")
    assert not errors and not PAGE_ERRORS[page]


def test_an_illegal_click_does_nothing(server: str, browser: Browser) -> None:
    page = new_page(browser)
    start_game(page, server, "dala", "friend", seat=1)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.click('[data-square="a1"]')  # dala: the first drops must fill the centre
    page.click('[data-square="f6"]')
    page.wait_for_timeout(300)
    assert posts == [] and moves_text(page) == []
    assert page.locator("#board .piece").count() == 0  # (the reason: test_browser_board.py)
    v = version(page)
    page.click('[data-square="c3"]')
    wait_version_above(page, v)
    posts.clear()
    page.click('[data-square="d4"]')  # legal square, but it is White's turn now
    page.wait_for_timeout(300)
    assert posts == [] and moves_text(page) == ["c3"]


def test_step_and_capture_by_clicks(server: str, browser: Browser, shots: Path) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    # a short game: four pieces each, so the move phase starts after eight drops
    page.wait_for_selector("#preset option", state="attached")
    page.click("#options-box summary")
    page.fill('[data-option="pieces"]', "4")
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_url("**/g/**")
    page.wait_for_function("() => document.body.dataset.v !== undefined")
    gid = page.url.split("/g/")[1].split("#")[0]
    # the key has left the address bar; this browser keeps it for the game
    key = page.evaluate(f"() => JSON.parse(localStorage.getItem('nugar:seat:{gid}')).key")
    for square in ["a1", "a5", "b1", "b5", "c2", "d5", "f3", "e3"]:
        r = httpx.post(f"{server}/api/games/{gid}/move", json={"key": key, "move": square})
        assert r.status_code == 200, r.text
    page.wait_for_function("() => Number(document.body.dataset.ply) === 8")
    # the move phase: click the piece, then its target; the three a1 b1 c1 captures
    page.click('[data-square="c2"]')
    assert page.locator('[data-square="c2"].sel').count() == 1
    assert page.locator('[data-square="c1"].target').count() == 1
    v = version(page)
    page.click('[data-square="c1"]')
    wait_version_above(page, v)
    assert page.locator("#board .cap-target").count() == 4  # every White piece
    page.screenshot(path=str(shots / "dara-capture.png"))
    v = version(page)
    page.click('[data-square="a5"]')
    wait_version_above(page, v)
    assert moves_text(page)[-1] == "c2-c1xa5"
    assert page.locator('[data-square="a5"] .captured').count() == 1
    assert page.locator('[data-square="a5"] .piece').count() == 0


def test_sowing_hot_seat_and_phone_screen(server: str, browser: Browser, shots: Path) -> None:
    page = new_page(browser, 390, 844)
    start_game(page, server, "dracala", "hotseat")
    v = version(page)
    page.click('[data-player="1"][data-hole="6"]')
    wait_version_above(page, v)
    page.wait_for_function("() => !document.querySelector('#board .sown')")
    assert page.locator('[data-player="2"][data-hole="1"] .count').text_content() == "7"
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390  # nothing spills sideways on a phone
    page.screenshot(path=str(shots / "dracala-phone.png"), full_page=True)


def test_replay_a_pasted_record(server: str, browser: Browser, shots: Path) -> None:
    game = nugar.new_game("dara")
    for text in ["c3", "d4", "a1", "f5"]:
        game.play(text)
    from nugar.record import dumps

    record = dumps(game, {"Event": "browser test"})
    page = new_page(browser)
    page.goto(server + "/replay")
    page.fill("#record-text", record)
    page.click("#replay-go")
    page.wait_for_selector("#board svg")
    assert moves_text(page) == ["c3", "d4", "a1", "f5"]
    assert page.locator("#board .piece").count() == 4
    page.click("#nav-prev")
    page.wait_for_function("() => document.querySelectorAll('#board .piece').length === 3")
    # the page draws the position from its board data, the last turn (a1) marked
    assert page.locator('#board [data-square="a1"].last').count() == 1
    page.screenshot(path=str(shots / "replay.png"))
    page.goto(server + "/replay")
    page.fill("#record-text", '[Rules "dara"]\n\n1. z9 *')
    page.click("#replay-go")
    page.wait_for_function("() => document.getElementById('replay-error').textContent.length > 0")


def test_game_screens_for_the_docs(server: str, browser: Browser, shots: Path) -> None:
    """A Dara game against the AI into the move phase, with a capture shown."""
    page = new_page(browser)
    start_game(page, server, "dara", "ai", level=1, seat=1)
    for _ in range(6):
        page.wait_for_selector("#board .sq.lit")
        v = version(page)
        page.click("#board .sq.lit")
        wait_version_above(page, v)
    page.wait_for_selector("#board .sq.lit")
    page.screenshot(path=str(shots / "dara-against-ai.png"))
    page.click("#hint")
    page.wait_for_function(
        "() => document.getElementById('hint-text').textContent.startsWith('Hint')")
    hint = (page.text_content("#hint-text") or "").removeprefix("Hint: ")
    assert page.locator(f'[data-square="{hint}"].lit').count() == 1  # a legal drop
    # undo takes back the computer's reply and my last turn
    turns = len(moves_text(page))
    v = version(page)
    page.click("#undo")
    wait_version_above(page, v)
    assert len(moves_text(page)) == turns - 2
    page.goto(server + "/rules")
    assert "Rules of the games" in (page.text_content("h1") or "")


def test_the_page_names_its_seat_on_the_websocket(server: str, browser: Browser) -> None:
    """A seat's page sends ``{"type": "open", key}`` on its game's socket: with its ``POST
    .../open`` refused (routed away here), the socket alone marks the seat opened, and the
    second seat then starts the first-move timer; a spectator's page sends no key."""
    made = httpx.post(f"{server}/api/games", json={"rules": "dara", "mode": "friend",
                                                   "clock": "5+3"}).json()
    gid, keys = made["id"], made["keys"]
    assert httpx.post(f"{server}/api/games/{gid}/open",
                      json={"key": keys["1"]}).status_code == 200
    pages, sent = [], []
    for fragment in (f"#seat=2&key={keys['2']}", "#watch"):
        page = new_page(browser)
        frames: list[str] = []
        page.on("websocket", lambda ws, frames=frames: ws.on(
            "framesent", lambda payload, frames=frames: frames.append(str(payload))))
        page.route("**/api/games/*/open", lambda route: route.abort())
        page.goto(f"{server}/g/{gid}{fragment}")
        page.wait_for_function("() => document.body.dataset.v !== undefined")
        pages.append(page)
        sent.append(frames)
    deadline = time.monotonic() + 20
    while httpx.get(f"{server}/api/games/{gid}").json()["clock"]["waiting"]:
        assert time.monotonic() < deadline, "the seat was not opened by the socket"
        time.sleep(0.05)
    state = httpx.get(f"{server}/api/games/{gid}").json()
    assert state["clock"]["first"] == 1 and 0 < state["clock"]["first_left"] <= 30
    assert {"type": "open", "key": keys["2"]} in [json.loads(f) for f in sent[0]]
    assert not any('"key"' in f for f in sent[1])  # the spectator's page names no seat
    for page in pages:
        assert not PAGE_ERRORS[page]
