"""The puzzles' API (:mod:`nugar.server.http.routes_puzzles`): a puzzle without its
solution, attempts judged (right, the first steps of the right turn, wrong, illegal,
unreadable), a signed-in player's first attempt rated as a Glicko-2 game against the puzzle
and a second not, the next puzzle skipping those attempted, streak mode, the daily puzzle,
bad input refused saying what is allowed, the per-client bound, and an account's puzzle
rows gone with it."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from nugar.puzzles import shipped
from nugar.server.http import routes_puzzles
from nugar.server.ratings import Rating, rate_game
from nugar.server.storage.store import (
    puzzle_attempts_table,
    puzzle_players_table,
    puzzle_ratings_table,
)
from puzzle_turns import all_turns
from web_accounts import SAME, other_client, sign_up


def a_wrong_turn(pid: str) -> str:
    p = next(p for r in ("kalah", "dracala", "dara", "dala") for p in shipped(r) if p.id == pid)
    return next(t for t, _ in all_turns(p.game()) if t != p.solution)


def solution(pid: str) -> str:
    return next(p.solution for r in ("kalah", "dracala", "dara", "dala") for p in shipped(r)
                if p.id == pid)


def test_the_list_and_a_puzzle_never_tell_the_solution(client: TestClient) -> None:
    listing = client.get("/api/puzzles").json()
    assert {r["rules"] for r in listing["rules"]} == {"dala", "dara", "dracala", "kalah"}
    assert all(r["puzzles"] >= 1000 for r in listing["rules"])
    assert "only-win" in listing["themes"]
    p = client.get("/api/puzzles/next?rules=kalah").json()
    assert p["rules"] == "kalah" and p["family"] == "sowing" and p["legal"]
    assert "solution" not in p and solution(p["id"]) not in str(p.get("themes"))
    again = client.get(f"/api/puzzles/{p['id']}").json()
    assert again["id"] == p["id"] and again["board"] == p["board"]


def test_attempts_are_judged_and_a_signed_out_one_rates_nothing(client: TestClient) -> None:
    store_puzzle = next(p for p in shipped("kalah") if "store" in p.themes)
    pid = store_puzzle.id
    first = store_puzzle.solution.split("-")[0]
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": first}, headers=SAME).json()
    assert r["verdict"] == "goes_on" and r["solution"] is None and r["legal"]
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": "9"}, headers=SAME).json()
    assert r["verdict"] in ("illegal", "unreadable") and r["solution"] is None
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": store_puzzle.solution},
                    headers=SAME).json()
    assert r["verdict"] == "right" and r["solution"] == store_puzzle.solution
    assert r["rated"] is False and "best turn" in r["reply"]
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": a_wrong_turn(pid)},
                    headers=SAME).json()
    assert r["verdict"] == "wrong" and r["solution"] == store_puzzle.solution
    assert store_puzzle.solution in r["reply"]


def test_a_first_attempt_is_a_rated_game_against_the_puzzle(client: TestClient) -> None:
    sign_up(client)
    p = client.get("/api/puzzles/next?rules=dara").json()
    assert p["player"]["rating"] == 1500 and p["player"]["attempts"] == 0
    r = client.post(f"/api/puzzles/{p['id']}/attempt", json={"turn": a_wrong_turn(p["id"])},
                    headers=SAME).json()
    assert r["verdict"] == "wrong" and r["rated"] is True
    shipped_rating = p["rating"]
    mine, theirs = rate_game(Rating(), Rating(shipped_rating, 150.0), 0.0)
    assert r["rating"]["rating"] == round(mine.rating, 1) < 1500
    assert r["puzzle_rating"]["rating"] == round(theirs.rating, 1) > shipped_rating
    # the same puzzle again: judged, not rated
    r2 = client.post(f"/api/puzzles/{p['id']}/attempt", json={"turn": solution(p["id"])},
                     headers=SAME).json()
    assert r2["verdict"] == "right" and r2["rated"] is False
    me = client.get("/api/me/puzzles").json()["puzzles"]
    assert [(m["rules"], m["attempts"], m["solved"]) for m in me] == [("dara", 1, 0)]
    assert me[0]["rating"] == round(mine.rating, 1)
    # the puzzle's own rating is what others see now
    assert client.get(f"/api/puzzles/{p['id']}").json()["rating"] == round(theirs.rating)
    # a right answer raises the rating; the next puzzle is never one attempted
    nxt = client.get("/api/puzzles/next?rules=dara").json()
    assert nxt["id"] != p["id"]
    r3 = client.post(f"/api/puzzles/{nxt['id']}/attempt", json={"turn": solution(nxt["id"])},
                     headers=SAME).json()
    assert r3["rated"] and r3["rating"]["rating"] > r3["rating_before"]["rating"]


def test_streak_mode_counts_right_answers_and_a_wrong_one_ends_it(client: TestClient) -> None:
    sign_up(client)
    for n in range(3):
        p = client.get("/api/puzzles/next?rules=dala&mode=streak").json()
        assert p["streak"] == n and p["mode"] == "streak"
        r = client.post(f"/api/puzzles/{p['id']}/attempt",
                        json={"turn": solution(p["id"]), "mode": "streak"}, headers=SAME).json()
        assert (r["rated"], r["streak"], r["streak_best"]) == (False, n + 1, n + 1)
    p = client.get("/api/puzzles/next?rules=dala&mode=streak").json()
    r = client.post(f"/api/puzzles/{p['id']}/attempt",
                    json={"turn": a_wrong_turn(p["id"]), "mode": "streak"}, headers=SAME).json()
    assert (r["streak"], r["streak_best"]) == (0, 3)
    me = client.get("/api/me/puzzles").json()["puzzles"][0]
    assert (me["attempts"], me["streak"], me["streak_best"]) == (0, 0, 3)  # none rated
    assert me["rating"] == 1500
    # signed out, the page says the streak and the puzzles get harder with it
    with other_client(client) as anon:
        easy = anon.get("/api/puzzles/next?rules=dala&mode=streak&streak=0").json()
        hard = anon.get("/api/puzzles/next?rules=dala&mode=streak&streak=20").json()
        assert easy["rating"] < hard["rating"]


def test_the_daily_puzzle_is_the_same_for_everyone(client: TestClient) -> None:
    d = client.get("/api/puzzles/daily?rules=dracala").json()
    with other_client(client) as other:
        assert other.get("/api/puzzles/daily?rules=dracala").json()["id"] == d["id"]
    assert len(d["daily"]) == 10 and d["rules"] == "dracala"


def test_bad_input_is_refused_saying_what_is_allowed(client: TestClient) -> None:
    r = client.get("/api/puzzles/next?rules=chess")
    assert r.status_code == 422 and r.json()["error"] == "bad_rules"
    assert "dala, dara, dracala, kalah" in r.json()["detail"]
    r = client.get("/api/puzzles/next?rules=kalah(pits=3)")
    assert r.status_code == 422 and r.json()["error"] == "bad_rules"
    assert client.get("/api/puzzles/next").status_code == 422
    assert client.get("/api/puzzles/next?rules=kalah&mode=blitz").status_code == 422
    assert client.get("/api/puzzles/next?rules=kalah&mode=streak&streak=-1").status_code == 422
    r = client.get("/api/puzzles/0123456789ab")
    assert r.status_code == 404 and r.json()["error"] == "unknown_puzzle"
    assert client.get("/api/puzzles/" + "x" * 5000).status_code == 404
    pid = shipped("kalah")[0].id
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": "1" * 65}, headers=SAME)
    assert r.status_code == 422
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": "1", "mode": "x"},
                    headers=SAME)
    assert r.status_code == 422
    r = client.post(f"/api/puzzles/{pid}/attempt", json={}, headers=SAME)
    assert r.status_code == 422
    assert client.get("/api/me/puzzles").status_code == 401
    assert client.get("/puzzles/0123456789ab").status_code == 404
    assert "Puzzles" in client.get("/puzzles").text


def test_attempts_are_bounded_per_client(client: TestClient) -> None:
    pid = shipped("dara")[0].id
    codes = [client.post(f"/api/puzzles/{pid}/attempt", json={"turn": "a1"},
                         headers=SAME).status_code
             for _ in range(int(routes_puzzles.ATTEMPT_BURST) + 5)]
    assert codes.count(429) >= 4 and codes[0] == 200
    r = client.post(f"/api/puzzles/{pid}/attempt", json={"turn": "a1"}, headers=SAME)
    assert r.json()["error"] == "puzzle_limit" and int(r.headers["retry-after"]) >= 1
    assert "this address" in r.json()["detail"]
    # a signed-in player has a share of his own
    with other_client(client) as alice:
        sign_up(alice)
        ok = alice.post(f"/api/puzzles/{pid}/attempt", json={"turn": "a1"}, headers=SAME)
        assert ok.status_code == 200


def test_deleting_the_account_deletes_its_puzzle_rows(client: TestClient) -> None:
    sign_up(client)
    p = client.get("/api/puzzles/next?rules=kalah").json()
    client.post(f"/api/puzzles/{p['id']}/attempt", json={"turn": solution(p["id"])},
                headers=SAME)
    store = client.app.state.store  # type: ignore[attr-defined]

    def count(table: object) -> int:
        with store.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(table)).scalar_one())

    assert count(puzzle_players_table) == count(puzzle_attempts_table) == 1
    r = client.request("DELETE", "/api/me", json={"password": "correct horse"}, headers=SAME)
    assert r.status_code in (200, 204), r.text
    assert count(puzzle_players_table) == count(puzzle_attempts_table) == 0
    assert count(puzzle_ratings_table) == 1  # the puzzle keeps the rating it was given
