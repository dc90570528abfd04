"""Rated games (issue 29, item 2): rated lobby challenges between two accounts, the Glicko-2
update stored in the transaction of the game's last change (once, and not at all when that
write fails), a player's page and the leaderboard over the API."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import insert, select

import nugar
from nugar.server.play.rated import DEFAULT_CONTROL, NEW_PER_HOUR, PAIR_PER_DAY
from nugar.server.ratings import Rating, rate_game
from nugar.server.storage.store import (
    GameRow,
    Store,
    StoredEvent,
    VersionConflict,
    accounts_table,
    rating_changes_table,
    ratings_table,
)
from postgres import postgres, require_binaries
from serving import serve_workers
from web_accounts import SAME


@pytest.fixture()
def alice(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        assert c.post("/api/accounts", json={"username": "alice", "password": "password-a"},
                      headers=SAME).status_code == 201
        yield c


@pytest.fixture()
def bob(app: FastAPI, alice: TestClient) -> TestClient:
    c = TestClient(app)
    assert c.post("/api/accounts", json={"username": "bob", "password": "password-b"},
                  headers=SAME).status_code == 201
    return c


def rated_game(alice: TestClient, bob: TestClient, rules: str = "dara") -> dict[str, Any]:
    """Alice posts a rated challenge (she plays first), Bob accepts: the game's id, and
    each one's seat key."""
    r = alice.post("/api/challenges", json={"rules": rules, "colour": "first", "rated": True},
                   headers=SAME)
    assert r.status_code == 201, r.text
    assert r.json()["challenge"]["rated"] is True
    made = r.json()
    r = bob.post(f"/api/challenges/{made['challenge']['id']}/accept", json={}, headers=SAME)
    assert r.status_code == 201, r.text
    taken = r.json()
    assert taken["seat"] == 2
    return {"id": taken["id"], "alice": made["key"], "bob": taken["key"],
            "keys": {1: made["key"], 2: taken["key"]}, "clients": {1: alice, 2: bob}}


def play_turns(client: httpx.Client, game: dict[str, Any], each: int = 2,
               headers: dict[str, str] = SAME) -> dict[str, Any]:
    """Play the first legal move of whoever is to move (``game["keys"]``: each seat's key,
    played by ``game["clients"]``'s client of that seat, signed in as its player: a rated
    seat is played with its account's session) until each player has completed ``each``
    turns (:data:`nugar.server.play.rated.MIN_TURNS`: from then on a resignation counts);
    the game's state then."""
    keys = game["keys"]
    clients = game.get("clients", {})
    while True:
        state = client.get(f"/api/games/{game['id']}").json()
        turns, done = state["turns"], [0, 0]
        for i, turn in enumerate(turns):
            done[turn["player"] - 1] += i < len(turns) - 1 or state["to_move"] != turn["player"]
        if min(done) >= each or state["over"]:
            return state
        mover = clients.get(state["to_move"], client)
        r = mover.post(f"/api/games/{game['id']}/move", headers=headers,
                       json={"key": keys[state["to_move"]], "move": state["legal"][0]})
        assert r.status_code == 200, r.text


def age_accounts(app: FastAPI, days: float = 30.0) -> None:
    """Make every account ``days`` old (the limits of new accounts then do not apply)."""
    store: Store = app.state.services.store
    with store.engine.begin() as conn:
        conn.execute(accounts_table.update().values(created=time.time() - days * 86400))


def test_a_rated_challenge_needs_an_account_and_a_preset_exactly(app: FastAPI,
                                                                 alice: TestClient) -> None:
    anonymous = TestClient(app)
    r = anonymous.post("/api/challenges", json={"rules": "dara", "rated": True})
    assert r.status_code == 401 and r.json()["error"] == "signed_out"
    r = alice.post("/api/challenges", json={"rules": "dara(quiet_limit=off)", "rated": True},
                   headers=SAME)
    assert r.status_code == 422 and r.json()["error"] == "bad_rules"
    assert "preset" in r.json()["detail"]
    r = alice.post("/api/challenges", json={"rules": "kalah", "rated": True}, headers=SAME)
    assert r.status_code == 201
    cid = r.json()["challenge"]["id"]
    # the answer to the post names its creator as the listing does
    assert (r.json()["challenge"]["by"], r.json()["challenge"]["rating"]) == ("alice", "1500?")
    # the lobby names a signed-in creator and his rating in the challenge's preset
    shown = anonymous.get(f"/api/challenges/{cid}").json()
    assert (shown["rated"], shown["by"], shown["rating"]) == (True, "alice", "1500?")
    # accepted only by another signed-in player
    r = anonymous.post(f"/api/challenges/{cid}/accept", json={})
    assert r.status_code == 401 and r.json()["error"] == "signed_out"
    r = alice.post(f"/api/challenges/{cid}/accept", json={}, headers=SAME)
    assert r.status_code == 409 and r.json()["error"] == "own_challenge"
    # an unrated challenge stays open to anyone; an anonymous creator is not named
    r = anonymous.post("/api/challenges", json={"rules": "dala(quiet_limit=off)"})
    assert r.status_code == 201 and r.json()["challenge"]["rated"] is False
    assert r.json()["challenge"]["by"] is None


