"""The web application: JSON API, websocket per game, and the browser UI's pages.

``create_app(db_url)`` builds a FastAPI application over one :class:`~.store.Store`; every
game's changes go through its room in :class:`~.rooms.Hub`. The OpenAPI schema is at
``/docs``. Errors are always JSON ``{"error": code, "detail": sentence}`` with a 4xx status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, PlainTextResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..ai.agents import DEFAULT_LEVEL, LEVEL_RANGE_TEXT, LEVELS
from ..rules import PRESETS, new_game, parse_rules
from ..rules.family import family_of
from ..rules.options import describe_values, format_value, option_fields
from .pages import rules_index, rules_page
from .render import board_data, svg
from .rooms import ApiError, Hub, replay
from .store import Store

if TYPE_CHECKING:
    from ..warmup import Warmup

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("nugar.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# --- request bodies ----------------------------------------------------------------------------
class CreateGame(BaseModel):
    rules: str = Field("dara", max_length=300,
                       description="rule-set text, e.g. dala(quiet_limit=off)")
    mode: Literal["ai", "friend", "hotseat"] = Field(
        "ai", description="against the AI, against a friend by link, or hot-seat on one screen")
    level: int | None = Field(None, description=f"AI level {LEVEL_RANGE_TEXT} (mode ai); default: "
                                                 f"{DEFAULT_LEVEL}")
    seat: int | None = Field(None, description="your seat against the AI: 1 moves first, 2 second")


class KeyBody(BaseModel):
    key: str = Field("", max_length=200, description="the secret of your seat")


class MoveBody(KeyBody):
    move: str = Field(..., max_length=64,
                      description="a move or a whole turn: c3, c3-c4xe5, 4, 1-6")


class OfferBody(KeyBody):
    action: Literal["offer", "accept", "decline", "cancel"] = "offer"


class ReplayBody(BaseModel):
    record: str = Field(..., max_length=200_000, description="a game record as text")


# --- middleware: body size and rate limit --------------------------------------------------------
class Guard:
    """Refuses oversized bodies (413) and floods from one client address (429).

    Each client address has a token bucket of ``burst`` requests refilled at ``rate`` per
    second; websocket connections count as requests too. ``rate=None`` turns the limit off
    (for load tests on loopback).
    """

    def __init__(self, app: ASGIApp, max_body: int, rate: float | None, burst: int) -> None:
        self.app = app
        self.max_body = max_body
        self.rate = rate
        self.burst = burst
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str) -> bool:
        if self.rate is None:
            return True
        now = time.monotonic()
        tokens, last = self.buckets.get(client, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens < 1.0:
            self.buckets[client] = (tokens, now)
            return False
        self.buckets[client] = (tokens - 1.0, now)
        if len(self.buckets) > 10_000:  # forget the oldest clients
            for k in list(self.buckets)[:5000]:
                del self.buckets[k]
        return True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        host = client[0] if client else "unknown"
        if not self.allow(host):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await _send_json(send, 429, {"error": "rate_limited",
                                         "detail": "too many requests; slow down and retry"})
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        too_big = {"error": "body_too_large",
                   "detail": f"request bodies are limited to {self.max_body} bytes"}
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = self.max_body + 1
            if size > self.max_body:
                await _send_json(send, 413, too_big)
                return
        # read the body up front, bounded, then hand it on unchanged
        chunks: list[bytes] = []
        total = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            body = message.get("body", b"")
            total += len(body)
            if total > self.max_body:
                await _send_json(send, 413, too_big)
                return
            chunks.append(body)
            more = message.get("more_body", False)
        data = b"".join(chunks)
        sent = False

        async def replay_receive() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": data, "more_body": False}
            return await receive()

        await self.app(scope, replay_receive, send)


async def _send_json(send: Send, status: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# --- the application -------------------------------------------------------------------------
def _options_schema() -> list[dict[str, Any]]:
    out = []
    for name, preset in PRESETS.items():
        fields = []
        for f in option_fields(type(preset.options)):
            meta = f.metadata
            fields.append({"name": f.name, "kind": meta["kind"],
                           "values": list(meta.get("values", ())),
                           "lo": meta.get("lo"), "hi": meta.get("hi"),
                           "off_ok": meta.get("off_ok", False),
                           "allowed": describe_values(f), "doc": meta.get("doc", ""),
                           "default": format_value(getattr(preset.options, f.name))})
        out.append({"name": name, "game": preset.game, "family": preset.family,
                    "players": list(family_of(preset).player_names), "source": preset.source,
                    "description": preset.description, "options": fields})
    return out


def _links(request: Request, game_id: str, keys: dict[str, str]) -> dict[str, Any]:
    base = str(request.base_url).rstrip("/")
    watch = f"{base}/g/{game_id}"
    seats = {seat: f"{watch}#seat={seat}&key={key}" for seat, key in keys.items()}
    return {"watch": watch, "seats": seats}


def create_app(db_url: str | None = None, *, ai_time: float = 1.0, rate: float | None = 30.0,
               burst: int = 120, max_body: int = 256_000, warm_up: bool = False,
               warmup: Warmup | None = None) -> FastAPI:
    """The web application over the database at ``db_url`` (default: SQLite in the user's
    data directory). ``ai_time`` is the AI's thinking time per decision in seconds.
    ``warm_up`` starts compiling what every AI level needs in the background at startup
    (``nugar serve``); ``warmup`` is the compiling to use (default: the process's own,
    ``nugar.warmup.WARMUP``), whose progress ``GET /api/warmup`` gives."""
    from ..warmup import WARMUP, server_steps

    engine = WARMUP if warmup is None else warmup
    store = Store(db_url)
    hub = Hub(store, ai_time=ai_time, warmup=engine)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if warm_up:
            await asyncio.to_thread(engine.add, server_steps())
        await hub.resume_all()
        try:
            yield
        finally:
            await hub.close()
            store.close()

    app = FastAPI(title="nugar", version="1", lifespan=lifespan,
                  description="Play Dara, Dala, Kalah and Dracala: against the AI, against a "
                  "friend by link, or hot-seat. Errors are JSON {error, detail}.")
    app.state.hub = hub
    app.state.store = store
    app.state.warmup = engine
    app.add_middleware(Guard, max_body=max_body, rate=rate, burst=burst)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(ApiError)
    async def api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.code, "detail": exc.detail}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
            parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
        return JSONResponse({"error": "bad_request", "detail": "; ".join(parts)},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse({"error": code, "detail": str(exc.detail)},
                            status_code=exc.status_code)

    # --- pages ------------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    @app.get("/g/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/replay", include_in_schema=False)
    async def replay_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_list() -> HTMLResponse:
        return HTMLResponse(rules_index())

    @app.get("/rules/{name}", include_in_schema=False)
    async def rules_doc(name: str) -> HTMLResponse:
        page = rules_page(name)
        if page is None:
            raise ApiError(404, "unknown_rules_page", f"no rules page {name!r}; see /rules")
        return HTMLResponse(page)

    # --- API --------------------------------------------------------------------------------
    @app.get("/api/presets", summary="Presets with their sources and options")
    async def api_presets() -> list[dict[str, Any]]:
        return _options_schema()

    @app.get("/api/warmup", summary="Whether the AI's compiled code is ready (a first run "
             "compiles it, with progress)")
    async def api_warmup() -> dict[str, Any]:
        return engine.progress().as_dict()

    @app.get("/api/levels", summary="The AI levels and the one offered first")
    async def api_levels() -> dict[str, Any]:
        return {"levels": sorted(LEVELS), "default": DEFAULT_LEVEL}

    @app.get("/api/rules", summary="Check a rule-set text")
    async def api_rules(text: str) -> dict[str, Any]:
        try:
            rs = parse_rules(text[:300])
        except ValueError as exc:
            raise ApiError(422, "bad_rules", str(exc)) from None
        return {"text": rs.text, "game": rs.game, "family": rs.family,
                "source": rs.preset.source,
                "options": {k: format_value(v) for k, v in vars(rs.options).items()}}

    @app.post("/api/games", status_code=201, summary="Create a game")
    async def api_create(body: CreateGame, request: Request) -> dict[str, Any]:
        room, keys = await hub.create(body.rules, body.mode, body.level, body.seat)
        return {"id": room.row.id, "keys": keys, "links": _links(request, room.row.id, keys),
                "state": room.state()}

    @app.get("/api/games/{game_id}", summary="The public state of a game")
    async def api_state(game_id: str) -> dict[str, Any]:
        return (await hub.room(game_id)).state()

    @app.get("/api/games/{game_id}/position", summary="The board after the first `ply` moves")
    async def api_position(game_id: str, ply: int) -> dict[str, Any]:
        room = await hub.room(game_id)
        moves = room.row.moves
        if not 0 <= ply <= len(moves):
            raise ApiError(422, "bad_ply", f"ply must be between 0 and {len(moves)}, not {ply}")
        game = await asyncio.to_thread(replay, room.row.rules, moves[:ply], None)
        last = game.move_stack[-1] if game.move_stack else None
        return {"ply": ply, "svg": svg(game, last_move=last), "board": board_data(game)}

    @app.post("/api/games/{game_id}/move", summary="Play a move or a whole turn")
    async def api_move(game_id: str, body: MoveBody) -> dict[str, Any]:
        return await hub.move(game_id, body.key, body.move)

    @app.post("/api/games/{game_id}/undo", summary="Undo (against the AI, or hot-seat)")
    async def api_undo(game_id: str, body: KeyBody) -> dict[str, Any]:
        return await hub.undo(game_id, body.key)

    @app.post("/api/games/{game_id}/offers/{kind}", summary="Draw or takeback offers")
    async def api_offer(game_id: str, kind: str, body: OfferBody) -> dict[str, Any]:
        return await hub.offer(game_id, body.key, kind, body.action)

    @app.post("/api/games/{game_id}/resign", summary="Resign")
    async def api_resign(game_id: str, body: KeyBody) -> dict[str, Any]:
        return await hub.resign(game_id, body.key)

    @app.post("/api/games/{game_id}/hint", summary="Ask the AI for a move")
    async def api_hint(game_id: str, body: KeyBody) -> dict[str, Any]:
        return await hub.hint(game_id, body.key)

    @app.get("/api/games/{game_id}/record", summary="The game record as text",
             response_class=PlainTextResponse)
    async def api_record(game_id: str) -> PlainTextResponse:
        room = await hub.room(game_id)
        try:
            from ..record import dumps
        except ImportError:
            raise ApiError(501, "no_records", "game records are not available") from None
        row = room.row
        names = {1: "Player 1", 2: "Player 2"}
        if row.mode == "ai" and row.ai_seat in (1, 2):
            names[row.ai_seat] = f"nugar AI level {row.ai_level}"
        tags = {"Site": "nugar server", "Event": f"nugar {row.mode} game",
                "First": names[1], "Second": names[2]}
        game = room.game
        if row.ending and row.ending.get("agreement") and game.outcome is None:
            game = game.copy()
            game.agree_draw()
        text = dumps(game, tags)
        return PlainTextResponse(text, headers={
            "content-disposition": f'attachment; filename="nugar-{game_id}.txt"'})

    @app.post("/api/replay", summary="Read a record and return every position")
    async def api_replay(body: ReplayBody) -> dict[str, Any]:
        try:
            from ..record import load_one
        except ImportError:
            raise ApiError(501, "no_records", "game records are not available") from None
        try:
            record = await asyncio.to_thread(load_one, body.record)
        except ValueError as exc:
            raise ApiError(422, "bad_record", str(exc)) from None
        game = record.game
        if len(game.move_stack) > 5000:
            raise ApiError(422, "bad_record", "records are limited to 5000 moves")
        fresh = new_game(game.rules)
        positions = [{"ply": 0, "svg": svg(fresh), "board": board_data(fresh)}]
        turns = []
        for (player, moves), text in zip(game.turn_list(), game.turns(), strict=True):
            for m in moves:
                fresh.play(m)
            turns.append({"player": player, "text": text, "n": len(moves)})
            positions.append({"ply": len(fresh.move_stack),
                              "svg": svg(fresh, last_move=fresh.move_stack[-1]),
                              "board": board_data(fresh)})
        outcome = game.outcome
        return {"rules": game.rules.text, "game": game.rules.game, "family": game.rules.family,
                "players": [game.player_name(1), game.player_name(2)],
                "tags": dict(record.tags), "turns": turns, "positions": positions,
                "result": None if outcome is None else outcome.result,
                "reason": None if outcome is None else outcome.reason,
                "winner": None if outcome is None else outcome.winner}

    # --- websocket --------------------------------------------------------------------------
    @app.websocket("/ws/games/{game_id}")
    async def ws_game(websocket: WebSocket, game_id: str) -> None:
        await websocket.accept()
        try:
            room = await hub.room(game_id)
        except ApiError as exc:
            await websocket.send_json({"type": "error", "error": exc.code, "detail": exc.detail})
            await websocket.close(code=4404)
            return
        since_raw = websocket.query_params.get("since")
        since: int | None = None
        if since_raw is not None:
            try:
                since = int(since_raw)
            except ValueError:
                since = None
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        room.listeners.add(queue)
        last_sent = 0
        send_lock = asyncio.Lock()  # the live pump and replies to the client take turns

        async def send_all(messages: list[dict[str, Any]]) -> None:
            nonlocal last_sent
            async with send_lock:
                for msg in messages:
                    if msg["type"] == "uptodate":
                        last_sent = max(last_sent, msg["v"])
                    elif msg["type"] != "sync" and msg["v"] <= last_sent:
                        continue  # already sent (a live event raced a catch-up)
                    await websocket.send_json(msg)
                    last_sent = max(last_sent, msg["v"])

        async def pump() -> None:
            while True:
                msg = await queue.get()
                await send_all([msg])

        pump_task: asyncio.Task[None] | None = None
        try:
            await send_all(await hub.catch_up(room, since))
            pump_task = asyncio.create_task(pump())
            window_start, count = time.monotonic(), 0
            while True:
                text = await websocket.receive_text()
                now = time.monotonic()
                if now - window_start > 1.0:
                    window_start, count = now, 0
                count += 1
                if count > 20 or len(text) > 1000:
                    await websocket.close(code=1008)
                    return
                try:
                    msg = json.loads(text)
                except ValueError:
                    msg = None
                if not isinstance(msg, dict):
                    async with send_lock:
                        await websocket.send_json({"type": "error", "error": "bad_message",
                                                   "detail": "send JSON objects such as "
                                                   '{"type": "sync", "since": 3}'})
                    continue
                if msg.get("type") == "sync":
                    s = msg.get("since")
                    await send_all(await hub.catch_up(room, s if isinstance(s, int) else None))
                elif msg.get("type") == "ping":
                    async with send_lock:
                        await websocket.send_json({"type": "pong", "v": room.row.version})
                else:
                    async with send_lock:
                        await websocket.send_json({"type": "error", "error": "bad_message",
                                                   "detail": "message types are sync and ping"})
        except (WebSocketDisconnect, RuntimeError):
            pass
        except Exception:  # a malformed frame (e.g. bytes) ends this socket, not the server
            log.warning("websocket for game %s closed on bad input", game_id, exc_info=True)
            with contextlib.suppress(Exception):
                await websocket.close(code=1003)
        finally:
            room.listeners.discard(queue)
            if pump_task is not None:
                pump_task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await pump_task

    return app
