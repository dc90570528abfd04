"""The analysis routes: start and read the computer analysis of a finished game, or of a
pasted record (:mod:`.analyses` computes them in the AI pool)."""

from __future__ import annotations

import functools
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import Field
from starlette.requests import HTTPConnection

from ..play import replays
from ..play.replays import MAX_REPLAY_CHARS, MAX_REPLAY_MOVES
from ..work.analyses import Analyses
from .models import Body, ErrorBody
from .routes_api import priced
from .services import HubDep, services


def analyses_of(conn: HTTPConnection) -> Analyses:
    """The analyses of the application serving this request."""
    analyses: Analyses = services(conn).analyses
    return analyses


AnalysesDep = Annotated[Analyses, Depends(analyses_of)]


class RecordBody(Body):
    record: str = Field(..., max_length=MAX_REPLAY_CHARS,
                        description=f"a game record as text: one game of at most "
                                    f"{MAX_REPLAY_MOVES} moves")


router = APIRouter(prefix="/api", responses={"4XX": {"model": ErrorBody,
                                                     "description": "Refused"}})

_ANSWER = ("{id, started, done, progress (0 to 1), nodes, plies: [{ply, move, player, eval, "
           "best, mark, loss, exact, pv}]}")


@router.post("/games/{game_id}/analysis", status_code=202,
             summary="Start the computer analysis of a finished game (again: the one under "
                     "way or done); answers " + _ANSWER, response_model=dict[str, Any])
async def api_analyse_game(game_id: str, hub: HubDep, analyses: AnalysesDep) -> JSONResponse:
    room = await hub.room(game_id, fresh=True)
    return JSONResponse(await analyses.start_game(game_id, room.session.game), status_code=202)


@router.get("/games/{game_id}/analysis", summary="The analysis of a game so far: " + _ANSWER,
            response_model=dict[str, Any])
async def api_game_analysis(game_id: str, hub: HubDep, analyses: AnalysesDep
                            ) -> dict[str, Any]:
    await hub.room(game_id)  # 404 for a game that does not exist
    return await analyses.game_status(game_id)


@router.post("/replay/analysis", status_code=202,
             summary="Start the analysis of a pasted record (again: the one under way or "
                     "kept); answers " + _ANSWER + "; read it again at "
                     "GET /api/replay/analysis/{id}", response_model=dict[str, Any])
async def api_analyse_record(body: RecordBody, request: Request,
                             analyses: AnalysesDep) -> JSONResponse:
    # reading the record is priced as a replay is (the work pool, the client's CPU budget)
    game = await priced(request, functools.partial(replays.read_game, body.record))
    return JSONResponse(await analyses.start_replay(game), status_code=202)


@router.get("/replay/analysis/{analysis_id}", summary="The analysis of a pasted record so "
            "far: " + _ANSWER, response_model=dict[str, Any])
async def api_record_analysis(analysis_id: str, analyses: AnalysesDep) -> dict[str, Any]:
    return await analyses.replay_status(analysis_id)
