"""A signed-in player's lesson progress kept with the account: ``GET /api/me/lessons`` and
``PUT /api/me/lessons/{name}`` (:mod:`nugar.server.players.lesson_progress`): another browser of the
same account reads it, another account does not, the steps are checked against the lesson,
the cross-site check applies, and deleting the account deletes it."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from nugar.lessons import load
from nugar.server.storage.store import lesson_progress_table
from web_accounts import EVIL, SAME, other_client, sign_up


def test_progress_follows_the_account_to_another_browser(client: TestClient) -> None:
    assert client.get("/api/me/lessons").status_code == 401  # signed out
    r = client.put("/api/me/lessons/kalah", json={"done": [0, 1], "at": 2}, headers=SAME)
    assert r.status_code == 401 and r.json()["error"] == "signed_out"
    sign_up(client)
    assert client.get("/api/me/lessons").json() == {"lessons": {}}
    r = client.put("/api/me/lessons/kalah", json={"done": [1, 0, 1], "at": 2}, headers=SAME)
    assert r.status_code == 200, r.text
    assert (r.json()["done"], r.json()["at"]) == ([0, 1], 2)
    client.put("/api/me/lessons/dala", json={"done": [], "at": None}, headers=SAME)
    with other_client(client) as laptop:  # the same player in another browser
        laptop.post("/api/session", json={"username": "alice", "password": "correct horse"},
                    headers=SAME)
        kept = laptop.get("/api/me/lessons").json()["lessons"]
        assert sorted(kept) == ["dala", "kalah"]
        assert (kept["kalah"]["done"], kept["kalah"]["at"]) == ([0, 1], 2)
        # a PUT replaces the lesson's progress (forgetting it writes it empty)
        laptop.put("/api/me/lessons/kalah", json={"done": [], "at": 0}, headers=SAME)
    assert client.get("/api/me/lessons").json()["lessons"]["kalah"]["done"] == []
    with other_client(client) as bob:  # another account sees only its own
        sign_up(bob, "bob")
        assert bob.get("/api/me/lessons").json() == {"lessons": {}}


def test_progress_is_checked_against_the_lesson_and_the_origin(client: TestClient) -> None:
    sign_up(client)
    steps = len(load("kalah").steps)
    r = client.put("/api/me/lessons/kalah", json={"done": [steps]}, headers=SAME)
    assert r.status_code == 422 and r.json()["error"] == "bad_progress"
    r = client.put("/api/me/lessons/kalah", json={"done": [0], "at": -1}, headers=SAME)
    assert r.status_code == 422 and r.json()["error"] == "bad_progress"
    r = client.put("/api/me/lessons/chess", json={"done": [0]}, headers=SAME)
    assert r.status_code == 404 and r.json()["error"] == "unknown_lesson"
    r = client.put("/api/me/lessons/kalah", json={"done": list(range(201))}, headers=SAME)
    assert r.status_code == 422
    r = client.put("/api/me/lessons/kalah", json={"done": [0]}, headers=EVIL)
    assert r.status_code == 403 and r.json()["error"] == "cross_site"
    assert client.get("/api/me/lessons").json() == {"lessons": {}}


def test_deleting_the_account_deletes_its_progress(client: TestClient) -> None:
    sign_up(client)
    client.put("/api/me/lessons/dara", json={"done": [0], "at": 1}, headers=SAME)
    r = client.request("DELETE", "/api/me", json={"password": "correct horse"}, headers=SAME)
    assert r.status_code == 200, r.text
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.engine.connect() as conn:
        assert conn.execute(select(lesson_progress_table)).all() == []
