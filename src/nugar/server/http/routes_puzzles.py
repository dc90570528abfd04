"""Puzzles: the page and the JSON API over the package's puzzles (:mod:`nugar.puzzles`).

- ``GET /puzzles`` and ``GET /puzzles/{id}``: the page (``static/puzzles.html``;
  ``puzzles.js`` draws the board with ``board.js`` and sends the turn played).
- ``GET /api/puzzles``: the rule sets with puzzles, how many each, and the themes.
- ``GET /api/puzzles/next?rules=R[&mode=streak&streak=N]``: a puzzle to solve, never its
  solution: signed in, one he has not attempted, near his puzzle rating in ``R``; signed out,
  one near 1500; in streak mode one of rating :func:`nugar.puzzles.choose.streak_rating` of
  the streak (the account's, or ``streak`` when signed out).
- ``GET /api/puzzles/daily?rules=R``: the day's puzzle (UTC), the same for everyone.
- ``GET /api/puzzles/{id}``: one puzzle.
- ``POST /api/puzzles/{id}/attempt`` ``{turn, mode}``: the judgement of a turn
  (:meth:`nugar.puzzles.Puzzle.answer`): ``right``, ``goes_on`` (the solution's first steps:
  the position after them to go on from), ``wrong``, ``illegal`` or ``unreadable``. A
  ``right`` or ``wrong`` is an attempt: the solution is shown, and for a signed-in player
  his first at the puzzle is rated (:mod:`..players.puzzle_ratings`), or in streak mode
  (``mode: "streak"``) counted in his streak.
- ``GET /api/me/puzzles``: the signed-in player's puzzle ratings and streaks (401
  ``signed_out``).

Bounds: the request rate of every route, and per client (the signed-in account, else the
address: :data:`..clients.CLIENT`) ``ATTEMPT_RATE`` attempts a second on average (bursts of
``ATTEMPT_BURST``) and ``NEXT_RATE`` puzzles asked a second (bursts of ``NEXT_BURST``; all four
in :mod:`.services`, with the budgets), beyond which ``429 puzzle_limit`` with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import datetime
import functools
import random
import re
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import Field

from ...i18n import Text, say
from ...puzzles import THEMES, Puzzle, shipped, shipped_rules
from ...puzzles.choose import daily, near, streak_rating
from ...rules import Game
from ...rules.options import parse_rules
from ..errors import ApiError
from ..play.render import board_data
from ..players import puzzle_ratings
from ..players.accounts import Account
from ..ratings import START_RATING
from .language import request_language
from .models import Body, ErrorBody
from .routes_accounts import AccountDep, MaybeAccount
from .routes_lessons import answer_view
from .routes_pages import missing, page
from .services import PuzzleBounds, services

#: the longest turn text an attempt reads
MAX_TURN_TEXT = 64
#: the longest streak a signed-out page may say it has (the rating ladder's top)
MAX_STREAK = 100
_ID = re.compile(r"[0-9a-f]{12}")


class AttemptBody(Body):
    turn: str = Field(..., max_length=MAX_TURN_TEXT,
                      description="the turn played, or its first steps: 3, 6-5, c2-c1xe5")
    mode: Literal["rated", "streak"] = Field("rated", description="rated (the default) or "
                                             "streak (unrated; counts the player's streak)")


router = APIRouter(responses={"4XX": {"model": ErrorBody, "description": "Refused"}})


def _bounds(request: Request) -> PuzzleBounds:
    bounds: PuzzleBounds = services(request).puzzles
    return bounds


@functools.cache
def _index() -> dict[str, Puzzle]:
    return {p.id: p for rules in shipped_rules() for p in shipped(rules)}


def _rules(text: str) -> str:
    """The shipped rule set ``text`` names (``kalah``), or 422 ``bad_rules``."""
    available = ", ".join(shipped_rules())
    try:
        rules = parse_rules(text).text
    except ValueError:
        rules = None
    if rules not in shipped_rules():
        raise ApiError("bad_rules", Text(
            "no puzzles of {rules!r}; puzzles of: {available}",
            domain="web", rules=text[:40], available=available))
    return rules


def _puzzle(pid: str) -> Puzzle:
    found = _index().get(pid) if _ID.fullmatch(pid) else None
    if found is None:
        raise ApiError("unknown_puzzle", Text("no puzzle {id!r}", domain="web", id=pid[:40]))
    return found


def _position(game: Game) -> dict[str, Any]:
    return {"board": board_data(game), "to_move": None if game.is_over else game.to_move,
            "legal": [] if game.is_over else [str(m) for m in game.legal_moves()]}


def _view(p: Puzzle, store: Any) -> dict[str, Any]:
    game = p.game()
    rating, attempts, solved = puzzle_ratings.puzzle_rating(store, p)
    return {"id": p.id, "rules": p.rules, "game": game.rules.game,
            "family": game.descriptor.name,
            "players": [game.player_name(1), game.player_name(2)],
            "joiner": game.descriptor.turn_joiner, "themes": list(p.themes),
            "rating": round(rating.rating), "attempts": attempts, "solved": solved,
            **_position(game)}


def _attempt(p: Puzzle, turn: str, mode: str, account: Account | None, store: Any,
             lang: str) -> dict[str, Any]:
    answer = p.answer(turn)
    out: dict[str, Any] = {**answer_view(answer, p.game()), "solution": None, "rated": False}
    reply: str
    if answer.verdict in ("right", "wrong"):
        out["solution"] = p.solution
        reply = (Text("Right: {solution} is the one best turn.", domain="web",
                      solution=p.solution) if answer.ok else
                 Text("Not the best turn: the solution is {solution}.", domain="web",
                      solution=p.solution))
        if account is not None:
            out.update(puzzle_ratings.record(store, account.id, p, answer.ok,
                                             mode == "streak").to_json())
    elif answer.verdict == "goes_on":
        reply = Text("Right so far: the turn goes on.", domain="web")
    else:
        reply = answer.reply
    out["reply"] = say(reply, lang) if isinstance(reply, Text) else reply
    return out


# --- the pages ---------------------------------------------------------------------------------
@router.get("/puzzles", include_in_schema=False)
async def puzzles_page(request: Request) -> HTMLResponse:
    return await page("puzzles.html", request)


@router.get("/puzzles/{pid}", include_in_schema=False)
async def puzzle_page(pid: str, request: Request) -> Response:
    try:
        _puzzle(pid)
    except ApiError as exc:
        return await missing(request, Text("No such puzzle", domain="web"), exc.detail)
    return await page("puzzles.html", request)


# --- the API -----------------------------------------------------------------------------------
@router.get("/api/puzzles", summary="The rule sets with puzzles, and the themes")
async def api_puzzles(request: Request) -> dict[str, Any]:
    themes = dict(THEMES)  # the page names them in the reader's language (puzzles.js)
    rules = await asyncio.to_thread(lambda: [{"rules": r, "puzzles": len(shipped(r))}
                                             for r in shipped_rules()])
    return {"rules": rules, "themes": themes}


@router.get("/api/puzzles/next", summary="A puzzle to solve (never its solution)")
async def api_next(request: Request, account: MaybeAccount,
                   rules: str = Query(..., max_length=300, description="kalah, dracala, dara, "
                                      "dala"),
                   mode: Literal["rated", "streak"] = "rated",
                   streak: int = Query(0, ge=0, le=MAX_STREAK, description="signed out: the "
                                       "streak so far")) -> dict[str, Any]:
    _bounds(request).take(_bounds(request).asks)
    store = services(request).store
    chosen = _rules(rules)

    def choose() -> dict[str, Any]:
        puzzles = shipped(chosen)
        rng = random.Random()
        if mode == "streak":
            run = streak if account is None else int(
                puzzle_ratings.player_of(store, account.id, chosen)["streak"])
            found = near(puzzles, streak_rating(run), rng)
            extra: dict[str, Any] = {"mode": "streak", "streak": run}
        elif account is None:
            found = near(puzzles, START_RATING, rng)
            extra = {"mode": "rated"}
        else:
            me = puzzle_ratings.player_of(store, account.id, chosen)
            skip = puzzle_ratings.attempted(store, account.id, chosen)
            found = near(puzzles, me["rating"], rng, skip) or near(puzzles, me["rating"], rng)
            extra = {"mode": "rated", "player": me}
        assert found is not None  # a shipped rule set has puzzles
        return {**_view(found, store), **extra}

    return await asyncio.to_thread(choose)


@router.get("/api/puzzles/daily", summary="The day's puzzle (UTC), the same for everyone")
async def api_daily(request: Request, rules: str = Query(..., max_length=300)
                    ) -> dict[str, Any]:
    _bounds(request).take(_bounds(request).asks)
    chosen = _rules(rules)
    today = datetime.datetime.now(datetime.UTC).date()

    def view() -> dict[str, Any]:
        found = daily(shipped(chosen), today)
        assert found is not None
        return {**_view(found, services(request).store), "daily": today.isoformat()}

    return await asyncio.to_thread(view)


@router.get("/api/puzzles/{pid}", summary="One puzzle (never its solution)")
async def api_puzzle(pid: str, request: Request) -> dict[str, Any]:
    _bounds(request).take(_bounds(request).asks)
    p = _puzzle(pid)
    return await asyncio.to_thread(_view, p, services(request).store)


@router.post("/api/puzzles/{pid}/attempt", summary="Judge a turn played in a puzzle; a "
             "signed-in player's first attempt is rated")
async def api_attempt(pid: str, body: AttemptBody, request: Request,
                      account: MaybeAccount) -> dict[str, Any]:
    p = _puzzle(pid)
    _bounds(request).take(_bounds(request).attempts)
    return await asyncio.to_thread(_attempt, p, body.turn.strip().lower(), body.mode, account,
                                   services(request).store, await request_language(request))


@router.get("/api/me/puzzles", summary="The signed-in player's puzzle ratings and streaks")
async def api_my_puzzles(request: Request, account: AccountDep) -> dict[str, Any]:
    found = await asyncio.to_thread(puzzle_ratings.standings_of, services(request).store,
                                    account.id)
    return {"puzzles": found}
