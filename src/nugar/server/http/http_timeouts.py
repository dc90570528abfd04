"""uvicorn's HTTP/1.1 protocols with a bound on the time a request's headers take.

uvicorn times out an idle keep-alive connection but not one that sends its headers a byte at
a time (or never): :func:`timed_h11` returns a protocol class that closes a connection whose
next request line and headers have not all arrived ``header_timeout`` seconds after the
connection opened or the request's first byte came.

uvicorn has two HTTP/1.1 parsers: h11 (pure Python, always there) and httptools (a C parser,
installed with the server's dependencies), which costs a fraction of h11's CPU per request.
:func:`timed_protocol` gives the httptools one when it is installed, else h11; both have the
same header timeout, and both bound a request's line and headers to
:data:`MAX_HEAD_BYTES` (h11 through uvicorn's ``h11_max_incomplete_event_size``; httptools,
which has no such bound of its own, here): a longer head gets ``400`` and the connection is
closed, so a client cannot make the server hold an endless head.

Both also bound the HTTP connections one client address holds open at once
(:data:`CLIENT_CONNECTIONS`, ``--client-connections``): one more from that address is closed
as soon as it is accepted, so one address cannot take the server's ``--limit-concurrency``
from the others. The addresses of trusted reverse proxies (``--forwarded-allow-ips``) are
not bounded here, since every player behind them connects from them; the size and rate
guard bounds each forwarded client's websockets instead (:class:`~.middleware.Guard`). A
connection upgraded to a websocket leaves this count for the guard's.
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from ..clients import address_group

#: the longest request line and headers accepted, in bytes
MAX_HEAD_BYTES = 16_384
#: the HTTP connections one client address may hold open at once (``--client-connections``)
CLIENT_CONNECTIONS = 32

#: the open HTTP connections of each connecting address (of this process), while above 0
_OPEN: dict[str, int] = {}

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # httptools is not installed: h11 only
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


class _Coalescing:
    """A transport that joins the writes of one turn of the event loop into one: uvicorn
    writes a response's head and its body separately, each a system call of its own."""

    def __init__(self, inner: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.inner = inner
        self.loop = loop
        self.pending: list[bytes] = []
        self.size = 0

    def write(self, data: bytes) -> None:
        if not data:
            return
        if not self.pending:
            self.loop.call_soon(self.flush)
        self.pending.append(data)
        self.size += len(data)
        if self.size >= 65536:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            data = b"".join(self.pending)
            self.pending.clear()
            self.size = 0
            if not self.inner.is_closing():
                self.inner.write(data)

    def close(self) -> None:
        self.flush()
        self.inner.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _trusted(config: Any, host: str) -> bool:
    """Whether ``host`` is a reverse proxy whose forwarded headers uvicorn trusts."""
    if not getattr(config, "proxy_headers", False):
        return False
    allowed = config.forwarded_allow_ips
    items = allowed.split(",") if isinstance(allowed, str) else list(allowed or ())
    for item in (i.strip() for i in items):
        if item in ("*", host):
            return True
        try:
            if ipaddress.ip_address(host) in ipaddress.ip_network(item, strict=False):
                return True
        except ValueError:
            continue
    return False


def _count_in(protocol: Any) -> str | None:
    """Count a new connection against its address's bound; close it if that is reached.
    Returns the address counted (``None``: not counted)."""
    limit = protocol.client_connections
    client = protocol.client
    if limit is None or not client or _trusted(protocol.config, client[0]):
        return None
    host = address_group(client[0])  # an IPv6 /64 counts as one address
    held = _OPEN.get(host, 0)
    if held >= limit:
        protocol.transport.close()
        return None
    _OPEN[host] = held + 1
    return host


def _count_out(host: str | None) -> None:
    """A connection counted for ``host`` closed or became a websocket."""
    if host is None:
        return
    held = _OPEN.get(host, 0) - 1
    if held > 0:
        _OPEN[host] = held
    else:
        _OPEN.pop(host, None)


class _TimedH11(H11Protocol):
    header_timeout = 10.0
    client_connections: int | None = CLIENT_CONNECTIONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None
        self._counted: str | None = None

    def _waiting_for_headers(self) -> bool:
        return bool(self.conn.their_state is h11.IDLE and not self.transport.is_closing())

    def _check_timer(self) -> None:
        if self._waiting_for_headers():
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(self.header_timeout,
                                                          self._headers_too_slow)
        elif self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if self._waiting_for_headers():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_Coalescing(transport, self.loop))  # type: ignore[arg-type]
        self._counted = _count_in(self)
        self._check_timer()

    def handle_websocket_upgrade(self, event: Any) -> None:
        _count_out(self._counted)  # a websocket from here on: the guard counts it
        self._counted = None
        # the websocket protocol writes to the socket's own transport
        coalescing = self.transport
        if isinstance(coalescing, _Coalescing):
            coalescing.flush()
            self.transport = coalescing.inner
        super().handle_websocket_upgrade(event)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._check_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None
        _count_out(self._counted)
        self._counted = None
        super().connection_lost(exc)


