"""The analysis API: ``POST``/``GET /api/games/{id}/analysis`` and ``/api/replay/analysis``:
202 and idempotent, 404 and 409, 429 beyond the queue, stored with the game across a
restart, and the record's comments."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nugar.ai import analysis as A
from nugar.ai.analysis import analyse_game
from nugar.record import dumps, load_one
from nugar.rules import Game, new_game
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.errors import STATUS
from nugar.server.work.analyses import MAX_ANALYSIS_TURNS

NODES = 500
RULES = "kalah(pits=3,seeds=3)"


def app_client(db_url: str, **changes: Any) -> TestClient:
    cfg = ServerConfig(db_url, ai_time=0.05, rate=None, analysis_nodes=NODES, **changes)
    return TestClient(create_app(cfg))


@pytest.fixture()
def client(db_url: str) -> Iterator[TestClient]:
    with app_client(db_url) as c:
        yield c


def finished_game(c: TestClient, seed: int = 1, rules: str = RULES) -> tuple[str, str]:
    """A hot-seat game played to its end by random moves: its id and seat key."""
    made = c.post("/api/games", json={"rules": rules, "mode": "hotseat"}).json()
    gid, key = made["id"], made["keys"]["0"] if "0" in made["keys"] else \
        next(iter(made["keys"].values()))
    state = made["state"]
    rng = random.Random(seed)
    while not state["over"]:
        r = c.post(f"/api/games/{gid}/move", json={"key": key, "move": rng.choice(
            state["legal"])})
        assert r.status_code == 200, r.text
        state = c.get(f"/api/games/{gid}").json()
    return gid, key


def wait_done(c: TestClient, path: str, timeout: float = 60) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        data: dict[str, Any] = c.get(path).json()
        if data["done"] or time.monotonic() > end:
            return data
        time.sleep(0.05)


def the_game(c: TestClient, gid: str) -> Game:
    return load_one(c.get(f"/api/games/{gid}/record").text).game


def test_analysis_of_a_finished_game(client: TestClient) -> None:
    gid, _ = finished_game(client)
    assert client.get(f"/api/games/{gid}/analysis").json()["started"] is False
    first = client.post(f"/api/games/{gid}/analysis")
    assert first.status_code == 202, first.text
    again = client.post(f"/api/games/{gid}/analysis")  # idempotent: the same analysis
    assert again.status_code == 202 and again.json()["id"] == gid
    data = wait_done(client, f"/api/games/{gid}/analysis")
    assert data["done"] and data["progress"] == 1.0 and data["nodes"] == NODES
    game = the_game(client, gid)
    assert data["plies"] == [p.to_json() for p in analyse_game(game, nodes=NODES)]
    assert [p["ply"] for p in data["plies"]] == list(range(len(game.turns()) + 1))
    assert client.post(f"/api/games/{gid}/analysis").json()["plies"] == data["plies"]
    # the record says it: each turn's evaluation as a comment
    record = load_one(client.get(f"/api/games/{gid}/record").text)
    assert record.tags["Annotator"] == "nugar analysis"
    for p in data["plies"][1:]:
        assert record.comments[p["ply"] - 1][0].startswith(f"{p['eval']:+.2f}")


def test_unknown_and_unfinished_games_are_refused(client: TestClient) -> None:
    for method in ("get", "post"):
        r = getattr(client, method)("/api/games/nosuchgame/analysis")
        assert r.status_code == 404 and r.json()["error"] == "unknown_game"
    gid = client.post("/api/games", json={"rules": RULES, "mode": "hotseat"}).json()["id"]
    r = client.post(f"/api/games/{gid}/analysis")
    assert r.status_code == 409 and r.json()["error"] == "game_running"
    assert STATUS["analysis_busy"] == 429


def test_the_queue_is_bounded(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no place in the queue, a second game's analysis is refused with 429 and
    Retry-After while the first runs; asking for the first again is still answered."""
    gate = threading.Event()
    step = A.GameAnalyser.step

    def held(self: A.GameAnalyser) -> bool:
        gate.wait(30)
        return step(self)

    monkeypatch.setattr(A.GameAnalyser, "step", held)
    with app_client(db_url, analysis_queue=0) as c:
        one, _ = finished_game(c, 1)
        two, _ = finished_game(c, 2)
        assert c.post(f"/api/games/{one}/analysis").status_code == 202
        busy = c.post(f"/api/games/{two}/analysis")
        assert busy.status_code == 429 and busy.json()["error"] == "analysis_busy"
        assert int(busy.headers["retry-after"]) >= 1
        assert c.post(f"/api/games/{one}/analysis").status_code == 202
        running = c.get(f"/api/games/{one}/analysis").json()
        assert running["started"] and not running["done"] and running["progress"] < 1
        gate.set()
        assert wait_done(c, f"/api/games/{one}/analysis")["done"]
        assert c.post(f"/api/games/{two}/analysis").status_code == 202  # room again
        assert wait_done(c, f"/api/games/{two}/analysis")["done"]


def test_the_analysis_survives_a_restart(db_url: str) -> None:
    with app_client(db_url) as c:
        gid, _ = finished_game(c, 5)
        c.post(f"/api/games/{gid}/analysis")
        data = wait_done(c, f"/api/games/{gid}/analysis")
        assert data["done"]
    with app_client(db_url) as c:  # a new process on the same database
        stored = c.get(f"/api/games/{gid}/analysis").json()
        assert stored == data
        assert c.post(f"/api/games/{gid}/analysis").json() == data  # not computed again


