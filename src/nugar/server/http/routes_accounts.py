"""The accounts' API (:mod:`.accounts`): signing up, in and out, the signed-in player, who
holds a game's seats, and the ratings (:mod:`.standings`).

- ``POST /api/accounts`` ``{username, password}``: 201 ``{username, ratings}``, signed in.
- ``POST /api/session`` ``{username, password}``: signed in; 401 ``bad_credentials``.
- ``DELETE /api/session``: signed out (the session ends; also without one).
- ``GET /api/me``: ``{username, ratings, language}`` (``language``: the one the account
  chose, or ``null``); 401 ``signed_out``.
- ``GET /api/me/games?page=``: the signed-in player's games in progress, those where it is
  his turn first, each with whose turn it is and the mover's time left
  (:mod:`..play.my_games`); ``your_turn`` counts the games waiting for him (the reminder).
- ``PUT /api/account/language`` ``{language}``: 204, the account's language kept (the
  language switch calls it after setting its cookie); 401 ``signed_out``; 422
  ``bad_language`` for a language nugar is not written in.
- ``POST /api/me/password`` ``{old, new}``: every session ends; this client gets a new one.
- ``DELETE /api/me`` ``{password}``: the account is deleted; its games stay.
- ``GET /api/games/{id}/players``: the name on each seat (``null``: nobody signed in);
  in a rated game both ratings and, once it ended, what it changed.
- ``GET /api/players/{username}?page=``: ratings, finished games, rating history.
- ``GET /api/leaderboard?rules=PRESET``: the best players whose rating is not provisional.

Signing in and up answer with the session cookie (:func:`set_session`); the attempts are
limited per client address and per address and user name (429 ``too_many_attempts``, the
counts in the database). The passwords are hashed in the threads of :mod:`..players.passwords`
(bounded, fair per address: 503 ``sign_in_busy`` beyond), never logged and never answered.
Every refused sign-in is one log line (the code, the name, the address).
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import Field

from ... import i18n
from ...i18n import Text
from ...rules import PRESETS
from ..clients import address_group
from ..errors import ApiError
from ..play import my_games
from ..players.accounts import (
    COOKIE,
    MAX_PASSWORD,
    SESSION_DAYS,
    Account,
    Accounts,
    accounts_of,
    current_account,
)
from ..players.passwords import PasswordWork
from ..players.standings import PAGE, game_players, leaderboard, player, ratings_of
from ..storage.store import Store
from .models import Body, ErrorBody
from .services import services

T = TypeVar("T")

log = logging.getLogger("nugar.server")

AccountsDep = Annotated[Accounts, Depends(accounts_of)]
MaybeAccount = Annotated[Account | None, Depends(current_account)]


def signed_in(account: MaybeAccount) -> Account:
    """The signed-in account, or 401 ``signed_out`` (a route's dependency)."""
    if account is None:
        raise ApiError("signed_out", Text("you are not signed in", domain="web"))
    return account


AccountDep = Annotated[Account, Depends(signed_in)]


class Credentials(Body):
    username: str = Field(..., max_length=100, description="3-20 letters, digits, _ or -")
    password: str = Field(..., max_length=MAX_PASSWORD, description="at least 8 characters")


class NewPassword(Body):
    old: str = Field(..., max_length=MAX_PASSWORD, description="the current password")
    new: str = Field(..., max_length=MAX_PASSWORD, description="at least 8 characters")


class LanguageBody(Body):
    language: str = Field(..., max_length=35, description="one of "
                          + ", ".join(i18n.LANGUAGES))


class PasswordBody(Body):
    password: str = Field(..., max_length=MAX_PASSWORD, description="the account's password")


router = APIRouter(prefix="/api", responses={"4XX": {"model": ErrorBody,
                                                     "description": "Refused"}})


def set_session(request: Request, response: Response, token: str) -> None:
    """Give the client its session cookie: ``HttpOnly`` (no script reads it),
    ``SameSite=Lax`` (other sites' requests, but top-level links, go without it), and
    ``Secure`` when the server's public URL is https."""
    secure = str(services(request).public_url).startswith("https:")
    response.set_cookie(COOKIE, token, max_age=SESSION_DAYS * 86400, path="/",
                        httponly=True, samesite="lax", secure=secure)


def clear_session(request: Request, response: Response) -> None:
    secure = str(services(request).public_url).startswith("https:")
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=secure)


def me(store: Store, accounts: Accounts, account: Account) -> dict[str, Any]:
    """What ``GET /api/me`` says of an account (blocking: read in a worker thread)."""
    return {"username": account.username, "bot": account.bot,
            "ratings": ratings_of(store, account.id),
            "language": accounts.account_language(account.id)}


async def me_of(request: Request, account: Account) -> dict[str, Any]:
    return await asyncio.to_thread(me, services(request).store, accounts_of(request), account)


def _address(request: Request) -> str:
    return address_group(request.client.host if request.client else "unknown")


