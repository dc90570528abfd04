"""``POST /api/games/{id}/rematch`` (the same rules and opponents, seats swapped, the same
secrets) and ``GET /api/games/{id}/explain`` (the engine's reason for a refused move), through
Starlette's test client (the ``client`` fixture of conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

import nugar
from nugar.server.play.endings import rematch_id


def create(c: TestClient, **body: Any) -> dict[str, Any]:
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def post(c: TestClient, path: str, **body: Any) -> Any:
    return c.post(path, json=body)


# --- explain ------------------------------------------------------------------------------------
def test_explain_gives_the_engines_reasons_and_changes_nothing(client: TestClient) -> None:
    made = create(client, rules="dara", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    assert post(client, f"/api/games/{gid}/move", key=key, move="c3").status_code == 200
    r = client.get(f"/api/games/{gid}/explain", params={"move": ["c3", "d4", "c3-c4", "q9"]})
    assert r.status_code == 200
    said = {m["move"]: m for m in r.json()["moves"]}
    assert said["c3"] == {"move": "c3", "legal": False,
                          "reason": "c3 is occupied (by a Black piece)"}
    assert said["d4"]["legal"] is True and said["d4"]["reason"] is None
    assert said["c3-c4"]["reason"].startswith("it is still the drop phase")
    assert "off the 5x6 board" in said["q9"]["reason"]
    state = client.get(f"/api/games/{gid}").json()
    assert state["v"] == r.json()["v"] == 2 and state["ply"] == 1
    # bounded, and an unknown game is 404
    too_many = client.get(f"/api/games/{gid}/explain", params={"move": ["c3"] * 9})
    assert too_many.status_code == 422
    assert client.get("/api/games/nosuch/explain", params={"move": "c3"}).status_code == 404


def test_explain_in_a_sowing_game(client: TestClient) -> None:
    made = create(client, rules="kalah", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    post(client, f"/api/games/{gid}/move", key=key, move="3")  # a bonus step: South again
    said = client.get(f"/api/games/{gid}/explain", params={"move": ["3", "9"]}).json()["moves"]
    assert [m["reason"] for m in said] == ["hole 3 is empty",
                                           "there is no hole 9 in kalah; holes are 1..6"]


def test_game_explain_matches_the_refusal_of_play() -> None:
    game = nugar.new_game("dala")
    assert game.explain("a1") == ("the centre squares c3, d3, c4, d4 must be filled first "
                                  "(centre_first=on)")
    with pytest.raises(nugar.IllegalMoveError, match="must be filled first"):
        game.play("a1")
    game.resign(1)
    assert game.explain("c3") is not None and game.explain("c3").startswith("the game is over")


# --- rematch ------------------------------------------------------------------------------------
def test_rematch_between_friends_swaps_the_seats_and_keeps_the_secrets(
        client: TestClient) -> None:
    made = create(client, rules="dara-niger", mode="friend")
    gid, keys = made["id"], made["keys"]
    post(client, f"/api/games/{gid}/move", key=keys["1"], move="c3")
    r = post(client, f"/api/games/{gid}/rematch", key=keys["1"])
    assert r.status_code == 409 and r.json()["error"] == "game_running"
    post(client, f"/api/games/{gid}/resign", key=keys["2"])
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "sync"
        r = post(client, f"/api/games/{gid}/rematch", key=keys["1"])
        assert r.status_code == 200, r.text
        answer = r.json()
        # the opponent is told at once, with the new game's id
        event = ws.receive_json()
        assert event["type"] == "rematch"
        assert event["data"] == {"game": answer["id"], "by": 1}
        assert event["update"]["rematch"] == answer["id"]
        assert event["update"]["offers"] == {"rematch": 1}
    new = answer["id"]
    assert new != gid and new == rematch_id(gid, 1) and answer["seat"] == 2
    assert answer["state"]["rules"] == "dara-niger" and answer["state"]["ply"] == 0
    # the other player asking finds the same game (no second one), in the other seat
    again = post(client, f"/api/games/{gid}/rematch", key=keys["2"]).json()
    assert again["id"] == new and again["seat"] == 1
    assert client.get(f"/api/games/{gid}").json()["v"] == event["v"]  # announced once
    # the old secrets open the swapped seats
    wrong = post(client, f"/api/games/{new}/move", key=keys["1"], move="c3")
    assert wrong.status_code == 409 and wrong.json()["error"] == "not_your_turn"
    assert post(client, f"/api/games/{new}/move", key=keys["2"], move="c3").status_code == 200
    assert post(client, f"/api/games/{new}/move", key=keys["1"], move="d4").status_code == 200


def test_rematch_against_the_computer_and_hot_seat(client: TestClient) -> None:
    made = create(client, rules="kalah(pits=3,seeds=1)", mode="ai", level=1, seat=1)
    gid, key = made["id"], made["keys"]["1"]
    post(client, f"/api/games/{gid}/resign", key=key)
    answer = post(client, f"/api/games/{gid}/rematch", key=key).json()
    state = answer["state"]
    assert answer["seat"] == 2 and state["ai_seat"] == 1 and state["ai_level"] == 1
    assert state["mode"] == "ai" and state["rules"] == "kalah(pits=3,seeds=1)"
    made = create(client, rules="dara", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    post(client, f"/api/games/{gid}/resign", key=key)
    answer = post(client, f"/api/games/{gid}/rematch", key=key).json()
    assert answer["seat"] == 0
    assert post(client, f"/api/games/{answer['id']}/move", key=key,
                move="c3").status_code == 200


def test_spectators_and_strangers_cannot_ask_for_a_rematch(client: TestClient) -> None:
    made = create(client, rules="dara", mode="friend")
    gid = made["id"]
    post(client, f"/api/games/{gid}/resign", key=made["keys"]["1"])
    r = post(client, f"/api/games/{gid}/rematch", key="")
    assert r.status_code == 403 and r.json()["error"] == "bad_key"
    assert post(client, "/api/games/nosuch/rematch", key="x").status_code == 404
    assert client.get(f"/api/games/{gid}").json()["rematch"] is None


def test_unknown_pages_are_html_for_browsers_and_json_for_programs(client: TestClient) -> None:
    page = client.get("/nowhere", headers={"accept": "text/html,application/xhtml+xml"})
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text and 'href="/"' in page.text
    assert client.get("/nowhere").json()["error"] == "not_found"
    api = client.get("/api/nowhere", headers={"accept": "text/html"})
    assert api.status_code == 404 and api.json()["error"] == "not_found"


def test_a_rematch_keeps_the_time_control_with_full_clocks(client: TestClient) -> None:
    made = create(client, rules="kalah", mode="friend", clock="5+3")
    gid, keys = made["id"], made["keys"]
    assert post(client, f"/api/games/{gid}/move", key=keys["1"], move="1").status_code == 200
    post(client, f"/api/games/{gid}/resign", key=keys["2"])
    answer = post(client, f"/api/games/{gid}/rematch", key=keys["1"]).json()
    clock = answer["state"]["clock"]
    assert clock["control"] == "5+3" and clock["left"] == [300.0, 300.0]
    assert clock["running"] is None  # it starts with the rematch's first move
    untimed = create(client, rules="kalah", mode="friend")
    post(client, f"/api/games/{untimed['id']}/resign", key=untimed["keys"]["1"])
    again = post(client, f"/api/games/{untimed['id']}/rematch", key=untimed["keys"]["2"]).json()
    assert again["state"]["clock"] is None
