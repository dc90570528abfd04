"""The bots' API: bot accounts, their tokens, their event and game streams and their moves.

A bot is an account flagged ``bot`` (:mod:`.accounts`) that plays through this API with a
token sent as ``Authorization: Bearer TOKEN`` (no cookie, so the cross-site check, which
looks only at cookie requests, has nothing to check; a cookie request keeps its rules).

- ``POST /api/bot/account`` ``{username, password}``: 201, a new bot account, signed in (its
  owner then makes tokens in this session).
- ``POST /api/account/bot``: the signed-in account becomes a bot, if it has played no game
  (409 ``has_games``).
- ``POST /api/account/tokens`` ``{label}``: 201 ``{id, label, created, token}``; the token is
  shown in this answer only and kept as its SHA-256 (a bot's account only: 403
  ``not_a_bot``; at most :data:`~.accounts.MAX_TOKENS`).
- ``GET /api/account/tokens``: the tokens, without their secrets;
  ``DELETE /api/account/tokens/{id}``: revoked at once.
- ``GET /api/bot/stream/event``: NDJSON (one JSON object a line): ``{"type": "challenge",
  "challenge": {...}}`` for each open challenge made to the bot, ``{"type": "gameStart",
  "game": {id, seat, rules}}`` for each game it plays that has not ended, ``{"type":
  "gameFinish", "game": {id}}`` once such a game ended, and an empty line at least every
  :data:`HEARTBEAT` seconds.
- ``GET /api/bot/game/stream/{id}``: NDJSON: ``{"type": "gameFull", "seat", "state"}`` then
  ``{"type": "gameState", "state"}`` at each change (the state is the game's public one,
  :meth:`~.room.Room.state`, with ``moves``, the decisions so far, but not the turns'
  views), heartbeats as above; it ends with the game.
- ``POST /api/bot/game/{id}/move/{move}``: plays the move (or whole turn) for the bot's
  seat; ``POST /api/bot/game/{id}/resign``.
- ``POST /api/bot/challenge/{id}/accept`` and ``.../decline``.

Every route but the first two needs a bot (401 ``signed_out`` without a token, 401
``bad_token`` for a revoked one, 403 ``not_a_bot`` for a person's session). The streams are
bounded: at most :data:`EVENT_STREAMS` event streams and :data:`GAME_STREAMS` game streams
per account, :data:`ADDRESS_STREAMS` per client address and :data:`MAX_STREAMS` in the
process (429 ``too_many_streams``); each holds one state and a listener queue of at most
:data:`QUEUE` events, whatever the bot reads or does not read.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import StreamingResponse
from pydantic import Field
from sqlalchemy import or_, select

from ...i18n import Text
from ..clients import Counts
from ..errors import ApiError
from ..play.lobby import Lobby, made_to
from ..play.room import Listener, Room
from ..play.rooms import Hub
from ..play.session import move_text
from ..players.accounts import MAX_TOKEN_LABEL, Account
from ..storage.store import Store, games_table
from .models import Body, ErrorBody, answer
from .routes_accounts import (
    AccountDep,
    AccountsDep,
    Credentials,
    checked,
    me_of,
    set_session,
)
from .routes_lobby import LobbyDep, accept
from .services import HubDep, services

#: seconds between heartbeats (an empty line) on a quiet stream
HEARTBEAT = 5.0
#: the most event streams one bot account holds open at once
EVENT_STREAMS = 2
#: the most game streams one bot account holds open at once
GAME_STREAMS = 16
#: the most streams one client address holds open at once
ADDRESS_STREAMS = 32
#: the most bot streams open in this process
MAX_STREAMS = 500
#: the events a game stream's listener holds before it is replaced (it sends whole states)
QUEUE = 8
#: the most games in play one event stream follows (the oldest first)
MAX_GAMES = 100


class TokenBody(Body):
    label: str = Field("", max_length=MAX_TOKEN_LABEL, description="what the token is for")


router = APIRouter(prefix="/api", responses={"4XX": {"model": ErrorBody,
                                                     "description": "Refused"}})


class Streams:
    """The bot streams open in this process, counted per account (events and games apart),
    per address and in all."""

    def __init__(self) -> None:
        self.events = Counts(EVENT_STREAMS)
        self.games = Counts(GAME_STREAMS)
        self.addresses = Counts(ADDRESS_STREAMS)
        self.open = 0

    def take(self, kind: Counts, account: int, address: str) -> None:
        """Count one more stream, or 429 ``too_many_streams`` saying which bound it hit."""
        if self.open >= MAX_STREAMS:
            raise ApiError("too_many_streams", Text.plural(
                "the server holds {limit} bot stream, the most it takes; try again later",
                "the server holds {limit} bot streams, the most it takes; try again later",
                MAX_STREAMS, domain="web", limit=MAX_STREAMS))
        if not self.addresses.take(address):
            raise ApiError("too_many_streams", Text.plural(
                "one address holds at most {limit} bot stream open",
                "one address holds at most {limit} bot streams open",
                ADDRESS_STREAMS, domain="web", limit=ADDRESS_STREAMS))
        if not kind.take(str(account)):
            self.addresses.give(address)
            raise ApiError("too_many_streams", Text.plural(
                "a bot holds at most {limit} stream of this kind open; close one first",
                "a bot holds at most {limit} streams of this kind open; close one first",
                kind.limit, domain="web", limit=kind.limit))
        self.open += 1

    def give(self, kind: Counts, account: int, address: str) -> None:
        kind.give(str(account))
        self.addresses.give(address)
        self.open -= 1


def streams_of(request: Request) -> Streams:
    state = request.app.state
    if not hasattr(state, "bot_streams"):
        state.bot_streams = Streams()
    streams: Streams = state.bot_streams
    return streams


def a_bot(account: AccountDep) -> Account:
    """The bot making the request, else 403 ``not_a_bot`` (a route's dependency)."""
    if not account.bot:
        raise ApiError("not_a_bot", Text(
            "this is the bots' API: send a bot account's token as Authorization: Bearer "
            "TOKEN", domain="web"))
    return account


BotDep = Annotated[Account, Depends(a_bot)]


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def line(message: dict[str, Any]) -> bytes:
    """One NDJSON line."""
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


# --- accounts and tokens ------------------------------------------------------------------
@router.post("/bot/account", status_code=201, summary="Make a bot account (and sign in)")
async def api_bot_account(body: Credentials, request: Request, response: Response,
                          accounts: AccountsDep) -> dict[str, Any]:
    account, token = await checked(request, accounts, None, functools.partial(
        accounts.sign_up, body.username, body.password, True), "bot sign-up")
    set_session(request, response, token)
    return await me_of(request, account)


@router.post("/account/bot", summary="Make the signed-in account a bot (no game played yet)")
async def api_make_bot(request: Request, account: AccountDep,
                       accounts: AccountsDep) -> dict[str, Any]:
    made = await asyncio.to_thread(accounts.bots.make_bot, account)
    return await me_of(request, made)


@router.post("/account/tokens", status_code=201, summary="A new API token (shown once)")
async def api_new_token(body: TokenBody, account: AccountDep,
                        accounts: AccountsDep) -> dict[str, Any]:
    return await asyncio.to_thread(accounts.bots.new_token, account, body.label)


@router.get("/account/tokens", summary="The account's API tokens, without their secrets")
async def api_tokens(account: AccountDep, accounts: AccountsDep) -> dict[str, Any]:
    return {"tokens": await asyncio.to_thread(accounts.bots.tokens, account)}


@router.delete("/account/tokens/{token_id}", summary="Revoke an API token")
async def api_revoke(token_id: str, account: AccountDep,
                     accounts: AccountsDep) -> dict[str, Any]:
    if not await asyncio.to_thread(accounts.bots.revoke_token, account, token_id):
        raise ApiError("unknown_token", Text(
            "this account has no token {token_id!r}", domain="web",
            token_id=token_id[:20]))
    return {"revoked": token_id}


# --- streams -------------------------------------------------------------------------------
def games_in_play(store: Store, account: int) -> list[tuple[str, int, str]]:
    """The games the account plays that have not ended: (id, its seat, rules), oldest
    first, at most :data:`MAX_GAMES`."""
    g = games_table
    with store.engine.connect() as conn:
        rows = conn.execute(select(g.c.id, g.c.account_1, g.c.rules)
                            .where(or_(g.c.account_1 == account, g.c.account_2 == account))
                            .where(g.c.result.is_(None))
                            .order_by(g.c.created, g.c.id).limit(MAX_GAMES)).all()
    return [(r.id, 1 if r.account_1 == account else 2, r.rules) for r in rows]


async def events(request: Request, lobby: Lobby, account: Account) -> AsyncIterator[bytes]:
    store: Store = services(request).store
    told: set[str] = set()  # the challenges told (open ones only are kept)
    playing: set[str] = set()
    while True:
        # read again at each change of the lobby and each heartbeat: a game's end is no
        # change of the lobby
        seen = lobby.version
        snapshot = await lobby.snapshot()
        mine = made_to(account.id, snapshot.challenges)
        for c in mine:
            if c.id not in told:
                yield line({"type": "challenge", "challenge": c.view()})
        told = {c.id for c in mine}
        now = await asyncio.to_thread(games_in_play, store, account.id)
        for gid, seat, rules in now:
            if gid not in playing:
                yield line({"type": "gameStart",
                            "game": {"id": gid, "seat": seat, "rules": rules}})
        ids = {gid for gid, _s, _r in now}
        for gid in sorted(playing - ids):
            yield line({"type": "gameFinish", "game": {"id": gid}})
        playing = ids
        if not await lobby.changed(seen, HEARTBEAT):
            yield b"\n"


def _counted(request: Request, kind: Counts, account: Account,
             body: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    streams = streams_of(request)
    address = _address(request)
    streams.take(kind, account.id, address)

    async def counted() -> AsyncIterator[bytes]:
        try:
            async for chunk in body:
                yield chunk
        finally:
            streams.give(kind, account.id, address)

    return counted()


NDJSON = "application/x-ndjson"


@router.get("/bot/stream/event", summary="The bot's events as NDJSON: challenges made to "
            "it, its games' starts and ends")
async def api_events(request: Request, bot: BotDep, lobby: LobbyDep) -> StreamingResponse:
    streams = streams_of(request)
    return StreamingResponse(_counted(request, streams.events, bot,
                                      events(request, lobby, bot)), media_type=NDJSON)


def _state(room: Room) -> dict[str, Any]:
    """What a game stream sends: the public state without the turns' views, with the
    game's decisions so far (``moves``), from which a bot replays the position."""
    return {**room.state(history=False), "moves": list(room.row.moves)}


async def game_states(hub: Hub, game_id: str, account: Account, first: Room
                      ) -> AsyncIterator[bytes]:
    room = first
    listener = Listener(QUEUE)
    room.listeners.add(listener)
    try:
        yield line({"type": "gameFull", "seat": room.seat_of_account(account.id),
                    "state": _state(room)})
        sent = room.row.version
        while not room.session.over:
            try:
                await asyncio.wait_for(listener.queue.get(), HEARTBEAT)
            except TimeoutError:
                yield b"\n"
            fresh = await hub.room(game_id, fresh=True)
            if fresh is not room or listener.dropped.is_set():
                room.listeners.discard(listener)
                room, listener = fresh, Listener(QUEUE)
                room.listeners.add(listener)
            while not listener.queue.empty():  # the state sent says every change so far
                listener.queue.get_nowait()
            if room.row.version != sent:
                sent = room.row.version
                yield line({"type": "gameState", "state": _state(room)})
    finally:
        room.listeners.discard(listener)


@router.get("/bot/game/stream/{game_id}", summary="A game of the bot as NDJSON: its full "
            "state, then the state at each change")
async def api_game_stream(game_id: str, request: Request, bot: BotDep,
                          hub: HubDep) -> StreamingResponse:
    room = await hub.room(game_id, fresh=True)
    room.seat_of_account(bot.id)
    streams = streams_of(request)
    return StreamingResponse(_counted(request, streams.games, bot,
                                      game_states(hub, game_id, bot, room)),
                             media_type=NDJSON)


@router.post("/bot/game/{game_id}/move/{move}", summary="Play a move (or a whole turn) for "
             "the bot's seat")
async def api_bot_move(game_id: str, move: str, bot: BotDep, hub: HubDep) -> Response:
    text = move_text(move)
    return answer(await hub.as_account(game_id, bot.id, lambda room, s, seat: s.move(
        seat, text, None, room.row.version)))


@router.post("/bot/game/{game_id}/resign", summary="The bot resigns a game")
async def api_bot_resign(game_id: str, bot: BotDep, hub: HubDep) -> Response:
    return answer(await hub.as_account(game_id, bot.id,
                                       lambda _room, s, seat: s.resign(seat)))


@router.post("/bot/challenge/{cid}/accept", status_code=201, summary="The bot accepts a "
             "challenge made to it")
async def api_bot_accept(cid: str, request: Request, bot: BotDep, lobby: LobbyDep,
                         hub: HubDep) -> dict[str, Any]:
    found = await accept(request, lobby, hub, cid, None, bot.id)
    found.pop("key", None)  # the bot plays by its token: no seat key to keep
    found.pop("url", None)
    return found


@router.post("/bot/challenge/{cid}/decline", summary="The bot declines a challenge made to "
             "it")
async def api_bot_decline(cid: str, bot: BotDep, lobby: LobbyDep) -> dict[str, Any]:
    await asyncio.to_thread(lobby.decline, cid, bot.id)
    return {"declined": cid}
