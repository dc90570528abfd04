"""Several ``nugar serve`` worker processes over one PostgreSQL database (started by the test
on a private port: tests/postgres.py): a worker killed with SIGKILL is replaced, no
acknowledged move is lost or doubled, spectators catch up by version, and concurrent moves to
one game on two workers are ordered by the database (exactly one wins)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from nugar.server.storage.store import Store
from postgres import postgres, require_binaries
from serving import free_port, serve_workers, worker_pids

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    require_binaries()
    with postgres() as url:
        yield url


def _holding(workers: list[int], port: int, clients: set[int]) -> list[int]:
    """The workers holding a server-side connection on ``port`` from one of the client
    ports ``clients`` (from /proc: each worker's socket inodes, and the kernel's TCP table)."""
    inodes: dict[str, int] = {}
    for pid in workers:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes[target[8:-1]] = pid
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            local, remote, state, inode = f[1], f[2], f[3], f[9]
            if (state == "01" and int(local.rsplit(":", 1)[1], 16) == port
                    and int(remote.rsplit(":", 1)[1], 16) in clients and inode in inodes):
                found.append(inodes[inode])
    return found


def test_sqlite_refuses_several_workers(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "nugar", "serve", "--workers", "2", "--db",
                        f"sqlite:///{tmp_path / 'g.db'}"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode != 0 and "PostgreSQL" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


class Player:
    """Both seats of one game, moving by HTTP with the version they saw; a request that got
    no answer (its worker died) is settled by asking for what changed since."""

    def __init__(self, base: str, rules: str, rng: random.Random) -> None:
        self.base = base
        self.rules = rules
        self.rng = rng
        self.acked: dict[int, str] = {}  # version -> the move acknowledged at it
        self.gid = ""
        self.keys: dict[str, str] = {}
        self.state: dict[str, object] = {}
        self.errors = 0

    async def play(self, client: httpx.AsyncClient, moves: int, pace: float) -> None:
        made = (await client.post("/api/games", json={"rules": self.rules,
                                                      "mode": "friend"})).json()
        self.gid, self.keys, self.state = made["id"], made["keys"], made["state"]
        for _ in range(moves):
            if self.state["over"]:
                return
            move = self.rng.choice(self.state["legal"])  # type: ignore[arg-type]
            v = int(self.state["v"])  # type: ignore[call-overload]
            body = {"key": self.keys[str(self.state["to_move"])], "move": move, "v": v}
            try:
                r = await client.post(f"/api/games/{self.gid}/move", json=body)
            except httpx.TransportError:
                r = None  # the worker died with the request: was it stored?
            if r is not None and r.status_code == 200:
                answer = r.json()
                assert answer["base"] == v and answer["new_moves"] == [move]
                self.acked[answer["v"]] = move
            else:
                if r is not None:
                    assert r.status_code in (409, 503), r.text
                self.errors += 1
            self.state = await self._current(client)
            await asyncio.sleep(pace)

    async def _current(self, client: httpx.AsyncClient) -> dict[str, object]:
        for _ in range(50):
            try:
                r = await client.get(f"/api/games/{self.gid}")
                if r.status_code == 200:
                    state: dict[str, object] = r.json()
                    return state
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.1)
        raise AssertionError("the game could not be read back")


async def _spectate(base: str, gid_of: Player, seen: dict[int, list[str]],
                    stop: asyncio.Event, reconnects: list[int], ports: set[int]) -> None:
    """Watch a game over websockets, reconnecting with ?since= whenever the socket drops;
    record each version's moves once."""
    while not gid_of.gid:
        await asyncio.sleep(0.01)
    last = 1
    ws_base = base.replace("http://", "ws://")
    while not stop.is_set():
        try:
            async with connect(f"{ws_base}/ws/games/{gid_of.gid}?since={last}",
                               open_timeout=10) as ws:
                ports.add(ws.local_address[1])
                while not stop.is_set():
                    try:
                        text = await asyncio.wait_for(ws.recv(), 0.5)
                    except TimeoutError:
                        continue
                    msg = json.loads(text)
                    if msg["type"] in ("uptodate", "pong", "error"):
                        continue
                    assert msg["type"] != "sync", "a spectator this close behind is caught up"
                    assert msg["v"] == last + 1, f"version {msg['v']} after {last}"
                    seen[msg["v"]] = msg["data"].get("moves", [])
                    last = msg["v"]
        except (OSError, WebSocketException, TimeoutError):
            reconnects.append(last)
            await asyncio.sleep(0.2)


