"""The Learn section: the lessons of :mod:`nugar.lessons` as pages and as a JSON API.

- ``GET /learn`` and ``GET /learn/{name}``: the pages (``static/learn.html``; ``learn.js``
  asks the API below and draws each step's board with ``board.js``, as the game page does).
  Progress is kept by the browser (``localStorage``) and, for a signed-in player, with the
  account (below).
- ``GET /api/lessons``: the lessons in teaching order, ``{name, title, rules, game, intro,
  steps, puzzles}`` (the number of steps, puzzles included, and of puzzles).
- ``GET /api/lessons/{name}``: the lesson and its steps, each with what the page draws and
  plays on (its board data, rules, players, the player to move and the legal moves), never
  the expected moves.
- ``POST /api/lessons/{name}/steps/{i}/check`` ``{move}``: whether ``move`` (a move or a
  whole turn, typed or made of clicks) is what step ``i`` (from 0) asks, by
  :meth:`nugar.lessons.Step.answer`: ``{ok, verdict, reply, turn}``, and when the moves were
  legal the position after them (``board_after``, ``last_turn``, ``last_mover``,
  ``to_move``, ``legal``). An unknown lesson or step is a 404 (``unknown_lesson``,
  ``unknown_step``); a body that is not ``{move}`` with a text of at most
  :data:`MAX_MOVE_TEXT` characters, a 422.
- ``GET /api/me/lessons``: the signed-in player's progress, ``{lessons: {name: {done,
  at, updated}}}`` (:mod:`.lesson_progress`); 401 ``signed_out``.
- ``PUT /api/me/lessons/{name}`` ``{done: [step indices], at}``: replaces the player's
  progress in that lesson and answers it; the indices must be steps of the lesson (422
  ``bad_progress``), the lesson one of the package's (404 ``unknown_lesson``). Sent with the
  session cookie, it passes the cross-site check (:mod:`.crosssite`) like every change.

The API answers in the request's language (:mod:`.language`): a lesson's texts from its
translated file where there is one (:func:`nugar.lessons.load`), a check's reply said with
:func:`nugar.i18n.say` (the engine's reasons and the lesson's own words); moves, rules and
codes stay as they are.

Lessons are package data that never change while the server runs: each is read once per
language, and each lesson's view made once. A check plays a few moves on fresh games, off
the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field

from ...i18n import SOURCE, Text, say
from ...lessons import Answer, Lesson, LessonError, Step, lessons, load
from ...rules import Game
from ..errors import ApiError, reason
from ..play.render import board_data
from ..players.lesson_progress import progress_of, save_progress
from .language import request_language
from .models import Body, ErrorBody
from .routes_accounts import AccountDep
from .routes_pages import missing, page
from .services import services

#: the longest move text a check reads (a whole turn is far shorter)
MAX_MOVE_TEXT = 64
#: what a lesson's name may look like (the data files' names)
_NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
#: the most step indices a progress may list (far more than a lesson has)
MAX_STEPS = 200


class CheckBody(Body):
    move: str = Field(..., max_length=MAX_MOVE_TEXT,
                      description="a move or a whole turn from the step's position: c3, "
                                  "c2-c1xa5, 3-6")


class ProgressBody(Body):
    done: list[int] = Field(..., max_length=MAX_STEPS,
                            description="the indices (from 0) of the steps done")
    at: int | None = Field(None, description="the step last shown (from 0)")


router = APIRouter(responses={"4XX": {"model": ErrorBody, "description": "Refused"}})


@functools.cache
def _lesson(name: str, lang: str = SOURCE) -> Lesson:
    """The package's lesson ``name`` in ``lang`` (read once); ``unknown_lesson`` if there is
    none (a refusal is not cached, so the cache holds the package's lessons only)."""
    if not _NAME.fullmatch(name):
        raise ApiError("unknown_lesson", Text(
            "no lesson named {name!r}",
            domain="web", name=name[:40]))
    try:
        return load(name, lang)
    except LessonError as exc:
        raise ApiError("unknown_lesson", reason(exc)) from None


def _position(game: Game) -> dict[str, Any]:
    """What the page draws and plays on at ``game``'s position."""
    return {"board": board_data(game), "to_move": None if game.is_over else game.to_move,
            "legal": [] if game.is_over else [str(m) for m in game.legal_moves()]}


def _step_view(index: int, step: Step) -> dict[str, Any]:
    game = step.game()
    return {"index": index, "title": step.title, "text": step.text,
            "instruction": step.instruction, "puzzle": step.puzzle, "goal": step.goal,
            "rules": game.rules.text, "game": game.rules.game,
            "family": game.descriptor.name,
            "players": [game.player_name(1), game.player_name(2)],
            "joiner": game.descriptor.turn_joiner, **_position(game)}


def _summary(lesson: Lesson) -> dict[str, Any]:
    return {"name": lesson.name, "title": lesson.title, "rules": lesson.rules,
            "intro": lesson.intro, "steps": len(lesson.steps),
            "puzzles": len(lesson.puzzles)}


@functools.cache
def _lesson_view(name: str, lang: str = SOURCE) -> dict[str, Any]:
    lesson = _lesson(name, lang)
    return {**_summary(lesson),
            "steps": [_step_view(i, s) for i, s in enumerate(lesson.steps)]}


@functools.cache
def _listing(lang: str = SOURCE) -> list[dict[str, Any]]:
    return [_summary(lesson) for lesson in lessons(lang)]


def _check(name: str, index: int, move: str, lang: str = SOURCE) -> dict[str, Any]:
    lesson = _lesson(name, lang)
    if not 0 <= index < len(lesson.steps):
        raise ApiError("unknown_step", Text(
            "the lesson {name} has steps 0 to {steps}, not {index}",
            domain="web", name=name, steps=len(lesson.steps) - 1, index=index))
    step = lesson.steps[index]
    answer = step.answer(move)
    # the engine's reasons and a step's own words are Text; a lesson's replies are already
    # in ``lang`` (its translated file)
    reply = say(answer.reply, lang) if isinstance(answer.reply, Text) else answer.reply
    return {"ok": answer.ok, "reply": reply, **answer_view(answer, step.game())}


def answer_view(answer: Answer, start: Game) -> dict[str, Any]:
    """What a page draws of an answer to a turn played from ``start`` (a lesson's step, a
    puzzle): its ``verdict``, the ``turn`` read, and when its moves were legal the position
    after them (``board_after``, ``last_turn``, ``last_mover``, ``to_move``, ``legal``)."""
    out: dict[str, Any] = {"verdict": answer.verdict, "turn": None}
    if answer.moves:
        out["turn"] = start.descriptor.join_turn(list(answer.moves))
    if answer.game is not None:
        out.update({"board_after": board_data(answer.game),
                    "last_turn": [str(m) for m in answer.moves], "last_mover": start.to_move})
        position = _position(answer.game)
        out.update(to_move=position["to_move"], legal=position["legal"])
    return out


# --- the pages ---------------------------------------------------------------------------------
@router.get("/learn", include_in_schema=False)
async def learn_page(request: Request) -> HTMLResponse:
    return await page("learn.html", request)


@router.get("/learn/{name}", include_in_schema=False)
async def lesson_page(name: str, request: Request) -> Response:
    try:
        _lesson(name)
    except ApiError as exc:  # a browser asked: a page that says so, not JSON
        return await missing(request, Text("No such lesson", domain="web"), exc.detail)
    return await page("learn.html", request)


# --- the API -----------------------------------------------------------------------------------
@router.get("/api/lessons", summary="The lessons, in teaching order")
async def api_lessons(request: Request) -> list[dict[str, Any]]:
    lang = await request_language(request)
    return await asyncio.to_thread(_listing, lang)


@router.get("/api/lessons/{name}", summary="A lesson and its steps (each with its board and "
            "legal moves, not the expected ones)")
async def api_lesson(name: str, request: Request) -> dict[str, Any]:
    # the first view of a lesson sets up every step's game: off the event loop
    return await asyncio.to_thread(_lesson_view, name, await request_language(request))


@router.post("/api/lessons/{name}/steps/{index}/check",
             summary="Whether a move is what the step asks, the reply to show, and the "
             "position after it")
async def api_check(name: str, index: int, body: CheckBody,
                    request: Request) -> dict[str, Any]:
    return await asyncio.to_thread(_check, name, index, body.move,
                                   await request_language(request))


@router.get("/api/me/lessons", summary="The signed-in player's progress in the lessons")
async def api_my_lessons(request: Request, account: AccountDep) -> dict[str, Any]:
    found = await asyncio.to_thread(progress_of, services(request).store, account.id)
    return {"lessons": found}


@router.put("/api/me/lessons/{name}", summary="Keep the signed-in player's progress in a "
            "lesson (replacing what was kept)")
async def api_save_lesson(name: str, body: ProgressBody, request: Request,
                          account: AccountDep) -> dict[str, Any]:
    lesson = await asyncio.to_thread(_lesson, name)
    steps = len(lesson.steps)
    wrong = [i for i in [*body.done, *([] if body.at is None else [body.at])]
             if not 0 <= i < steps]
    if wrong:
        raise ApiError("bad_progress", Text(
            "the lesson {name} has steps 0 to {steps}, not {wrong}",
            domain="web", name=name, steps=steps - 1, wrong=wrong[0]))
    return await asyncio.to_thread(save_progress, services(request).store, account.id,
                                   lesson.name, body.done, body.at)
