"""The web app's pages: the single-page client, its static files and the rules pages."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, HTMLResponse

from .pages import rules_index, rules_page
from .session import ApiError

#: the browser client: index.html, app.js, style.css, favicon.svg
STATIC = Path(__file__).parent / "static"

router = APIRouter(include_in_schema=False)


@router.get("/")
async def index() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/favicon.ico")
async def favicon() -> FileResponse:
    return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")


@router.get("/g/{game_id}")
async def game_page(game_id: str) -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/replay")
async def replay_page() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/rules")
async def rules_list() -> HTMLResponse:
    return HTMLResponse(rules_index())


@router.get("/rules/{name}")
async def rules_doc(name: str) -> HTMLResponse:
    page = rules_page(name)
    if page is None:
        raise ApiError(404, "unknown_rules_page", f"no rules page {name!r}; see /rules")
    return HTMLResponse(page)