def test_a_rated_game_updates_both_ratings_once_with_glicko_2(alice: TestClient,
                                                               bob: TestClient) -> None:
    game = rated_game(alice, bob)
    gid = game["id"]
    seen = alice.get(f"/api/games/{gid}/players").json()
    assert seen["players"] == {"1": "alice", "2": "bob"} and seen["rated"] is True
    assert seen["ratings"]["1"] == {"rating": 1500.0, "display": "1500?", "change": None,
                                    "after": None}
    play_turns(alice, game)
    r = bob.post(f"/api/games/{gid}/resign", json={"key": game["bob"]}, headers=SAME)
    assert r.status_code == 200, r.text
    won, lost = rate_game(Rating(), Rating(), 1.0)
    seen = alice.get(f"/api/games/{gid}/players").json()["ratings"]
    assert seen["1"]["change"] == pytest.approx(won.rating - 1500, abs=0.01)
    assert seen["2"]["change"] == pytest.approx(lost.rating - 1500, abs=0.01)
    assert seen["1"]["change"] > 0 > seen["2"]["change"]
    me = alice.get("/api/me").json()
    assert me["ratings"]["dara"]["games"] == 1
    assert me["ratings"]["dara"]["rating"] == pytest.approx(won.rating, abs=0.01)
    assert me["ratings"]["dara"]["deviation"] == pytest.approx(won.deviation, abs=0.01)
    assert me["ratings"]["dara"]["provisional"] is True
    # later changes of the finished game (a rematch asked for) rate nothing again
    r = alice.post(f"/api/games/{gid}/rematch", json={"key": game["alice"]}, headers=SAME)
    assert r.status_code == 200, r.text
    assert alice.get("/api/me").json()["ratings"]["dara"]["games"] == 1
    # the player's page
    page = bob.get("/api/players/ALICE").json()
    assert page["username"] == "alice"
    assert page["games"] == [{"id": gid, "rules": "dara", "opponent": "bob", "rated": True,
                              "opponent_bot": False,
                              "result": "win", "score": "1-0",
                              "rating_change": seen["1"]["change"],
                              "ended": page["games"][0]["ended"]}]
    assert [p["rating"] for p in page["history"]["dara"]] == [round(won.rating, 2)]
    assert bob.get("/api/players/bob").json()["games"][0]["result"] == "loss"
    assert bob.get("/api/players/nobody").status_code == 404


def test_unrated_games_between_accounts_change_no_rating(alice: TestClient,
                                                         bob: TestClient) -> None:
    r = alice.post("/api/challenges", json={"rules": "dara", "colour": "first"}, headers=SAME)
    made = r.json()
    taken = bob.post(f"/api/challenges/{made['challenge']['id']}/accept", json={},
                     headers=SAME).json()
    # the seats name the signed-in players, but the game is not rated
    assert alice.get(f"/api/games/{taken['id']}/players").json() == {
        "players": {"1": "alice", "2": "bob"}, "bots": {"1": False, "2": False},
        "rated": False}
    bob.post(f"/api/games/{taken['id']}/resign", json={"key": taken["key"]}, headers=SAME)
    assert alice.get("/api/me").json()["ratings"] == {}


def test_a_failed_write_of_the_last_move_loses_neither_move_nor_rating_and_doubles_none(
        app: FastAPI, alice: TestClient, bob: TestClient,
        monkeypatch: pytest.MonkeyPatch) -> None:
    game = rated_game(alice, bob)
    store: Store = app.state.services.store
    real = Store._rate
    calls = []

    def failing(self: Store, cursor: Any, row: GameRow, now: float) -> None:
        calls.append(row.id)
        if len(calls) == 1:
            real(self, cursor, row, now)  # the ratings written in the transaction...
            raise OSError("disk gone")  # ...which then fails before its commit
        real(self, cursor, row, now)

    play_turns(alice, game)
    monkeypatch.setattr(Store, "_rate", failing)
    r = bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]}, headers=SAME)
    assert r.status_code == 503 and r.json()["error"] == "storage_failed"
    with store.engine.connect() as conn:
        assert conn.execute(select(ratings_table)).all() == []
        assert conn.execute(select(rating_changes_table)).all() == []
    state = alice.get(f"/api/games/{game['id']}").json()
    assert state["result"] is None  # the game goes on: nothing of the failed write stayed
    r = bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]}, headers=SAME)
    assert r.status_code == 200, r.text
    with store.engine.connect() as conn:
        assert conn.execute(select(ratings_table.c.games)).scalars().all() == [1, 1]
        assert len(conn.execute(select(rating_changes_table)).all()) == 2


