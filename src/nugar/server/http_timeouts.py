"""uvicorn's HTTP/1.1 protocol (h11) with a bound on the time a request's headers take.

uvicorn times out an idle keep-alive connection but not one that sends its headers a byte at
a time (or never): :func:`timed_h11` returns a protocol class that closes a connection whose
next request line and headers have not all arrived ``header_timeout`` seconds after the
connection opened or the request's first byte came.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


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


class _TimedH11(H11Protocol):
    header_timeout = 10.0

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._header_timer: asyncio.TimerHandle | None = None

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
        self._check_timer()

    def handle_websocket_upgrade(self, event: Any) -> None:
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
        super().connection_lost(exc)


def timed_h11(header_timeout: float) -> type[asyncio.Protocol]:
    """An h11 protocol class that allows ``header_timeout`` seconds for a request's headers."""
    return type("TimedH11", (_TimedH11,), {"header_timeout": header_timeout})


class TimedH11(_TimedH11):
    """The protocol class that ``nugar serve --workers`` names to uvicorn by its import path
    (a class made by :func:`timed_h11` cannot be sent to a worker process); each worker sets
    its ``header_timeout`` before serving (:mod:`.worker`)."""
