"""What wraps every request of the web app: the size and rate guard, the security headers,
and errors as JSON.

:class:`Guard` is ASGI middleware that refuses oversized bodies (413), floods from one
client address (429, with ``Retry-After``) and websockets beyond an address's share before
any route runs; :class:`SecurityHeaders` adds the Content-Security-Policy and its companions
to every response; :func:`add_error_handlers` makes every refusal (an
:class:`~.errors.ApiError`, a malformed body, an unknown route, a database failure) the same
JSON ``{"error": code, "detail": sentence}``. Every such body is written by :func:`refusal`, the
guard's and the fast lane's (:mod:`.fastlane`) included, and an error's status, code and
detail are read in one place, :func:`error_parts` (the status from :data:`.errors.STATUS`).
The detail is said in the request's language (:mod:`.language`; :func:`nugar.i18n.say`), the
code stays English; the guard's refusals, written before any route, use the language that
needs no waiting (:func:`~.language.language_of`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.routing import Match

from ...i18n import SOURCE, Text, say
from ..clients import CLIENT, Counts, address_group
from ..errors import ApiError, status_of
from ..storage.store import storage_refusal
from .language import language_of, request_language
from .pages import not_found_page

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


#: the scope key under which :class:`Guard` leaves the request body it has read whole
BODY = "nugar.body"


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` for the app behind a middleware that has already read the whole request
    body: it hands ``body`` over once, then defers to the client's ``receive``."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class Guard:
    """Refuses oversized bodies (413), bodies not all received within ``body_timeout``
    seconds (408), and floods from one client address (429).

    Each client address has a token bucket of ``burst`` requests refilled at ``rate`` per
    second; websocket connections count as requests too. ``rate=None`` turns the limit off
    (for load tests on loopback). A client address may hold at most ``sockets`` websockets
    open at once (``None``: no bound): one more is refused at its handshake (HTTP 403), so
    one address cannot take the server's connections from the others. ``clock`` gives the
    time in seconds (a test may pass its own).

    The guard names the client of each request (:data:`~.clients.CLIENT`) for the code
    that serves it: the key ``who(scope)`` gives (the signed-in account's,
    :func:`~.accounts.client_key`), else the address uvicorn gives, which is the one a
    trusted reverse proxy forwarded when there is one. The request rate and the websockets
    are counted per address whatever ``who`` says.
    """

    def __init__(self, app: ASGIApp, max_body: int, rate: float | None, burst: int,
                 clock: Callable[[], float] = time.monotonic,
                 body_timeout: float = 10.0, sockets: int | None = None,
                 who: Callable[[Scope], Awaitable[str | None]] | None = None) -> None:
        self.app = app
        self.who = who
        self.sockets = None if sockets is None else Counts(sockets)
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.buckets: dict[str, tuple[float, float]] = {}

    def allow(self, client: str) -> bool:
        if self.rate is None:
            return True
        now = self.clock()
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

    def retry_after(self, client: str) -> int:
        """Whole seconds until ``client`` has a request again (at least 1)."""
        if not self.rate:
            return 1
        tokens, _last = self.buckets.get(client, (0.0, 0.0))
        return max(1, math.ceil((1.0 - tokens) / self.rate))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        host = address_group(client[0]) if client else "unknown"  # an IPv6 /64 is one
        named = CLIENT.set(host)
        try:
            await self._guard(host, scope, receive, send)
        finally:
            CLIENT.reset(named)

    async def _guard(self, host: str, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.allow(host):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            wait = self.retry_after(host)
            await refusal(429, "rate_limited",
                          Text("too many requests; retry in {wait} s", domain="web", wait=wait),
                          {"retry-after": str(wait)},
                          language_of(HTTPConnection(scope)))(scope, receive, send)
            return
        if self.who is not None and (key := await self.who(scope)) is not None:
            CLIENT.set(key)  # __call__'s reset puts back what was there before the address
        if scope["type"] == "websocket":
            await self._socket(host, scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                size = self.max_body + 1
            if size > self.max_body:
                await self.too_big(scope)(scope, receive, send)
                return
        # read the body up front, bounded in size and time, then hand it on unchanged
        chunks: list[bytes] = []
        try:
            async with asyncio.timeout(self.body_timeout):
                complete = await self._read_body(receive, chunks)
        except TimeoutError:
            await refusal(408, "body_timeout",
                          Text("the request body must arrive within {seconds:g} s",
                               domain="web", seconds=self.body_timeout),
                          {"connection": "close"},
                          language_of(HTTPConnection(scope)))(scope, receive, send)
            return
        if complete is None:
            return
        if not complete:
            await self.too_big(scope)(scope, receive, send)
            return
        body = b"".join(chunks)
        scope[BODY] = body  # read once: the fast lane behind takes it from here
        await self.app(scope, replaying(body, receive), send)

    async def _socket(self, host: str, scope: Scope, receive: Receive, send: Send) -> None:
        """A websocket, counted against its address's bound while it is open."""
        sockets = self.sockets
        if sockets is None:
            await self.app(scope, receive, send)
            return
        if not sockets.take(host):
            await send({"type": "websocket.close", "code": 1008})  # before accepting: 403
            return
        try:
            await self.app(scope, receive, send)
        finally:
            sockets.give(host)

    def too_big(self, scope: Scope) -> JSONResponse:
        """The refusal of a body over :attr:`max_body` (413)."""
        return refusal(413, "body_too_large",
                       Text.plural("request bodies are limited to {size} byte",
                                   "request bodies are limited to {size} bytes", self.max_body,
                                   domain="web", size=self.max_body),
                       None, language_of(HTTPConnection(scope)))

    async def _read_body(self, receive: Receive, chunks: list[bytes]) -> bool | None:
        """Read the body into ``chunks``: ``True`` once whole, ``False`` when it is over
        ``max_body``, ``None`` when the client went."""
        total = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return None
            body = message.get("body", b"")
            total += len(body)
            if total > self.max_body:
                return False
            chunks.append(body)
            more = message.get("more_body", False)
        return True