def _stored_game(store: Store, result: str | None, version: int) -> GameRow:
    return GameRow(id="g1", rules="kalah", mode="friend", ai_level=None, ai_seat=None,
                   key_hash_1=None, key_hash_2=None, moves=[], ending=None, offers={},
                   result=result, reason=None, version=version, account_1=1, account_2=2,
                   rated=True)


def test_the_writer_rates_a_game_once_and_an_aborted_game_never() -> None:
    store = Store("sqlite://")
    with store.engine.begin() as conn:
        for i, name in ((1, "ann"), (2, "ben")):
            conn.execute(insert(accounts_table).values(id=i, username=name, name_key=name,
                                                       created=0.0))
    store.create(_stored_game(store, None, 1), StoredEvent(1, "created", {}))
    store.save(_stored_game(store, "0-1", 2), StoredEvent(2, "resign", {"player": 1}))
    store.save(_stored_game(store, "0-1", 3), StoredEvent(3, "rematch", {}))
    with store.engine.connect() as conn:
        rows = {r.account_id: r for r in conn.execute(select(ratings_table)).all()}
    assert rows[1].games == rows[2].games == 1
    lost, won = rate_game(Rating(), Rating(), 0.0)
    assert rows[2].rating == pytest.approx(won.rating)
    assert rows[1].rating == pytest.approx(lost.rating)
    assert rows[1].volatility == pytest.approx(lost.volatility)
    # an aborted game (result *) is not rated
    aborted = GameRow(id="g2", rules="kalah", mode="friend", ai_level=None, ai_seat=None,
                      key_hash_1=None, key_hash_2=None, moves=[], ending=None, offers={},
                      result=None, reason=None, version=1, account_1=1, account_2=2,
                      rated=True)
    store.create(aborted, StoredEvent(1, "created", {}))
    aborted.result, aborted.version = "*", 2
    store.save(aborted, StoredEvent(2, "abort", {}))
    with store.engine.connect() as conn:
        assert conn.execute(select(ratings_table.c.games)).scalars().all() == [1, 1]
    store.close()


def test_the_leaderboard_lists_settled_ratings_best_first(app: FastAPI,
                                                          alice: TestClient) -> None:
    store: Store = app.state.services.store
    with store.engine.begin() as conn:
        for i, (name, rating, deviation) in enumerate(
                (("carl", 1700.0, 80.0), ("dina", 1810.0, 60.0), ("ed", 2000.0, 300.0)),
                start=100):
            conn.execute(insert(accounts_table).values(id=i, username=name, name_key=name,
                                                       created=0.0))
            conn.execute(insert(ratings_table).values(
                account_id=i, preset="dala", rating=rating, deviation=deviation,
                volatility=0.06, games=30, updated=0.0))
    board = alice.get("/api/leaderboard", params={"rules": "dala"}).json()
    assert board["rules"] == "dala"
    # ed's rating is provisional (deviation over 110): not listed
    assert [(p["rank"], p["username"], p["display"]) for p in board["players"]] == [
        (1, "dina", "1810"), (2, "carl", "1700")]
    assert alice.get("/api/leaderboard", params={"rules": "dala(x=1)"}).status_code == 422
    assert alice.get("/api/leaderboard", params={"rules": "kalah"}).json()["players"] == []


