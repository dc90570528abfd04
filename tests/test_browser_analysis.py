"""The analysis in the browser: a hot-seat Kalah game played to its end by clicks, analysed
from its page, the graph clicked, the marks in the move list; then the same record pasted
into the replay page and analysed there; a Dara record in the endgame tablebases, whose
entries the page writes."""

from __future__ import annotations

from pathlib import Path

import httpx
from playwright.sync_api import Browser, Page

# test_browser.py's module fixtures (server, browser, shots) serve these tests too
from browsing import PAGE_ERRORS, TIMEOUT, moves_text, new_page, version, wait_version_above

SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def play_to_the_end(page: Page) -> None:
    clicks = 0
    while page.is_hidden("#result"):
        v = version(page)
        page.click("#board .hole.lit")
        wait_version_above(page, v)
        clicks += 1
        assert clicks < 200


def check_analysis(page: Page, plies: list[dict[str, object]], turns: list[str]) -> None:
    """The page shows the analysis ``plies``: a point per position, the marks in the move
    list, and a click on a point shows that position with its note."""
    page.wait_for_selector("#analysis-graph svg circle.point")
    points = page.locator("#analysis-graph circle.point")
    assert points.count() == len(plies) == len(turns) + 1
    shown = moves_text(page)
    for p, text in zip(plies[1:], shown, strict=True):
        assert text == f"{p['move']}{SYMBOLS[str(p['mark'])] if p['mark'] else ''}"
    assert page.is_hidden("#analyse")
    # a click on the graph: that position on the board, its turn current in the list
    target = next((i for i, p in enumerate(plies) if p["mark"]), 1)
    page.locator(f'#analysis-graph circle[data-ply="{target}"]').click()
    page.wait_for_function(
        f"() => document.querySelector('#moves .turn.current')?.dataset.index === '{target}'")
    note = page.text_content("#analysis-note") or ""
    assert f"After {plies[target]['move']}" in note
    if plies[target]["mark"]:
        assert f"best was {plies[target]['best']}" in note
    assert "Engine's line from here" in note or target == len(plies) - 1


def test_analysis_of_a_finished_game_and_of_a_record(server: str, browser: Browser,
                                                     shots: Path) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#preset option", state="attached")
    page.select_option("#preset", "kalah")
    page.click("#options-box summary")
    page.fill('[data-option="pits"]', "3")
    page.fill('[data-option="seeds"]', "3")
    page.check('input[name="mode"][value="hotseat"]')
    page.click("#start")
    page.wait_for_selector("#board svg")
    assert page.is_hidden("#analysis")  # a running game has none
    play_to_the_end(page)
    gid = page.url.split("/g/")[1].split("#")[0]
    page.wait_for_selector("#analysis:not([hidden])")
    page.click("#analyse")
    page.wait_for_function("() => /marked turn/.test("
                           "document.getElementById('analysis-status').textContent)",
                           timeout=4 * TIMEOUT)
    data = httpx.get(f"{server}/api/games/{gid}/analysis").json()
    assert data["done"] and all(p["exact"] for p in data["plies"])  # the solver's board
    turns = [t["text"] for t in httpx.get(f"{server}/api/games/{gid}").json()["turns"]]
    check_analysis(page, data["plies"], turns)
    page.screenshot(path=str(shots / "analysis.png"))

    # whoever opens the game afterwards sees it at once
    other = new_page(browser)
    other.goto(f"{server}/g/{gid}")
    check_analysis(other, data["plies"], turns)

    # the record (with the analysis as comments) pasted into the replay page, analysed there
    record = httpx.get(f"{server}/api/games/{gid}/record").text
    assert "{" in record
    replay = new_page(browser)
    replay.goto(server + "/replay")
    replay.fill("#record-text", record)
    replay.click("#replay-go")
    replay.wait_for_selector("#analysis:not([hidden])")
    replay.click("#analyse")
    replay.wait_for_function("() => /marked turn/.test("
                             "document.getElementById('analysis-status').textContent)",
                             timeout=4 * TIMEOUT)
    check_analysis(replay, data["plies"], turns)
    for p in (page, other, replay):
        assert not PAGE_ERRORS[p]


def test_the_analysis_shows_the_tablebases(server: str, browser: Browser) -> None:
    """A Dara record that reaches the endgame tablebases (built in the data folder the
    server reads, ``NUGAR_DATA_DIR``), analysed on the replay page: a click on a position
    the tables cover writes their entry beside it."""
    import random

    import nugar
    from nugar.record import dumps
    from nugar.solver import tablebase as tb

    rules = "dara(rows=4,cols=4,loss_at=1,pieces=3,quiet_limit=30)"
    tb.build(nugar.parse_rules(rules), 6)
    rng = random.Random(2)
    game = nugar.new_game(rules)
    while not game.is_over and len(game.turn_list()) < 12:
        game.play(rng.choice(game.legal_moves()))
    page = new_page(browser)
    page.goto(server + "/replay")
    page.fill("#record-text", dumps(game))
    page.click("#replay-go")
    page.wait_for_selector("#analysis:not([hidden])")
    page.click("#analyse")
    page.wait_for_function("() => /marked turn/.test("
                           "document.getElementById('analysis-status').textContent)",
                           timeout=4 * TIMEOUT)
    data = httpx.post(f"{server}/api/replay/analysis", json={"record": dumps(game)}).json()
    assert data["done"]
    target = next(i for i, p in enumerate(data["plies"]) if p["tablebase"])
    entry = data["plies"][target]["tablebase"]
    page.locator(f'#analysis-graph circle[data-ply="{target}"]').click()
    page.wait_for_function(
        f"() => document.querySelector('#moves .turn.current')?.dataset.index === '{target}'")
    note = page.text_content("#analysis-note") or ""
    if entry["value"] == 0:
        assert "tablebase: draw" in note
    else:
        assert f"wins in {entry['plies']} turn" in note
        assert f"(next capture in {entry['to_capture']} turn" in note
    assert not PAGE_ERRORS[page]
