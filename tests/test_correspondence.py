"""Correspondence games (issue 40, item 5): days per move, a signed-in player's games in
progress with whose turn it is and the mover's time left (``GET /api/me/games``, the
reminder's count), the flag falling by the server's clock (the watcher, on an injected
clock) and a correspondence game surviving a restart of the app."""

from __future__ import annotations

import time
import types
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.play import my_games
from nugar.server.storage import store as store_module
from web_accounts import FAST, SAME, Clock

DAY = 86400.0


def make_app(db_url: str, now: Clock) -> FastAPI:
    """The web app on ``db_url`` whose server time is ``now`` (the hub's clock, which the
    games' clocks and the watcher read), the watcher looking every 20 ms."""
    made = create_app(ServerConfig(db_url, ai_time=0.05, rate=None, work_rate=None,
                                   clock_every=0.02))
    made.state.accounts.hasher = FAST
    made.state.hub.clock = now
    return made


@pytest.fixture()
def now(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The server's time, also the store's stamps of when a game changed."""
    clock = Clock()
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=clock))
    return clock


@pytest.fixture()
def app(db_url: str, now: Clock) -> FastAPI:
    return make_app(db_url, now)


def signed(app: FastAPI, name: str, new: bool = True) -> TestClient:
    c = TestClient(app)
    path = "/api/accounts" if new else "/api/session"
    r = c.post(path, json={"username": name, "password": f"password-{name}"}, headers=SAME)
    assert r.status_code in (200, 201), r.text
    return c


@pytest.fixture()
def players(app: FastAPI) -> Iterator[tuple[TestClient, TestClient]]:
    with TestClient(app):  # the app's start (its watcher) and end
        yield signed(app, "alice"), signed(app, "bob")


def challenge(alice: TestClient, bob: TestClient, clock: str | None,
              colour: str = "first") -> dict[str, Any]:
    """Alice posts a kalah challenge, Bob accepts it: the game's id and each one's key."""
    body: dict[str, Any] = {"rules": "kalah", "colour": colour}
    if clock:
        body["clock"] = clock
    r = alice.post("/api/challenges", json=body, headers=SAME)
    assert r.status_code == 201, r.text
    made = r.json()
    r = bob.post(f"/api/challenges/{made['challenge']['id']}/accept", json={}, headers=SAME)
    assert r.status_code == 201, r.text
    return {"id": r.json()["id"], "alice": made["key"], "bob": r.json()["key"]}


def move(c: TestClient, game: dict[str, Any], who: str, text: str) -> None:
    r = c.post(f"/api/games/{game['id']}/move", json={"key": game[who], "move": text},
               headers=SAME)
    assert r.status_code == 200, r.text


def play_turns(alice: TestClient, bob: TestClient, game: dict[str, Any],
               turns: int = 4) -> int:
    """Whoever is to move plays his first legal move, ``turns`` times (both made their
    first moves: a silent player now loses on time rather than aborting); the player to
    move then."""
    for _ in range(turns):
        state = alice.get(f"/api/games/{game['id']}").json()
        who = "alice" if state["to_move"] == 1 else "bob"
        move(alice if who == "alice" else bob, game, who, state["legal"][0])
    mover: int = alice.get(f"/api/games/{game['id']}").json()["to_move"]
    return mover


def listed(c: TestClient, page: int = 1) -> dict[str, Any]:
    r = c.get("/api/me/games", params={"page": page})
    assert r.status_code == 200, r.text
    found: dict[str, Any] = r.json()
    return found


def test_days_per_move_are_time_controls_of_the_lobby(
        players: tuple[TestClient, TestClient]) -> None:
    alice, bob = players
    for text in ("1d", "3d", "7d"):
        game = challenge(alice, bob, text)
        clock = alice.get(f"/api/games/{game['id']}").json()["clock"]
        days = int(text[0])
        assert clock["kind"] == "days" and clock["control"] == text
        assert clock["left"] == [days * DAY, days * DAY]
        assert clock["describe"] == f"{days} day{'s' if days > 1 else ''} per move"


def test_my_games_put_the_player_s_turn_first_with_the_time_left(
        players: tuple[TestClient, TestClient], now: Clock) -> None:
    alice, bob = players
    first = challenge(alice, bob, "3d")              # alice to move, her first move timed
    theirs = challenge(alice, bob, None, "second")   # bob to move, no clock
    later = challenge(alice, bob, "7d")
    now.now += 3600
    move(alice, later, "alice", "1")
    now.now += 7200
    move(bob, later, "bob", "2")                     # alice to move again, 7 days fresh
    now.now += 600

    mine = listed(alice)
    assert [g["id"] for g in mine["games"]] == [first["id"], later["id"], theirs["id"]]
    assert mine["your_turn"] == 2 and mine["total"] == 3 and mine["more"] is False
    by_id = {g["id"]: g for g in mine["games"]}
    assert by_id[first["id"]]["your_turn"] is True and by_id[first["id"]]["to_move"] == 1
    assert by_id[first["id"]]["left"] == 3 * DAY - 3600 - 7200 - 600
    assert by_id[first["id"]]["clock"]["control"] == "3d"
    assert by_id[later["id"]]["left"] == 7 * DAY - 600
    assert by_id[later["id"]]["moves"] == 2 and by_id[later["id"]]["opponent"] == "bob"
    assert by_id[theirs["id"]]["your_turn"] is False and by_id[theirs["id"]]["to_move"] == 1
    assert by_id[theirs["id"]]["seat"] == 2 and by_id[theirs["id"]]["clock"] is None
    assert by_id[theirs["id"]]["left"] is None

    his = listed(bob)
    assert his["your_turn"] == 1 and his["games"][0]["id"] == theirs["id"]
    assert {g["opponent"] for g in his["games"]} == {"alice"}

    # a game ended leaves the list
    r = alice.post(f"/api/games/{first['id']}/resign", json={"key": first["alice"]},
                   headers=SAME)
    assert r.status_code == 200, r.text
    assert [g["id"] for g in listed(alice)["games"]] == [later["id"], theirs["id"]]


def test_a_game_against_the_computer_opened_signed_in_is_listed(
        players: tuple[TestClient, TestClient]) -> None:
    alice, _bob = players
    r = alice.post("/api/games", json={"rules": "kalah", "mode": "ai", "seat": 1,
                                       "clock": "1d"}, headers=SAME)
    assert r.status_code == 201, r.text
    gid, key = r.json()["id"], r.json()["keys"]["1"]
    assert listed(alice)["total"] == 0  # nobody's seat until the page opens it signed in
    assert alice.post(f"/api/games/{gid}/open", json={"key": key},
                      headers=SAME).status_code == 200
    (game,) = listed(alice)["games"]
    assert game["id"] == gid and game["opponent"].startswith("nugar AI level")
    assert game["your_turn"] is True and game["left"] == DAY


def test_the_list_is_paged_and_bad_pages_say_what_is_allowed(
        players: tuple[TestClient, TestClient], monkeypatch: pytest.MonkeyPatch) -> None:
    alice, bob = players
    monkeypatch.setattr(my_games, "PAGE", 2)
    ids = [challenge(alice, bob, "1d")["id"] for _ in range(3)]
    one, two = listed(alice, 1), listed(alice, 2)
    assert one["more"] is True and two["more"] is False and len(two["games"]) == 1
    assert sorted(g["id"] for g in one["games"] + two["games"]) == sorted(ids)
    assert one["your_turn"] == two["your_turn"] == 3
    # whose turn is kept per stored version, for a bounded number of versions
    monkeypatch.setattr(my_games, "CACHE", 2)
    monkeypatch.setattr(my_games, "_to_move", OrderedDict())
    assert listed(alice)["total"] == 3 and len(my_games._to_move) <= 2
    for bad in ("0", "-1", "x", str(my_games.MAX_ACTIVE)):
        r = alice.get("/api/me/games", params={"page": bad})
        assert r.status_code == 422, (bad, r.text)
        assert "page" in r.text
    out = TestClient(alice.app)
    r = out.get("/api/me/games")
    assert r.status_code == 401 and r.json()["error"] == "signed_out"


def wait_for(what: Any, seconds: float = 10.0) -> Any:
    """Poll ``what()`` until it is true (the watcher runs in the app's own thread)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = what()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError("it never happened")


def test_the_watcher_flags_a_silent_correspondence_player_by_the_server_s_clock(
        players: tuple[TestClient, TestClient], app: FastAPI, now: Clock) -> None:
    alice, bob = players
    game = challenge(alice, bob, "1d")
    mover = play_turns(alice, bob, game)
    store = app.state.store
    now.now += DAY - 1
    time.sleep(0.2)  # several looks of the watcher: one second is left
    assert store.load(game["id"]).result is None
    now.now += 1  # nobody asks about the game: the watcher alone ends it
    row = wait_for(lambda: (r := store.load(game["id"])).result and r)
    assert row.result == ("0-1" if mover == 1 else "1-0") and row.reason == "time"
    assert listed(alice)["total"] == 0 and listed(bob)["total"] == 0


def test_a_correspondence_game_survives_a_restart_and_its_flag_falls_after(
        db_url: str, now: Clock) -> None:
    first = make_app(db_url, now)
    with TestClient(first):
        alice, bob = signed(first, "alice"), signed(first, "bob")
        game = challenge(alice, bob, "3d")
        move(alice, game, "alice", "1")
        move(bob, game, "bob", "2")
    now.now += 2 * DAY  # the server is down for two days: they count against alice

    second = make_app(db_url, now)
    with TestClient(second):
        alice, bob = signed(second, "alice", new=False), signed(second, "bob", new=False)
        (listing,) = listed(alice)["games"]
        assert listing["id"] == game["id"] and listing["your_turn"] is True
        assert listing["left"] == DAY and listing["clock"]["control"] == "3d"
        assert listed(bob)["your_turn"] == 0
        mover = 1
        while mover == 1:  # her turn (a sowing into her store plays again): 3 days for bob
            mover = play_turns(alice, bob, game, 1)
        now.now += 3 * DAY - 1
        store = second.state.store
        time.sleep(0.2)
        assert store.load(game["id"]).result is None
        now.now += 1
        row = wait_for(lambda: (r := store.load(game["id"])).result and r)
        assert row.result == "1-0" and row.reason == "time"
