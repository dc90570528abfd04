"""What the routes are given: the application's parts as one typed object.

:func:`~nugar.server.app.create_app` builds one :class:`Services` (the store, the hub of the
games, the lobby, the AI and work pools, the analyses, the accounts and their password checks,
the rendered pages, the puzzles' budgets, the public address) and keeps it as
``app.state.services``; a route or a middleware asks :func:`services` of its request,
websocket or ASGI scope's application, and gets each part with its type, instead of reading an
untyped attribute bag. The puzzles' per-client budgets (:class:`PuzzleBounds`) are here too:
one set per application.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends
from starlette.requests import HTTPConnection

from ...i18n import Text
from ..clients import CLIENT, Budget, named
from ..errors import ApiError
from ..play.rooms import Hub

if TYPE_CHECKING:
    from ...warmup import Warmup
    from ..clients import Work
    from ..play.lobby_caps import CappedLobby
    from ..players.accounts import Accounts
    from ..players.passwords import PasswordWork
    from ..storage.store import Store
    from ..work.ai_pool import AiPool
    from ..work.analyses import Analyses
    from ..work.work_pool import WorkPool
    from .pages import RenderedPages


#: attempts at puzzles a second per client on average, and the burst
ATTEMPT_RATE, ATTEMPT_BURST = 1.0, 30.0
#: puzzles asked (next, daily, one by id) a second per client on average, and the burst
NEXT_RATE, NEXT_BURST = 2.0, 60.0


class PuzzleBounds:
    """The per-client budgets of the puzzles' routes (one set per application)."""

    def __init__(self) -> None:
        self.attempts = Budget(ATTEMPT_RATE, ATTEMPT_BURST)
        self.asks = Budget(NEXT_RATE, NEXT_BURST)

    def take(self, budget: Budget) -> None:
        client = CLIENT.get()
        if not budget.allow(client):
            exc = ApiError("puzzle_limit", Text(
                "too many puzzle requests from {who}: try again in {seconds} s",
                domain="web", who=_who(client), seconds=budget.retry_after(client)))
            exc.retry_after = budget.retry_after(client)
            raise exc
        budget.charge(client, 1.0)
        if len(budget.buckets) > 10_000:
            budget.sweep()


def _who(client: str) -> str:
    return named(client)


@dataclass(frozen=True)
class Services:
    """The parts of one application (each made once, by ``create_app``)."""

    store: Store
    hub: Hub
    lobby: CappedLobby
    ai_pool: AiPool
    analyses: Analyses
    accounts: Accounts
    passwords: PasswordWork
    pages: RenderedPages
    #: the per-client budget of expensive work (``None``: not priced, ``work_rate`` off)
    work: Work | None
    work_pool: WorkPool
    warmup: Warmup
    #: the per-client budgets of the puzzles' routes
    puzzles: PuzzleBounds
    #: the address players reach the server at, without a trailing slash (game links start
    #: with it, never with a request's ``Host``)
    public_url: str


def services(of: HTTPConnection | Any) -> Services:
    """The services of the application serving ``of``: a request or websocket, or an ASGI
    application (``scope["app"]``)."""
    app = of.app if isinstance(of, HTTPConnection) else of
    found: Services = app.state.services
    return found


def hub_of(conn: HTTPConnection) -> Hub:
    """The rooms of the application serving this request or websocket."""
    hub: Hub = services(conn).hub
    return hub


HubDep = Annotated[Hub, Depends(hub_of)]