def test_a_killed_worker_loses_and_doubles_no_acknowledged_move(pg_url: str,
                                                                 tmp_path: Path) -> None:
    proc, base = serve_workers(pg_url, tmp_path / "serve.log")
    try:
        first = worker_pids(proc.pid)
        players = [Player(base, ("dara", "kalah(pits=4,seeds=3)")[i % 2], random.Random(i))
                   for i in range(6)]
        seen: list[dict[int, list[str]]] = [{} for _ in players]
        reconnects: list[list[int]] = [[] for _ in players]
        ports: set[int] = set()
        port = int(base.rsplit(":", 1)[1])
        killed: list[int] = []

        async def run() -> None:
            stop = asyncio.Event()
            # fresh connections now and then, so both workers serve every game
            limits = httpx.Limits(max_connections=8, keepalive_expiry=0.3)
            async with httpx.AsyncClient(base_url=base, timeout=20, limits=limits) as client:
                watchers = [asyncio.create_task(_spectate(base, p, s, stop, r, ports))
                            for p, s, r in zip(players, seen, reconnects, strict=True)]
                games = [asyncio.create_task(p.play(client, 40, 0.03)) for p in players]
                end = time.monotonic() + 60  # mid-stream: every spectator on, moves played
                while len(ports) < len(players) or sum(len(p.acked) for p in players) < 12:
                    assert time.monotonic() < end, "the games did not start"
                    await asyncio.sleep(0.05)
                # the worker holding a spectator's socket (the kernel may give one worker
                # all of them)
                victims = _holding(first, port, set(ports))
                assert victims, "no worker holds a spectator's socket"
                killed.append(victims[0])
                os.kill(victims[0], signal.SIGKILL)
                await asyncio.gather(*games)
                await asyncio.sleep(1.0)  # the spectators catch up
                stop.set()
                await asyncio.gather(*watchers)

        asyncio.run(run())
        # the supervisor replaced the killed worker
        end = time.monotonic() + 30
        while len(worker_pids(proc.pid)) != 2 or killed[0] in worker_pids(proc.pid):
            assert time.monotonic() < end, "the killed worker was not replaced"
            time.sleep(0.2)
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
    store = Store(pg_url, create=False)
    try:
        assert sum(len(p.acked) for p in players) > 50
        assert sum(len(r) for r in reconnects) >= 1, "no spectator was on the killed worker"
        for player, watched in zip(players, seen, strict=True):
            journal = store.events_since(player.gid, 0, 1000)
            versions = [e.version for e in journal]
            assert versions == list(range(1, len(journal) + 1))  # no gap, nothing twice
            at = {e.version: e.data["moves"] for e in journal if e.type == "move"}
            for v, move in player.acked.items():
                assert at.get(v) == [move], f"acknowledged move {move} at {v} not stored"
            row = store.load(player.gid)
            assert row is not None and row.moves == [m for e in journal if e.type == "move"
                                                     for m in e.data["moves"]]
            # the spectator saw every stored version once, in order, across reconnects
            assert sorted(watched) == versions[1:]
            assert all(watched[v] == at[v] for v in at)
    finally:
        store.close()


async def _post(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str,
                body: dict[str, object]) -> tuple[int, dict[str, object]]:
    """One HTTP/1.1 request on an open connection (kept alive) and its JSON answer."""
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nhost: t\r\ncontent-type: application/json\r\n"
                 f"content-length: {len(data)}\r\n\r\n".encode() + data)
    status = int((await reader.readline()).split()[1])
    length = 0
    while (line := await reader.readline()) not in (b"\r\n", b""):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    answer: dict[str, object] = json.loads(await reader.readexactly(length))
    return status, answer