#: a process that stores a rated game between two accounts, then writes its last change
#: (a resignation) and is killed with SIGKILL at the point named by argv[2]: ``inside``
#: the transaction (the ratings written, nothing committed) or ``after`` its commit
KILLED = """
import os, signal, sys
from sqlalchemy import insert
from nugar.server.storage.store import GameRow, Store, StoredEvent, accounts_table

where = sys.argv[2]
store = Store(sys.argv[1])
with store.engine.begin() as conn:
    for i, name in ((1, "ann"), (2, "ben")):
        conn.execute(insert(accounts_table).values(id=i, username=name, name_key=name,
                                                   created=0.0))
def row(result, version):
    return GameRow(id="g1", rules="dala", mode="friend", ai_level=None, ai_seat=None,
                   key_hash_1=None, key_hash_2=None, moves=[], ending=None, offers={},
                   result=result, reason=None, version=version, account_1=1, account_2=2,
                   rated=True)
store.create(row(None, 1), StoredEvent(1, "created", {}))
real_rate, real_transaction = Store._rate, Store._transaction
def rate(self, cursor, game, now):
    real_rate(self, cursor, game, now)
    if where == "inside":
        os.kill(os.getpid(), signal.SIGKILL)
def transaction(self, changes):
    done = real_transaction(self, changes)
    if where == "after":
        os.kill(os.getpid(), signal.SIGKILL)
    return done
Store._rate, Store._transaction = rate, transaction
store.save(row("1-0", 2), StoredEvent(2, "resign", {"player": 2}))
"""


@pytest.mark.parametrize("where", ["inside", "after"])
def test_sigkill_at_the_last_write_neither_loses_nor_doubles_the_rating(
        tmp_path: Path, where: str) -> None:
    url = f"sqlite:///{tmp_path / 'killed.db'}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(nugar.__file__).parents[1]), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", KILLED, url, where], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]
    store = Store(url)
    try:
        row = store.load("g1")
        assert row is not None
        with store.engine.connect() as conn:
            games = conn.execute(select(ratings_table.c.games)).scalars().all()
            changes = conn.execute(select(rating_changes_table)).all()
        if where == "inside":  # nothing of the transaction: the game runs, nobody rated
            assert row.result is None and row.version == 1
            assert games == [] and changes == []
        else:  # all of it: the game over and both rated, once
            assert row.result == "1-0" and row.version == 2
            assert sorted(games) == [1, 1] and len(changes) == 2
        # the end written again after the restart: done exactly once in all
        row.result, row.version = "1-0", 2
        try:
            store.save(row, StoredEvent(2, "resign", {"player": 2}))
        except VersionConflict:
            assert where == "after"
        with store.engine.connect() as conn:
            assert sorted(conn.execute(select(ratings_table.c.games)).scalars().all()) \
                == [1, 1]
            assert len(conn.execute(select(rating_changes_table)).all()) == 2
    finally:
        store.close()


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    require_binaries()
    with postgres() as url:
        yield url


def test_a_rated_game_on_postgresql_served_by_two_workers(pg_url: str, tmp_path: Path) -> None:
    """``nugar serve --workers 2`` on a new PostgreSQL database (migrated once, before the
    workers start): two players sign up and play a rated game from the lobby (two turns
    each, then one resigns),
    and both see the same rating changes whichever worker answers."""
    proc, base = serve_workers(pg_url, tmp_path / "serve.log")
    try:
        same = {"Origin": base}
        with httpx.Client(base_url=base, headers=same, timeout=30) as ann, \
                httpx.Client(base_url=base, headers=same, timeout=30) as ben:
            for client, name in ((ann, "ann"), (ben, "ben")):
                r = client.post("/api/accounts", json={"username": name,
                                                       "password": f"{name} password"})
                assert r.status_code == 201, r.text
            made = ann.post("/api/challenges", json={"rules": "kalah", "colour": "second",
                                                     "rated": True}).json()
            taken = ben.post(f"/api/challenges/{made['challenge']['id']}/accept",
                             json={}).json()
            assert taken["seat"] == 1
            # past the abort of a rated game ended too early (nugar.server.play.rated)
            play_turns(ben, {"id": taken["id"], "keys": {1: taken["key"], 2: made["key"]},
                             "clients": {1: ben, 2: ann}}, headers=same)
            r = ben.post(f"/api/games/{taken['id']}/resign", json={"key": taken["key"]})
            assert r.status_code == 200, r.text
            changes = set()
            for client in (ann, ben) * 3:  # asked several times: either worker answers
                seen = client.get(f"/api/games/{taken['id']}/players").json()
                assert seen["players"] == {"1": "ben", "2": "ann"}
                one, two = seen["ratings"]["1"]["change"], seen["ratings"]["2"]["change"]
                assert one < 0 < two and one == pytest.approx(-two)
                changes.add((one, two))
            assert len(changes) == 1
            for client, name, sign in ((ann, "ann", 1), (ben, "ben", -1)):
                rating = client.get(f"/api/players/{name}").json()["ratings"]["kalah"]
                assert rating["games"] == 1 and sign * (rating["rating"] - 1500) > 0
    finally:
        proc.terminate()
        proc.wait(30)


