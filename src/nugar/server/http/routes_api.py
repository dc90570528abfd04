"""The web app's JSON API: presets, levels, games and their changes, records.

Every route reads the server's :class:`~.rooms.Hub` from the application's services
(``services(request).hub``, :mod:`.services`) and hands a game's changes to its room;
refusals are :class:`~.errors.ApiError`, answered as JSON by :mod:`.middleware`. The OpenAPI
schema lists these routes at ``/docs``.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import Field
from starlette.requests import HTTPConnection

from ...ai.agents import DEFAULT_LEVEL, LEVEL_RANGE_TEXT, LEVELS
from ...i18n import Text, join, say
from ...rules import PRESETS, Game, parse_rules
from ...rules.family import preset_json
from ...rules.options import MAX_RULES_TEXT, format_value
from ..clients import Work
from ..errors import ApiError, reason
from ..play import replays
from ..play.clocks import ClockError, TimeControl
from ..play.rematch import rematch
from ..play.replays import MAX_REPLAY_CHARS, MAX_REPLAY_MOVES
from ..play.rooms import Hub
from ..players.accounts import Account, current_account
from ..work.work_pool import WorkPool
from .language import request_language
from .models import Body, ErrorBody, KeyBody, MoveBody, Whole, answer
from .services import HubDep, services

T = TypeVar("T")


# --- request bodies (the shared ones are in .models) -------------------------------------------
class CreateGame(Body):
    rules: str = Field("dara", max_length=MAX_RULES_TEXT,
                       description="rule-set text, e.g. dala(quiet_limit=off)")
    mode: Literal["ai", "friend", "hotseat"] = Field(
        "ai", description="against the AI, against a friend by link, or hot-seat on one screen")
    level: Whole | None = Field(None, description=f"AI level {LEVEL_RANGE_TEXT} (mode ai); "
                                                   f"default: {DEFAULT_LEVEL}")
    seat: Whole | None = Field(None,
                               description="your seat against the AI: 1 moves first, 2 second")
    clock: str | None = Field(None, max_length=20,
                              description="time control: none (default), M+I (minutes for "
                                          "the game + seconds per turn, e.g. 5+3) or Nd "
                                          "(days per turn, e.g. 3d)")


class OfferBody(KeyBody):
    action: Literal["offer", "accept", "decline", "cancel"] = "offer"


class ReplayBody(Body):
    record: str = Field(..., max_length=MAX_REPLAY_CHARS,
                        description=f"a game record as text: one game of at most "
                                    f"{MAX_REPLAY_MOVES} moves")
    turn: Whole | None = Field(None, ge=0, le=MAX_REPLAY_MOVES,
                             description="the position to draw: after this many turns "
                                         "(default: the last)")


# "4XX" documents every refusal as ErrorBody (and replaces FastAPI's default 422 schema,
# which does not match the body the middleware writes)
router = APIRouter(prefix="/api", responses={"4XX": {"model": ErrorBody,
                                                     "description": "Refused"}})


# --- rules and levels --------------------------------------------------------------------------
@router.get("/presets", summary="Presets with their sources and options")
async def api_presets() -> list[dict[str, Any]]:
    return [preset_json(preset) for preset in PRESETS.values()]


@router.get("/warmup", summary="Whether the AI's compiled code is ready (a first run "
            "compiles it, with progress)")
async def api_warmup(request: Request) -> dict[str, Any]:
    progress: dict[str, Any] = services(request).warmup.progress().as_dict()
    return progress


@router.get("/levels", summary="The AI levels and the one offered first; with ?rules=, "
            "whether the perfect player is ready for that rule set and what level 8 has of "
            "its endgame databases")
async def api_levels(request: Request, rules: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"levels": sorted(LEVELS), "default": DEFAULT_LEVEL}
    if rules is not None:
        from ...ai.perfect import perfect_status

        try:
            status = await asyncio.to_thread(perfect_status, parse_rules(rules))
        except ValueError as exc:
            raise ApiError("bad_rules", reason(exc)) from None
        note = databases_note(status["databases"])
        status["databases_note"] = None if note is None else \
            say(note, await request_language(request), "web")
        out["perfect"] = status
    return out


def databases_note(info: dict[str, Any] | None) -> Text | None:
    """What level 8 has of a rule set's endgame databases, for a person
    (``perfect.database_status``): how far their background build is, and, below the
    recommended reach, what it has and how to build the rest; ``None`` when it lacks
    nothing (or the rule set has no databases)."""
    if info is None:
        return None
    auto = info["auto"]
    parts: list[Text] = []
    if auto["state"] == "building":
        parts.append(Text.plural(
            "Level 8: building the endgame databases to {seeds} seed in the background "
            "({percent}% done, {size} MB); each level is used as soon as it is finished.",
            "Level 8: building the endgame databases to {seeds} seeds in the background "
            "({percent}% done, {size} MB); each level is used as soon as it is finished.",
            auto["target"], domain="web", seeds=auto["target"],
            percent=int(100 * auto["share"]), size=f"{auto['bytes'] / 2**20:.0f}"))
    elif auto["state"] == "waiting":
        parts.append(Text.plural(
            "Level 8: another process is building the endgame databases to {seeds} seed; each "
            "level is used as soon as it is finished.", "Level 8: another process is building "
            "the endgame databases to {seeds} seeds; each level is used as soon as it is "
            "finished.", auto["target"], domain="web", seeds=auto["target"]))
    elif auto["state"] == "failed":
        parts.append(Text("Level 8: the endgame databases could not be built: {why}",
                          domain="web", why=auto["error"]))
    fields = {"have": info["have"], "command": info["command"], "size": info["gigabytes"],
              "minutes": info["minutes"]}
    if info["have"] >= info["recommended"]:
        pass
    elif info["have"] >= 0:
        parts.append(Text.plural(
            "Level 8 has the endgame databases to {have} seed; larger ones: {command} ({size} "
            "GB, about {minutes} min).", "Level 8 has the endgame databases to {have} seeds; "
            "larger ones: {command} ({size} GB, about {minutes} min).", info["have"],
            domain="web", **fields))
    else:
        parts.append(Text("Level 8 has no endgame databases yet; build them with {command} "
                          "({size} GB, about {minutes} min).", domain="web", **fields))
    return join(" ", parts) if parts else None


@router.get("/rules", summary="Check a rule-set text")
async def api_rules(text: str) -> dict[str, Any]:
    try:
        rs = parse_rules(text)  # refuses a text over MAX_RULES_TEXT before reading it
    except ValueError as exc:
        raise ApiError("bad_rules", reason(exc)) from None
    return {"text": rs.text, "game": rs.game, "family": rs.family,
            "source": rs.preset.source,
            "options": {k: format_value(v) for k, v in vars(rs.options).items()}}


# --- games -------------------------------------------------------------------------------------
def time_control_of(text: str | None) -> TimeControl | None:
    """The time control a request names; 422 ``bad_clock`` saying what is allowed."""
    try:
        return TimeControl.parse(text)
    except ClockError as exc:
        raise ApiError("bad_clock", reason(exc)) from None


def _links(request: Request, game_id: str, keys: dict[str, str]) -> dict[str, Any]:
    base: str = services(request).public_url  # configured: never the request's Host header
    watch = f"{base}/g/{game_id}"
    seats = {seat: f"{watch}#seat={seat}&key={key}" for seat, key in keys.items()}
    return {"watch": watch, "seats": seats}


@router.post("/games", status_code=201, summary="Create a game")
async def api_create(body: CreateGame, request: Request, hub: HubDep) -> dict[str, Any]:
    room, keys = await hub.create(body.rules, body.mode, body.level, body.seat,
                                  time_control_of(body.clock))
    return {"id": room.row.id, "keys": keys, "links": _links(request, room.row.id, keys),
            "state": room.state()}


@router.get("/games/{game_id}", summary="The public state of a game, or what changed since "
            "a version",
            response_model=dict[str, Any])
async def api_state(game_id: str, hub: HubDep, since: int | None = None) -> JSONResponse:
    """Without ``since``: the whole state (``base`` 0). With it: an update from that version
    (``base``: since; ``new_moves`` from ``moves_from``, ``new_turns`` from ``turns_from``),
    or the whole state when ``since`` is too old to be caught up."""
    return answer(await hub.changes(game_id, since))


def work_of(conn: HTTPConnection) -> Work | None:
    """Where the application prices expensive requests per client address (``None``: no
    bound, :attr:`~.config.ServerConfig.work_rate`)."""
    work: Work | None = services(conn).work
    return work


async def priced(conn: HTTPConnection, job: Callable[[], T]) -> T:
    """``job()`` (picklable: :mod:`.work_pool`) in the application's work pool, its CPU time
    charged to the client (:class:`~.clients.Work`: ``429 too_much_work`` beyond its share)."""
    pool: WorkPool = services(conn).work_pool
    work = work_of(conn)
    if work is None:
        return (await pool.run(job)).result()
    return await work.run(job, runner=pool.run)


async def _past(conn: HTTPConnection, hub: Hub, game_id: str, ply: int | None,
                now: Callable[[Game], T],
                then: Callable[[str, list[str]], T]) -> T:
    """``now(game)`` of the game ``game_id`` as it stands when ``ply`` is ``None`` or all its
    moves, else ``then(rules, moves)`` of its first ``ply`` moves: a past position is
    replayed, work priced to the client (:func:`priced`); 422 ``bad_ply`` for a ply outside
    the game."""
    room = await hub.room(game_id, fresh=True)
    moves = room.row.moves
    if ply is None or ply == len(moves):
        return now(room.session.game)
    if not 0 <= ply <= len(moves):
        raise ApiError("bad_ply", Text(
            "ply must be between 0 and {count}, not {ply}",
            domain="web", count=len(moves), ply=ply))
    return await priced(conn, functools.partial(then, room.row.rules, list(moves[:ply])))


@router.get("/games/{game_id}/position", summary="The board after the first `ply` moves",
            response_model=dict[str, Any])
async def api_position(game_id: str, ply: int, hub: HubDep, request: Request
                       ) -> JSONResponse:
    """The board data after ``ply`` moves, the moves of the last turn up to there and who
    played them (what the page draws, as a state's ``board``, ``last_turn`` and
    ``last_mover``), and its SVG picture."""
    return answer(await _past(request, hub, game_id, ply,
                              lambda game: replays.position(game, ply),
                              replays.position_after))


@router.get("/games/{game_id}/svg", summary="The board as an SVG picture (now, or after the "
            "first `ply` moves)", response_class=Response, responses={
                200: {"description": "The picture", "content": {"image/svg+xml": {
                    "schema": {"type": "string"}}}},
                "4XX": {"description": "Refused", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ErrorBody"}}}}})
async def api_svg(game_id: str, hub: HubDep, request: Request, ply: int | None = None
                  ) -> Response:
    """What ``render.svg`` draws of the game (its last turn marked), for clients that do not
    draw the board data themselves: the page draws it in the browser (``static/board.js``),
    so the states and updates carry no picture."""
    picture = await _past(request, hub, game_id, ply, replays.picture, replays.picture_after)
    return Response(picture, media_type="image/svg+xml")


@router.post("/games/{game_id}/open", summary="Say that a seat's page is open (a timed game "
             "by link waits for both seats before any timer runs); answers the state",
             response_model=dict[str, Any])
async def api_open(game_id: str, body: KeyBody, hub: HubDep,
                   account: Annotated[Account | None, Depends(current_account)]
                   ) -> JSONResponse:
    """A signed-in player who opens a seat nobody holds yet becomes its holder (the game
    shows his name: ``GET /api/games/{id}/players``)."""
    state = await hub.open_seat(game_id, body.key)
    if account is not None:
        seat = (await hub.room(game_id)).seat_of(body.key)
        if seat in (1, 2):
            await asyncio.to_thread(hub.store.claim_seat, game_id, seat, account.id)
    return answer(state)


@router.post("/games/{game_id}/move", summary="Play a move or a whole turn; answers what "
             "changed (an update: see GET /api/games/{game_id})",
            response_model=dict[str, Any])
async def api_move(game_id: str, body: MoveBody, hub: HubDep) -> JSONResponse:
    return answer(await hub.move(game_id, body.key, body.move, expect=body.v))


@router.post("/games/{game_id}/undo", summary="Undo (against the AI, or hot-seat)",
            response_model=dict[str, Any])
async def api_undo(game_id: str, body: KeyBody, hub: HubDep) -> JSONResponse:
    return answer(await hub.undo(game_id, body.key))


@router.post("/games/{game_id}/offers/{kind}", summary="Draw or takeback offers",
            response_model=dict[str, Any])
async def api_offer(game_id: str, kind: str, body: OfferBody, hub: HubDep) -> JSONResponse:
    return answer(await hub.offer(game_id, body.key, kind, body.action))


@router.post("/games/{game_id}/resign", summary="Resign",
            response_model=dict[str, Any])
async def api_resign(game_id: str, body: KeyBody, hub: HubDep) -> JSONResponse:
    return answer(await hub.resign(game_id, body.key))


@router.post("/games/{game_id}/hint", summary="Ask the AI for a move")
async def api_hint(game_id: str, body: KeyBody, hub: HubDep) -> dict[str, Any]:
    return await hub.hint(game_id, body.key)


#: the most moves one ``GET /api/games/{id}/explain`` asks about
MAX_EXPLAIN = 8


@router.get("/games/{game_id}/explain", summary="Why moves are not legal now (what a refused "
            "click says)")
async def api_explain(game_id: str, hub: HubDep, request: Request,
                      move: Annotated[list[str], Query(max_length=MAX_EXPLAIN)]
                      ) -> dict[str, Any]:
    """For each ``move`` (one move each, at most :data:`MAX_EXPLAIN`): whether it is legal
    now and, if not, the engine's reason in one sentence, in the request's language. Nothing
    is changed."""
    room = await hub.room(game_id)
    lang = await request_language(request)
    game = room.session.game
    out = []
    for text in move:
        why = game.explain(text[:64])
        out.append({"move": text[:64], "legal": why is None,
                    "reason": None if why is None else say(why, lang)})
    return {"v": room.row.version, "moves": out}


@router.post("/games/{game_id}/rematch", summary="After the game: the same rules and "
             "opponents, seats swapped (made once; the opponent is told live)")
async def api_rematch(game_id: str, body: KeyBody, hub: HubDep) -> dict[str, Any]:
    return await rematch(hub, game_id, body.key)


# --- records -----------------------------------------------------------------------------------
@router.get("/games/{game_id}/record", summary="The game record as text",
            response_class=PlainTextResponse, responses={"4XX": {
                "description": "Refused", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/ErrorBody"}}}}})
async def api_record(game_id: str, hub: HubDep, request: Request) -> PlainTextResponse:
    from ...record import dumps

    room = await hub.room(game_id, fresh=True)
    row = room.row
    names = {1: "Player 1", 2: "Player 2"}
    if row.mode == "ai" and row.ai_seat in (1, 2):
        names[row.ai_seat] = f"nugar AI level {row.ai_level}"
    tags = {"Site": "nugar server", "Event": f"nugar {row.mode} game",
            "First": names[1], "Second": names[2]}
    if room.clock is not None:
        tags["TimeControl"] = room.clock.control.pgn
    if room.session.early_abort:  # no result (``*``): a rated game ended too early to rate
        tags["Aborted"] = "ended before each player made two turns"
    elif room.session.aborted is not None:  # no result (``*``): the game never got going
        tags["Aborted"] = f"{room.session.game.player_name(room.session.aborted)} did not move"
    # the game holds how it ended (an agreed draw, a resignation): the record says so; a
    # finished analysis adds each turn's evaluation and mark as comments
    comments = await services(request).analyses.record_comments(game_id)
    if comments:
        tags["Annotator"] = "nugar analysis"
    text = dumps(room.session.game, tags, comments)
    return PlainTextResponse(text, headers={
        "content-disposition": f'attachment; filename="nugar-{game_id}.txt"'})


@router.post("/replay", summary="Read a record: its turns and one position (the last, or "
             "the one asked for)", response_model=dict[str, Any])
async def api_replay(body: ReplayBody, request: Request) -> JSONResponse:
    # reading and replaying take up to a few tenths of a second: the work pool does it in
    # another process, so other requests are answered meanwhile, and its CPU time is charged
    # to the client, so one client cannot keep the server's CPU to itself (docs/server.md);
    # the answer (thousands of turns) is sent as it is, without FastAPI's pass over each one
    return answer(await priced(request, functools.partial(replays.replay, body.record,
                                                           body.turn)))
