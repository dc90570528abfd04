"""The page's board drawing (``static/board.js``) against the server's (``render.svg``).

The web page draws the board itself from the board data of a state (states and updates carry
no SVG), so its drawing must be the server's, character for character: the same elements,
classes, ``data-*`` attributes, ARIA roles and labels and coordinates. These tests run
board.js in Debian's chromium (the browser tests' ``browser`` fixture) on positions of every
rule set of ``rule_sets.py`` and a few more boards (the largest grid, the most holes), taken
from seeded random games: evenly along each game, its end, and the ends of turns of several
moves (a sowing's bonus steps, a step and its capture), some with cells lit. All positions go
to the page in one call. No normalisation: the two texts must be equal.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page

import nugar
from nugar.server.http.static_i18n import STATIC
from nugar.server.play.render import board_data, svg
from random_play import random_game
from rule_sets import RULE_SETS

#: where the test page stands: the browser is handed the static files there, and a blank page
ORIGIN = "http://board.test"

#: boards beyond the rule-set list's: the largest grid (26 files, two-digit rows) and the
#: most holes a side
EXTRA = ["dara(rows=26,cols=26,pieces=40)", "kalah(pits=32,seeds=2)"]
#: positions taken along each random game (its first and last included)
ALONG = 13
#: positions per rule set at least (more random games are played until there are; the
#: tiniest boards repeat theirs)
EACH = 30


def view_of(game: nugar.Game, lit: bool) -> tuple[dict[str, Any], str]:
    """What the page gets of ``game`` (a state's fields the drawing reads), and what
    ``render.svg`` draws of it; ``lit``: the legal moves' cells lit too."""
    turns = game.turn_list()
    last = list(turns[-1][1]) if turns else []
    view: dict[str, Any] = {
        "game": game.rules.game, "players": [game.player_name(1), game.player_name(2)],
        "board": board_data(game), "last_turn": [str(m) for m in last],
        "last_mover": turns[-1][0] if turns else None, "to_move": game.to_move,
        "over": game.is_over}  # not read by the drawing: for the test's own counts
    highlight: list[str] = []
    if lit and not game.is_over:
        for m in game.legal_moves():
            highlight.append(str(m.hole) if m.kind == "sow" else
                             m.squares[-1] if m.squares else "")
        view["highlight"] = highlight
    return view, svg(game, last_move=last, highlight=highlight)


def positions(rules: str) -> list[tuple[dict[str, Any], str]]:
    """At least ``EACH`` positions of ``rules`` to compare: along random games, their ends and
    the ends of their turns of more than one move."""
    out: list[tuple[dict[str, Any], str]] = []
    seed = 0
    while len(out) < EACH:
        seed += 1
        played = random_game(rules, seed, moves=2000)
        ends, total = [], 0
        for _player, moves in played.turn_list():
            total += len(moves)
            if len(moves) > 1:
                ends.append(total)
        n = len(played.move_stack)
        plies = {round(i * n / (ALONG - 1)) for i in range(ALONG)}
        plies |= set(random.Random(seed).sample(ends, min(4, len(ends))))
        game = nugar.new_game(rules)
        for ply, m in enumerate([None, *played.move_stack]):
            if m is not None:
                game.play(m)
            if ply in plies:
                out.append(view_of(game, lit=ply % 3 == 1))
    return out


def drawn_in_browser(page: Page, views: list[dict[str, Any]]) -> list[str]:
    texts: list[str] = page.evaluate(
        "async (views) => { const { svg } = await import('/static/board.js');"
        " return views.map((v) => svg(v)); }", views)
    return texts


@pytest.fixture(scope="module")
def board_page(browser: Browser) -> Page:
    # board.js is an ES module that imports i18n.js: both are served from the package's
    # static folder (no catalog on the page: the English the server's drawing writes)
    page = browser.new_page()

    def serve(route: Any) -> None:
        path = route.request.url.removeprefix(ORIGIN)
        if path.startswith("/static/"):
            route.fulfill(path=str(STATIC / path.removeprefix("/static/")),
                          content_type="text/javascript")
        else:
            route.fulfill(content_type="text/html",
                          body="<!doctype html><html><body></body></html>")

    page.route(ORIGIN + "/**", serve)
    page.goto(ORIGIN + "/")
    return page


def test_js_drawing_equals_render_svg_on_every_rule_set(board_page: Page) -> None:
    cases = [(rules, view, text) for rules in RULE_SETS + EXTRA
             for view, text in positions(rules)]
    assert all(len([c for c in cases if c[0] == r]) >= EACH for r in RULE_SETS + EXTRA)
    # what the cases hold: finished games, turns of several moves, marks and lit cells
    assert sum(nugar.new_game(c[0]).rules.family == "sowing" for c in cases) > 500
    assert sum(len(c[1]["last_turn"]) > 1 for c in cases) > 100
    finished = {c[0] for c in cases if c[1]["over"]}
    assert finished == set(RULE_SETS + EXTRA)  # every rule set's end drawn too
    assert sum("highlight" in c[1] for c in cases) > 300
    drawn = drawn_in_browser(board_page, [view for _r, view, _t in cases])
    wrong = [(rules, view["last_turn"]) for (rules, view, text), js in
             zip(cases, drawn, strict=True) if js != text]
    assert not wrong, f"{len(wrong)} of {len(cases)} drawings differ, e.g. {wrong[:3]}"
    marked = [t for _r, _v, t in cases if 'class="hole last"' in t or "captured" in t]
    assert len(marked) > 100  # the marks were drawn (and compared), not only plain boards


def test_js_drawing_of_the_servers_states(board_page: Page, client: TestClient) -> None:
    """The page's own input: a state's fields as the server sends them (no SVG in them) give
    the drawing ``GET /api/games/{id}/svg`` answers, and a position's those of its ply."""
    kalah = client.post("/api/games", json={"rules": "kalah", "mode": "hotseat"}).json()
    dara = client.post("/api/games", json={"rules": "dara(rows=4,cols=4,pieces=5)",
                                           "mode": "hotseat"}).json()
    views, expected = [], []
    for made, turns in ((kalah, ["2", "3-1"]),
                        (dara, ["a1", "b1", "c1", "d1", "a2", "b2", "c2", "d2", "a3", "b3"])):
        gid, key = made["id"], made["keys"]["0"]
        for t in turns:
            state = client.post(f"/api/games/{gid}/move", json={"key": key, "move": t}).json()
            assert "svg" not in state
        state = client.get(f"/api/games/{gid}").json()
        assert "svg" not in state
        views.append(state)
        expected.append(client.get(f"/api/games/{gid}/svg").text)
        pos = client.get(f"/api/games/{gid}/position", params={"ply": 1}).json()
        views.append({"game": state["game"], "players": state["players"], **pos})
        expected.append(client.get(f"/api/games/{gid}/svg", params={"ply": 1}).text)
    # North's turn "3-1" marked: both holes
    assert all(f'class="hole last" data-player="2" data-hole="{k}"' in expected[0]
               for k in (3, 1))
    assert drawn_in_browser(board_page, views) == expected
