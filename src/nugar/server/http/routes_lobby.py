"""The lobby's API and websocket (:mod:`.lobby`): post, list, accept and cancel challenges;
``/ws/lobby`` sends the list whenever it changes, and tells a creator (whose key it was
opened with) that his challenge was accepted and where his seat is.

- ``GET /api/lobby``: the open public challenges, newest first.
- ``POST /api/challenges`` ``{rules, clock, colour, public, rated, to}``: 201
  ``{challenge, key, link}`` (``rated``: signed in, a preset exactly; only another
  signed-in player may accept it; ``to``: a bot's user name, the challenge is made to that
  bot alone, never listed, and its event stream tells it: :mod:`.routes_bot`);
  ``key`` is the creator's secret (to cancel, to be told of the game; it also opens his seat
  in the game made when it is accepted), ``link`` the address that lets a friend accept it.
- ``GET /api/challenges/{id}``: one challenge (its public view).
- ``POST /api/challenges/{id}/status`` ``{key}``: the same; with the creator's key, once
  accepted, ``seat`` (``{game, seat, key}``) too. The key travels in the body, never in a
  URL, so it reaches no access log.
- ``POST /api/challenges/{id}/accept`` ``{key}``: 201 ``{id, seat, key, url}``, the accepter's
  seat in the new game (``key`` in the body: the accepter's own creator key, if any, so that
  nobody accepts his own challenge).
- ``POST /api/challenges/{id}/cancel`` ``{key}``: the creator withdraws it.
- ``/ws/lobby``: messages ``{"type": "lobby", "challenges": [...]}`` on connecting and
  on every change, ``{"type": "accepted", "challenge", "game", "seat", "key", "url"}`` to the
  creator; a ``ping`` at least every :data:`PING_EVERY` seconds. A creator opens
  ``/ws/lobby?creator=1`` and sends his key as the first message, ``{"type": "key", "key":
  "..."}`` (within :data:`KEY_WAIT` seconds, else the socket is closed): the key is never in
  the URL. Clients send nothing else but may close; more than 5 messages a second or one
  over 200 characters closes the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request, WebSocket, WebSocketDisconnect
from pydantic import Field
from starlette.requests import HTTPConnection

from ...i18n import say
from ...rules.options import MAX_RULES_TEXT
from ..errors import ApiError
from ..play.lobby import Challenge, Lobby
from ..play.rooms import Hub
from ..players.accounts import Account, current_account
from ..players.standings import bot_named
from .language import request_language
from .models import Body, ErrorBody, KeyBody
from .routes_api import time_control_of
from .routes_ws import BinaryFrame, refuse_binary, text_frame
from .services import HubDep, services

log = logging.getLogger("nugar.server")

#: seconds between pings on a quiet lobby socket
PING_EVERY = 20.0
MAX_MESSAGES_PER_SECOND = 5
MAX_MESSAGE_CHARS = 200
#: seconds a creator's lobby socket (``?creator=1``) has to send its key message
KEY_WAIT = 10.0


def lobby_of(conn: HTTPConnection) -> Lobby:
    lobby: Lobby = services(conn).lobby
    return lobby


LobbyDep = Annotated[Lobby, Depends(lobby_of)]
MaybeAccount = Annotated[Account | None, Depends(current_account)]


class PostChallenge(Body):
    rules: str = Field("dara", max_length=MAX_RULES_TEXT,
                       description="rule-set text, e.g. dala(quiet_limit=off)")
    clock: str | None = Field(None, max_length=20,
                              description="time control: none, M+I (e.g. 5+3) or Nd (e.g. 3d)")
    colour: Literal["first", "second", "random"] = Field(
        "random", description="the creator plays first, second, or a colour drawn on accepting")
    public: bool = Field(True, description="listed in the lobby (else only its link finds it)")
    rated: bool = Field(False, description="a rated game (signed in only; the rules a "
                        "preset exactly; accepted only by another signed-in player)")
    to: str | None = Field(None, max_length=40, description="a bot's user name: the "
                           "challenge is made to that bot alone")


# refusals are documented as ErrorBody, as for the rest of the API
router = APIRouter(responses={"4XX": {"model": ErrorBody, "description": "Refused"}})


def _public_url(request: HTTPConnection) -> str:
    url: str = services(request).public_url
    return url


def _seat_url(base: str, game_id: str, seat: int, key: str) -> str:
    return f"{base}/g/{game_id}#seat={seat}&key={key}"


@router.get("/api/lobby", summary="The open challenges of the lobby")
async def api_lobby(lobby: LobbyDep) -> dict[str, Any]:
    return (await lobby.snapshot()).listing


@router.post("/api/challenges", status_code=201, summary="Open a challenge in the lobby")
async def api_post(body: PostChallenge, request: Request, lobby: LobbyDep,
                   account: MaybeAccount) -> dict[str, Any]:
    def post() -> tuple[Challenge, str]:
        target = None if body.to is None else bot_named(services(request).store, body.to)
        made, key = lobby.post(body.rules, time_control_of(body.clock), body.colour,
                               body.public, None if account is None else account.id,
                               body.rated, target)
        if account is not None:  # read back with the creator's name and rating, as listed
            made = lobby.get(made.id)
        return made, key

    challenge, key = await asyncio.to_thread(post)
    return {"challenge": challenge.view(), "key": key,
            "link": f"{_public_url(request)}/?challenge={challenge.id}"}


@router.get("/api/challenges/{cid}", summary="One challenge")
async def api_challenge(cid: str, lobby: LobbyDep) -> dict[str, Any]:
    return (await asyncio.to_thread(lobby.get, cid)).view()


@router.post("/api/challenges/{cid}/status", summary="One challenge; with the creator's key "
             "(in the body, never in a URL), his seat once accepted")
async def api_challenge_status(cid: str, body: KeyBody, lobby: LobbyDep) -> dict[str, Any]:
    key = body.key or None
    challenge = await asyncio.to_thread(lobby.get, cid, key)
    out = challenge.view()
    if key and challenge.owned_by(key):
        out["seat"] = challenge.seat_for_owner(key)
    return out


@router.post("/api/challenges/{cid}/accept", status_code=201, summary="Accept a challenge: the "
             "game is created and the accepter gets his seat")
async def api_accept(cid: str, body: KeyBody, request: Request, lobby: LobbyDep,
                     hub: HubDep, account: MaybeAccount) -> dict[str, Any]:
    return await accept(request, lobby, hub, cid, body.key or None,
                        None if account is None else account.id)


async def accept(request: Request, lobby: Lobby, hub: Hub, cid: str, key: str | None,
                 mine: int | None) -> dict[str, Any]:
    """Accept the challenge ``cid`` for the account ``mine`` (if signed in): the game is
    made and the accepter's seat answered (the lobby's route and the bots')."""
    challenge = await asyncio.to_thread(lobby.take, cid, key, mine)
    owner_seat = lobby.seats(challenge.colour)
    # the seats' accounts: the creator's and the accepter's, each where signed in
    seats = (challenge.account, mine) if owner_seat == 1 else (mine, challenge.account)
    try:
        # the creator's seat opens with his challenge key: nothing secret is kept for him
        room, keys = await hub.create(challenge.rules, "friend", None, None,
                                      challenge.control, seat_hash=(owner_seat,
                                                                    challenge.owner),
                                      accounts=seats, rated=challenge.rated)
        gid = room.row.id
        await asyncio.to_thread(lobby.taken_by, challenge, gid, owner_seat)
    except BaseException:
        await asyncio.shield(asyncio.to_thread(lobby.release, challenge))
        raise
    seat = 3 - owner_seat
    return {"id": gid, "seat": seat, "key": keys[str(seat)],
            "url": _seat_url(_public_url(request), gid, seat, keys[str(seat)]),
            "challenge": challenge.id}


