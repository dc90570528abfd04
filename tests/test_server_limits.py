"""The web server's bounds: a websocket listener's queue, slow headers and bodies, and the
number of connections at once (``nugar serve`` on a free loopback port)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any

import httpx
import pytest

from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.http.routes_ws import RESYNC_CLOSE, GameSocket
from nugar.server.play.room import LISTENER_QUEUE, Listener
from nugar.server.play.rooms import Hub
from serving import serving


async def _flip(hub: Hub, gid: str, key: str, events: int) -> None:
    """``events`` changes of a hot-seat Dara game: a move, its undo, and again."""
    for i in range(events):
        if i % 2 == 0:
            await hub.move(gid, key, "c3")
        else:
            await hub.undo(gid, key)


def test_a_listener_that_never_reads_is_dropped_and_the_others_get_every_event(
        db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub
    events = LISTENER_QUEUE + 10

    async def run() -> None:
        room, keys = await hub.create("dara", "hotseat", None, None)
        gid = room.row.id
        slow, fast = Listener(), Listener()
        room.listeners.update((slow, fast))
        heard: list[int] = []
        sizes: list[int] = []
        for i in range(events):
            if i % 2 == 0:
                await hub.move(gid, keys["0"], "c3")
            else:
                await hub.undo(gid, keys["0"])
            sizes.append(slow.queue.qsize())
            while not fast.queue.empty():
                heard.append(fast.queue.get_nowait()["v"])
            # the slow listener stays until an event finds its queue full
            assert (slow in room.listeners) == (i < LISTENER_QUEUE)
        assert max(sizes) == LISTENER_QUEUE  # never more than the bound
        assert slow.dropped.is_set() and not fast.dropped.is_set()
        # what the slow one holds is the first events, in order; the fast one heard them all
        held = [slow.queue.get_nowait()["v"] for _ in range(slow.queue.qsize())]
        assert held == list(range(2, 2 + LISTENER_QUEUE))
        assert heard == list(range(2, 2 + events))
        assert room.listeners == {fast}
        await hub.close()

    asyncio.run(run())


class _NeverReads:
    """A websocket whose client takes the catch-up and then never reads nor writes."""

    def __init__(self) -> None:
        self.sent = 0
        self.closed: tuple[int, str] | None = None
        self.query_params: dict[str, str] = {}

    async def send_text(self, text: str) -> None:  # events go out as prepared text
        self.sent += 1
        if self.sent > 1:
            await asyncio.Event().wait()  # the client's buffers are full: blocks forever

    async def send_json(self, msg: dict[str, Any]) -> None:
        await self.send_text(str(msg))

    async def receive_text(self) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = (code, reason or "")


def test_a_socket_that_falls_behind_is_closed_with_the_resync_code(db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub

    async def run() -> None:
        room, keys = await hub.create("dara", "hotseat", None, None)
        ws = _NeverReads()
        task = asyncio.create_task(GameSocket(ws, hub, room).run(None))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert len(room.listeners) == 1 and ws.sent == 1
        await _flip(hub, room.row.id, keys["0"], LISTENER_QUEUE + 3)
        await asyncio.wait_for(task, 5)  # the socket's handler ends once dropped
        assert ws.closed is not None
        code, reason = ws.closed
        assert code == RESYNC_CLOSE and "?since=1" in reason  # it was sent version 1
        assert not room.listeners
        await hub.close()

    asyncio.run(run())


def test_a_body_that_does_not_arrive_in_time_gets_408() -> None:
    from nugar.server.http.middleware import Guard

    reached: list[bytes] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append((await receive())["body"])

    async def run() -> list[MutableMapping[str, Any]]:
        guard = Guard(app, max_body=1000, rate=None, burst=1, body_timeout=0.2)
        out: list[MutableMapping[str, Any]] = []
        parts = [b"ab", b"cd"]

        async def receive() -> dict[str, Any]:
            await asyncio.sleep(0.15)  # each piece in time, the whole not
            return {"type": "http.request", "body": parts.pop(0) if parts else b"x",
                    "more_body": True}

        async def send(message: MutableMapping[str, Any]) -> None:
            out.append(message)

        start = time.monotonic()
        await guard({"type": "http", "headers": [], "client": ("1.2.3.4", 5)}, receive, send)
        assert time.monotonic() - start < 0.5
        return out

    out = asyncio.run(run())
    assert out[0]["status"] == 408 and (b"connection", b"close") in out[0]["headers"]
    assert b"body_timeout" in out[1]["body"] and not reached


def test_serve_refuses_bad_bounds() -> None:
    for extra in (["--limit-concurrency", "0"], ["--header-timeout", "0"],
                  ["--body-timeout", "-1"]):
        proc = subprocess.run([sys.executable, "-m", "nugar", "serve", "--db", "sqlite://",
                               *extra], capture_output=True, text=True, timeout=60)
        assert proc.returncode != 0
        assert extra[0] in proc.stderr and "Traceback" not in proc.stderr


# --- a real server ----------------------------------------------------------------------------
@pytest.fixture()
def served(tmp_path: Path) -> Iterator[int]:
    """``nugar serve`` with 1 s header and body timeouts and at most 4 connections."""
    with serving(tmp_path / "g.db", "--rate", "0", "--header-timeout", "1",
                 "--body-timeout", "1", "--limit-concurrency", "4") as (_proc, base):
        yield int(base.rsplit(":", 1)[1])


def _trickle(port: int, pieces: list[bytes], pause: float) -> tuple[bytes, float]:
    """Send ``pieces`` one every ``pause`` seconds, then wait; what the server answered and
    after how many seconds it closed the connection."""
    start = time.monotonic()
    got = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(pause)
        queue = list(pieces)
        while time.monotonic() - start < 8:
            if queue:
                try:
                    sock.sendall(queue.pop(0))
                except OSError:
                    break
            try:
                data = sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
            if not data:
                break
            got += data
    return got, time.monotonic() - start


def test_slow_headers_are_cut_off(served: int) -> None:
    lines = [b"GET / HTTP/1.1\r\n"] + [f"X-Slow-{i}: y\r\n".encode() for i in range(40)]
    got, took = _trickle(served, lines, 0.25)
    assert got == b"" and took < 2.5  # closed after about 1 s, mid-headers
    got, took = _trickle(served, [], 0.25)  # a connection that never sends a byte
    assert got == b"" and took < 2.5


def test_a_slow_body_gets_408(served: int) -> None:
    head = (b"POST /api/games HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: 40\r\n\r\n")
    got, took = _trickle(served, [head] + [b" "] * 39, 0.25)
    assert got.startswith(b"HTTP/1.1 408") and b"body_timeout" in got
    assert took < 2.5
    # a request sent at once is served as before
    r = httpx.post(f"http://127.0.0.1:{served}/api/games", json={"rules": "dara",
                                                                 "mode": "hotseat"})
    assert r.status_code == 201


def test_connections_beyond_the_limit_get_503(served: int) -> None:
    idle = [socket.create_connection(("127.0.0.1", served)) for _ in range(5)]
    try:
        time.sleep(0.2)
        r = httpx.get(f"http://127.0.0.1:{served}/favicon.ico", timeout=5)
        assert r.status_code == 503
    finally:
        for sock in idle:
            sock.close()
    time.sleep(0.3)
    assert httpx.get(f"http://127.0.0.1:{served}/favicon.ico", timeout=5).status_code == 200