#: the policy of every page: scripts, styles, images and connections (the websocket included)
#: from this origin only, no inline script or style, no plugins, and no framing by other sites
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors 'none'")
#: the policy of FastAPI's ``/docs`` and ``/redoc`` when turned on: they load their scripts
#: and styles from a CDN and start them with an inline script
DOCS_CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
            "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net "
            "https://fonts.googleapis.com; font-src https://fonts.gstatic.com; "
            "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly; "
            "worker-src blob:; connect-src 'self'; object-src 'none'; frame-ancestors 'none'")
DOCS_PATHS = ("/docs", "/docs/oauth2-redirect", "/redoc")


def _security_headers(policy: str) -> tuple[tuple[bytes, bytes], ...]:
    return ((b"content-security-policy", policy.encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"no-referrer"),
            (b"x-frame-options", b"DENY"))


_HEADERS = _security_headers(CSP)
_DOCS_HEADERS = _security_headers(DOCS_CSP)
#: HTTP Strict Transport Security (RFC 6797) of a server whose public URL is https: a
#: browser that has seen it reaches the site by https only, for a year
HSTS = (b"strict-transport-security", b"max-age=31536000")


class SecurityHeaders:
    """Adds ``Content-Security-Policy`` (:data:`CSP`), ``X-Content-Type-Options: nosniff``,
    ``Referrer-Policy: no-referrer`` and ``X-Frame-Options: DENY`` to every HTTP response,
    and :data:`HSTS` with ``https`` (the public URL is https). ``docs`` (the API docs are
    on) gives their paths :data:`DOCS_CSP` instead."""

    def __init__(self, app: ASGIApp, docs: bool = False, https: bool = False) -> None:
        self.app = app
        self.docs = docs
        self.headers = (*_HEADERS, HSTS) if https else _HEADERS
        self.docs_headers = (*_DOCS_HEADERS, HSTS) if https else _DOCS_HEADERS

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = (self.docs_headers if self.docs and scope.get("path") in DOCS_PATHS
                 else self.headers)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


#: where :class:`AccessLog` writes its lines
access_log = logging.getLogger("nugar.access")


