"""The check against cross-site requests made with a player's session cookie.

:class:`CrossSiteGuard` is ASGI middleware in front of every route (the move fast lane
included). A request that may change something (any method but GET, HEAD and OPTIONS) and
carries the session cookie (:data:`~.accounts.COOKIE`, read by
:func:`~.accounts.session_token`, which refuses a header that could be read two ways: 400
``bad_cookie``, for every request) must come from the server's own origin,
that of its public URL: its ``Origin`` header must name it, or, where a browser sent
no ``Origin``, its ``Sec-Fetch-Site`` must be ``same-origin`` (or ``none``: typed by the
user). Otherwise it is refused with 403 ``cross_site`` before any route runs. A websocket
opened with the cookie and an ``Origin`` of another site is closed. Requests without the
cookie (anonymous play, scripts holding seat keys) are not looked at. docs/server.md says
why this, with the cookie's ``SameSite=Lax``, suffices.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from ...i18n import Text
from ..errors import ApiError
from ..players.accounts import session_token
from .language import language_of
from .middleware import ASGIApp, Receive, Scope, Send, error_parts, refusal

#: the methods that change nothing, which the check leaves alone
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """The origin ``scheme://host[:port]`` of a URL, in lower case and without a default
    port (what a browser's ``Origin`` header holds); ``None`` when it has none.

    >>> origin_of("https://Games.example.org:443/nugar/")
    'https://games.example.org'
    >>> origin_of("http://127.0.0.1:8000"), origin_of("null")
    ('http://127.0.0.1:8000', None)
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    shown = "" if port in (None, _DEFAULT_PORTS[parts.scheme]) else f":{port}"
    return f"{parts.scheme}://{host}{shown}"


class CrossSiteGuard:
    """Refuses (403 ``cross_site``) a state-changing request made with the session cookie
    from anywhere but ``public_url``'s origin; see the module's text."""

    def __init__(self, app: ASGIApp, public_url: str) -> None:
        self.app = app
        self.origin = origin_of(public_url)

    def same_origin(self, headers: dict[bytes, bytes]) -> bool:
        """Whether the request's ``Origin`` (or, without one, ``Sec-Fetch-Site``) says it
        comes from this server's own pages."""
        sent = headers.get(b"origin")
        if sent is not None:
            return self.origin is not None and origin_of(sent.decode("latin-1")) == self.origin
        site = headers.get(b"sec-fetch-site")
        return site in (b"same-origin", b"none")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        raw = scope.get("headers") or ()
        try:
            signed = session_token(raw) is not None
        except ApiError as exc:  # a session cookie that could be read two ways
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            status, code, detail = error_parts(exc)
            await refusal(status, code, detail, None,
                          language_of(HTTPConnection(scope)))(scope, receive, send)
            return
        if signed and kind == "http" and scope.get("method", "GET") not in SAFE_METHODS:
            headers = dict(raw)
            if not self.same_origin(headers):
                status, code, detail = error_parts(ApiError(
                    "cross_site", Text(
                    "a request made with your session must come from this site's own pages (its "
                    "Origin header is another site's or missing)",
                    domain="web")))
                await refusal(status, code, detail, None,
                              language_of(HTTPConnection(scope)))(scope, receive, send)
                return
        elif signed and kind == "websocket":
            headers = dict(raw)
            # browsers always send a websocket's Origin: only another site's is refused
            if b"origin" in headers and not self.same_origin(headers):
                await send({"type": "websocket.close", "code": 1008})
                return
        await self.app(scope, receive, send)