def test_concurrent_moves_on_two_workers_are_ordered_by_the_database(pg_url: str,
                                                                     tmp_path: Path) -> None:
    proc, base = serve_workers(pg_url, tmp_path / "serve.log")
    port = int(base.rsplit(":", 1)[1])
    try:
        async def run() -> None:
            workers = worker_pids(proc.pid)
            for _ in range(5):
                async with httpx.AsyncClient(base_url=base, timeout=20) as c:
                    made = (await c.post("/api/games", json={"rules": "dara",
                                                             "mode": "friend"})).json()
                gid, key = made["id"], made["keys"]["1"]
                legal = made["state"]["legal"]
                # connections until both workers hold some (the kernel hands each to one)
                conns = []
                try:
                    while len(conns) < 40:
                        conns.append(await asyncio.open_connection("127.0.0.1", port))
                        await asyncio.sleep(0.02)
                        mine = {w.get_extra_info("sockname")[1] for _r, w in conns}
                        if len(conns) >= 8 and len(set(_holding(workers, port, mine))) == 2:
                            break
                    mine = {w.get_extra_info("sockname")[1] for _r, w in conns}
                    assert set(_holding(workers, port, mine)) == set(workers)
                    # each asks to play a different first move, half with the version seen
                    answers = await asyncio.gather(*(
                        _post(r, w, f"/api/games/{gid}/move",
                              {"key": key, "move": legal[i], **({"v": 1} if i % 2 else {})})
                        for i, (r, w) in enumerate(conns)))
                finally:
                    for _r, w in conns:
                        w.close()
                won = [a for status, a in answers if status == 200]
                assert len(won) == 1, answers
                assert {a["error"] for status, a in answers if status != 200} <= {
                    "not_your_turn", "stale_version"}
                async with httpx.AsyncClient(base_url=base, timeout=20) as c:
                    state = (await c.get(f"/api/games/{gid}")).json()
                assert state["v"] == 2 and state["moves"] == won[0]["new_moves"]
                store = Store(pg_url, create=False)
                try:
                    journal = store.events_since(gid, 0, 10)
                finally:
                    store.close()
                assert [e.type for e in journal] == ["created", "move"]

        asyncio.run(run())
    finally:
        proc.terminate()
        proc.wait(30)


# --- clocks and the lobby across processes -----------------------------------------------------
def _serve_one(url: str, log: Path) -> tuple[subprocess.Popen[bytes], str]:
    """One more ``nugar serve`` process (one worker) on the same database, on its own port:
    two of them are two workers a test can address one by one."""
    port = free_port()
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nugar", "serve", "--port", str(port), "--db", url,
             "--rate", "0"], stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/api/levels", timeout=1).status_code == 200:
                return proc, base
        except (httpx.HTTPError, OSError):
            pass
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise AssertionError(f"nugar serve did not start: "
                                 f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)


async def _until(ws: ClientConnection, want: Callable[[dict[str, Any]], bool],
                 timeout: float = 15) -> dict[str, Any]:
    """The first message on ``ws`` for which ``want(msg)`` holds."""
    end = time.monotonic() + timeout
    while True:
        text = await asyncio.wait_for(ws.recv(), max(0.1, end - time.monotonic()))
        msg: dict[str, Any] = json.loads(text)
        if want(msg):
            return msg


def test_the_lobby_and_clocks_span_workers(pg_url: str, tmp_path: Path) -> None:
    """A challenge posted on one worker is listed live on the other and accepted through
    either, by exactly one of several concurrent accepters; the game's clocks, stamped by
    whichever worker stores a move, reach the other worker's spectators; both workers watch
    the clocks, and a flag falls once."""
    one, base_one = _serve_one(pg_url, tmp_path / "one.log")
    two, base_two = _serve_one(pg_url, tmp_path / "two.log")
    ws_one = base_one.replace("http://", "ws://")
    ws_two = base_two.replace("http://", "ws://")

    async def run() -> str:
        async with httpx.AsyncClient(base_url=base_one, timeout=20) as a, \
                httpx.AsyncClient(base_url=base_two, timeout=20) as b:
            async with connect(f"{ws_two}/ws/lobby", open_timeout=10) as watcher:
                first = json.loads(await watcher.recv())
                assert first["type"] == "lobby"
                posted = await a.post("/api/challenges", json={
                    "rules": "dara", "clock": "0.05+0", "colour": "first"})
                assert posted.status_code == 201, posted.text
                cid, owner_key = posted.json()["challenge"]["id"], posted.json()["key"]
                # worker two's lobby socket hears of it (PostgreSQL NOTIFY)
                await _until(watcher, lambda m: any(
                    c["id"] == cid for c in m.get("challenges", [])))
                listed = (await b.get("/api/lobby")).json()["challenges"]
                assert [c["id"] for c in listed] == [cid]
                async with connect(f"{ws_one}/ws/lobby?creator=1",
                                   open_timeout=10) as creator:
                    await creator.send(json.dumps({"type": "key", "key": owner_key}))
                    # several accepters at once, half on each worker: exactly one wins
                    clients = [a, b] * 4
                    answers = await asyncio.gather(*(
                        c.post(f"/api/challenges/{cid}/accept", json={}) for c in clients))
                    won = [r for r in answers if r.status_code == 201]
                    assert len(won) == 1, [r.text for r in answers]
                    assert {r.json()["error"] for r in answers if r.status_code != 201} == {
                        "already_accepted"}
                    seat = won[0].json()
                    assert seat["seat"] == 2
                    told = await _until(creator, lambda m: m.get("type") == "accepted")
                    assert told["game"] == seat["id"] and told["seat"] == 1
                await _until(watcher, lambda m: m.get("type") == "lobby"
                             and not m["challenges"])
            gid = seat["id"]
            # the creator moves on worker one, the accepter on worker two; a spectator on
            # worker one sees the clocks worker two stamped
            async with connect(f"{ws_one}/ws/games/{gid}", open_timeout=10) as spectator:
                await _until(spectator, lambda m: m["type"] == "sync")
                state = (await a.get(f"/api/games/{gid}")).json()
                moved = await a.post(f"/api/games/{gid}/move", json={
                    "key": told["key"], "move": state["legal"][0], "v": state["v"]})
                assert moved.status_code == 200, moved.text
                state = (await b.get(f"/api/games/{gid}")).json()
                assert state["clock"]["running"] == 2  # worker two read worker one's stamp
                moved = await b.post(f"/api/games/{gid}/move", json={
                    "key": seat["key"], "move": state["legal"][0], "v": state["v"]})
                assert moved.status_code == 200, moved.text
                heard = await _until(spectator, lambda m: m.get("v") == 3)
                clock = (heard.get("update") or heard["state"])["clock"]
                assert clock["running"] == 1 and clock["control"] == "0.05+0"
                assert 2.0 < clock["left"][0] <= 3.0 and 2.0 < clock["left"][1] <= 3.0
                # nobody moves: both workers' watchers find the game overdue; one flag
                flag = await _until(spectator, lambda m: m.get("type") == "flag", timeout=20)
                assert flag["data"] == {"player": 1, "termination": "time", "winner": 2}
            await asyncio.sleep(2.5)  # both watchers looked again meanwhile
            for c in (a, b):
                over = (await c.get(f"/api/games/{gid}")).json()
                assert over["over"] and over["reason"] == "time" and over["v"] == 4
        return str(gid)

    try:
        gid = asyncio.run(run())
    finally:
        for proc in (one, two):
            proc.terminate()
            proc.wait(30)
    store = Store(pg_url, create=False)
    try:  # one flag stored, not one per worker
        assert [e.type for e in store.events_since(gid, 0, 100)] == [
            "created", "move", "move", "flag"]
    finally:
        store.close()