def test_a_stale_claim_is_taken_over(db_url: str) -> None:
    """A process that stopped mid-analysis leaves its claim; once stale, the next request
    computes the analysis."""
    from nugar.server.storage.store import analyses_table

    with app_client(db_url) as c:
        gid, _ = finished_game(c, 6)
        store = c.app.state.store  # type: ignore[attr-defined]
        with store.engine.begin() as conn:
            conn.execute(analyses_table.insert().values(
                game_id=gid, done=0, progress=0.5, nodes=NODES, plies="[]", created=1,
                updated=int(time.time())))
        fresh = c.post(f"/api/games/{gid}/analysis").json()
        assert fresh["started"] and not fresh["done"] and fresh["progress"] == 0.5
        with store.engine.begin() as conn:
            conn.execute(analyses_table.update().values(updated=1))
        c.post(f"/api/games/{gid}/analysis")
        assert wait_done(c, f"/api/games/{gid}/analysis")["done"]


def test_analysis_of_a_pasted_record(client: TestClient) -> None:
    rng = random.Random(4)
    game = new_game(RULES)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    record = dumps(game)
    r = client.post("/api/replay/analysis", json={"record": record})
    assert r.status_code == 202
    key = r.json()["id"]
    assert client.post("/api/replay/analysis", json={"record": record}).json()["id"] == key
    data = wait_done(client, f"/api/replay/analysis/{key}")
    assert data["plies"] == [p.to_json() for p in analyse_game(game, nodes=NODES)]
    # the same game pasted again: the kept analysis at once
    assert client.post("/api/replay/analysis", json={"record": record}).json() == data
    bad = client.post("/api/replay/analysis", json={"record": "1. zz9"})
    assert bad.status_code == 422 and bad.json()["error"] == "bad_record"
    huge = client.post("/api/replay/analysis", json={"record": "x" * 200_001})
    assert huge.status_code == 422
    gone = client.get("/api/replay/analysis/rnothing")
    assert gone.status_code == 404 and gone.json()["error"] == "unknown_analysis"


def _record(seed: int) -> tuple[Game, str]:
    rng = random.Random(seed)
    game = new_game(RULES)
    while not game.is_over:
        game.play(rng.choice(game.legal_moves()))
    return game, dumps(game)


def test_a_pasted_record_s_analysis_is_stored_for_every_process(db_url: str) -> None:
    """Two processes on one database (``--workers``): the analysis of a record pasted on one
    is read on the other, which does not compute it again."""
    _game, record = _record(7)
    with app_client(db_url) as one, app_client(db_url) as two:
        key = one.post("/api/replay/analysis", json={"record": record}).json()["id"]
        running = two.get(f"/api/replay/analysis/{key}")
        assert running.status_code == 200 and running.json()["started"]
        data = wait_done(one, f"/api/replay/analysis/{key}")
        assert data["done"]
        assert two.get(f"/api/replay/analysis/{key}").json() == data
        assert two.post("/api/replay/analysis", json={"record": record}).json() == data
        assert not two.app.state.analyses.jobs  # type: ignore[attr-defined]
        # never confused with a game: no game has that id
        assert two.get(f"/api/games/{key}/analysis").status_code == 404


def test_the_analyses_of_pasted_records_are_bounded(db_url: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The newest ``KEEP_REPLAYS`` are kept, none older than ``REPLAY_SECONDS``; games'
    analyses are never pruned."""
    from nugar.server.work import analyses as AN

    monkeypatch.setattr(AN, "KEEP_REPLAYS", 1)
    with app_client(db_url) as c:
        gid, _ = finished_game(c, 8)
        c.post(f"/api/games/{gid}/analysis")
        assert wait_done(c, f"/api/games/{gid}/analysis")["done"]
        keys = []
        for seed in (9, 10):
            keys.append(c.post("/api/replay/analysis",
                               json={"record": _record(seed)[1]}).json()["id"])
            assert wait_done(c, f"/api/replay/analysis/{keys[-1]}")["done"]
        assert c.get(f"/api/replay/analysis/{keys[0]}").status_code == 404
        assert c.get(f"/api/replay/analysis/{keys[1]}").json()["done"]
        store = c.app.state.store  # type: ignore[attr-defined]
        with store.engine.begin() as conn:
            AN.Analyses._prune_replays(conn, int(time.time()) + AN.REPLAY_SECONDS + 10)
        assert c.get(f"/api/replay/analysis/{keys[1]}").status_code == 404
        assert c.get(f"/api/games/{gid}/analysis").json()["done"]


def test_a_game_too_long_is_refused(client: TestClient, monkeypatch: pytest.MonkeyPatch
                                    ) -> None:
    from nugar.server.work import analyses

    monkeypatch.setattr(analyses, "MAX_ANALYSIS_TURNS", 3)
    gid, _ = finished_game(client, 8)
    r = client.post(f"/api/games/{gid}/analysis")
    assert r.status_code == 409 and r.json()["error"] == "too_long"
    assert MAX_ANALYSIS_TURNS >= 1000


def test_a_wrong_method_names_both_methods_of_the_path(client: TestClient) -> None:
    """``GET`` and ``POST`` share the analysis' path: a 405 names both (``Allow``)."""
    r = client.delete("/api/games/abc/analysis")
    assert r.status_code == 405 and r.headers["allow"] == "GET, POST"
    assert client.delete("/api/games/abc/move").headers["allow"] == "POST"