# --- rating integrity (issue 40, item 1; nugar.server.play.rated) --------------------------------
def _ratings(store: Store) -> list[tuple[int, float]]:
    with store.engine.connect() as conn:
        return sorted(conn.execute(select(ratings_table.c.account_id, ratings_table.c.rating))
                      .all())


def test_farming_by_resigning_at_once_changes_no_rating(app: FastAPI, alice: TestClient,
                                                        bob: TestClient) -> None:
    """The attack measured against a local server: Bob, a second account of Alice's owner,
    resigns every rated game at once. Before: Alice 1500 -> 1904 in 25 games. Now every one
    of them is aborted (no result) and no rating moves."""
    for _ in range(25):
        game = rated_game(alice, bob)
        r = bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]},
                     headers=SAME)
        assert r.status_code == 200, r.text
        state = r.json()
        assert (state["result"], state["reason"], state["winner"]) == ("*", "aborted", None)
    store: Store = app.state.services.store
    assert _ratings(store) == []
    me = alice.get("/api/me").json()
    assert me["ratings"] == {}


def test_a_game_resigned_after_one_turn_each_is_aborted_after_two_rated(
        app: FastAPI, alice: TestClient, bob: TestClient) -> None:
    game = rated_game(alice, bob)
    play_turns(alice, game, each=1)
    r = alice.post(f"/api/games/{game['id']}/resign", json={"key": game["alice"]},
                   headers=SAME)
    state = r.json()
    assert (state["result"], state["aborted"], state["early"]) == ("*", 1, True)
    record = alice.get(f"/api/games/{game['id']}/record").text
    assert '[Result "*"]' in record and "before each player made two turns" in record
    r = bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]}, headers=SAME)
    assert r.status_code == 409 and "two turns" in r.json()["detail"]
    store: Store = app.state.services.store
    assert _ratings(store) == []
    game = rated_game(alice, bob)
    play_turns(alice, game, each=2)
    r = alice.post(f"/api/games/{game['id']}/resign", json={"key": game["alice"]},
                   headers=SAME)
    assert r.json()["result"] == "0-1"
    assert [rating > 1500 for _id, rating in _ratings(store)] == [False, True]


def test_a_rated_challenge_without_a_clock_gets_days_per_turn(alice: TestClient,
                                                              bob: TestClient) -> None:
    game = rated_game(alice, bob)
    state = alice.get(f"/api/games/{game['id']}").json()
    assert state["clock"]["control"] == DEFAULT_CONTROL
    r = alice.post("/api/challenges", json={"rules": "dara", "clock": "5+3"}, headers=SAME)
    assert r.json()["challenge"]["clock"] == "5+3"  # an unrated one keeps what it asked


def test_a_new_account_starts_a_few_rated_games_an_hour(app: FastAPI, alice: TestClient,
                                                         bob: TestClient) -> None:
    for _ in range(NEW_PER_HOUR):
        game = rated_game(alice, bob)
        play_turns(alice, game)  # games that count: past the abort
        bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]}, headers=SAME)
    r = alice.post("/api/challenges", json={"rules": "dara", "rated": True}, headers=SAME)
    assert r.status_code == 429 and r.json()["error"] == "rated_limit"
    assert "unrated" in r.json()["detail"]
    # unrated games are welcome; an old account is not held to the hourly limit
    r = alice.post("/api/challenges", json={"rules": "dara"}, headers=SAME)
    assert r.status_code == 201
    age_accounts(app)
    assert rated_game(alice, bob)["id"]


def test_two_accounts_start_a_bounded_number_of_rated_games_a_day(
        app: FastAPI, alice: TestClient, bob: TestClient) -> None:
    age_accounts(app)
    for _ in range(PAIR_PER_DAY):
        game = rated_game(alice, bob)
        play_turns(alice, game)
        bob.post(f"/api/games/{game['id']}/resign", json={"key": game["bob"]}, headers=SAME)
    rating = dict(_ratings(app.state.services.store))
    made = alice.post("/api/challenges", json={"rules": "dara", "colour": "first",
                                               "rated": True}, headers=SAME).json()
    r = bob.post(f"/api/challenges/{made['challenge']['id']}/accept", json={}, headers=SAME)
    assert r.status_code == 429 and r.json()["error"] == "rated_limit"
    # the challenge is not used up: a third player may still accept it
    carl = TestClient(app)
    assert carl.post("/api/accounts", json={"username": "carl", "password": "password-c"},
                     headers=SAME).status_code == 201
    age_accounts(app)
    r = carl.post(f"/api/challenges/{made['challenge']['id']}/accept", json={}, headers=SAME)
    assert r.status_code == 201, r.text
    assert dict(_ratings(app.state.services.store)) == rating