class AccessLog:
    """One line per HTTP request and websocket on the logger ``nugar.access`` (``nugar
    serve --access-log``): the client's address (the forwarded one behind a trusted
    proxy), the method and path (never the query, which may hold a seat key an old client
    sent), the status (a websocket: ``101``, or the close code of a refused handshake), and
    the milliseconds to the response's start. The path is cut to 200 characters and written
    as a JSON string, so a client's bytes cannot forge a line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 0
        took = 0.0

        async def noted(message: Message) -> None:
            nonlocal status, took
            kind = message["type"]
            if kind == "http.response.start" or kind == "websocket.accept":
                status = int(message.get("status", 101))
                took = time.perf_counter() - start
            elif kind == "websocket.close" and not status:
                status = int(message.get("code", 1000))
                took = time.perf_counter() - start
            await send(message)

        try:
            await self.app(scope, receive, noted)
        finally:
            client = scope.get("client")
            method = scope.get("method", "WS") if scope["type"] == "http" else "WS"
            access_log.info("%s %s %s %d %.1f ms", client[0] if client else "-", method,
                            json.dumps(str(scope.get("path", ""))[:200]), status,
                            took * 1000)


def refusal(status: int, code: str, detail: str,
            headers: Mapping[str, str] | None = None, lang: str = SOURCE) -> JSONResponse:
    """The answer to every refused request: JSON ``{"error": code, "detail": detail}`` with
    ``status`` (a Starlette response, also an ASGI app for the middleware to send), the
    detail said in ``lang`` (a :class:`~nugar.i18n.Text` with its fields; a plain sentence
    looked up whole in the ``web`` catalog)."""
    return JSONResponse({"error": code, "detail": say(detail, lang, "web")},
                        status_code=status, headers=headers)


def error_parts(exc: ApiError) -> tuple[int, str, str]:
    """The HTTP status, the code and the detail of a refused call's error: the one place the
    server reads them from an exception."""
    return status_of(exc), exc.code, exc.detail


def api_refusal(exc: ApiError) -> JSONResponse:
    """The refusal answering ``exc`` (with ``Retry-After`` when the error says when to come
    back: the AI's pool is full); the exception handler and the fast lane both send it, with
    the error first said in the request's language (:func:`in_language`)."""
    status, code, detail = error_parts(exc)
    retry = getattr(exc, "retry_after", None)
    return refusal(status, code, detail, None if retry is None else {"Retry-After": str(retry)})


def in_language(exc: ApiError, lang: str) -> ApiError:
    """``exc`` with its detail said in ``lang`` (the same error for English): the same code,
    status and ``Retry-After``."""
    if lang == SOURCE:
        return exc
    return exc.with_detail(say(exc.detail, lang, "web"))


async def _api_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return api_refusal(in_language(exc, await request_language(request)))


async def _storage_failed(request: Request, exc: Exception) -> JSONResponse:
    """A database failure in any route (creating a game, posting a challenge, reading a
    record): a JSON refusal and one log line, never a bare 500 with a traceback."""
    assert isinstance(exc, SQLAlchemyError)
    return api_refusal(in_language(storage_refusal(exc, f"answering {request.method} "
                                                        f"{request.url.path[:80]}"),
                                   language_of(request)))


async def _bad_request(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
    # pydantic's own words about a body's fields, for the programs that send them: English
    return refusal(422, "bad_request", "; ".join(parts))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    path = request.url.path
    if (exc.status_code == 404 and "text/html" in request.headers.get("accept", "")
            and not path.startswith(("/api/", "/ws/", "/static/"))):
        # a page a browser asked for: a page saying so, with links on, not JSON
        lang = await request_language(request)
        return HTMLResponse(not_found_page(say(Text("Page not found", domain="web"), lang),
                                           say(Text("There is no page {path}.", domain="web",
                                                    path=path[:80]), lang), lang),
                            status_code=404)
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    # keep the exception's headers: a 405 names the allowed methods in ``Allow`` (RFC 9110)
    headers = exc.headers
    if exc.status_code == 405 and (allowed := _allowed(request)):
        headers = {**(headers or {}), "Allow": ", ".join(allowed)}
    return refusal(exc.status_code, code, _http_detail(exc.detail), headers,
                   language_of(request))


def _http_detail(detail: object) -> str:
    """Starlette's sentence for an HTTP error (``Not Found``, ``Method Not Allowed``), marked
    for the ``web`` catalog, which translates these."""
    known = {"Not Found": Text("Not Found", domain="web"),
             "Method Not Allowed": Text("Method Not Allowed", domain="web")}
    return known.get(str(detail), str(detail))


def _allowed(request: Request) -> list[str]:
    """The methods of every route at the request's path (Starlette names only the first
    route's, where a path has one route per method, e.g. ``POST`` and ``DELETE
    /api/session``)."""
    found: set[str] = set()
    for route in _routes(request.app.router.routes):
        methods = getattr(route, "methods", None)
        if methods and route.matches(request.scope)[0] is not Match.NONE:
            found |= set(methods)
    return sorted(found)


def _routes(routes: list[Any]) -> Iterator[Any]:
    """Every route, those of the included routers too (FastAPI keeps an included router
    as one entry, ``original_router`` holding its routes with their whole paths)."""
    for route in routes:
        inner = getattr(route, "original_router", None)
        if inner is not None:
            yield from _routes(inner.routes)
        else:
            yield route


def add_error_handlers(app: FastAPI) -> None:
    """Answer every refusal as JSON ``{"error": code, "detail": sentence}``."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(SQLAlchemyError, _storage_failed)
    app.add_exception_handler(RequestValidationError, _bad_request)
    app.add_exception_handler(StarletteHTTPException, _http_error)
