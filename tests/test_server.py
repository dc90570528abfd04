"""The web server's JSON API and websockets, through Starlette's test client and httpx."""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import nugar
from nugar.ai import DEFAULT_LEVEL, LEVELS
from nugar.rules.options import DARA_SHEET
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.play.render import board_data, svg
from nugar.server.play.room import Listener
from nugar.server.storage.store import GameRow, Store, StoredEvent, hash_key
from serving import serving

# the fixtures ``db_url`` and ``client`` are in conftest.py


def create(c: TestClient, **body: Any) -> dict[str, Any]:
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def move(c: TestClient, gid: str, key: str, text: str) -> httpx.Response:
    return c.post(f"/api/games/{gid}/move", json={"key": key, "move": text})


def wait_for(c: TestClient, gid: str, pred: Any, timeout: float = 20.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        state: dict[str, Any] = c.get(f"/api/games/{gid}").json()
        if pred(state):
            return state
        assert time.monotonic() < end, f"condition not reached; last state {state['turns']}"
        time.sleep(0.05)


# --- creating games ---------------------------------------------------------------------------
def test_presets_name_their_sources(client: TestClient) -> None:
    data = client.get("/api/presets").json()
    by_name = {p["name"]: p for p in data}
    assert set(by_name) == {p["name"] for p in nugar.presets()}
    assert by_name["dara-sheet"]["source"] == DARA_SHEET
    opts = {o["name"]: o for o in by_name["dala"]["options"]}
    assert opts["rows"]["default"] == "6" and opts["centre_first"]["default"] == "on"


def test_friend_game_gives_watch_link_and_one_secret_per_seat(client: TestClient) -> None:
    made = create(client, rules="dala(quiet_limit=off)", mode="friend")
    gid = made["id"]
    assert set(made["keys"]) == {"1", "2"} and made["keys"]["1"] != made["keys"]["2"]
    assert made["links"]["watch"].endswith(f"/g/{gid}")
    assert made["links"]["seats"]["2"].endswith(f"#seat=2&key={made['keys']['2']}")
    state = client.get(f"/api/games/{gid}").json()
    assert state["rules"] == "dala(quiet_limit=off)" and state["to_move"] == 1
    assert made["keys"]["1"] not in json.dumps(state)  # the public state holds no secrets
    # dala: the first drop must go to the centre
    assert sorted(state["legal"]) == ["c3", "c4", "d3", "d4"]


@pytest.mark.parametrize("body, code, words", [
    ({"rules": "chess", "mode": "friend"}, "bad_rules", "dara"),
    ({"rules": "dara(rows=99)", "mode": "friend"}, "bad_rules", "rows"),
    ({"rules": "dara", "mode": "online"}, "bad_request", "mode"),
    ({"rules": "dara", "mode": "ai", "level": 9}, "bad_level", "1..8"),
    ({"rules": "dara", "mode": "ai", "level": 2, "seat": 3}, "bad_seat", "1 or 2"),
    ({"rules": 5, "mode": "ai"}, "bad_request", "rules"),
])
def test_bad_creation_requests_are_refused_clearly(client: TestClient, body: dict[str, Any],
                                                   code: str, words: str) -> None:
    r = client.post("/api/games", json=body)
    assert r.status_code == 422
    assert r.json()["error"] == code and words in r.json()["detail"]


def test_the_web_uses_the_one_default_level(client: TestClient) -> None:
    # the page selects the level the server names, and a game made without one gets it
    assert client.get("/api/levels").json() == {"levels": sorted(LEVELS),
                                                "default": DEFAULT_LEVEL}
    made = create(client, rules="kalah", mode="ai", seat=1)
    assert made["state"]["ai_level"] == DEFAULT_LEVEL
    page = client.get("/").text
    select = page.split('<select id="level"', 1)[1].split("</select>", 1)[0]
    assert "<option" not in select  # no level written into the page itself
    script = client.get("/static/home.js").text
    assert '"/api/levels"' in script


def test_openapi_schema_lists_the_api(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    assert {"/api/games", "/api/games/{game_id}/move", "/api/replay"} <= set(schema["paths"])
    # the interactive docs load a CDN's scripts on the origin of the seat keys: off by default
    assert client.get("/docs").status_code == 404
    assert client.get("/redoc").status_code == 404


def test_api_docs_can_be_turned_on(tmp_path: Path) -> None:
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'g.db'}", rate=None, api_docs=True))
    with TestClient(app) as c:
        r = c.get("/docs")
        assert r.status_code == 200 and "swagger" in r.text.lower()
        assert "cdn.jsdelivr.net" in r.headers["content-security-policy"]
        assert c.get("/redoc").status_code == 200
        # the pages keep the strict policy
        assert "cdn" not in c.get("/").headers["content-security-policy"]


def test_nugar_serve_hands_its_workers_the_whole_config(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """``nugar serve --workers N`` passes its ServerConfig to each worker as JSON: every field
    comes back (none left at its default), the tables left to the supervisor."""
    import dataclasses

    from nugar.server import app, worker
    from nugar.server.http import http_timeouts

    config = ServerConfig("sqlite:///x.db", ai_time=0.5, rate=2.5, burst=7, max_body=999,
                          warm_up=True, public_url="https://example.org", api_docs=True,
                          body_timeout=3.0, ai_workers=2, ai_table=8.0, ai_queue=1,
                          expire_days=None, clock_every=0.5, create_tables=True, tune_gc=True,
                          fast_lane=False, analysis_nodes=7, analysis_queue=2,
                          ai_per_client=2, client_sockets=3, work_rate=0.5,
                          challenges_per_client=5, work_processes=2, hash_workers=2,
                          analysis_per_client=3, access_log=True)
    assert all(getattr(config, f.name) != f.default for f in dataclasses.fields(config)
               if f.name != "create_tables")
    made: list[ServerConfig] = []
    timeouts: list[tuple[float, int | None]] = []
    monkeypatch.setattr(app, "create_app", lambda c: made.append(c) or "the app")
    monkeypatch.setattr(http_timeouts, "set_header_timeout",
                        lambda seconds, connections: timeouts.append((seconds, connections)))
    monkeypatch.setenv(worker.ENV, worker.options_env(config, 7.0, 5))
    assert worker.app_from_env() == "the app"
    assert made == [dataclasses.replace(config, create_tables=False)]
    assert timeouts == [(7.0, 5)]  # the header timeout, the connections per address


def test_malformed_json_and_unknown_routes_give_json_errors(client: TestClient) -> None:
    r = client.post("/api/games", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = client.get("/api/games/zzzz0000")
    assert r.status_code == 404 and "zzzz0000" in r.json()["detail"]
    r = client.get("/api/games/../../etc")
    assert r.status_code == 404


# --- moves --------------------------------------------------------------------------------------
def test_only_the_seat_holder_moves_and_engine_judges(client: TestClient) -> None:
    made = create(client, rules="dara", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    r = move(client, gid, "", "c3")
    assert r.status_code == 403 and r.json()["error"] == "bad_key"
    r = move(client, gid, "wrong-secret", "c3")
    assert r.status_code == 403
    r = move(client, gid, k2, "c3")
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn"
    r = move(client, gid, k1, "c3-c4-c5")
    assert r.status_code == 422 and r.json()["error"] == "invalid_move"
    r = move(client, gid, k1, "z9")
    assert r.status_code == 422
    assert move(client, gid, k1, "c3").status_code == 200
    r = move(client, gid, k2, "c3")
    assert r.status_code == 409 and r.json()["error"] == "illegal_move"
    assert "not legal" in r.json()["detail"]
    update = move(client, gid, k2, "d4").json()
    # the answer is what changed: the new move and turn, from where they start
    assert update["base"] == 2 and update["v"] == 3 and update["moves_from"] == 1
    assert update["new_moves"] == ["d4"] and "moves" not in update and "turns" not in update
    assert [t["text"] for t in update["new_turns"]] == ["d4"] and update["turns_from"] == 1
    assert [t["text"] for t in client.get(f"/api/games/{gid}").json()["turns"]] == ["c3", "d4"]
    # refused requests changed nothing
    assert client.get(f"/api/games/{gid}").json()["moves"] == ["c3", "d4"]


def test_sowing_turn_with_bonus_step_and_score(client: TestClient) -> None:
    made = create(client, rules="kalah", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    state = move(client, gid, key, "3-1").json()  # 4 seeds from hole 3 end in the store
    assert state["new_turns"] == [{"player": 1, "text": "3-1", "n": 2}]
    assert state["to_move"] == 2 and state["score"] == [1, 0]
    assert state["board"]["holes"] == [[0, 5, 1, 6, 6, 5], [4, 4, 4, 4, 4, 4]]
    # each move's seeds, cell by cell (what the page animates: it sows nothing itself)
    assert [(s["ply"], s["player"], s["start"], s["path"]) for s in state["sowings"]] == [
        (0, 1, 2, [3, 4, 5, 6]), (1, 1, 0, [1, 2, 3, 4])]
    assert state["sowings"][-1]["after"] == [0, 5, 1, 6, 6, 5, 1, 4, 4, 4, 4, 4, 4, 0]
    state = move(client, gid, key, "1").json()  # the second player's turn: two turns sent
    assert [s["ply"] for s in state["sowings"]] == [0, 1, 2]
    assert state["sowings"][-1]["path"] == [8, 9, 10, 11]


def test_an_alignment_game_sends_no_sowing(client: TestClient) -> None:
    made = create(client, rules="dara", mode="hotseat")
    state = move(client, made["id"], made["keys"]["0"], "c3").json()
    assert state["sowings"] == []


def test_moves_after_the_end_are_refused(client: TestClient) -> None:
    made = create(client, rules="kalah(pits=1,seeds=1)", mode="friend")
    gid, k1 = made["id"], made["keys"]["1"]
    state = move(client, gid, k1, "1").json()
    # the single seed goes to the store: player 1 has a bonus step but no seeds; the game ends
    assert state["over"] and state["result"] is not None and state["legal"] == []
    r = move(client, gid, k1, "1")
    assert r.status_code == 409 and r.json()["error"] == "game_over"
    r = client.post(f"/api/games/{gid}/resign", json={"key": k1})
    assert r.status_code == 409


def test_resign_and_draw_offers(client: TestClient) -> None:
    made = create(client, rules="dara", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    r = client.post(f"/api/games/{gid}/offers/draw", json={"key": k1, "action": "accept"})
    assert r.status_code == 409 and r.json()["error"] == "no_offer"
    state = client.post(f"/api/games/{gid}/offers/draw", json={"key": k1}).json()
    assert state["offers"] == {"draw": 1}
    r = client.post(f"/api/games/{gid}/offers/draw", json={"key": k1, "action": "decline"})
    assert r.status_code == 409  # one cannot decline one's own offer
    state = client.post(f"/api/games/{gid}/offers/draw", json={"key": k2, "action": "decline"}
                        ).json()
    assert state["offers"] == {} and not state["over"]
    client.post(f"/api/games/{gid}/offers/draw", json={"key": k2})
    state = client.post(f"/api/games/{gid}/offers/draw", json={"key": k1, "action": "accept"}
                        ).json()
    assert state["over"] and state["result"] == "1/2-1/2" and state["reason"] == "agreement"
    text = client.get(f"/api/games/{gid}/record").text
    assert '[Result "1/2-1/2"]' in text and '[Termination "agreement"]' in text
    from nugar.record import load_one

    assert load_one(text).game.outcome == nugar.Outcome(None, "agreement")
    r = client.post(f"/api/games/{gid}/offers/bribe", json={"key": k1})
    assert r.status_code == 404

    made = create(client, rules="dara", mode="friend")
    gid, k2 = made["id"], made["keys"]["2"]
    state = client.post(f"/api/games/{gid}/resign", json={"key": k2}).json()
    assert state["result"] == "1-0" and state["reason"] == "resigned"


def test_hot_seat_undo_draw_and_resign(client: TestClient) -> None:
    made = create(client, rules="dara", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    for text in ["c3", "d4"]:
        move(client, gid, key, text)
    state = client.post(f"/api/games/{gid}/undo", json={"key": key}).json()
    assert state["moves_from"] == 1 and state["new_moves"] == [] and state["to_move"] == 2
    assert state["turns_from"] == 1 and state["new_turns"] == [] and state["ply"] == 1
    state = client.post(f"/api/games/{gid}/resign", json={"key": key}).json()
    assert state["winner"] == 1 and state["reason"] == "resigned"  # the player to move resigned
    made = create(client, rules="kalah", mode="hotseat")
    state = client.post(f"/api/games/{made['id']}/offers/draw",
                        json={"key": made["keys"]["0"]}).json()
    assert state["result"] == "1/2-1/2" and state["reason"] == "agreement"


def test_takeback_between_people(client: TestClient) -> None:
    made = create(client, rules="dara", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    r = client.post(f"/api/games/{gid}/offers/takeback", json={"key": k1})
    assert r.status_code == 409 and r.json()["error"] == "nothing_to_undo"
    move(client, gid, k1, "c3")
    move(client, gid, k2, "d4")
    assert client.post(f"/api/games/{gid}/undo", json={"key": k1}).status_code == 409
    client.post(f"/api/games/{gid}/offers/takeback", json={"key": k1})
    state = client.post(f"/api/games/{gid}/offers/takeback",
                        json={"key": k2, "action": "accept"}).json()
    # player 1 asked: both the reply and his own turn are taken back, and he is to move
    assert state["moves_from"] == 0 and state["new_moves"] == [] and state["to_move"] == 1


def test_game_against_the_ai_undo_and_hint(client: TestClient) -> None:
    made = create(client, rules="kalah", mode="ai", level=1, seat=1)
    gid, key = made["id"], made["keys"]["1"]
    assert set(made["keys"]) == {"1"}
    hint = client.post(f"/api/games/{gid}/hint", json={"key": key}).json()
    assert hint["move"] in [str(m) for m in nugar.new_game("kalah").legal_moves()]
    move(client, gid, key, "1")
    state = wait_for(client, gid, lambda s: s["over"] or s["to_move"] == 1)
    assert [t["player"] for t in state["turns"]] == [1, 2]
    # undo takes back the AI's reply and the human's turn
    state = client.post(f"/api/games/{gid}/undo", json={"key": key}).json()
    assert state["ply"] == 0 and state["new_moves"] == [] and state["to_move"] == 1
    r = client.post(f"/api/games/{gid}/undo", json={"key": key})
    assert r.status_code == 409 and r.json()["error"] == "nothing_to_undo"
    r = client.post(f"/api/games/{gid}/offers/draw", json={"key": key})
    assert r.status_code == 409


def test_a_hint_while_the_ai_pool_is_full_gets_503_ai_busy(tmp_path: Path) -> None:
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'g.db'}", ai_time=0.05, rate=None,
                                  ai_workers=1, ai_queue=0))
    with TestClient(app) as c:
        made = create(c, rules="kalah", mode="hotseat")
        gid, key = made["id"], made["keys"]["0"]
        pool = app.state.ai_pool
        taken = pool._free.pop()  # the only worker is busy, and no hint may wait
        r = c.post(f"/api/games/{gid}/hint", json={"key": key})
        assert r.status_code == 503 and r.json()["error"] == "ai_busy"
        assert int(r.headers["retry-after"]) >= 1
        pool._release(taken)
        r = c.post(f"/api/games/{gid}/hint", json={"key": key})
        assert r.status_code == 200 and pool.built == 1


def test_ai_moves_first_when_human_takes_second_seat(client: TestClient) -> None:
    made = create(client, rules="dara", mode="ai", level=2, seat=2)
    state = wait_for(client, made["id"], lambda s: len(s["moves"]) >= 1)
    assert state["turns"][0]["player"] == 1 and state["to_move"] == 2
    r = move(client, made["id"], made["keys"]["2"], state["legal"][0])
    assert r.status_code == 200


# --- storage ------------------------------------------------------------------------------------
def test_restart_resumes_games_exactly(db_url: str) -> None:
    url = db_url
    with TestClient(create_app(ServerConfig(url, rate=None))) as c:
        made = create(c, rules="dara-sheet", mode="friend")
        gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
        for i, text in enumerate(["a1", "f5", "b1", "e5", "a2"]):
            assert move(c, gid, (k1, k2)[i % 2], text).status_code == 200
        c.post(f"/api/games/{gid}/offers/draw", json={"key": k1})
        before = c.get(f"/api/games/{gid}").json()
    with TestClient(create_app(ServerConfig(url, rate=None))) as c:
        after = c.get(f"/api/games/{gid}").json()
        assert after == before
        assert move(c, gid, k1, "f4").status_code == 409  # still player 2's turn
        assert move(c, gid, k2, "f4").json()["v"] == before["v"] + 1


@pytest.mark.parametrize("how, outcome, ending", [
    ("draw", nugar.Outcome(None, "agreement"), {"termination": "agreement", "winner": None}),
    ("resign", nugar.Outcome(1, "resigned"), {"termination": "resigned", "winner": 1}),
])
def test_an_imposed_ending_survives_a_restart_and_is_in_the_record(
        db_url: str, how: str, outcome: nugar.Outcome, ending: dict[str, Any]) -> None:
    from nugar.record import load_one

    with TestClient(create_app(ServerConfig(db_url, rate=None))) as c:
        made = create(c, rules="dara", mode="friend")
        gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
        move(c, gid, k1, "c3")
        move(c, gid, k2, "d4")
        if how == "draw":
            c.post(f"/api/games/{gid}/offers/draw", json={"key": k1})
            c.post(f"/api/games/{gid}/offers/draw", json={"key": k2, "action": "accept"})
        else:
            c.post(f"/api/games/{gid}/resign", json={"key": k2})
        before = c.get(f"/api/games/{gid}").json()
        assert before["over"] and before["reason"] == outcome.reason
    stored = Store(db_url).load(gid)
    assert stored is not None and stored.ending == ending
    assert (stored.result, stored.reason) == (outcome.result, outcome.reason)
    with TestClient(create_app(ServerConfig(db_url, rate=None))) as c:
        assert c.get(f"/api/games/{gid}").json() == before
        text = c.get(f"/api/games/{gid}/record").text
        assert f'[Termination "{outcome.reason}"]' in text
        assert f'[Result "{outcome.result}"]' in text
        assert load_one(text).game.outcome == outcome
        assert move(c, gid, k1, "e2").json()["error"] == "game_over"


def test_a_game_stored_with_an_ending_of_the_old_form_loads(db_url: str) -> None:
    store = Store(db_url)
    gid = secrets.token_hex(8)
    row = GameRow(id=gid, rules="dara", mode="hotseat", ai_level=None, ai_seat=None,
                  key_hash_1=hash_key("k"), key_hash_2=hash_key("k"), moves=["c3"],
                  ending={"agreement": True}, offers={}, result="1/2-1/2",
                  reason="agreement", version=1)  # its journal: the one entry below
    store.create(row, StoredEvent(1, "created", {}))
    store.close()
    with TestClient(create_app(ServerConfig(db_url, rate=None))) as c:
        state = c.get(f"/api/games/{gid}").json()
        assert state["over"] and state["reason"] == "agreement" and state["moves"] == ["c3"]
        assert '[Termination "agreement"]' in c.get(f"/api/games/{gid}/record").text
        r = c.post(f"/api/games/{gid}/undo", json={"key": "k"})
        assert r.json()["error"] == "game_over"


def test_restart_lets_the_ai_move_in_a_stored_game(db_url: str) -> None:
    url = db_url
    store = Store(url)
    gid = secrets.token_hex(8)
    row = GameRow(id=gid, rules="kalah", mode="ai", ai_level=1, ai_seat=2,
                  key_hash_1=hash_key("k"), key_hash_2=None, moves=["1"], ending=None,
                  offers={}, result=None, reason=None, version=1)
    store.create(row, StoredEvent(1, "created", {}))
    store.close()
    with TestClient(create_app(ServerConfig(url, ai_time=0.05, rate=None))) as c:
        state = wait_for(c, gid, lambda s: s["to_move"] == 1 or s["over"])
        assert state["turns"][0]["text"] == "1" and state["turns"][1]["player"] == 2


def test_default_database_is_in_the_user_data_directory(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from nugar.server.storage.store import default_db_url

    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    url = default_db_url()
    assert url == f"sqlite:///{tmp_path / 'data' / 'nugar' / 'games.sqlite3'}"
    with TestClient(create_app(ServerConfig(None, rate=None))) as c:
        create(c, rules="dara", mode="hotseat")
    assert (tmp_path / "data" / "nugar" / "games.sqlite3").stat().st_size > 0


def test_sqlite_syncs_every_acknowledged_move(tmp_path: Path) -> None:
    from sqlalchemy import text

    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL
    store.close()


def test_corrupt_stored_game_is_reported_not_changed(db_url: str) -> None:
    url = db_url
    store = Store(url)
    gid = secrets.token_hex(8)
    row = GameRow(id=gid, rules="dara", mode="friend", ai_level=None, ai_seat=None,
                  key_hash_1=hash_key("a"), key_hash_2=hash_key("b"), moves=["c3", "c3"],
                  ending=None, offers={}, result=None, reason=None, version=1)
    store.create(row, StoredEvent(1, "created", {}))
    with TestClient(create_app(ServerConfig(url, rate=None))) as c:
        r = c.get(f"/api/games/{gid}")
        assert r.status_code == 409 and "move 2" in r.json()["detail"]
        assert move(c, gid, "a", "d4").status_code == 409
    loaded = store.load(gid)
    assert loaded is not None and loaded.moves == ["c3", "c3"]


@pytest.mark.parametrize("column, value", [("moves", '["c3", '), ("rules", "kalah(pits=99)"),
                                           ("ending", '{"termination": "nonsense"}'),
                                           ("moves", '[3, 4]')])
def test_a_game_that_cannot_be_rebuilt_is_refused_and_the_rest_served(
        db_url: str, column: str, value: str, caplog: pytest.LogCaptureFixture) -> None:
    from sqlalchemy import update
    from starlette.websockets import WebSocketDisconnect

    from nugar.server.storage.store import games_table

    store = Store(db_url)
    bad, good = secrets.token_hex(8), secrets.token_hex(8)
    for gid in (bad, good):  # games against the AI, so start-up resumes both
        store.create(GameRow(id=gid, rules="dara", mode="ai", ai_level=1, ai_seat=2,
                             key_hash_1=hash_key("k"), key_hash_2=None, moves=[], ending=None,
                             offers={}, result=None, reason=None, version=1),
                     StoredEvent(1, "created", {}))
    with store.engine.begin() as conn:
        conn.execute(update(games_table).where(games_table.c.id == bad).values(**{column: value}))
    store.close()
    with TestClient(create_app(ServerConfig(db_url, ai_time=0.05, rate=None))) as c:  # it starts
        r = c.get(f"/api/games/{bad}")
        assert r.status_code == 409 and r.json()["error"] == "corrupt_game", r.text
        assert "cannot" in r.json()["detail"]
        assert move(c, bad, "k", "c3").json()["error"] == "corrupt_game"
        with c.websocket_connect(f"/ws/games/{bad}") as ws:
            assert ws.receive_json()["error"] == "corrupt_game"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4409 and closed.value.reason == "corrupt_game"
        assert move(c, good, "k", "c3").status_code == 200
        assert wait_for(c, good, lambda s: s["ply"] == 2)["moves"][0] == "c3"
    assert any("cannot be rebuilt" in rec.getMessage() and rec.levelname == "WARNING"
               for rec in caplog.records)


def test_concurrent_moves_on_one_game_never_interleave(db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None))

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            made = (await c.post("/api/games", json={"rules": "dara", "mode": "friend"})
                    ).json()
            gid, keys = made["id"], made["keys"]
            for i, text in enumerate(["a1", "f5", "b1", "e5", "c1", "d5"]):
                key = keys[str(i % 2 + 1)]
                replies = await asyncio.gather(*[
                    c.post(f"/api/games/{gid}/move", json={"key": key, "move": text})
                    for _ in range(12)])
                codes = sorted(r.status_code for r in replies)
                # the same move sent twelve times at once is played exactly once; the others
                # find that it is no longer this player's turn
                assert codes == [200] + [409] * 11
                assert {r.json().get("error") for r in replies if r.status_code == 409} == {
                    "not_your_turn"}
            final = (await c.get(f"/api/games/{gid}")).json()
            assert final["moves"] == ["a1", "f5", "b1", "e5", "c1", "d5"]
            store: Store = app.state.store
            events = store.events_since(gid, 0, 1000)
            assert [e.version for e in events] == list(range(1, final["v"] + 1))
            played = [m for e in events if e.type == "move" for m in e.data["moves"]]
            assert played == final["moves"]
            game = nugar.new_game("dara")
            for m in played:
                game.play(m)
            assert list(game.score) == final["score"]

    asyncio.run(run())


def test_a_move_refused_by_a_failed_write_is_never_stored_later(db_url: str) -> None:
    """A's write fails once while B waits on the lock: A is refused with nothing changed, B is
    played on the game as stored, and the room's watcher gets B as the next version."""
    app = create_app(ServerConfig(db_url, rate=None))
    store: Store = app.state.store
    real_submit = store.submit
    failed: list[int] = []

    def submit_failing_once(row: GameRow, ev: StoredEvent) -> Future[None]:
        if not failed:
            failed.append(ev.version)
            refused: Future[None] = Future()
            # the write fails late: long enough for B to queue on the game's lock
            threading.Timer(0.3, refused.set_exception, (OSError("disk I/O error"),)).start()
            return refused
        return real_submit(row, ev)

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            made = (await c.post("/api/games", json={"rules": "dara", "mode": "hotseat"})
                    ).json()
            gid, key = made["id"], made["keys"]["0"]
            url = f"/api/games/{gid}/move"
            assert (await c.post(url, json={"key": key, "move": "c3"})).status_code == 200
            room = await app.state.hub.room(gid)
            watcher = Listener()
            room.listeners.add(watcher)
            store.write = lambda row, ev: asyncio.wrap_future(  # type: ignore[method-assign]
                submit_failing_once(row, ev))
            a = asyncio.create_task(c.post(url, json={"key": key, "move": "d4"}))
            await asyncio.sleep(0.1)
            b = asyncio.create_task(c.post(url, json={"key": key, "move": "e4"}))
            ra, rb = await a, await b
            assert ra.status_code == 503 and ra.json()["error"] == "storage_failed"
            assert rb.status_code == 200, rb.text
            assert rb.json()["new_moves"] == ["e4"] and rb.json()["v"] == 3
            final = (await c.get(f"/api/games/{gid}")).json()
            assert final["moves"] == ["c3", "e4"] and final["v"] == 3
            loaded = store.load(gid)
            assert loaded is not None and loaded.moves == ["c3", "e4"] and loaded.version == 3
            journal = store.events_since(gid, 2, 10)
            assert [(e.version, e.data["moves"]) for e in journal] == [(3, ["e4"])]
            heard = watcher.queue.get_nowait()
            assert heard["v"] == 3 and heard["data"]["moves"] == ["e4"]
            assert await app.state.hub.room(gid) is room  # the watched room is still current

    with TestClient(app):  # runs the app's startup
        pass
    asyncio.run(run())


def test_a_room_behind_another_writer_is_reloaded_and_waiting_requests_retried(
        db_url: str) -> None:
    from nugar.server.errors import ApiError
    from nugar.server.play.rooms import Hub

    store = Store(db_url)
    real_submit = store.submit

    def slow_submit(row: GameRow, ev: StoredEvent) -> Future[None]:
        time.sleep(0.2)  # lets a second request queue on the lock
        return real_submit(row, ev)

    async def run() -> None:
        one, other = Hub(store), Hub(store)
        room, keys = await one.create("dara", "friend", None, None)
        gid = room.row.id
        await other.move(gid, keys["1"], "c3")  # ``one`` does not know of it
        store.write = lambda row, ev: asyncio.wrap_future(  # type: ignore[method-assign]
            slow_submit(row, ev))
        a = asyncio.create_task(one.move(gid, keys["1"], "d4"))
        await asyncio.sleep(0.05)
        b = asyncio.create_task(one.move(gid, keys["2"], "e4"))
        with pytest.raises(ApiError) as refused:
            await a
        # decided again on the stored game, where player 1 has moved already
        assert refused.value.code == "not_your_turn"
        assert (await b)["new_moves"] == ["e4"]  # played on the refreshed room
        assert one.rooms[gid] is room and not room.closed
        assert room.row.moves == ["c3", "e4"] and room.state()["moves"] == ["c3", "e4"]
        loaded = store.load(gid)
        assert loaded is not None and loaded.moves == ["c3", "e4"] and loaded.version == 3

    asyncio.run(run())
    store.close()


def test_idle_games_expire_as_adjudicated_draws(db_url: str, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    """With a fake clock (the hub's and the store's): an unfinished game both players have
    moved in, untouched for ``expire_days``, is closed as a draw, announced, stored and
    forgotten; one in which the second player never moved is aborted; others are left
    alone."""
    import types

    from nugar.server.play.rooms import Hub
    from nugar.server.storage import store as store_module

    day = 86400.0
    now = [1_800_000_000.0]
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=lambda: now[0]))
    store = Store(db_url)
    hub = Hub(store, expire_days=30, clock=lambda: now[0])

    async def run() -> None:
        a, ka = await hub.create("dara", "friend", None, None)
        b, kb = await hub.create("dara", "friend", None, None)
        c, kc = await hub.create("dara", "hotseat", None, None)
        await hub.move(a.row.id, ka["1"], "c3")
        await hub.move(a.row.id, ka["2"], "d4")
        await hub.resign(c.row.id, kc["0"])
        watcher = Listener()
        a.listeners.add(watcher)
        now[0] += 20 * day
        await hub.move(b.row.id, kb["1"], "c3")
        b_watcher = Listener()
        b.listeners.add(b_watcher)
        now[0] += 10 * day - 1
        assert await hub.expire_idle() == []  # a: idle one second short of 30 days
        now[0] += 2
        assert await hub.expire_idle() == [a.row.id]
        assert a.row.id not in hub.rooms and b.row.id in hub.rooms
        heard = watcher.queue.get_nowait()
        assert heard["type"] == "expired" and heard["update"]["reason"] == "adjudication"
        stored = store.load(a.row.id)
        assert stored is not None and stored.moves == ["c3", "d4"]
        assert stored.ending == {"termination": "adjudication", "winner": None}
        assert stored.result is not None and store.events_since(a.row.id, 3, 9)[0].type == (
            "expired")
        reloaded = await hub.room(a.row.id)  # rebuilt from the store: over, as a draw
        assert reloaded.state()["over"] and reloaded.state()["winner"] is None
        with pytest.raises(Exception, match="over"):
            await hub.move(a.row.id, ka["1"], "a1")
        now[0] += 20 * day
        assert await hub.expire_idle() == [b.row.id]  # c was over already: never expired
        # b: the second player never moved: no draw, an abort that names him
        heard = b_watcher.queue.get_nowait()
        assert heard["type"] == "abort" and heard["data"] == {
            "player": 2, "termination": "aborted", "winner": None, "expired": True}
        assert heard["update"]["result"] == "*" and heard["update"]["aborted"] == 2
        stored = store.load(b.row.id)
        assert stored is not None and stored.result == "*" and stored.reason == "aborted"
        assert stored.ending == {"termination": "aborted", "player": 2}
        hub.expire_days = None
        now[0] += 1000 * day
        assert await hub.expire_idle() == []

    asyncio.run(run())
    store.close()


def test_games_never_started_are_aborted_by_the_expiry_and_stay_so_after_restarts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app's start-up expiry on an SQLite file (the clock faked): a game by link whose
    friend never came, one whose second player never moved, a hot-seat game and one against
    the computer with no move are aborted (``*``, the player whose first move was due);
    a game both players moved in is a draw; all of it read back by the next start."""
    import types

    from nugar.server.storage import store as store_module

    day = 86400.0
    now = [1_800_000_000.0]
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=lambda: now[0]))
    url = f"sqlite:///{tmp_path / 'games.db'}"

    def app() -> Any:
        made = create_app(ServerConfig(url, ai_time=0.05, rate=None, expire_days=30))
        made.state.hub.clock = lambda: now[0]
        return made

    with TestClient(app()) as c:
        never = create(c, rules="dara", mode="friend")  # the friend never opens his link
        half = create(c, rules="dara", mode="friend")
        both = create(c, rules="dara", mode="friend")
        hot = create(c, rules="kalah", mode="hotseat")
        ai = create(c, rules="kalah", mode="ai", level=1, seat=1)  # the person is first
        assert c.post(f"/api/games/{never['id']}/open",
                      json={"key": never["keys"]["1"]}).status_code == 200
        assert move(c, half["id"], half["keys"]["1"], "c3").status_code == 200
        for key, text in (("1", "c3"), ("2", "d4")):
            assert move(c, both["id"], both["keys"][key], text).status_code == 200
    now[0] += 30 * day + 1
    expected = {never["id"]: 1, half["id"]: 2, hot["id"]: 1, ai["id"]: 1}
    for _restart in range(2):  # the first start expires them, the second reads them back
        with TestClient(app()) as c:
            for gid, player in expected.items():
                state = c.get(f"/api/games/{gid}").json()
                assert state["over"] and state["result"] == "*" and state["winner"] is None
                assert state["reason"] == "aborted" and state["aborted"] == player
                name = state["players"][player - 1]
                record = c.get(f"/api/games/{gid}/record").text
                assert '[Result "*"]' in record and f'[Aborted "{name} did not move"]' in record
            drawn = c.get(f"/api/games/{both['id']}").json()
            assert drawn["reason"] == "adjudication" and drawn["result"] == "1/2-1/2"
            refused = move(c, half["id"], half["keys"]["2"], "d4")
            assert refused.status_code == 409 and refused.json()["error"] == "game_over"
            store = c.app.state.store  # type: ignore[attr-defined]
            journal = store.events_since(half["id"], 0, 9)
            assert [e.type for e in journal] == ["created", "move", "abort"]
            assert journal[-1].data == {"player": 2, "termination": "aborted",
                                        "winner": None, "expired": True}
            assert store.load(never["id"]).ending == {"termination": "aborted", "player": 1}


# --- limits -------------------------------------------------------------------------------------
def test_oversized_bodies_and_floods_are_refused(tmp_path: Path) -> None:
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'g.db'}", rate=1.0, burst=5,
                                  max_body=2000))
    with TestClient(app) as c:
        r = c.post("/api/games", content=b"x" * 5000, headers={"content-type": "application/json"})
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"
        codes = [c.get("/api/presets").status_code for _ in range(8)]
        assert codes.count(429) >= 3 and codes[0] == 200
        r = c.get("/api/presets")
        assert r.status_code == 429 and r.json()["error"] == "rate_limited"
        # the refusal says when to come back: one token at 1 a second is at most 1 s away
        assert r.headers["retry-after"] == "1"


def test_retry_after_counts_the_seconds_to_the_next_token() -> None:
    from nugar.server.http.middleware import Guard

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    now = [0.0]
    guard = Guard(app, max_body=10, rate=0.1, burst=1, clock=lambda: now[0])
    assert guard.allow("a") and not guard.allow("a")
    assert guard.retry_after("a") == 10  # 0.1 a second: a whole token takes 10 s
    now[0] = 7.5
    assert not guard.allow("a") and guard.retry_after("a") == 3


def test_links_ignore_the_host_header(tmp_path: Path) -> None:
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'g.db'}", rate=None,
                                  public_url="https://games.example.org/nugar/"))
    with TestClient(app) as c:
        r = c.post("/api/games", json={"rules": "dara", "mode": "friend"},
                   headers={"Host": "evil.example"})
        assert r.status_code == 201, r.text
        made = r.json()
        assert "evil" not in json.dumps(made["links"])
        assert made["links"]["watch"] == f"https://games.example.org/nugar/g/{made['id']}"
        assert made["links"]["seats"]["2"].startswith("https://games.example.org/nugar/g/")


def test_links_default_to_the_address_served(client: TestClient) -> None:
    made = client.post("/api/games", json={"rules": "dara", "mode": "friend"},
                       headers={"Host": "evil.example"}).json()
    assert made["links"]["watch"] == f"http://127.0.0.1:8000/g/{made['id']}"


@pytest.mark.parametrize("path", ["/", "/g/abc", "/replay", "/rules", "/static/game.js",
                                  "/static/style.css", "/api/presets", "/api/games/nosuch",
                                  "/nowhere", "/openapi.json"])
def test_every_response_carries_the_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path)
    csp = r.headers["content-security-policy"]
    rules = dict([*part.strip().split(" ", 1), ""][:2] for part in csp.split(";"))
    assert rules["default-src"] == "'self'" and rules["script-src"] == "'self'"
    assert rules["style-src"] == "'self'" and rules["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in csp and "http" not in csp  # no inline code, no other origin
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_refusals_carry_the_security_headers_too(tmp_path: Path) -> None:
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'g.db'}", rate=1.0, burst=1))
    with TestClient(app) as c:
        codes = [c.get("/api/presets") for _ in range(3)]
        r = codes[-1]
        assert r.status_code == 429 and r.headers["x-content-type-options"] == "nosniff"
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"]


def test_the_pages_hold_no_inline_script_or_style(client: TestClient) -> None:
    import re

    for path in ("/", "/rules", "/rules/dara"):
        r = client.get(path)
        assert r.status_code == 200, path
        html = r.text
        # a JSON data block (the scripts' catalog, static_i18n) is never run: not a script
        assert not re.search(r"<script(?![^>]*\b(?:src=|type=\"application/json\"))[^>]*>",
                             html), path
        assert "<style" not in html and not re.search(r"\sstyle\s*=", html), path
        assert not re.search(r"\son[a-z]+\s*=", html), path  # no onclick= handlers
        assert "javascript:" not in html, path


def test_the_rate_limit_refills_with_time() -> None:
    from nugar.server.http.middleware import Guard

    async def app(scope: Any, receive: Any, send: Any) -> None:
        return None

    now = [0.0]
    guard = Guard(app, max_body=10, rate=2.0, burst=3, clock=lambda: now[0])
    assert [guard.allow("a") for _ in range(4)] == [True, True, True, False]
    assert guard.allow("b")  # each client address has its own bucket
    now[0] = 0.5  # half a second at 2 a second: one more request
    assert guard.allow("a") and not guard.allow("a")
    now[0] = 100.0  # a long pause refills the bucket up to the burst, no further
    assert [guard.allow("a") for _ in range(4)] == [True, True, True, False]
    assert all(Guard(app, 10, None, 1).allow("a") for _ in range(50))  # no limit


def test_long_move_text_is_refused(client: TestClient) -> None:
    made = create(client, rules="dara", mode="hotseat")
    r = move(client, made["id"], made["keys"]["0"], "c3" * 100)
    assert r.status_code == 422


# --- websockets ---------------------------------------------------------------------------------
def test_spectator_sees_moves_live_and_reconnect_catches_up(client: TestClient) -> None:
    made = create(client, rules="dara", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        first = ws.receive_json()
        assert first["type"] == "sync" and first["v"] == 1
        move(client, gid, k1, "c3")
        ev = ws.receive_json()
        assert ev["type"] == "move" and ev["v"] == 2 and ev["data"]["moves"] == ["c3"]
        assert ev["update"]["to_move"] == 2 and ev["update"]["new_moves"] == ["c3"]
        assert ev["update"]["base"] == 1 and ev["update"]["board"]["hands"] == [11, 12]
        assert "svg" not in ev["update"]  # the page draws the board data itself
    move(client, gid, k2, "d4")
    move(client, gid, k1, "a1")
    with client.websocket_connect(f"/ws/games/{gid}?since=2") as ws:
        missed = [ws.receive_json(), ws.receive_json()]
        assert [m["v"] for m in missed] == [3, 4]
        assert [m["data"]["moves"] for m in missed] == [["d4"], ["a1"]]
        assert missed[0]["update"] is None  # the last one carries the update from 2
        last = missed[-1]["update"]
        assert last["base"] == 2 and last["moves_from"] == 1 and last["new_moves"] == ["d4", "a1"]
        ws.send_text(json.dumps({"type": "sync", "since": 4}))
        assert ws.receive_json()["type"] == "uptodate"
        ws.send_text("nonsense")
        assert ws.receive_json()["error"] == "bad_message"
        ws.send_text(json.dumps({"type": "ping"}))
        assert ws.receive_json() == {"type": "pong", "v": 4}
    for since in ("99", "-5", "abc"):
        with client.websocket_connect(f"/ws/games/{gid}?since={since}") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "sync" and msg["state"]["moves"] == ["c3", "d4", "a1"]


def test_websocket_bad_frames_close_only_that_socket(client: TestClient) -> None:
    from starlette.websockets import WebSocketDisconnect

    made = create(client, rules="kalah", mode="hotseat")
    gid = made["id"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert ws.receive_json()["type"] == "sync"
        ws.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect):
            ws.receive_json()
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        ws.receive_json()
        for _ in range(25):  # a flood of messages closes the socket
            ws.send_text(json.dumps({"type": "ping"}))
        with pytest.raises(WebSocketDisconnect):
            while True:
                ws.receive_json()
    assert move(client, gid, made["keys"]["0"], "1").status_code == 200


def test_a_seat_named_on_the_websocket_is_opened_as_by_post_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``{"type": "open", "key": K}`` on a game's socket marks the seat opened, stored and
    announced as the event ``opened``: the second seat starts the first-move timer (the
    clock faked, so the abort it leads to needs no waiting); a wrong key is refused with
    an error message and marks nothing; a seat opened again writes nothing."""
    import types

    from nugar.server.storage import store as store_module

    now = [1_800_000_000.0]
    monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=lambda: now[0]))
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'games.db'}", ai_time=0.05, rate=None))
    app.state.hub.clock = lambda: now[0]
    with TestClient(app) as c:
        made = create(c, rules="dara", mode="friend", clock="5+3")
        gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
        assert c.post(f"/api/games/{gid}/open", json={"key": k1}).status_code == 200
        with c.websocket_connect(f"/ws/games/{gid}?since=2") as ws:
            assert ws.receive_json() == {"type": "uptodate", "v": 2}
            ws.send_text(json.dumps({"type": "open", "key": "not the key"}))
            refused = ws.receive_json()
            assert refused["type"] == "error" and refused["error"] == "bad_key"
            assert "does not open a seat" in refused["detail"]
            ws.send_text(json.dumps({"type": "open", "key": 2}))
            assert ws.receive_json()["error"] == "bad_message"
            waiting = c.get(f"/api/games/{gid}").json()
            assert waiting["v"] == 2 and waiting["clock"]["waiting"] == [2]
            now[0] += 100  # the friend opens his link late: his timer starts now
            ws.send_text(json.dumps({"type": "open", "key": k2}))
            got = {m["type"]: m for m in (ws.receive_json(), ws.receive_json())}
            assert got["seat"] == {"type": "seat", "seat": 2, "v": 3}
            opened = got["opened"]
            assert opened["v"] == 3 and opened["data"] == {"seats": [2]}
            clock = opened["update"]["clock"]
            assert clock["waiting"] == [] and clock["first"] == 1
            assert clock["first_left"] == 30.0
            ws.send_text(json.dumps({"type": "open", "key": k2}))  # again: nothing written
            assert ws.receive_json() == {"type": "seat", "seat": 2, "v": 3}
            ws.send_text(json.dumps({"type": "ping"}))
            assert ws.receive_json() == {"type": "pong", "v": 3}
        store = app.state.store
        assert [e.type for e in store.events_since(gid, 0, 9)] == ["created", "opened",
                                                                   "opened"]
        now[0] += 30  # the first player did not move in his 30 s: aborted
        state = c.get(f"/api/games/{gid}").json()
        assert state["reason"] == "aborted" and state["aborted"] == 1


def test_websocket_for_unknown_game_says_so(client: TestClient) -> None:
    """The same refusal from the fast lane (a plain id) and from FastAPI's route (an id the
    lane does not take: too long for a game's id)."""
    from starlette.websockets import WebSocketDisconnect

    for gid in ("nope1234", "n" * 40):
        with client.websocket_connect(f"/ws/games/{gid}") as ws:
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["error"] == "unknown_game"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4404


# --- records, pages, rendering ------------------------------------------------------------------
def test_record_download_and_replay(client: TestClient) -> None:
    made = create(client, rules="kalah", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    for text in ["3-1", "2"]:
        move(client, gid, key, text)
    text = client.get(f"/api/games/{gid}/record").text
    assert '[Rules "kalah"]' in text and "3-1" in text
    replay = client.post("/api/replay", json={"record": text}).json()
    assert [t["text"] for t in replay["turns"]] == ["3-1", "2"]
    assert replay["position"]["turn"] == 2
    assert replay["position"]["board"] == client.get(f"/api/games/{gid}").json()["board"]
    first = client.post("/api/replay", json={"record": text, "turn": 1}).json()["position"]
    assert first["turn"] == 1 and first["ply"] == 2 and "<svg" in first["svg"]
    assert first["board"]["stores"] == [1, 0]
    assert first["last_turn"] == ["3", "1"] and first["last_mover"] == 1  # what the page marks
    r = client.post("/api/replay", json={"record": text, "turn": 3})
    assert r.status_code == 422 and r.json()["error"] == "bad_turn"
    r = client.post("/api/replay", json={"record": '[Rules "kalah"]\n\n1. 9 *'})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    pos = client.get(f"/api/games/{gid}/position", params={"ply": 2}).json()
    assert pos["board"]["stores"] == [1, 0]
    assert client.get(f"/api/games/{gid}/position", params={"ply": 9}).status_code == 422


def test_rules_pages(client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nugar.server.http import pages

    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "dara.md").write_text("# Dara\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
                                    "<script>x</script>\n")
    monkeypatch.setattr(pages, "docs_root", lambda: tmp_path)
    assert 'href="/rules/dara"' in client.get("/rules").text
    page = client.get("/rules/dara").text
    assert '<h1 id="dara">Dara</h1>' in page and "<table>" in page and "<script>" not in page
    assert client.get("/rules/chess").status_code == 404
    assert client.get("/").status_code == 200
    gid = create(client, rules="dara", mode="hotseat")["id"]
    assert "/static/index.js" in client.get(f"/g/{gid}").text
    # an unknown game: a page saying so (404), not the game page with its buttons
    r = client.get("/g/abc")
    assert r.status_code == 404 and "No such game" in r.text and "index.js" not in r.text


def test_states_carry_no_svg_and_the_svg_endpoint_draws_the_game(client: TestClient) -> None:
    """Moves are answered, and events sent, with the board data and no picture (the page draws
    it); ``GET /api/games/{id}/svg`` answers ``render.svg`` of the game, or of a ply of it."""
    made = create(client, rules="kalah(pits=4,seeds=2)", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    assert "svg" not in made["state"]
    with client.websocket_connect(f"/ws/games/{gid}") as ws:
        assert "svg" not in ws.receive_json()["state"]
        answers = [move(client, gid, k1, "3-1").json(), move(client, gid, k2, "4")]
        events = [ws.receive_json(), ws.receive_json()]
    assert answers[1].status_code == 200
    for update in (answers[0], answers[1].json(), *(e["update"] for e in events)):
        assert "svg" not in update and "board" in update and "last_turn" in update
    assert client.get(f"/api/games/{gid}?since=1").json().keys().isdisjoint({"svg"})
    game = nugar.new_game("kalah(pits=4,seeds=2)")
    for text in ("3", "1", "4"):
        game.play(text)
    r = client.get(f"/api/games/{gid}/svg")
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    turns = game.turn_list()
    assert r.text == svg(game, last_move=turns[-1][1])
    assert 'class="hole last" data-player="2" data-hole="4"' in r.text
    first = nugar.new_game("kalah(pits=4,seeds=2)")
    first.play("3")
    first.play("1")
    at2 = client.get(f"/api/games/{gid}/svg", params={"ply": 2}).text
    assert at2 == svg(first, last_move=first.move_stack)  # the turn 3-1 marked, both holes
    assert at2.count('class="hole last"') == 2
    assert client.get(f"/api/games/{gid}/svg", params={"ply": 0}).text == svg(
        nugar.new_game("kalah(pits=4,seeds=2)"))
    pos = client.get(f"/api/games/{gid}/position", params={"ply": 2}).json()
    assert pos["last_turn"] == ["3", "1"] and pos["last_mover"] == 1 and pos["svg"] == at2
    for bad in ("4", "-1"):
        r = client.get(f"/api/games/{gid}/svg", params={"ply": bad})
        assert r.status_code == 422 and r.json()["error"] == "bad_ply"
    r = client.get("/api/games/nope1234/svg")
    assert r.status_code == 404 and r.json()["error"] == "unknown_game"


def test_svg_marks_squares_pieces_and_last_move() -> None:
    game = nugar.new_game("dara")
    game.play("c3")
    game.play("d4")
    picture = svg(game, last_move=game.move_stack[-1], highlight=["a1"])
    assert picture.count("data-square=") == 30
    assert picture.count('class="piece p1"') == 1 and picture.count('class="piece p2"') == 1
    assert 'class="sq last" data-square="d4"' in picture
    assert 'class="sq lit" data-square="a1"' in picture
    assert board_data(game)["hands"] == [11, 11]
    kalah = nugar.new_game("kalah(pits=4,seeds=3)")
    kalah.play("2")
    picture = svg(kalah, last_move=kalah.move_stack)
    assert picture.count("data-hole=") == 8 and picture.count('class="store"') == 2
    assert 'class="hole last" data-player="1" data-hole="2"' in picture


def test_serve_command_registers_and_checks_arguments() -> None:
    import argparse

    from nugar.cli.serve import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["serve", "--port", "0", "--db", "sqlite://"])
    assert args.func(args) == 2
    args = parser.parse_args(["serve", "--ai-time", "-1"])
    assert args.func(args) == 2
    args = parser.parse_args(["serve", "--expire-days", "-1"])
    assert args.expire_days == -1 and args.func(args) == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--port", "eighty"])


def test_serve_checks_its_public_url_and_proxies() -> None:
    from nugar.cli.common import CliError
    from nugar.cli.serve import (
        check_proxies,
        check_public_url,
        default_public_url,
        proxy_options,
    )

    assert check_public_url("https://games.example.org/nugar/") == \
        "https://games.example.org/nugar"
    for bad in ("games.example.org", "ftp://x", "https://x/?a=1", "https://u@x/",
                "http://x:99999", "https://"):
        with pytest.raises(CliError, match="--public-url"):
            check_public_url(bad)
    assert default_public_url("0.0.0.0", 80) == "http://0.0.0.0:80"
    assert default_public_url("::1", 8000) == "http://[::1]:8000"
    assert check_proxies(None) == [] and check_proxies("127.0.0.1, 10.0.0.0/8") == [
        "127.0.0.1", "10.0.0.0/8"]
    for bad in ("", "proxy.example", "127.0.0.1,nope"):
        with pytest.raises(CliError, match="--forwarded-allow-ips"):
            check_proxies(bad)
    # off by default: uvicorn would otherwise trust X-Forwarded-For from loopback
    assert proxy_options([]) == {"proxy_headers": False, "forwarded_allow_ips": ""}
    assert proxy_options(["127.0.0.1"]) == {"proxy_headers": True,
                                            "forwarded_allow_ips": "127.0.0.1"}


@pytest.mark.parametrize("proxies", [None, "127.0.0.1"])
def test_serve_trusts_forwarded_headers_only_from_named_proxies(
        tmp_path: Path, proxies: str | None) -> None:
    extra = ["--ai-time", "0.05", "--rate", "1"]  # 1 request a second, a burst of 120
    with serving(tmp_path / "g.db", *extra,
                 *(["--forwarded-allow-ips", proxies] if proxies else [])) as (_proc, base), \
            httpx.Client(base_url=base, timeout=10) as c:
        codes = [c.get("/favicon.ico").status_code for _ in range(130)]
        assert codes.count(429) >= 5  # the burst of 120 is spent
        r = c.get("/favicon.ico")
        assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
        start = time.monotonic()
        spoofed = [c.get("/favicon.ico", headers={"X-Forwarded-For": f"10.9.{i}.1"})
                   .status_code for i in range(200)]
        seconds = time.monotonic() - start
        if proxies is None:  # a client cannot escape its limit by naming other addresses:
            # only the tokens its own bucket refilled meanwhile (1 a second) get through
            assert set(spoofed) <= {200, 429}
            assert spoofed.count(200) <= seconds + 1
        else:  # behind the named proxy, each forwarded address has its own bucket
            assert set(spoofed) == {200}


def test_load_script_finds_no_lost_or_doubled_moves() -> None:
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "load_server.py"
    spec = importlib.util.spec_from_file_location("load_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["load_server"] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    result = module.run(games=3, concurrency=3, time_limit=60)
    assert result["games"] == 3 and result["moves"] > 0
    assert result["problems"] == []
    assert "## Web server load" in module.markdown([result], "load_server.py")


#: move bodies the fast lane and the route must answer alike: ``K`` is the seat's key; each
#: is posted as it is, with the content type beside it, to a fresh game
LANE_BODIES: list[tuple[str, str]] = [
    ('{"key": "K", "move": "c3", "v": 1}', "application/json"),
    ('{"key": "K", "move": "c3", "v": 1}', "application/json; charset=utf-8"),
    ('{"key": "K", "move": "c3", "v": 1}', "application/jsonx"),
    ('{"key": "K", "move": "c3"}', "application/json"),
    ('{"key": "K", "move": "c3", "v": 1, "extra": [1]}', "application/json"),
    ('{"key": "K", "move": "\\u0063\\u0033"}', "application/json"),
    ('{"key": "K", "move": "z9", "move": "c3"}', "application/json"),
    ('{"key": "K", "move": "c3", "v": 5}', "application/json"),
    ('{"key": "K", "move": "z9"}', "application/json"),
    ('{"move": "c3"}', "application/json"),
    ('{"key": "nope", "move": "c3"}', "application/json"),
    ('{"key": "K", "move": "c3", "v": true}', "application/json"),
    ('{"key": "K", "move": "c3", "v": "1"}', "application/json"),
    ('{"key": "K", "move": "c3", "v": 1.0}', "application/json"),
    ('{"key": "K", "move": "c3", "v": 0}', "application/json"),
    ('{"key": "K", "move": "c3", "v": NaN}', "application/json"),
    ('{"key": "K", "move": "c3", "v": null}', "application/json"),
    ('{"key": "K", "move": 5}', "application/json"),
    ('{"key": 5, "move": "c3"}', "application/json"),
    ('{"key": "K"}', "application/json"),
    ('{"key": "K", "move": "' + "c" * 64 + '"}', "application/json"),
    ('{"key": "K", "move": "' + "c" * 65 + '"}', "application/json"),
    ('{"key": "' + "k" * 200 + '", "move": "c3"}', "application/json"),
    ('{"key": "' + "k" * 201 + '", "move": "c3"}', "application/json"),
    ("[1]", "application/json"),
    ("{", "application/json"),
    ("null", "application/json"),
    ("", "application/json"),
]


def test_the_fast_lane_answers_moves_as_the_route_does(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """The same move bodies posted with the fast lane on and off (every request through the
    route) get the same status, JSON bytes and headers: the lane reads a body with the
    route's own model (its limits) and writes refusals with the route's writer. With it on,
    the lane answers exactly the bodies the model accepts."""
    from nugar.server.http import fastlane

    answered: list[str] = []
    real_answer, real_refusal = fastlane._answer, fastlane.api_refusal

    async def counted_answer(send: Any, answer: dict[str, Any]) -> None:
        answered.append("answer")
        await real_answer(send, answer)

    def counted_refusal(exc: Any) -> Any:
        answered.append("refusal")
        return real_refusal(exc)

    monkeypatch.setattr(fastlane, "_answer", counted_answer)
    monkeypatch.setattr(fastlane, "api_refusal", counted_refusal)

    def post_all(lane: bool) -> list[tuple[int, bytes, str | None, str | None]]:
        config = ServerConfig(f"sqlite:///{tmp_path / f'lane-{lane}.db'}", rate=None,
                              fast_lane=lane)
        out = []
        with TestClient(create_app(config)) as c:
            for body, kind in [*LANE_BODIES, ('{"key": "K", "move": "c3"}', "nosuchgame")]:
                made = create(c, rules="dara", mode="friend")
                gid = "nosuchgame" if kind == "nosuchgame" else made["id"]
                r = c.post(f"/api/games/{gid}/move",
                           content=body.replace('"K"', f'"{made["keys"]["1"]}"').encode(),
                           headers={"content-type": "application/json" if kind == "nosuchgame"
                                    else kind})
                out.append((r.status_code, r.content, r.headers.get("content-type"),
                            r.headers.get("retry-after")))
        return out

    routed = post_all(False)
    assert answered == []
    lane = post_all(True)
    for (body, kind), on, off in zip(LANE_BODIES, lane, routed, strict=False):
        assert on == off, (body, kind, on, off)
    statuses = {status for status, *_ in routed}
    assert {200, 403, 404, 409, 422} <= statuses  # plays, refusals by the game, by the model
    taken = [fastlane.move_body(body.encode()) is not None
             and kind.partition(";")[0] == "application/json" for body, kind in LANE_BODIES]
    assert len(answered) == sum(taken) + 1  # and the unknown game's refusal
    assert routed[LANE_BODIES.index(('{"key": "K", "move": "c3", "v": 1}',
                                     "application/jsonx"))][0] == 422


def test_a_state_read_takes_the_short_way_with_the_same_answers(client: TestClient) -> None:
    """``GET /api/games/{id}`` with no query or a plain ``?since=V`` is answered by the fast
    lane, any other query by the route: the same answers either way, refusals included."""
    from nugar.server.http.fastlane import SINCE, STATE_PATH

    assert STATE_PATH.fullmatch("/api/games/abc123") and not STATE_PATH.fullmatch(
        "/api/games/abc/move")
    for plain in (b"", b"since=0", b"since=12"):
        assert SINCE.fullmatch(plain), plain
    for other in (b"since=007", b"since=", b"since=-1", b"since=1&x=2", b"x=1",
                  b"since=1234567890"):
        assert not SINCE.fullmatch(other), other
    made = create(client, rules="dara", mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    for text in ("c3", "d4", "e3"):
        assert move(client, gid, key, text).status_code == 200
    whole = client.get(f"/api/games/{gid}")
    assert whole.status_code == 200 and whole.json()["moves"] == ["c3", "d4", "e3"]
    assert whole.headers["content-type"] == "application/json"
    short = client.get(f"/api/games/{gid}?since=2")
    routed = client.get(f"/api/games/{gid}?since=02")  # the route reads it as 2 too
    assert short.status_code == routed.status_code == 200
    assert short.content == routed.content and short.json()["new_moves"] == ["d4", "e3"]
    missing = client.get("/api/games/nosuchgame")
    routed_missing = client.get("/api/games/nosuchgame?since=01")
    assert missing.status_code == routed_missing.status_code == 404
    assert missing.json() == routed_missing.json() and missing.json()["error"] == "unknown_game"
    assert client.get(f"/api/games/{gid}?since=x").status_code == 422  # the route's refusal


def test_a_follower_passes_on_exactly_the_versions_it_loaded(db_url: str) -> None:
    """Another process writes between a follower's read of the game and its read of the
    journal: the follower's listener still gets the events one by one (not a resync), and
    the newer one with the next announcement."""
    import dataclasses

    from nugar.server.play.rooms import Hub

    store = Store(db_url)

    async def run() -> None:
        a, b = Hub(store), Hub(store)
        room, keys = await a.create("dara", "friend", None, None)
        gid = room.row.id
        watched = await b.room(gid)
        listener = Listener()
        watched.listeners.add(listener)
        await a.move(gid, keys["1"], "c3")  # version 2, which b has not seen
        real_load = store.load

        def load_then_another_writes(game_id: str) -> GameRow | None:
            row = real_load(game_id)
            if row is not None and row.version == 2:  # version 3 is stored right after
                later = dataclasses.replace(row, moves=[*row.moves, "d4"], version=3)
                store.save(later, StoredEvent(3, "move", {"player": 2, "moves": ["d4"]}))
            return row

        store.load = load_then_another_writes  # type: ignore[method-assign]
        b.heard(gid, 2)
        assert watched.following is not None
        await watched.following
        store.load = real_load  # type: ignore[method-assign]
        got = [listener.queue.get_nowait() for _ in range(listener.queue.qsize())]
        assert [(m["type"], m["v"]) for m in got] == [("move", 2)]
        assert got[0]["update"]["new_moves"] == ["c3"] and got[0]["update"]["base"] == 1
        b.heard(gid, 3)
        assert watched.following is not None
        await watched.following
        got = [listener.queue.get_nowait() for _ in range(listener.queue.qsize())]
        assert [(m["type"], m["v"]) for m in got] == [("move", 3)]
        assert got[0]["update"]["new_moves"] == ["d4"] and watched.row.moves == ["c3", "d4"]

    asyncio.run(run())
    store.close()


def test_moves_heard_with_their_events_are_played_without_reading_the_store(
        db_url: str) -> None:
    """An announcement that carries its move event (PostgreSQL's NOTIFY payload) brings the
    follower's room up to date by playing the moves: the same game, row and update as a
    room loaded from the store, and the store is not read; a change that is not a move, or
    a version heard without its event, is read from the store."""
    from nugar.server.play.listen import parse
    from nugar.server.play.rooms import Hub

    store = Store(db_url)

    async def run() -> None:
        a, b = Hub(store), Hub(store)
        room, keys = await a.create("kalah(pits=4,seeds=3)", "hotseat", None, None)
        gid = room.row.id
        watched = await b.room(gid)
        listener = Listener()
        watched.listeners.add(listener)
        await a.move(gid, keys["0"], "2")
        await a.move(gid, keys["0"], "1")
        journal = store.events_since(gid, 1, 10)
        real_load = store.load
        reads: list[str] = []

        def counting_load(game_id: str) -> GameRow | None:
            reads.append(game_id)
            return real_load(game_id)

        store.load = counting_load  # type: ignore[method-assign]
        for e in journal:  # as listen.py hands them on
            heard = parse(f"{gid} {e.version} {e.type} {json.dumps(e.data)}")
            assert heard is not None and heard[2] is not None
            b.heard(*heard)
        assert watched.following is not None
        await watched.following
        assert reads == []  # played from the events alone
        fresh = await Hub(store).room(gid)
        reads.clear()
        assert watched.row.moves == fresh.row.moves and watched.row.version == 3
        assert watched.row.result == fresh.row.result and watched.row.offers == fresh.row.offers
        assert watched.state() == fresh.state()
        got = [listener.queue.get_nowait() for _ in range(listener.queue.qsize())]
        assert [(m["type"], m["v"]) for m in got] == [("move", 2), ("move", 3)]
        assert got[-1]["update"]["base"] == 1 and got[-1]["update"]["new_moves"] == ["2", "1"]
        await a.resign(gid, keys["0"])  # not a move: read from the store
        b.heard(gid, 4, store.events_since(gid, 3, 1)[0])
        assert watched.following is not None
        await watched.following
        assert reads == [gid] and watched.state()["over"] and watched.row.version == 4
        assert parse("nonsense") is None and parse(f"{gid} 5") == (gid, 5, None)

    asyncio.run(run())
    store.close()


def test_a_response_leaves_in_one_write() -> None:
    """The HTTP protocol of nugar serve joins the writes of one event-loop turn (uvicorn
    writes a response's head and body apart): one system call per response; closing sends
    what is pending first, and a large body is not held back."""
    from nugar.server.http.http_timeouts import _Coalescing

    class Recording:
        def __init__(self) -> None:
            self.writes: list[bytes] = []
            self.closed = False

        def write(self, data: bytes) -> None:
            self.writes.append(data)

        def is_closing(self) -> bool:
            return self.closed

        def close(self) -> None:
            self.closed = True

        def get_extra_info(self, name: str) -> str:
            return f"info {name}"

    async def run() -> None:
        inner = Recording()
        t = _Coalescing(inner, asyncio.get_running_loop())  # type: ignore[arg-type]
        t.write(b"HTTP/1.1 200 OK\r\n\r\n")
        t.write(b"")
        t.write(b"{}")
        assert inner.writes == []
        await asyncio.sleep(0)
        assert inner.writes == [b"HTTP/1.1 200 OK\r\n\r\n{}"]
        t.write(b"x" * 70_000)  # over 64 kB: at once
        assert len(inner.writes) == 2
        t.write(b"last")
        t.close()
        assert inner.writes[-1] == b"last" and inner.closed
        assert t.get_extra_info("peername") == "info peername"  # the rest is the socket's

    asyncio.run(run())


@pytest.mark.parametrize("rules", ["dara", "dala", "kalah", "dracala"])
def test_turns_kept_as_the_game_grows_match_a_replay(client: TestClient, rules: str) -> None:
    """The server keeps a game's turns as it grows (only the turns a change touches are made
    again); after every move and undo, the merged updates, a fresh state and the turns of the
    stored moves replayed from scratch agree (multi-move turns, takebacks, moves again)."""
    rng = random.Random(rules)
    made = create(client, rules=rules, mode="hotseat")
    gid, key = made["id"], made["keys"]["0"]
    state = client.get(f"/api/games/{gid}").json()
    turns, moves = state["turns"], state["moves"]
    for step in range(90):
        if state["over"]:
            break
        if step % 7 == 6 and state["ply"] > 0:
            answer = client.post(f"/api/games/{gid}/undo", json={"key": key}).json()
        else:
            answer = move(client, gid, key, rng.choice(state["legal"])).json()
        assert answer["base"] == state["v"], answer
        turns = turns[:answer["turns_from"]] + answer["new_turns"]
        moves = moves[:answer["moves_from"]] + answer["new_moves"]
        state = client.get(f"/api/games/{gid}").json()
        replay = nugar.new_game(rules)
        for text in state["moves"]:
            replay.play(text)
        expected = [{"player": p, "text": replay.descriptor.join_turn(ms), "n": len(ms)}
                    for p, ms in replay.turn_list()]
        assert state["turns"] == turns == expected
        assert state["moves"] == moves and state["ply"] == len(moves)
        assert state["legal"] == [str(m) for m in replay.legal_moves()]
        assert state["last_move"] == (moves[-1] if moves else None)


def test_store_write_settles_each_waiter_on_its_loop(db_url: str) -> None:
    """``Store.write`` (the event loop's way to the writer thread): a written change
    resolves, a change on a stale version fails with ``VersionConflict`` and writes nothing,
    and a waiter cancelled meanwhile does not stop its write."""
    import dataclasses

    from nugar.server.storage.store import VersionConflict

    store = Store(db_url)
    row = GameRow(id="w1", rules="dara", mode="hotseat", ai_level=None, ai_seat=None,
                  key_hash_1="h", key_hash_2="h", moves=[], ending=None, offers={},
                  result=None, reason=None, version=1)
    store.create(row, StoredEvent(1, "created", {}))

    def at(version: int, moves: list[str]) -> tuple[GameRow, StoredEvent]:
        new = dataclasses.replace(row, moves=moves, version=version)
        return new, StoredEvent(version, "move", {"moves": moves[-1:]})

    async def run() -> None:
        await store.write(*at(2, ["c3"]))
        with pytest.raises(VersionConflict):
            await store.write(*at(2, ["d4"]))  # version 2 is taken
        waiter = store.write(*at(3, ["c3", "d4"]))
        waiter.cancel()
        await asyncio.sleep(0.3)

    asyncio.run(run())
    stored = store.load("w1")
    assert stored is not None and stored.version == 3 and stored.moves == ["c3", "d4"]
    assert [e.version for e in store.events_since("w1", 0, 10, 3)] == [1, 2, 3]
    store.close()


def test_remembered_secrets_still_open_only_their_seat(client: TestClient) -> None:
    """A room remembers the secrets that opened a seat (no hashing on every move), bounded;
    a secret of the other seat, a near miss and an unknown one are refused as before."""
    from nugar.server.play.room import KNOWN_KEYS

    made = create(client, rules="dara", mode="friend")
    gid, k1, k2 = made["id"], made["keys"]["1"], made["keys"]["2"]
    assert move(client, gid, k1, "c3").status_code == 200
    assert move(client, gid, k1, "d4").json()["error"] == "not_your_turn"
    assert move(client, gid, k2, "d4").status_code == 200
    near = k1[:-1] + ("A" if k1[-1] != "A" else "B")
    for wrong in (near, "x" * 24, k1 + "x"):
        r = move(client, gid, wrong, "e3")
        assert r.status_code == 403 and r.json()["error"] == "bad_key", wrong
    assert move(client, gid, k1, "e3").status_code == 200
    room = client.app.state.hub.rooms[gid]  # type: ignore[attr-defined]
    assert set(room._seats) == {k1, k2} and len(room._seats) <= KNOWN_KEYS