def test_one_transaction_writes_many_games_and_refuses_only_the_stale_one(pg_url: str) -> None:
    """The writer's PostgreSQL statements for a whole transaction (one update of every game
    row, its version checked, one insert of the journal entries, one announcement each):
    the stale change is refused, the others are written and announced, clocks and all."""
    from concurrent.futures import Future

    import psycopg

    from nugar.server.storage.store import CHANNEL, GameRow, StoredEvent, VersionConflict

    store = Store(pg_url)
    rows = []
    for i in range(4):
        row = GameRow(id=f"batch{i}{random.randrange(10**9)}", rules="dara", mode="friend",
                      ai_level=None, ai_seat=None, key_hash_1="a", key_hash_2="b", moves=[],
                      ending=None, offers={}, result=None, reason=None, version=1)
        store.create(row, StoredEvent(1, "created", {"rules": "dara"}))
        rows.append(row)
    changes = []
    for i, row in enumerate(rows):
        before = 1 if i != 2 else 5  # the third expects a version the game is not at
        new = GameRow(**{**row.__dict__, "moves": ["c3"], "version": before + 1,
                         "clock": {"left": [60.0, 60.0]} if i == 1 else None,
                         "deadline": 1.5e9 if i == 1 else None,
                         "offers": {"draw": 1} if i == 3 else {}})
        changes.append((new, StoredEvent(before + 1, "move", {"player": 1, "moves": ["c3"]}),
                        Future()))
    with psycopg.connect(store.listen_url(), autocommit=True) as listener:
        listener.execute(f"LISTEN {CHANNEL}")
        store._write_batch(list(changes))
        heard = [n.payload for n in listener.notifies(timeout=2, stop_after=3)]
    outcomes = [f.exception(timeout=5) for _r, _e, f in changes]
    assert [o is None for o in outcomes] == [True, True, False, True]
    assert isinstance(outcomes[2], VersionConflict)
    for i, row in enumerate(rows):
        loaded = store.load(row.id)
        assert loaded is not None
        assert (loaded.version, loaded.moves) == ((2, ["c3"]) if i != 2 else (1, []))
        versions = [e.version for e in store.events_since(row.id, 0, 10)]
        assert versions == ([1, 2] if i != 2 else [1])
    one = store.load(rows[1].id)
    assert one is not None and one.clock == {"left": [60.0, 60.0]} and one.deadline == 1.5e9
    three = store.load(rows[3].id)
    assert three is not None and three.offers == {"draw": 1}
    assert sorted(p.split(" ", 2)[0] for p in heard) == sorted(
        rows[i].id for i in (0, 1, 3))
    store.close()


