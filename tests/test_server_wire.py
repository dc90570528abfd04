"""What the server's speed work must keep: a move's answer and the event every listener gets
carry the JSON of the same update, encoded once (:mod:`nugar.server.play.wire`); a process that
hears its own change announced does no extra work for it; and the HTTP parsers ``nugar
serve`` runs (httptools when installed, else h11) both bound a request's head in size and in
time."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import uvicorn

from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.http.http_timeouts import MAX_HEAD_BYTES, timed_h11, timed_protocol
from nugar.server.play.room import Listener
from nugar.server.play.rooms import Hub
from nugar.server.play.wire import Encoded, dumps, event_message, text_of


def test_a_change_is_encoded_once_for_the_answer_and_every_listener(db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub

    async def run() -> None:
        room, keys = await hub.create("dara", "friend", None, None)
        one, two = Listener(), Listener()
        room.listeners.update((one, two))
        answer = await hub.move(room.row.id, keys["1"], "c3", expect=1)
        assert isinstance(answer, Encoded)
        assert json.loads(answer.text) == answer and answer.text == dumps(dict(answer))
        first, second = one.queue.get_nowait(), two.queue.get_nowait()
        assert first is second  # one message object for every listener
        assert first["update"] is answer
        # the text made around the update's is what encoding the whole message gives
        assert text_of(first) == dumps({"type": "move", "v": 2, "data": first["data"],
                                        "update": dict(answer)})
        assert answer["new_moves"] == ["c3"] and answer["v"] == 2
        await hub.close()

    asyncio.run(run())


def test_event_texts_without_an_update_and_plain_messages() -> None:
    msg = event_message("undo", 7, {"moves": ["c3", "é"]}, None)
    assert json.loads(msg.text) == {"type": "undo", "v": 7, "data": {"moves": ["c3", "é"]},
                                    "update": None}
    assert "é" in msg.text  # UTF-8 as it is, like the answers
    assert text_of({"type": "pong", "v": 3}) == '{"type":"pong","v":3}'


def test_hearing_its_own_change_before_its_commit_costs_no_read(db_url: str) -> None:
    """On PostgreSQL a process hears its own change announced, sometimes before the commit
    is seen by the request that made it; the room watched by a listener must not then be
    "refreshed" by reading the store (a wasted read per move), nor announce twice."""
    from concurrent.futures import Future

    from nugar.server.storage.store import GameRow, Store, StoredEvent

    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub
    store: Store = app.state.store
    real_submit, real_load = store.submit, store.load
    loads: list[str] = []

    async def run() -> None:
        room, keys = await hub.create("dara", "friend", None, None)
        gid = room.row.id
        watcher = Listener()
        room.listeners.add(watcher)

        def announced_first(row: GameRow, ev: StoredEvent) -> Future[None]:
            hub.heard(gid, ev.version, ev)  # what the listening connection passes on
            return real_submit(row, ev)

        def counted_load(game_id: str) -> GameRow | None:
            loads.append(game_id)
            return real_load(game_id)

        store.write = lambda row, ev: asyncio.wrap_future(  # type: ignore[method-assign]
            announced_first(row, ev))
        store.load = counted_load  # type: ignore[method-assign]
        for move, key in (("c3", "1"), ("d4", "2"), ("e4", "1")):
            await hub.move(gid, keys[key], move)
        if room.following is not None:
            await room.following
        assert loads == []
        got = [watcher.queue.get_nowait()["v"] for _ in range(watcher.queue.qsize())]
        assert got == [2, 3, 4]
        await hub.close()

    asyncio.run(run())


def test_only_announcements_of_newer_versions_of_held_games_are_read(db_url: str) -> None:
    from nugar.server.play.listen import _head

    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub

    async def run() -> None:
        room, _keys = await hub.create("dara", "friend", None, None)
        gid = room.row.id
        assert _head(f'{gid} 1 created {{"rules": "dara"}}') == (gid, 1)
        assert _head("junk") == ("junk", 0) and _head("x y z") == ("x", 0)
        assert not hub.behind(gid, 1)  # its own version: nothing to read
        assert hub.behind(gid, 2)  # a newer one stored elsewhere
        assert not hub.behind("0123456789abcdef", 7)  # a game this process does not hold
        await hub.close()

    asyncio.run(run())


def test_a_served_app_freezes_what_start_up_made_before_any_room(db_url: str) -> None:
    """``nugar serve`` leaves the start-up's objects out of the garbage collector's walks,
    and does it before any room exists (a frozen room's cycles would never be freed); it
    collects the youngest objects less often."""
    import gc

    from fastapi.testclient import TestClient

    from nugar.server.app import GC_YOUNG

    plain = create_app(ServerConfig(db_url, rate=None))
    threshold = gc.get_threshold()
    with TestClient(plain):
        assert gc.get_freeze_count() == 0  # the default (tests, embedding): nothing frozen
        assert gc.get_threshold() == threshold
    served = create_app(ServerConfig(db_url, rate=None, tune_gc=True))
    try:
        with TestClient(served) as client:
            assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] == GC_YOUNG
            made = client.post("/api/games", json={"rules": "dara", "mode": "hotseat"})
            assert made.status_code == 201
            room = served.state.hub.rooms[made.json()["id"]]
            # a room is walked by the collector as usual (the frozen objects are not listed)
            assert any(o is room for o in gc.get_objects())
            assert not any(o is served for o in gc.get_objects())  # the app is frozen
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


class _Compiling:
    """A warm-up that finishes when told, telling its subscribers from another thread."""

    def __init__(self) -> None:
        self.finished = False
        self.listeners: list[Callable[[Any], None]] = []

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        self.listeners.append(callback)
        return lambda: self.listeners.remove(callback)

    def finish(self) -> None:
        def run() -> None:
            self.finished = True
            for callback in list(self.listeners):
                callback(SimpleNamespace(finished=True))

        thread = threading.Thread(target=run)
        thread.start()
        thread.join()


def test_the_warm_up_is_frozen_too_unless_a_room_exists(db_url: str) -> None:
    import gc

    from nugar.server.app import _freeze_after_warm_up

    app = create_app(ServerConfig(db_url, rate=None))
    hub: Hub = app.state.hub
    engine = _Compiling()

    async def run() -> None:
        waiting = asyncio.create_task(_freeze_after_warm_up(engine, hub))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert not waiting.done() and gc.get_freeze_count() == 0  # still compiling
        engine.finish()
        await asyncio.wait_for(waiting, 5)
        assert gc.get_freeze_count() > 0 and not engine.listeners  # frozen, unsubscribed
        gc.unfreeze()
        await hub.create("dara", "hotseat", None, None)
        await asyncio.wait_for(_freeze_after_warm_up(engine, hub), 5)  # type: ignore[arg-type]
        assert gc.get_freeze_count() == 0  # a room exists: left as it is
        await hub.close()

    try:
        asyncio.run(run())
    finally:
        gc.unfreeze()


# --- the HTTP parsers ---------------------------------------------------------------------------
async def _hello(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture(params=["h11", "httptools"])
def port(request: pytest.FixtureRequest) -> Iterator[int]:
    """uvicorn on a free port with the protocol ``nugar serve`` would run, 0.5 s for a
    request's headers."""
    if request.param == "h11":
        protocol = timed_h11(0.5)
    else:
        pytest.importorskip("httptools")
        protocol = timed_protocol(0.5)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = s.getsockname()[1]
    config = uvicorn.Config(_hello, host="127.0.0.1", port=free, http=protocol,
                            log_level="critical", lifespan="off",
                            h11_max_incomplete_event_size=MAX_HEAD_BYTES)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < end, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield free
    finally:
        server.should_exit = True
        thread.join(10)


def _exchange(port: int, data: bytes, wait: float = 3.0) -> tuple[bytes, float]:
    """Send ``data``; what came back until the server closed, and after how long."""
    start = time.monotonic()
    got = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(wait)
        try:
            sock.sendall(data)
            while chunk := sock.recv(65536):
                got += chunk
        except (TimeoutError, OSError):
            pass
    return got, time.monotonic() - start


def test_both_parsers_serve_and_bound_the_head(port: int) -> None:
    got, _ = _exchange(port, b"GET / HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n")
    assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"ok")
    # a head far longer than the bound is refused and the connection closed (h11 checks
    # what it holds unparsed, so a head just over the bound may pass it in one read)
    long = b"GET / HTTP/1.1\r\nhost: t\r\nx-big: " + b"a" * (64 * MAX_HEAD_BYTES) + b"\r\n\r\n"
    got, took = _exchange(port, long)
    assert got.startswith(b"HTTP/1.1 400") and took < 2.5
    # headers that never end are cut off after the header timeout
    got, took = _exchange(port, b"GET / HTTP/1.1\r\nhost: t\r\n")
    assert got == b"" and 0.3 < took < 2.5
