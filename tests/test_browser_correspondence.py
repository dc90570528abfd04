"""Correspondence games in the browser (issue 40, item 5): a player with games waiting for
his move signs in and is reminded of them with links, in the page's language; his own page
lists his games in progress, those waiting for him first, with the days left on the clock."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser

from browsing import PAGE_ERRORS, new_page


def _player(base: str, name: str) -> httpx.Client:
    c = httpx.Client(base_url=base, headers={"Origin": base})
    r = c.post("/api/accounts", json={"username": name, "password": f"{name} password"})
    assert r.status_code == 201, r.text
    return c


def _game(one: httpx.Client, other: httpx.Client, clock: str | None,
          colour: str) -> dict[str, Any]:
    """``one`` posts a kalah challenge, ``other`` accepts: the game's id and both keys."""
    body: dict[str, Any] = {"rules": "kalah", "colour": colour, "public": False}
    if clock:
        body["clock"] = clock
    r = one.post("/api/challenges", json=body)
    assert r.status_code == 201, r.text
    made = r.json()
    r = other.post(f"/api/challenges/{made['challenge']['id']}/accept", json={})
    assert r.status_code == 201, r.text
    return {"id": r.json()["id"], "one": made["key"], "other": r.json()["key"]}


def test_the_reminder_at_sign_in_and_the_games_in_progress(server: str, browser: Browser,
                                                           shots: Path) -> None:
    cora, dan = _player(server, "cora_c"), _player(server, "dan_d")
    urgent = _game(cora, dan, "1d", "first")      # cora to move, one day
    relaxed = _game(cora, dan, "7d", "first")     # cora to move, seven days
    waiting = _game(cora, dan, None, "second")    # dan to move
    page = new_page(browser, width=1000, height=760)
    page.goto(server + "/signin")
    page.fill("#signin-name", "cora_c")
    page.fill("#signin-password", "cora_c password")
    page.click("#signin-go")
    page.wait_for_url(server + "/")
    # the time controls of a new game and of a challenge offer days per move
    page.wait_for_selector("#clock-choice option", state="attached")
    offered = page.eval_on_selector_all("#clock-choice option", "os => os.map(o => o.value)")
    assert {"1d", "3d", "7d"} <= set(offered)
    reminder = page.wait_for_selector("#turn-reminder")
    assert reminder.text_content().startswith("It is your turn in 2 games.")
    hrefs = page.eval_on_selector_all("#turn-reminder a", "els => els.map(e => e.href)")
    assert hrefs[:2] == [f"{server}/g/{urgent['id']}", f"{server}/g/{relaxed['id']}"]
    assert page.text_content("#turn-reminder a") == "kalah against dan_d"
    page.screenshot(path=str(shots / "turn-reminder.png"))
    # her list of games in progress, on her own page
    page.click("#turn-reminder >> text=all my games")
    page.wait_for_url("**/players/cora_c#my-games")
    page.wait_for_selector("#my-games-table tbody tr")
    rows = page.eval_on_selector_all(
        "#my-games-table tbody tr", "rs => rs.map(r => [...r.cells].map(c => c.textContent))")
    assert [r[2] for r in rows] == ["your turn", "your turn", "their turn"]
    assert re.fullmatch(r"23:5\d:\d\d", rows[0][3]), rows[0]
    assert re.fullmatch(r"6d 23h", rows[1][3]), rows[1]
    assert rows[2][1] == "dan_d" and rows[2][3] == "no clock"
    links = page.eval_on_selector_all("#my-games-table a", "els => els.map(e => e.href)")
    assert links == [f"{server}/g/{g['id']}" for g in (urgent, relaxed, waiting)]
    assert page.get_attribute("#my-games-table a", "title") == "1 day per move"
    page.screenshot(path=str(shots / "my-games.png"))
    # the same reminder in French
    page.context.add_cookies([{"name": "nugar_lang", "value": "fr", "url": server}])
    page.goto(server + "/")
    assert page.wait_for_selector("#turn-reminder").text_content().startswith(
        "C'est à vous de jouer dans 2 parties.")
    page.goto(f"{server}/g/{relaxed['id']}")
    page.wait_for_selector(".clock-control:has-text('7 jours par coup')")
    assert not PAGE_ERRORS[page]
    # someone else's page shows no games in progress
    page.goto(server + "/players/dan_d")
    page.wait_for_selector("#profile-name:has-text('dan_d')")
    page.wait_for_timeout(300)
    assert page.is_hidden("#my-games")
    r = dan.get("/api/me/games")
    assert r.json()["your_turn"] == 1 and r.json()["games"][0]["id"] == waiting["id"]