@router.post("/api/challenges/{cid}/cancel", summary="Withdraw one's challenge")
async def api_cancel(cid: str, body: KeyBody, lobby: LobbyDep) -> dict[str, Any]:
    await asyncio.to_thread(lobby.cancel, cid, body.key)
    return {"cancelled": cid}


@router.websocket("/ws/lobby")
async def ws_lobby(websocket: WebSocket) -> None:
    lobby: Lobby = services(websocket).lobby
    await websocket.accept()
    key = None
    if websocket.query_params.get("creator"):  # the key comes as the first message
        key = await _key_message(websocket)
        if key is None:
            with contextlib.suppress(Exception):
                await websocket.close(code=1008, reason="send {type: key, key} first")
            return
    try:
        owner = lobby.attach(key)
    except ApiError as exc:
        lang = await request_language(websocket)
        await websocket.send_json({"type": "error", "error": exc.code,
                                   "detail": say(exc.detail, lang, "web")})
        await websocket.close(code=1013, reason=exc.code)
        return
    try:
        if owner is not None:  # the creator is back: his challenges are seen now
            await asyncio.to_thread(lobby.mark_seen, owner)
        await _serve(websocket, lobby, owner, key or "", _public_url(websocket))
    finally:
        lobby.detach(owner)
        if owner is not None and owner not in lobby.present:
            with contextlib.suppress(Exception):  # the grace starts now
                await asyncio.to_thread(lobby.mark_seen, owner)