async def checked(request: Request, accounts: Accounts, username: str | None,
                  job: Callable[[], T], what: str) -> T:
    """``job()``, a request that hashes a password, in the password threads
    (:mod:`..players.passwords`) once it is the client address's turn, after spending an
    attempt of the address (and of the address with ``username``) there too: a flood waits
    or is refused before it costs anything else, even a database write, and the default
    thread pool that other requests use is not touched. A refusal (the threads busy, too
    many attempts, a wrong password) is logged in one line and raised."""
    address = _address(request)
    passwords: PasswordWork = services(request).passwords

    def limited() -> T:
        accounts.limit(address, username)
        return job()

    try:
        return await passwords.run(address, limited)
    except ApiError as exc:
        log.warning("%s refused (%s) for %r from %s", what, exc.code,
                    (username or "")[:40], address)
        raise


@router.post("/accounts", status_code=201, summary="Make an account (and sign in)")
async def api_sign_up(body: Credentials, request: Request, response: Response,
                      accounts: AccountsDep) -> dict[str, Any]:
    account, token = await checked(request, accounts, None, functools.partial(
        accounts.sign_up, body.username, body.password), "sign-up")
    set_session(request, response, token)
    return await me_of(request, account)


@router.post("/session", summary="Sign in")
async def api_sign_in(body: Credentials, request: Request, response: Response,
                      accounts: AccountsDep) -> dict[str, Any]:
    address = _address(request)

    def sign_in() -> tuple[Account, str]:
        signed = accounts.sign_in(body.username, body.password)
        accounts.succeeded(address, body.username)
        return signed

    account, token = await checked(request, accounts, body.username, sign_in, "sign-in")
    set_session(request, response, token)
    return await me_of(request, account)


@router.delete("/session", summary="Sign out")
async def api_sign_out(request: Request, response: Response,
                       accounts: AccountsDep) -> dict[str, Any]:
    token = request.cookies.get(COOKIE)
    if token:
        await asyncio.to_thread(accounts.sign_out, token)
    clear_session(request, response)
    return {"signed_in": False}


@router.get("/me", summary="The signed-in player")
async def api_me(request: Request, account: AccountDep) -> dict[str, Any]:
    return await me_of(request, account)


@router.get("/me/games", summary="The signed-in player's games in progress (his turn first, "
            f"{my_games.PAGE} a page)")
async def api_my_games(request: Request, account: AccountDep,
                       page: Annotated[int, Query(ge=1, le=my_games.MAX_ACTIVE
                                                  // my_games.PAGE)] = 1) -> dict[str, Any]:
    hub = services(request).hub
    return await asyncio.to_thread(my_games.my_games, hub.store, account.id, hub.clock(), page)


@router.put("/account/language", status_code=204,
            summary="Keep the language the signed-in player chose")
async def api_language(body: LanguageBody, account: AccountDep,
                       accounts: AccountsDep) -> Response:
    lang = i18n.normalize(body.language)
    if lang is None:
        raise ApiError("bad_language", Text("unknown language {language}: nugar is written "
                                            "in {languages}", domain="web",
                                            language=repr(body.language[:35]),
                                            languages=", ".join(i18n.LANGUAGES)))
    await asyncio.to_thread(accounts.set_language, account.id, lang)
    return Response(status_code=204)


@router.post("/me/password", summary="Change the password (every other session ends)")
async def api_password(body: NewPassword, request: Request, response: Response,
                       account: AccountDep, accounts: AccountsDep) -> dict[str, Any]:
    address = _address(request)

    def change() -> str:
        token = accounts.change_password(account, body.old, body.new)
        accounts.succeeded(address, account.username)
        return token

    token = await checked(request, accounts, account.username, change, "password change")
    set_session(request, response, token)
    return await me_of(request, account)


@router.delete("/me", summary="Delete the account (its games stay, played by \"deleted "
               "player\")")
async def api_delete(body: PasswordBody, request: Request, response: Response,
                     account: AccountDep, accounts: AccountsDep) -> dict[str, Any]:
    await checked(request, accounts, account.username, functools.partial(
        accounts.delete, account, body.password), "account deletion")
    clear_session(request, response)
    return {"deleted": True}


@router.get("/games/{game_id}/players", summary="Who holds each seat of a game (signed-in "
            "players' names) and, in a rated game, their ratings and changes")
async def api_players(game_id: str, request: Request) -> dict[str, Any]:
    found = await asyncio.to_thread(game_players, services(request).store, game_id)
    if found is None:
        raise ApiError("unknown_game", Text(
            "no game with id {game_id!r}",
            domain="web", game_id=game_id))
    return found


@router.get("/players/{username}", summary="A player's ratings, games (newest first, "
            f"{PAGE} a page) and rating history")
async def api_player(username: str, request: Request,
                     page: Annotated[int, Query(ge=1, le=10_000)] = 1) -> dict[str, Any]:
    found = await asyncio.to_thread(player, services(request).store, username[:40], page)
    if found is None:
        raise ApiError("unknown_player", Text(
            "no player is named {username!r}",
            domain="web", username=username[:40]))
    return found


@router.get("/leaderboard", summary="The best players of a preset (ratings no longer "
            "provisional)")
async def api_leaderboard(request: Request,
                          rules: Annotated[str, Query(max_length=40)] = "dara"
                          ) -> dict[str, Any]:
    if rules not in PRESETS:
        raise ApiError("bad_rules", Text(
            "ratings are kept per preset: {presets}; not {rules!r}",
            domain="web", presets=', '.join(PRESETS), rules=rules))
    players = await asyncio.to_thread(leaderboard, services(request).store, rules)
    return {"rules": rules, "players": players}
