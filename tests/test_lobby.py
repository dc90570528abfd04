"""The lobby: open challenges, accepted with one click, listed live, bounded, expiring when
their creator leaves."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from nugar.server.errors import ApiError, status_of
from nugar.server.play.clocks import TimeControl
from nugar.server.play.lobby import Lobby
from nugar.server.storage.store import Store

if TYPE_CHECKING:
    from fastapi.testclient import TestClient


class Now:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def store() -> Iterator[Store]:
    made = Store("sqlite://")
    yield made
    made.close()


def test_challenges_are_bounded_and_expire_when_their_creator_leaves(store: Store) -> None:
    now = Now()
    lobby = Lobby(store, now, max_challenges=3, grace=30, max_age=600)
    a, key_a = lobby.post("dara", None, "first")
    b, _ = lobby.post("kalah", TimeControl.parse("5+3"), "random", public=False)
    lobby.post("dala", None)
    with pytest.raises(ApiError) as full:
        lobby.post("dara", None)
    assert status_of(full.value) == 503 and full.value.code == "lobby_full"
    assert [c["rules"] for c in lobby.listing()["challenges"]] == ["dala", "dara"]  # b private
    owner = lobby.attach(key_a)  # a's creator watches the lobby
    now.t += 31
    lobby.sweep()
    assert lobby.open_ids() == [a.id]  # the others' creators were not seen for 31 s
    now.t += 100
    lobby.sweep()
    assert lobby.open_ids() == [a.id]  # present: a stays
    lobby.detach(owner)
    lobby.mark_seen(owner)  # what the websocket does when its creator's last one closes
    now.t += 29
    lobby.sweep()
    assert lobby.open_ids() == [a.id]  # the grace after leaving
    now.t += 2
    lobby.sweep()
    assert not lobby.open_ids() and lobby.present == {} and lobby.watchers == 0
    with pytest.raises(ApiError, match="expired"):
        lobby.get(b.id)
    # even a present creator's challenge ends after max_age
    _, key_c = lobby.post("dara", None)
    lobby.attach(key_c)
    now.t += 601
    lobby.sweep()
    assert not lobby.open_ids()


def test_a_request_with_the_creator_s_key_keeps_a_challenge_and_only_he_cancels(
        store: Store) -> None:
    now = Now()
    lobby = Lobby(store, now, grace=30)
    a, key = lobby.post("dara", None)
    now.t += 20
    lobby.get(a.id, key)
    now.t += 20
    lobby.sweep()
    assert a.id in lobby.open_ids()
    with pytest.raises(ApiError) as refused:
        lobby.cancel(a.id, "not the key")
    assert refused.value.code == "bad_key"
    with pytest.raises(ApiError) as own:
        lobby.take(a.id, key)
    assert own.value.code == "own_challenge"
    lobby.cancel(a.id, key)
    assert not lobby.open_ids()


def test_a_challenge_being_accepted_is_unlisted_but_still_found_by_its_creator(
        store: Store) -> None:
    lobby = Lobby(store)
    a, key = lobby.post("dara", None, "second")
    taken = lobby.take(a.id)
    assert lobby.listing()["challenges"] == [] and lobby.accepted_for(a.owner) == []
    assert lobby.get(a.id, key).view()["open"] is False  # not "expired" while its game is made
    with pytest.raises(ApiError) as late:
        lobby.take(a.id)
    assert late.value.code == "already_accepted"
    lobby.release(taken)  # the game could not be made: open again
    assert [c["id"] for c in lobby.listing()["challenges"]] == [a.id]
    lobby.taken_by(lobby.take(a.id), "g1", 2)
    [found] = lobby.accepted_for(a.owner)
    assert found.id == a.id and found.seat_for_owner(key) == {"game": "g1", "seat": 2,
                                                             "key": key}


def test_accepted_challenges_kept_are_bounded(store: Store) -> None:
    lobby = Lobby(store, max_challenges=2)
    for _ in range(4):
        c, _key = lobby.post("dara", None)
        lobby.taken_by(lobby.take(c.id), "g", 1)
    assert len(lobby.challenges()) == 2  # the oldest accepted ones went


def test_the_lobby_is_the_database_s_two_lobbies_on_one_store_agree(store: Store) -> None:
    one, two = Lobby(store, max_challenges=2), Lobby(store, max_challenges=2)
    a, _key = one.post("dara", None)
    assert [c["id"] for c in two.listing()["challenges"]] == [a.id]
    two.post("kalah", None)
    with pytest.raises(ApiError) as full:  # the bound is the database's, not a process's
        one.post("dala", None)
    assert full.value.code == "lobby_full"
    two.take(a.id)
    with pytest.raises(ApiError) as late:
        one.take(a.id)
    assert late.value.code == "already_accepted"


def test_bad_challenges_say_what_is_allowed(store: Store) -> None:
    lobby = Lobby(store)
    with pytest.raises(ApiError, match="first, second or random"):
        lobby.post("dara", None, "white")
    with pytest.raises(ApiError) as bad:
        lobby.post("chess", None)
    assert bad.value.code == "bad_rules"


def test_watchers_are_bounded(store: Store) -> None:
    lobby = Lobby(store, max_watchers=2)
    lobby.attach(None)
    lobby.attach("k")
    with pytest.raises(ApiError) as busy:
        lobby.attach(None)
    assert busy.value.code == "lobby_busy"


# --- through the API ----------------------------------------------------------------------------


def test_a_challenge_accepted_through_the_api(client: TestClient) -> None:
    with client.websocket_connect("/ws/lobby") as watcher:
        assert watcher.receive_json()["challenges"] == []
        posted = client.post("/api/challenges", json={"rules": "kalah(pits=4)", "clock": "1+2",
                                                 "colour": "second"})
        assert posted.status_code == 201
        body = posted.json()
        cid, owner_key = body["challenge"]["id"], body["key"]
        assert body["link"].endswith(f"/?challenge={cid}")
        listed = watcher.receive_json()
        assert [c["id"] for c in listed["challenges"]] == [cid]
        assert listed["challenges"][0]["clock_text"] == "1 min + 2 s per move"
        with client.websocket_connect("/ws/lobby?creator=1") as creator:
            creator.send_json({"type": "key", "key": owner_key})  # never in the URL
            assert creator.receive_json()["type"] == "lobby"
            own = client.post(f"/api/challenges/{cid}/accept", json={"key": owner_key})
            assert own.status_code == 409 and own.json()["error"] == "own_challenge"
            accepted = client.post(f"/api/challenges/{cid}/accept", json={})
            assert accepted.status_code == 201
            seat = accepted.json()
            assert seat["seat"] == 1 and "#seat=1&key=" in seat["url"]
            assert watcher.receive_json()["challenges"] == []  # gone from the list
            told = creator.receive_json()
            for _ in range(3):  # the list changes once or twice before the creator is told
                if told["type"] == "accepted":
                    break
                told = creator.receive_json()
            assert told["type"] == "accepted" and told["game"] == seat["id"]
            assert told["seat"] == 2 and told["url"].endswith(f"#seat=2&key={told['key']}")
    again = client.post(f"/api/challenges/{cid}/accept", json={})
    assert again.status_code == 409 and again.json()["error"] == "already_accepted"
    # the creator also finds his seat by asking with his key; nobody else sees it
    mine = client.post(f"/api/challenges/{cid}/status", json={"key": owner_key}).json()
    assert mine["seat"]["game"] == seat["id"] and mine["seat"]["key"] == told["key"]
    assert "seat" not in client.get(f"/api/challenges/{cid}").json()
    assert "seat" not in client.get(f"/api/challenges/{cid}", params={"key": owner_key}).json()
    assert "seat" not in client.post(f"/api/challenges/{cid}/status", json={}).json()
    # the game: two people by link, the challenge's rules and clock; each key opens its seat
    state = client.get(f"/api/games/{seat['id']}").json()
    assert state["mode"] == "friend" and state["rules"] == "kalah(pits=4)"
    assert state["clock"]["control"] == "1+2"
    moved = client.post(f"/api/games/{seat['id']}/move", json={"key": seat["key"],
                                                               "move": "1"})
    assert moved.status_code == 200


def test_lobby_refusals_through_the_api(client: TestClient) -> None:
    assert client.post("/api/challenges", json={"clock": "forever"}).json()["error"] == "bad_clock"
    assert client.post("/api/challenges", json={"colour": "white"}).status_code == 422
    assert client.post("/api/challenges/nothing/accept", json={}).json()["error"] == (
        "unknown_challenge")
    posted = client.post("/api/challenges", json={"public": False}).json()
    assert client.get("/api/lobby").json()["challenges"] == []  # private: not listed...
    cid = posted["challenge"]["id"]
    assert client.get(f"/api/challenges/{cid}").json()["open"] is True  # ...but its link works
    assert client.post(f"/api/challenges/{cid}/cancel", json={"key": "x"}).status_code == 403
    cancelled = client.post(f"/api/challenges/{cid}/cancel", json={"key": posted["key"]})
    assert cancelled.status_code == 200
    assert client.get(f"/api/challenges/{cid}").status_code == 404
