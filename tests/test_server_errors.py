"""The server's refusals and their HTTP statuses (``nugar.server.errors``): one table, every code
in it raised somewhere, every code raised in it, each answered with the status it always had."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from nugar.server.errors import STATUS, ApiError, status_of
from nugar.server.http.middleware import add_error_handlers
from nugar.server.work.ai_pool import AiBusy

SERVER = Path(__file__).resolve().parents[1] / "src" / "nugar" / "server"

#: the status each code was raised with when every refusal carried its own (before the table)
BEFORE = {
    "bad_key": 403,
    **dict.fromkeys(["unknown_challenge", "unknown_game", "unknown_offer"], 404),
    # added with the lessons' API (routes_lessons)
    **dict.fromkeys(["unknown_lesson", "unknown_step"], 404),
    **dict.fromkeys(["already_accepted", "already_offered", "ask_takeback", "corrupt_game",
                     "game_over", "game_running", "illegal_move", "no_hints", "no_offer",
                     "no_offers", "not_your_turn", "not_yours", "nothing_to_undo",
                     "own_challenge", "stale_version", "too_long"], 409),
    **dict.fromkeys(["bad_action", "bad_clock", "bad_colour", "bad_level", "bad_mode",
                     "bad_move", "bad_ply", "bad_record", "bad_rules", "bad_seat", "bad_turn",
                     "invalid_move"], 422),
    **dict.fromkeys(["ai_busy", "lobby_busy", "lobby_full", "stale_room", "storage_failed"],
                    503),
}


def _raised_codes() -> set[str]:
    """The codes the server's modules raise: the first argument of each ``ApiError(...)``, and
    of ``__init__`` called in a subclass of it (``AiBusy``)."""
    codes: set[str] = set()
    for path in SERVER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        subclasses = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
                      and any(isinstance(b, ast.Name) and b.id == "ApiError" for b in n.bases)]
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
                 and isinstance(n.func, ast.Name) and n.func.id == "ApiError"]
        calls += [n for c in subclasses for n in ast.walk(c) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Attribute) and n.func.attr == "__init__"]
        for call in calls:
            first = call.args[0] if call.args else None
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), (
                f"{path.name}:{call.lineno}: a refusal's code is a literal, so the table can "
                "be checked")
            codes.add(first.value)
    return codes


def test_every_code_raised_is_in_the_table_and_every_code_in_it_is_raised() -> None:
    assert _raised_codes() == set(STATUS)


#: the codes added since, with their statuses
ADDED = {"analysis_busy": 429, "unknown_analysis": 404, "bad_progress": 422,
         "too_much_work": 429, "too_many_challenges": 429, "work_failed": 503}


#: the codes the accounts added (issue 29), with their statuses
ACCOUNTS = {"bad_credentials": 401, "signed_out": 401, "cross_site": 403,
            "wrong_password": 403, "name_taken": 409, "bad_password": 422,
            "bad_username": 422, "too_many_attempts": 429, "unknown_player": 404}

#: the code the account's language added (issue 33)
LANGUAGE = {"bad_language": 422}

#: the codes fairness's second round added (issue 42)
FAIR = {"bad_cookie": 400, "game_in_play": 409, "sign_in_busy": 503}

#: the code of the limits on rated games started
RATED = {"rated_limit": 429}

#: the codes of the puzzles (issue 40, item 2) and of the bots (item 4)
PUZZLES = {"unknown_puzzle": 404, "puzzle_limit": 429}
BOTS = {"bad_token": 401, "not_a_bot": 403, "unknown_token": 404, "has_games": 409,
        "too_many_tokens": 429, "too_many_streams": 429}



def test_each_code_has_the_status_it_had_before() -> None:
    assert STATUS == BEFORE | ADDED | ACCOUNTS | LANGUAGE | FAIR | RATED | PUZZLES | BOTS


@pytest.mark.parametrize("code", sorted(STATUS))
def test_each_code_is_answered_with_its_status_and_json(code: str) -> None:
    """Through the app's error handler (:mod:`.middleware`): the table's status and the body
    ``{error, detail}``."""
    app = FastAPI()
    add_error_handlers(app)

    @app.get("/refuse")
    async def refuse() -> None:
        raise ApiError(code, "no, not now")

    answer = TestClient(app).get("/refuse")
    every = BEFORE | ADDED | ACCOUNTS | LANGUAGE | FAIR | RATED | PUZZLES | BOTS
    assert answer.status_code == every[code] == status_of(ApiError(code, ""))
    assert answer.json() == {"error": code, "detail": "no, not now"}
    assert "retry-after" not in answer.headers


def test_a_busy_ai_says_when_to_try_again() -> None:
    app = FastAPI()
    add_error_handlers(app)

    @app.get("/busy")
    async def busy() -> None:
        raise AiBusy(retry_after=3)

    answer = TestClient(app).get("/busy")
    assert answer.status_code == 503 and answer.headers["retry-after"] == "3"
    assert answer.json()["error"] == "ai_busy"
