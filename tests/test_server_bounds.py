"""Bounds against hostile input: rule-set texts everywhere they are read, and the replay API.

The web API's bounds are listed in ``docs/server.md`` (section "Bounds").
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient

import nugar
from nugar import record
from nugar.cli.common import rules_arg
from nugar.errors import RulesError
from nugar.protocol import EngineSession
from nugar.record import RecordError, dumps
from nugar.rules import new_game, parse_rules
from nugar.rules.options import MAX_RULES_TEXT
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.play import replays
from nugar.server.play.replays import MAX_REPLAY_MOVES, MAX_REPLAY_RESPONSE

# values of 10**20 and more once overflowed into a plain-text 500
HOSTILE = ["kalah(pits=20000)", "kalah(pits=100000000000000000000)",
           "kalah(seeds=4000000000000000000)", "dara(rows=" + "9" * 250 + ")"]
TOO_LONG = "kalah(" + ", ".join(["misere=off"] * 40) + ")"


def test_rule_texts_over_the_limit_are_refused_before_reading() -> None:
    assert len(TOO_LONG) > MAX_RULES_TEXT
    with pytest.raises(RulesError, match=f"at most {MAX_RULES_TEXT} characters"):
        parse_rules(TOO_LONG)
    # the longest texts a preset can need stay within the limit
    parse_rules("dara-niger(rows=26, cols=26, pieces=676, centre_first=off, drop_capture=off, "
                "drop_limit=no_three, long_lines=forbidden, protect_threes=off, "
                "all_protected=take_any, no_return=off, blocked=lose, loss_at=2, "
                "repetition=off, quiet_limit=1000)")


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_rules_are_clear_errors_in_the_library_cli_protocol_and_envs(text: str) -> None:
    with pytest.raises(RulesError, match=r"must be 1\.\.\d+, not"):
        parse_rules(text)
    import argparse

    with pytest.raises(argparse.ArgumentTypeError, match=r"must be 1\.\.\d+"):
        rules_arg(text)
    session = EngineSession("kalah")
    reply = session.handle(f"rules {text}")
    assert reply is not None and reply.startswith("?") and "must be 1.." in reply
    assert session.rules.text == "kalah"  # unchanged
    from nugar.envs.pettingzoo import raw_env

    with pytest.raises(RulesError, match=r"must be 1\.\.\d+"):
        raw_env(text)


@pytest.mark.parametrize("text", [*HOSTILE, TOO_LONG])
def test_hostile_rules_tag_in_a_record_is_a_clear_error(text: str) -> None:
    with pytest.raises(RecordError, match=r"tag Rules: .*(must be 1\.\.|at most 300)") as info:
        record.loads(f'[Rules "{text}"]\n\n1. 1 *')
    assert len(str(info.value)) < 300  # the message does not echo a long text


@pytest.mark.parametrize("text", [*HOSTILE, TOO_LONG])
def test_hostile_rules_over_the_web_api_are_4xx_json(client: TestClient, text: str) -> None:
    r = client.post("/api/games", json={"rules": text, "mode": "hotseat"})
    assert 400 <= r.status_code < 500 and "error" in r.json()
    r = client.get("/api/rules", params={"text": text})
    assert r.status_code == 422 and r.json()["error"] == "bad_rules"
    r = client.post("/api/replay", json={"record": f'[Rules "{text}"]\n\n1. 1 *'})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    assert "tag Rules" in r.json()["detail"]


def _long_game(rules: str, moves: int, seed: int = 1) -> nugar.Game:
    rnd = random.Random(seed)
    game = new_game(rules)
    while game.outcome is None and len(game.move_stack) < moves:
        game.play(rnd.choice(list(game.legal_moves())))
    return game


def test_a_long_replay_answers_within_the_bound(client: TestClient) -> None:
    game = _long_game("kalah(pits=32,seeds=64)", MAX_REPLAY_MOVES - 100)
    assert len(game.move_stack) > 2000
    text = dumps(game, {})
    r = client.post("/api/replay", json={"record": text})
    assert r.status_code == 200
    assert len(r.content) < MAX_REPLAY_RESPONSE
    assert len(r.content) < 4 * len(text) + 100_000  # turns and one position, not one per ply
    body = r.json()
    assert [t["text"] for t in body["turns"]] == game.turns()
    assert body["position"]["ply"] == len(game.move_stack)
    r = client.post("/api/replay", json={"record": text, "turn": 5})
    assert r.json()["position"]["ply"] == sum(t["n"] for t in body["turns"][:5])


def test_reading_a_long_record_is_linear() -> None:
    # each turn once joined the texts of every turn before it: 7 s for 3,600 moves
    game = _long_game("kalah(pits=32,seeds=64)", 3000)
    calls = 0
    real = game.descriptor.join_turn

    def counting(moves: Any) -> str:
        nonlocal calls
        calls += 1
        return real(moves)

    text = dumps(game, {})
    descriptor = type(game.descriptor)
    mp = pytest.MonkeyPatch()
    mp.setattr(descriptor, "join_turn", lambda self, moves: counting(moves))
    try:
        rec = record.load_one(text)
    finally:
        mp.undo()
    assert rec.turns == game.turns()
    assert calls < 4 * len(game.turns())


def test_a_replay_over_the_move_limit_is_refused(client: TestClient,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    limit = 200  # the real limit (5,000) works the same; a smaller one keeps the test short
    monkeypatch.setattr(replays, "MAX_REPLAY_MOVES", limit)
    game = _long_game("kalah(pits=32,seeds=64)", 400)
    text = dumps(game, {})
    r = client.post("/api/replay", json={"record": text})
    assert r.status_code == 422
    assert f"more than {limit} moves" in r.json()["detail"]
    # reading stopped there: a broken turn after it is never reached
    r = client.post("/api/replay", json={"record": text.replace(" *", " 99 *")})
    assert f"more than {limit} moves" in r.json()["detail"]
    monkeypatch.setattr(replays, "MAX_REPLAY_MOVES", 400)
    assert client.post("/api/replay", json={"record": text}).status_code == 200


def test_a_multi_game_body_is_refused_without_reading_the_others(
        client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    games = "".join(f'[Rules "kalah(pits={n})"]\n\n1. 1 *\n\n' for n in range(2, 8))
    made: list[str] = []
    real = new_game  # what nugar.record calls

    def counting(rules: Any) -> Any:
        made.append(str(rules))
        return real(rules)

    monkeypatch.setattr(record, "new_game", counting)
    r = client.post("/api/replay", json={"record": games})
    assert r.status_code == 422 and r.json()["error"] == "bad_record"
    assert "expected at most 1 game in the record, found 2 or more" in r.json()["detail"]
    assert made == ["kalah(pits=2)"]  # the second game and those after are never set up
    # a later game's problems are not even looked at
    r = client.post("/api/replay", json={"record": '[Rules "kalah"]\n\n1. 1 *\n\n'
                                                   '[Rules "nosuch"]\n\n1. 1 *'})
    assert "game 2 starts here" in r.json()["detail"] and "nosuch" not in r.json()["detail"]


def test_replay_runs_off_the_event_loop(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    real = replays.replay
    on_loop: list[bool] = []

    def slow(record: str, turn: int | None) -> dict[str, Any]:
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        time.sleep(1.0)  # a blocking read, as a long record's would be
        return real(record, turn)

    monkeypatch.setattr(replays, "replay", slow)
    app = create_app(ServerConfig(db_url, rate=None))
    text = '[Rules "kalah"]\n\n1. 3-1 2 *'

    async def run() -> tuple[float, float]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            start = time.monotonic()

            async def replay() -> float:
                r = await c.post("/api/replay", json={"record": text})
                assert r.status_code == 200, r.text
                return time.monotonic() - start

            async def levels() -> float:
                await asyncio.sleep(0.1)
                r = await c.get("/api/levels")
                assert r.status_code == 200
                return time.monotonic() - start

            slow_done, fast_done = await asyncio.gather(replay(), levels())
            return slow_done, fast_done

    slow_done, fast_done = asyncio.run(run())
    assert on_loop == [False]  # a worker thread, not the event loop's
    assert slow_done >= 1.0 and fast_done < 0.8  # the GET was answered meanwhile


def test_replay_answers_are_json_with_the_declared_bound_in_the_schema(
        client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    body = json.dumps(schema["components"]["schemas"]["ReplayBody"])
    assert str(MAX_REPLAY_MOVES) in body