def timed_h11(header_timeout: float, client_connections: int | None = CLIENT_CONNECTIONS
              ) -> type[asyncio.Protocol]:
    """An h11 protocol class that allows ``header_timeout`` seconds for a request's headers
    and ``client_connections`` connections per client address (``None``: no bound)."""
    return type("TimedH11", (_TimedH11,), {"header_timeout": header_timeout,
                                           "client_connections": client_connections})


class TimedH11(_TimedH11):
    """The protocol class that ``nugar serve --workers`` names to uvicorn by its import path
    (a class made by :func:`timed_h11` cannot be sent to a worker process); each worker sets
    its ``header_timeout`` before serving (:mod:`.worker`)."""


class HeadTooLong(ValueError):
    """A request's line and headers are longer than :data:`MAX_HEAD_BYTES`."""


if HttpToolsProtocol is not None:
    class _TimedHttpTools(HttpToolsProtocol):
        """uvicorn's httptools protocol with the header timeout and head bound of the h11
        one: the timer runs from the connection's opening, or a request's first byte, until
        the request's headers are complete."""

        header_timeout = 10.0
        client_connections: int | None = CLIENT_CONNECTIONS

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._header_timer: asyncio.TimerHandle | None = None
            self._head_bytes = 0
            self._counted: str | None = None

        def _start_timer(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(self.header_timeout,
                                                          self._headers_too_slow)

        def _stop_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing():
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(_Coalescing(transport, self.loop))  # type: ignore[arg-type]
            self._counted = _count_in(self)
            self._start_timer()

        def handle_websocket_upgrade(self) -> None:
            _count_out(self._counted)  # a websocket from here on: the guard counts it
            self._counted = None
            coalescing = self.transport
            if isinstance(coalescing, _Coalescing):
                coalescing.flush()
                self.transport = coalescing.inner
            super().handle_websocket_upgrade()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_bytes = 0
            self._start_timer()

        def _count(self, size: int) -> None:
            self._head_bytes += size
            if self._head_bytes > MAX_HEAD_BYTES:
                # the parser turns this into an error, and uvicorn answers 400 and closes
                raise HeadTooLong(f"request head over {MAX_HEAD_BYTES} bytes")

        def on_url(self, url: bytes) -> None:
            self._count(len(url))
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            self._count(len(name) + len(value) + 4)
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            self._stop_timer()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_timer()
            _count_out(self._counted)
            self._counted = None
            super().connection_lost(exc)

    class TimedHttpTools(_TimedHttpTools):
        """The httptools counterpart of :class:`TimedH11` for ``nugar serve --workers``."""


def timed_protocol(header_timeout: float, client_connections: int | None = CLIENT_CONNECTIONS
                   ) -> type[asyncio.Protocol]:
    """The HTTP protocol class ``nugar serve`` runs: httptools when it is installed, else
    h11, allowing ``header_timeout`` seconds for a request's headers and
    ``client_connections`` open connections per client address (``None``: no bound)."""
    if HttpToolsProtocol is None:
        return timed_h11(header_timeout, client_connections)
    return type("TimedHttpTools", (_TimedHttpTools,), {
        "header_timeout": header_timeout, "client_connections": client_connections})


def protocol_path() -> str:
    """The import path of the protocol class of ``nugar serve --workers`` (:mod:`.worker`
    sets its header timeout)."""
    if HttpToolsProtocol is None:
        return "nugar.server.http.http_timeouts:TimedH11"
    return "nugar.server.http.http_timeouts:TimedHttpTools"


def set_header_timeout(seconds: float, client_connections: int | None = CLIENT_CONNECTIONS
                       ) -> None:
    """The header timeout and the bound on connections per client address of the classes
    :func:`protocol_path` names (in a worker)."""
    TimedH11.header_timeout = seconds
    TimedH11.client_connections = client_connections
    if HttpToolsProtocol is not None:
        TimedHttpTools.header_timeout = seconds
        TimedHttpTools.client_connections = client_connections