async def _key_message(websocket: WebSocket) -> str | None:
    """The creator's key from the first message, ``{"type": "key", "key": "..."}``, within
    :data:`KEY_WAIT` seconds (``None``: none came, or it was not that)."""
    try:
        async with asyncio.timeout(KEY_WAIT):
            text = await text_frame(websocket)
        msg = json.loads(text) if len(text) <= MAX_MESSAGE_CHARS else None
    except (TimeoutError, WebSocketDisconnect, RuntimeError, ValueError, RecursionError,
            BinaryFrame):
        return None
    if isinstance(msg, dict) and msg.get("type") == "key" and isinstance(msg.get("key"), str) \
            and 0 < len(msg["key"]) <= 200:
        return str(msg["key"])
    return None


async def _serve(websocket: WebSocket, lobby: Lobby, owner: str | None, key: str,
                 base: str) -> None:
    told: set[str] = set()

    async def send() -> None:
        seen = -1
        shown = ""  # the digest of the list last sent
        while True:
            if seen != lobby.version:
                seen = lobby.version
                now = await lobby.snapshot()
                # a change may be heard twice (here and from the database): a list the
                # socket already shows is not sent again
                if now.digest != shown:
                    shown = now.digest
                    await websocket.send_json(now.listing)
                for c in lobby.accepted_for(owner, now.challenges):
                    if c.id not in told:
                        told.add(c.id)
                        await websocket.send_json(_accepted(c, key, base))
            elif not await lobby.changed(seen, PING_EVERY):
                await websocket.send_json({"type": "ping"})

    async def receive() -> None:
        window, count = time.monotonic(), 0
        while True:
            text = await text_frame(websocket)
            now = time.monotonic()
            if now - window > 1.0:
                window, count = now, 0
            count += 1
            if count > MAX_MESSAGES_PER_SECOND or len(text) > MAX_MESSAGE_CHARS:
                await websocket.close(code=1008)
                return

    tasks = [asyncio.create_task(send()), asyncio.create_task(receive())]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    except (WebSocketDisconnect, RuntimeError):
        pass
    except BinaryFrame:
        await refuse_binary(websocket, "lobby websocket")
    except Exception:  # anything else ends this socket, not the server
        log.warning("lobby websocket closed on bad input", exc_info=True)
        with contextlib.suppress(Exception):
            await websocket.close(code=1003)
    finally:
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _accepted(challenge: Challenge, key: str, base: str) -> dict[str, Any]:
    seat = challenge.seat_for_owner(key) or {}
    return {"type": "accepted", "challenge": challenge.id, "game": seat.get("game"),
            "seat": seat.get("seat"), "key": seat.get("key"),
            "url": _seat_url(base, str(seat.get("game")), int(seat.get("seat") or 0),
                             str(seat.get("key")))}
