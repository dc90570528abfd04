"""The Learn section's API and pages (``nugar.server.http.routes_lessons``), through Starlette's
test client: the lessons listed, a lesson's steps drawn from their positions, and a step's
check answering as ``Step.check`` does, with the position after a legal move."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from nugar import lessons
from nugar.server.play.render import board_data

# the fixture ``client`` is in conftest.py


def check(c: TestClient, name: str, index: int, move: Any) -> tuple[int, dict[str, Any]]:
    r = c.post(f"/api/lessons/{name}/steps/{index}/check", json={"move": move})
    body: dict[str, Any] = r.json()
    return r.status_code, body


def test_the_list_names_every_lesson_in_teaching_order(client: TestClient) -> None:
    r = client.get("/api/lessons")
    assert r.status_code == 200
    listed = r.json()
    assert [item["name"] for item in listed] == lessons.names() == [
        "dara", "dala", "kalah", "dracala"]
    for item, lesson in zip(listed, lessons.lessons(), strict=True):
        assert item == {"name": lesson.name, "title": lesson.title, "rules": lesson.rules,
                        "intro": lesson.intro, "steps": len(lesson.steps),
                        "puzzles": len(lesson.puzzles)}


@pytest.mark.parametrize("name", lessons.names())
def test_a_lesson_sends_each_steps_board_but_not_its_answers(client: TestClient,
                                                             name: str) -> None:
    lesson = lessons.load(name)
    view = client.get(f"/api/lessons/{name}").json()
    assert view["name"] == name and view["title"] == lesson.title
    assert len(view["steps"]) == len(lesson.steps)
    for i, (sent, step) in enumerate(zip(view["steps"], lesson.steps, strict=True)):
        game = step.game()
        assert sent["index"] == i
        assert (sent["title"], sent["text"], sent["instruction"], sent["puzzle"]) == (
            step.title, step.text, step.instruction, step.puzzle)
        assert sent["board"] == board_data(game)
        assert sent["legal"] == [str(m) for m in game.legal_moves()]
        assert sent["to_move"] == game.to_move
        assert sent["players"] == [game.player_name(1), game.player_name(2)]
        assert sent["rules"] == game.rules.text and sent["game"] == game.rules.game
        assert sent["joiner"] == game.descriptor.turn_joiner
        # the answers stay on the server: nothing says which move is expected
        assert not {"expected", "wrong", "replies", "right"} & set(sent)


@pytest.mark.parametrize("name", lessons.names())
def test_a_check_answers_as_the_step_does(client: TestClient, name: str) -> None:
    """Every expected turn is right, and the first legal moves, a refused move and a text
    that is no move get the very reply of ``Step.check``."""
    lesson = lessons.load(name)
    for i, step in enumerate(lesson.steps):
        game = step.game()
        tries = [*step.expected, *[str(m) for m in game.legal_moves()[:4]], "zz", "a1xa1", "99"]
        for move in tries:
            status, said = check(client, name, i, move)
            assert status == 200, said
            assert (said["ok"], said["reply"]) == step.check(move), (name, i, move)
            assert said["verdict"] == step.answer(move).verdict
        for move in step.expected:
            status, said = check(client, name, i, move)
            assert said["verdict"] == "right" and said["reply"] == (step.right or "Right.")
            after = step.game()
            after.play(move)
            assert said["board_after"] == board_data(after)
            assert said["last_mover"] == game.to_move
            assert said["turn"] == move


def test_a_turn_goes_on_then_is_right(client: TestClient) -> None:
    step = lessons.load("dala").steps[1]  # drop on c1, then take
    status, said = check(client, "dala", 1, "c1")
    assert status == 200
    assert said["ok"] is False and said["verdict"] == "goes_on"
    assert said["reply"].startswith("right so far: c1 and the turn goes on")
    game = step.game()
    game.play("c1")
    assert said["board_after"] == board_data(game)
    assert said["legal"] == [str(m) for m in game.legal_moves()]
    assert all(m.startswith("x") for m in said["legal"]) and said["to_move"] == 1
    assert said["last_turn"] == ["c1"] and said["turn"] == "c1"
    # the page sends the turn so far with the next click joined on
    _, said = check(client, "dala", 1, said["turn"] + "xf2")
    assert said["ok"] is True and said["verdict"] == "right"
    assert said["last_turn"] == ["c1", "xf2"] and said["to_move"] == 2


def test_a_wrong_move_gets_the_steps_reply_and_an_illegal_one_the_engines(
        client: TestClient) -> None:
    step = lessons.load("dala").steps[1]
    _, said = check(client, "dala", 1, "a6")  # legal, but no three
    assert said == {**said, "ok": False, "verdict": "wrong", "reply": step.wrong,
                    "turn": "a6"}
    assert "board_after" in said
    _, said = check(client, "dala", 1, "c3")  # occupied: the rules refuse it
    assert said["verdict"] == "illegal"
    assert said["reply"] == step.game().explain("c3")
    assert "board_after" not in said and "legal" not in said
    _, said = check(client, "dala", 1, "C1xF2")  # notation in capitals is read too
    assert said["ok"] is True
    _, said = check(client, "kalah", 1, "9")
    assert said["verdict"] == "unreadable" and said["turn"] is None
    assert said["reply"] == lessons.load("kalah").steps[1].check("9")[1]
    _, said = check(client, "dara", 0, "")
    assert said["verdict"] == "unreadable" and said["reply"].startswith("type a move")


def test_bad_input_is_refused_as_json(client: TestClient) -> None:
    url = "/api/lessons/dala/steps/0/check"
    for body in ({}, {"move": 3}, {"move": None}, {"move": "c" * 65}, {"move": ["c3"]},
                 {"mv": "c3"}):
        r = client.post(url, json=body)
        assert r.status_code == 422, body
        assert r.json()["error"] == "bad_request"
    r = client.post(url, content=b"not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "bad_request"
    assert client.post(url, json={"move": "c" * 64}).status_code == 200  # the bound itself
    for path, code in (("/api/lessons/nope", "unknown_lesson"),
                       ("/api/lessons/" + "a" * 300, "unknown_lesson"),
                       ("/api/lessons/dala.json", "unknown_lesson"),
                       ("/api/lessons/Dala", "unknown_lesson"),
                       ("/api/lessons/nope/steps/0/check", "unknown_lesson"),
                       ("/api/lessons/dala/steps/8/check", "unknown_step"),
                       ("/api/lessons/dala/steps/-1/check", "unknown_step"),
                       ("/api/lessons/dala/steps/99999999999999999999/check", "unknown_step")):
        r = (client.post(path, json={"move": "c3"}) if path.endswith("check")
             else client.get(path))
        assert r.status_code == 404, path
        assert r.json()["error"] == code, path
    r = client.post("/api/lessons/dala/steps/one/check", json={"move": "c3"})
    assert r.status_code == 422 and r.json()["error"] == "bad_request"


def test_the_learn_pages(client: TestClient) -> None:
    for path in ("/learn", "/learn/dara", "/learn/dracala"):
        r = client.get(path)
        assert r.status_code == 200
        assert '<script type="module" src="/static/learn.js"></script>' in r.text
        assert "script-src 'self'" in r.headers["content-security-policy"]
        assert "<script>" not in r.text  # no inline script: the policy would refuse it
    r = client.get("/learn/nope", headers={"accept": "text/html"})
    assert r.status_code == 404 and "No such lesson" in r.text
    for static in ("learn.js", "learn.css"):
        assert client.get(f"/static/{static}").status_code == 200
    # the home page's nav and text lead to the lessons
    home = client.get("/").text
    assert '<nav><a href="/" data-i18n>New game</a> <a href="/learn" data-i18n>Learn</a>' in home
    assert 'href="/learn">Learn them by playing</a>' in home
