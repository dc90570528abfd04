"""The web app's pages: the single-page client, its static files, the rules pages, and the
sign-up and sign-in pages (``static/account.html``; every page's header and its account
menu are ``static/parts/header.html`` and ``static/common.js``), and the players' pages and
the leaderboard (``static/standings.html``). The rules pages are rendered once per name and
language (:class:`~.pages.RenderedPages`), the rendering priced to the client who asked
first."""

from __future__ import annotations

import functools
from collections.abc import Callable

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, Response

from ...i18n import Text, say
from ..errors import ApiError, status_of
from .language import request_language
from .pages import RenderedPages, not_found_page, page_name, rules_index, rules_page
from .routes_api import priced
from .static_i18n import STATIC, render_page

router = APIRouter(include_in_schema=False)


async def page(name: str, request: Request) -> HTMLResponse:
    """The static page ``name`` in the request's language (:func:`.static_i18n.render_page`:
    its texts translated, the scripts' catalog embedded)."""
    lang = await request_language(request)
    return HTMLResponse(render_page(name, lang),
                        headers={"content-language": lang,
                                 "vary": "Cookie, Accept-Language"})


async def missing(request: Request, title: Text, detail: str) -> HTMLResponse:
    """The page a browser gets for something that does not exist (HTTP 404, not JSON):
    ``title`` and ``detail`` (a refusal's, or a sentence of its own) said in the request's
    language, the detail cut to 120 characters."""
    lang = await request_language(request)
    return HTMLResponse(not_found_page(say(title, lang), say(detail, lang, "web")[:120], lang),
                        status_code=404)


@router.get("/")
async def index(request: Request) -> HTMLResponse:
    return await page("index.html", request)


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/g/{game_id}")
async def game_page(game_id: str, request: Request) -> Response:
    """The game's page; for a game that does not exist, a page saying so (HTTP 404) instead
    of the game page's board and buttons."""
    try:
        await request.app.state.hub.room(game_id)
    except ApiError as exc:
        if status_of(exc) == 404:
            return await missing(request, Text("No such game", domain="web"), exc.detail)
        # another refusal (a stored game that cannot be rebuilt): the page shows it
    return await page("index.html", request)


@router.get("/replay")
async def replay_page(request: Request) -> HTMLResponse:
    return await page("index.html", request)


@router.get("/signup")
async def sign_up_page(request: Request) -> HTMLResponse:
    return await page("account.html", request)


@router.get("/signin")
async def sign_in_page(request: Request) -> HTMLResponse:
    return await page("account.html", request)


@router.get("/players/{username}")
async def player_page(username: str, request: Request) -> HTMLResponse:
    """A player's page (``static/standings.js`` asks the API and says if there is none)."""
    return await page("standings.html", request)


@router.get("/leaderboard")
async def leaderboard_page(request: Request) -> HTMLResponse:
    return await page("standings.html", request)


async def rendered(request: Request, name: str, lang: str,
                   render: Callable[[], str | None]) -> str | None:
    """The rules page ``name`` (``""``: the index) in ``lang`` as this application keeps
    it (:class:`~.pages.RenderedPages`), else ``render()`` priced as a replay is
    (:func:`~.routes_api.priced`: the work pool, the client's CPU budget) and kept."""
    kept: RenderedPages = request.app.state.pages
    page = kept.get(name, lang)
    if page is None:
        page = await priced(request, render)
        if page is not None:
            kept.keep(name, lang, page)
    return page


@router.get("/rules")
async def rules_list(request: Request) -> HTMLResponse:
    lang = await request_language(request)
    page = await rendered(request, "", lang, functools.partial(rules_index, lang))
    return HTMLResponse(page or "", headers={"Vary": "Accept-Language, Cookie"})


@router.get("/rules/{name}")
async def rules_doc(name: str, request: Request) -> HTMLResponse:
    key = page_name(name)
    lang = await request_language(request)
    page = None if key is None else await rendered(
        request, key, lang, functools.partial(rules_page, key, lang))
    if page is None:  # a browser asked: a page that says so, not JSON
        return await missing(request, Text("No such rules page", domain="web"),
                             Text("There is no rules page {name!r}.", domain="web",
                                  name=name[:60]))
    return HTMLResponse(page, headers={"Vary": "Accept-Language, Cookie"})