class _On:
    """An HTTP connection held open to one worker (found from /proc by its client port)."""

    def __init__(self, port: int) -> None:
        import http.client

        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.conn.connect()
        assert self.conn.sock is not None
        self.client_port: int = self.conn.sock.getsockname()[1]

    def ask(self, method: str, path: str, body: dict[str, Any] | None = None
            ) -> tuple[int, Any]:
        self.conn.request(method, path, body=None if body is None else json.dumps(body),
                          headers={"content-type": "application/json"})
        r = self.conn.getresponse()
        assert self.conn.sock is not None, "the worker closed the connection"
        assert self.conn.sock.getsockname()[1] == self.client_port, "reconnected elsewhere"
        return r.status, json.loads(r.read() or b"null")


def test_analyses_started_on_one_worker_are_read_on_the_other(pg_url: str,
                                                              tmp_path: Path) -> None:
    """A game's analysis and a pasted record's, each started through one worker, are read
    back through the other (they are stored in the database, not in a worker's memory)."""
    from nugar.record import dumps
    from nugar.rules import new_game

    proc, base = serve_workers(pg_url, tmp_path / "serve.log")
    port = int(base.rsplit(":", 1)[1])
    try:
        workers = worker_pids(proc.pid)
        by_worker: dict[int, _On] = {}
        spare = []
        end = time.monotonic() + 30
        while len(by_worker) < 2:  # connections until each worker holds one
            assert time.monotonic() < end, "the kernel gave every connection to one worker"
            on = _On(port)
            on.ask("GET", "/api/levels")
            held = _holding(workers, port, {on.client_port})
            if held and held[0] not in by_worker:
                by_worker[held[0]] = on
            else:
                spare.append(on)
        one, two = by_worker.values()

        def keep(on: _On) -> None:  # uvicorn closes a connection idle for 5 s (keep-alive)
            assert on.ask("GET", "/api/levels")[0] == 200

        # a finished game (hot-seat, ended by a resignation after two turns)
        status, made = one.ask("POST", "/api/games", {"rules": "kalah(pits=3,seeds=3)",
                                                       "mode": "hotseat"})
        assert status == 201, made
        gid, key = made["id"], next(iter(made["keys"].values()))
        for _ in range(2):
            status, state = one.ask("GET", f"/api/games/{gid}")
            one.ask("POST", f"/api/games/{gid}/move", {"key": key, "move": state["legal"][0]})
        assert one.ask("POST", f"/api/games/{gid}/resign", {"key": key})[0] == 200
        keep(two)
        game = new_game("kalah(pits=3,seeds=3)")
        for _ in range(3):
            game.play(game.legal_moves()[-1])
        status, started = one.ask("POST", "/api/replay/analysis", {"record": dumps(game)})
        assert status == 202, started
        rid = started["id"]
        keep(two)
        status, started = one.ask("POST", f"/api/games/{gid}/analysis")
        assert status == 202 and started["started"], started
        keep(two)
        end = time.monotonic() + 240
        while True:  # read through the other worker until both are done
            status, theirs = two.ask("GET", f"/api/games/{gid}/analysis")
            status2, record = two.ask("GET", f"/api/replay/analysis/{rid}")
            assert status == 200 and theirs["started"], theirs
            assert status2 == 200 and record["started"], record
            if theirs["done"] and record["done"]:
                break
            assert time.monotonic() < end, (theirs, record)
            time.sleep(0.2)
        assert one.ask("GET", f"/api/games/{gid}/analysis")[1] == theirs
        assert one.ask("GET", f"/api/replay/analysis/{rid}")[1] == record
        assert [p["ply"] for p in record["plies"]] == [0, 1, 2, 3]
        for on in (one, two, *spare):
            on.conn.close()
    finally:
        proc.terminate()
        proc.wait(30)


def test_the_sign_in_limits_hold_across_workers(pg_url: str, tmp_path: Path) -> None:
    """The sign-in counts were per process: on 2 workers one name got 10 guesses from one
    address instead of 5 (issue 42, item 7). They are the database's now: whichever worker
    answers, the sixth guess is refused."""
    proc, base = serve_workers(pg_url, tmp_path / "serve.log")
    try:
        codes = []
        for _ in range(10):  # a connection each, so both workers answer some
            r = httpx.post(base + "/api/session", json={"username": "heidi",
                                                        "password": "guess-guess"},
                           headers={"Connection": "close"}, timeout=30)
            codes.append(r.status_code)
        assert codes == [401] * 5 + [429] * 5, codes
    finally:
        proc.terminate()
        proc.wait(30)
