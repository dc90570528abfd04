"""Clocks and the lobby in the browser (playwright on Debian's chromium, with the fixtures of
``test_browser.py``): a timed game whose flag falls, one by link that waits for the friend to
open his link and is then aborted because its first move never came, a challenge accepted
from a second browser context (listed live, and by its link), and clocks that survive a
server restart."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page

from browsing import PAGE_ERRORS, new_page
from serving import serving


def timed_home(page: Page, base: str, preset: str, clock: str) -> None:
    page.goto(base + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", preset)
    page.select_option("#clock-choice", "custom")
    page.fill("#clock-custom", clock)


def clock_left(page: Page, player: int) -> float:
    return float(page.get_attribute(f'#clocks [data-player="{player}"]', "data-left") or "nan")


def test_a_timed_game_flags(server: str, browser: Browser, shots: Path) -> None:
    page = new_page(browser)
    timed_home(page, server, "dara", "0.1+0")  # 6 seconds each
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_url("**/g/**")
    page.wait_for_selector("#clocks .clock")
    assert "starts with the first move" in (page.text_content("#clocks .clock-control") or "")
    assert page.text_content('#clocks [data-player="1"] .time') == "00:06.0"
    page.fill("#move-input", "c3")
    page.press("#move-input", "Enter")
    page.wait_for_selector('#clocks [data-player="2"].running')
    page.fill("#move-input", "d4")  # both first moves made: the second is a flag, no abort
    page.press("#move-input", "Enter")
    page.wait_for_selector('#clocks [data-player="1"].running')
    first = clock_left(page, 1)
    page.wait_for_timeout(400)
    assert clock_left(page, 1) < first  # it ticks
    page.screenshot(path=str(shots / "clock-running.png"))
    # nobody moves: the server lets the first player's flag fall
    page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    result = page.text_content("#result") or ""
    assert result == "White wins (0-1): Black ran out of time"
    assert page.text_content('#clocks [data-player="1"] .time') == "00:00.0"
    assert page.is_hidden("#clocks .clock.running")
    page.screenshot(path=str(shots / "clock-flag.png"))
    # two pieces each can never make a three: the fallen flag is a draw
    made = httpx.post(server + "/api/games", json={"rules": "dara(pieces=2,loss_at=1)",
                                                    "mode": "hotseat", "clock": "0.02+0"}).json()
    key = made["keys"]["0"]
    for move in ("c3", "d4"):
        assert httpx.post(f"{server}/api/games/{made['id']}/move",
                          json={"key": key, "move": move}).status_code == 200
    page.goto(f"{server}/g/{made['id']}#seat=0&key={key}")
    page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    assert page.text_content("#result") == ("Draw (1/2-1/2): time ran out, but the other "
                                            "player could not have won")
    assert PAGE_ERRORS[page] == []


def test_a_first_move_never_made_aborts_the_game(server: str, browser: Browser,
                                                 shots: Path) -> None:
    made = httpx.post(server + "/api/games", json={"rules": "dara", "mode": "friend",
                                                    "clock": "0.05+0"}).json()  # 3 s to move
    page = new_page(browser)
    page.goto(f"{server}/g/{made['id']}#seat=1&key={made['keys']['1']}")
    # a game by link: nothing runs until the friend opens his link, however long he takes
    page.wait_for_selector("#clocks .waiting:not([hidden])")
    assert page.text_content("#clocks .waiting") == (
        "Waiting for your opponent (White) to open the link: no clock runs until both "
        "players are here")
    assert page.is_hidden("#clocks .first-move")
    page.screenshot(path=str(shots / "clock-waiting.png"))
    page.wait_for_timeout(3500)  # longer than the 3 s first-move timer
    assert page.is_hidden("#result") and httpx.get(
        f"{server}/api/games/{made['id']}").json()["over"] is False
    friend = new_page(browser)
    friend.goto(f"{server}/g/{made['id']}#seat=2&key={made['keys']['2']}")
    # the friend came: the first player's timer starts now, on both pages
    page.wait_for_selector("#clocks .first-move:not([hidden])")
    assert page.is_hidden("#clocks .waiting")
    waiting = page.text_content("#clocks .first-move") or ""
    assert waiting.startswith("Black must make a first move within 00:0")
    assert waiting.endswith(", or the game is aborted")
    page.screenshot(path=str(shots / "clock-first-move.png"))
    # nobody moves: the server aborts the game (no result) and the page says so
    page.wait_for_selector("#result:not([hidden])", timeout=15_000)
    page.screenshot(path=str(shots / "clock-aborted.png"))
    assert page.text_content("#result") == "Aborted: Black did not move (no result)"
    assert page.is_hidden("#clocks .first-move") and page.is_hidden("#move-input")
    record = httpx.get(f"{server}/api/games/{made['id']}/record").text
    assert '[Result "*"]' in record and '[Aborted "Black did not move"]' in record
    assert PAGE_ERRORS[page] == [] and PAGE_ERRORS[friend] == []


def test_a_lobby_challenge_accepted_from_a_second_browser(server: str,
                                                          browser: Browser,
                                                          shots: Path) -> None:
    guest = new_page(browser)
    guest.goto(server + "/")
    guest.wait_for_selector("#lobby-empty")
    host = new_page(browser)
    timed_home(host, server, "kalah", "5+3")
    host.select_option("#challenge-colour", "first")
    host.click("#challenge-post")
    host.wait_for_selector("#challenge-waiting:not([hidden])")
    # the guest's list updates by itself
    guest.wait_for_selector("#challenges .challenge .accept")
    entry = guest.text_content("#challenges .challenge") or ""
    assert "Kalah" in entry and "5 min + 3 s per move" in entry and "plays first" in entry
    guest.screenshot(path=str(shots / "lobby.png"))
    guest.click("#challenges .challenge .accept")
    guest.wait_for_url("**/g/**")
    host.wait_for_url("**/g/**")
    for page, seat in ((host, "South (first)"), (guest, "North (second)")):
        page.wait_for_function("() => document.getElementById('you').textContent.length > 0")
        assert page.text_content("#you") == f"You play {seat}."
        page.wait_for_selector("#clocks .clock")
    assert host.url.split("#")[0] == guest.url.split("#")[0]
    # a private challenge: not listed, but its link works for a friend
    host.goto(server + "/")
    host.wait_for_selector("#preset option", state="attached")
    host.check("#challenge-private")
    host.click("#challenge-post")
    host.wait_for_selector("#challenge-link")
    link = host.input_value("#challenge-link")
    guest.goto(server + "/")
    guest.wait_for_selector("#lobby-empty:not([hidden])")
    guest.goto(link)
    guest.click("#invite-accept")
    guest.wait_for_url("**/g/**")
    host.wait_for_url("**/g/**")
    assert PAGE_ERRORS[host] == [] and PAGE_ERRORS[guest] == []


def test_clocks_survive_a_server_restart(tmp_path: Path, browser: Browser) -> None:
    db = tmp_path / "games.db"
    with serving(db, "--rate", "0", ready="/api/presets", timeout=30) as (_proc, base):
        made = httpx.post(base + "/api/games", json={"rules": "dara", "mode": "hotseat",
                                                      "clock": "2+0"}).json()
        gid, key = made["id"], made["keys"]["0"]
        # both players make their first move, so no first-move timer can abort the game
        # while a slow restart (a cold compile cache) keeps the page waiting
        for move in ("c3", "d4", "c4"):
            assert httpx.post(f"{base}/api/games/{gid}/move",
                              json={"key": key, "move": move}).status_code == 200
        moved = time.monotonic()
    time.sleep(1.0)  # the server is down (a real restart); the second player's clock runs on
    with serving(db, "--rate", "0", ready="/api/presets", timeout=30) as (_proc, base):
        state = httpx.get(f"{base}/api/games/{gid}").json()
        since = time.monotonic() - moved  # the restart takes long on a loaded machine
        assert state["clock"]["running"] == 2 and state["clock"]["first_left"] is None
        assert state["clock"]["left"][0] > 119.0
        assert 120.0 - since - 1.0 < state["clock"]["left"][1] <= 119.0
        page = new_page(browser)
        page.goto(f"{base}/g/{gid}#seat=0&key={key}")
        page.wait_for_selector('#clocks [data-player="2"].running')
        assert clock_left(page, 2) <= 119.0 and clock_left(page, 1) > 119.0
        assert PAGE_ERRORS[page] == []
