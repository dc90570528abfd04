"""Load and reliability check of the web server, on loopback only.

Starts ``nugar serve`` in a subprocess on 127.0.0.1, then plays many games at once through
the JSON API, each watched by a websocket spectator. Both players of a game pick random legal
moves from what the server answers (each move sends the version it was decided on). At the
end it checks, for every game, that the moves the players made, the moves the server stored,
the events the spectator saw and the stored event journal are the same list: nothing lost,
nothing doubled.

One run measures, in turn: one worker on a SQLite file, one and ``--workers`` workers on
PostgreSQL, and a no-op FastAPI endpoint served the same way (the ceiling of the HTTP stack
and of this client on this machine). Without ``--db``, the PostgreSQL runs use a private
server started for the run from Debian's packages (as the tests do); ``--no-postgres`` skips
them.

    python benchmarks/load_server.py --games 200 --concurrency 32 --workers 2
    python benchmarks/load_server.py --db postgresql+psycopg://USER@HOST/DB --workers 2
    python benchmarks/load_server.py --write-docs   # replace the section in docs/benchmarks.md
    python benchmarks/load_server.py --only sqlite --no-fast-lane  # every request routed

The players speak HTTP/1.1 over a few kept-alive connections with a small client of their own
(a general client such as httpx spends more time per request than the server does), so the
figures measure the server rather than the client. Each configuration is bounded by
``--games`` and by ``--time-limit`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

HOST = "127.0.0.1"
RULES = ("kalah(pits=4,seeds=3)", "dara", "dracala")
MAX_MOVES = 80  # a game still running after this many moves is resigned
ROOT = Path(__file__).resolve().parents[1]


@dataclass
class GameLog:
    gid: str
    rules: str
    played: list[str] = field(default_factory=list)
    seen_versions: list[int] = field(default_factory=list)
    seen_moves: list[str] = field(default_factory=list)
    stored_moves: list[str] = field(default_factory=list)
    final_version: int = 0
    done: bool = False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


# --- a small HTTP/1.1 client -------------------------------------------------------------------
class HttpError(RuntimeError):
    pass


class Connection:
    """One kept-alive HTTP/1.1 connection: a request, then its answer (with Content-Length)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = b"" if body is None else json.dumps(body).encode()
        head = (f"{method} {path} HTTP/1.1\r\nhost: {HOST}\r\ncontent-length: {len(data)}\r\n"
                + ("content-type: application/json\r\n" if body is not None else "") + "\r\n")
        self.writer.write(head.encode() + data)
        try:  # the status line and headers in one read
            lines = (await self.reader.readuntil(b"\r\n\r\n")).lower().split(b"\r\n")
        except asyncio.IncompleteReadError:
            raise HttpError("the server closed the connection") from None
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            if line.startswith(b"content-length:"):
                length = int(line[15:])
        raw = await self.reader.readexactly(length)
        return status, json.loads(raw) if raw else None


class Client:
    """A pool of kept-alive connections to one server."""

    def __init__(self, port: int, size: int) -> None:
        self.port = port
        self.free: asyncio.Queue[Connection] = asyncio.Queue()
        self.size = size
        self.opened = 0

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        for attempt in range(2):
            fresh = self.free.empty() and self.opened < self.size
            if fresh:
                self.opened += 1
                conn = Connection(*await asyncio.open_connection(HOST, self.port))
            else:
                conn = await self.free.get()
            try:
                answer = await conn.request(method, path, body)
            except (HttpError, ConnectionResetError):
                self.opened -= 1
                conn.writer.close()
                if fresh or attempt:
                    raise
                continue  # an idle connection the server had closed: once more on a new one
            except BaseException:
                self.opened -= 1
                conn.writer.close()
                raise
            self.free.put_nowait(conn)
            return answer
        raise AssertionError("unreachable")

    async def close(self) -> None:
        while not self.free.empty():
            self.free.get_nowait().writer.close()


# --- the players and the spectator -------------------------------------------------------------
async def _watch(base_ws: str, log: GameLog, ready: asyncio.Event) -> None:
    async with connect(f"{base_ws}/ws/games/{log.gid}?since=1", open_timeout=60,
                       max_size=2**22) as ws:
        ready.set()
        while True:
            msg = json.loads(await ws.recv())
            if msg.get("type") in ("move", "resign", "undo", "takeback"):
                log.seen_versions.append(msg["v"])
                if msg["type"] == "move":
                    log.seen_moves.extend(msg["data"]["moves"])
            elif msg.get("type") == "uptodate":
                continue
            update = msg.get("update") or msg.get("state")
            if update and update["over"] and log.seen_versions and \
                    log.seen_versions[-1] == update["v"]:
                return


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop for the client when it is installed (the server's dependencies
    bring it): the client shares the machine's cores with the server, so it should cost as
    little as it can."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def _check(status: int, answer: Any) -> Any:
    if status != 200 and status != 201:
        raise HttpError(f"HTTP {status}: {answer}")
    return answer


async def _play_one(client: Client, base_ws: str, rules: str, rng: random.Random,
                    latencies: list[float], watch: bool) -> GameLog:
    made = _check(*await client.request("POST", "/api/games",
                                        {"rules": rules, "mode": "friend"}))
    log = GameLog(made["id"], rules)
    keys = made["keys"]
    watcher = None
    if watch:
        ready = asyncio.Event()
        watcher = asyncio.create_task(_watch(base_ws, log, ready))
        await asyncio.wait_for(ready.wait(), 90)
    state = made["state"]
    while not state["over"]:
        key = keys[str(state["to_move"])]
        if len(log.played) >= MAX_MOVES:
            state = _check(*await client.request("POST", f"/api/games/{log.gid}/resign",
                                                 {"key": key}))
            break
        move = rng.choice(state["legal"])
        t0 = time.perf_counter()
        state = _check(*await client.request("POST", f"/api/games/{log.gid}/move",
                                             {"key": key, "move": move, "v": state["v"]}))
        latencies.append(time.perf_counter() - t0)
        log.played.append(move)
    if watcher is not None:
        await asyncio.wait_for(watcher, 90)
    final = _check(*await client.request("GET", f"/api/games/{log.gid}"))
    log.stored_moves = final["moves"]
    log.final_version = final["v"]
    log.done = True
    return log


async def _play_noop(client: Client, rng: random.Random, latencies: list[float]) -> GameLog:
    """A "game" against the no-op endpoint: the same requests, answered without work."""
    log = GameLog("noop", "noop")
    for i in range(MAX_MOVES // 2):
        t0 = time.perf_counter()
        _check(*await client.request("POST", "/noop", {"key": "k" * 24, "move": str(i),
                                                       "v": i + 1}))
        latencies.append(time.perf_counter() - t0)
        log.played.append(str(i))
    return log


async def _run(port: int, games: int, concurrency: int, time_limit: float, seed: int,
               noop: bool, mark: Callable[[], None] = lambda: None
               ) -> tuple[list[GameLog], list[float], float]:
    """Play; ``mark()`` is called when the timed part starts and when it ends."""
    base_ws = f"ws://{HOST}:{port}"
    latencies: list[float] = []
    logs: list[GameLog] = []
    rng = random.Random(seed)
    sem = asyncio.Semaphore(concurrency)
    deadline = time.monotonic() + time_limit
    client = Client(port, concurrency)

    async def one(i: int) -> None:
        async with sem:
            if time.monotonic() > deadline:
                return
            r = random.Random(rng.random())
            if noop:
                logs.append(await _play_noop(client, r, latencies))
            else:
                logs.append(await _play_one(client, base_ws, RULES[i % len(RULES)], r,
                                            latencies, True))

    # a few games first, not timed: the server's first requests compile and load
    warm: list[float] = []
    for i in range(2):
        if noop:
            await _play_noop(client, random.Random(i), warm)
        else:
            await _play_one(client, base_ws, RULES[i % len(RULES)], random.Random(i), warm,
                            False)
    mark()
    t0 = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(games)))
    elapsed = time.perf_counter() - t0
    mark()
    await client.close()
    return logs, latencies, elapsed


def _check_journal(db_url: str, logs: list[GameLog]) -> list[str]:
    """Compare every game with its stored journal; returns the problems found."""
    sys.path.insert(0, str(ROOT / "src"))
    from nugar.server.storage.store import Store

    store = Store(db_url, create=False)
    problems = []
    for log in logs:
        events = store.events_since(log.gid, 0, 100_000)
        versions = [e.version for e in events]
        if versions != list(range(1, log.final_version + 1)):
            problems.append(f"{log.gid}: journal versions {versions[:5]}... not consecutive")
        journal = [m for e in events if e.type == "move" for m in e.data["moves"]]
        if journal != log.played:
            problems.append(f"{log.gid}: journal moves differ from the moves played")
    store.close()
    return problems


# --- servers -----------------------------------------------------------------------------------
def noop_app() -> Any:
    """The ceiling: a FastAPI app whose one endpoint reads the body and answers at once."""
    from fastapi import FastAPI, Request
    from pydantic import BaseModel

    class Body(BaseModel):
        key: str
        move: str
        v: int | None = None

    app = FastAPI()

    async def noop(request: Request) -> dict[str, Any]:
        body = Body.model_validate_json(await request.body())  # as a route's body is read
        return {"v": (body.v or 0) + 1, "over": False, "legal": ["a1", "b2"]}

    # the annotations as objects (this module's are strings, and these names are local)
    noop.__annotations__ = {"request": Request, "return": dict}
    app.add_api_route("/noop", noop, methods=["POST"])
    return app


def cpu_by_process(pid: int) -> dict[int, float]:
    """CPU time (user + system, seconds) of the process ``pid`` and of each process under
    it, by process id (Linux ``/proc``; empty elsewhere)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            # its own time, and that of its children it has already waited for
            out[p] = sum(int(f) for f in fields[11:15]) / tick
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except (OSError, ValueError, IndexError):
            continue
    return out


def postgres_pid(url: str) -> int | None:
    """The PostgreSQL server (postmaster) on this machine listening on ``url``'s port,
    found by its command line (``-p PORT``), else ``None``."""
    from sqlalchemy.engine import make_url

    port = str(make_url(url).port or 5432)
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [a.decode(errors="replace") for a in argv]
        if words and Path(words[0]).name in ("postgres", "postmaster") and any(
                w == "-p" and i + 1 < len(words) and words[i + 1] == port
                for i, w in enumerate(words)):
            return int(entry.name)
    return None


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) the process ``pid`` and every process under it have used so
    far, in seconds (Linux ``/proc``; 0 elsewhere). On a machine others share, the server's
    CPU time per move is steadier than its moves per second."""
    return sum(cpu_by_process(pid).values())


@contextmanager
def _server(argv: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log)
    try:
        end = time.monotonic() + 120
        while True:
            try:
                # ready once the AI's kernels are compiled (the no-op app answers 404)
                with socket.create_connection((HOST, port), timeout=1) as s:
                    s.sendall(b"GET /api/warmup HTTP/1.1\r\nhost: x\r\n\r\n")
                    head = s.recv(65536)
                    if head.startswith(b"HTTP/1.1 404") or b'"ready":true' in head:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > end:
                log.seek(0)
                raise RuntimeError(f"the server did not start: {log.read()[-2000:]!r}")
            time.sleep(0.2)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def run(games: int = 200, concurrency: int = 32, time_limit: float = 120.0, seed: int = 1,
        db_url: str | None = None, workers: int = 1, noop: bool = False,
        serve_args: tuple[str, ...] = ()) -> dict[str, Any]:
    """Start a server (``workers`` processes on ``db_url``, default a temporary SQLite file;
    or the no-op app), play the games, check them; returns the figures."""
    port = _free_port()
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or f"sqlite:///{Path(tmp) / 'load.db'}"
        if noop:
            argv = [sys.executable, __file__, "--serve-noop", str(port)]
        else:
            argv = [sys.executable, "-m", "nugar", "serve", "--host", HOST, "--port",
                    str(port), "--db", url, "--rate", "0", "--limit-concurrency", "1000",
                    *(["--workers", str(workers)] if workers > 1 else []), *serve_args]
        with _server(argv, port) as proc:
            timed: list[float] = []
            client: list[float] = []
            workers_cpu: list[dict[int, float]] = []
            pg_cpu: list[float] = []
            pg = None if noop or url.startswith("sqlite") else postgres_pid(url)

            def mark() -> None:
                timed.append(cpu_seconds(proc.pid))
                workers_cpu.append(cpu_by_process(proc.pid))
                client.append(time.process_time())
                if pg is not None:
                    pg_cpu.append(sum(cpu_by_process(pg).values()))

            with asyncio.Runner(loop_factory=_loop_factory()) as runner:
                logs, latencies, elapsed = runner.run(
                    _run(port, games, concurrency, time_limit, seed, noop, mark))
        problems = [] if noop else _check_journal(url, logs)
    load_after = os.getloadavg() if hasattr(os, "getloadavg") else None
    if not noop:
        for log in logs:
            if log.stored_moves != log.played:
                problems.append(f"{log.gid}: stored moves differ from the moves played")
            if log.seen_moves != log.played:
                problems.append(f"{log.gid}: the spectator saw {len(log.seen_moves)} moves, "
                                f"{len(log.played)} were played")
            if log.seen_versions != list(range(2, log.final_version + 1)):
                problems.append(f"{log.gid}: the spectator's versions have gaps or repeats")
    moves = sum(len(g.played) for g in logs)
    lat = sorted(latencies) or [0.0]

    def pct(p: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(p * len(lat)))]

    if noop:
        database = "none (no-op endpoint)"
    else:
        database = "SQLite" if url.startswith("sqlite") else "PostgreSQL"
    return {
        "database": database, "workers": workers, "cpus": os.cpu_count(),
        "load_before": load_before, "load_after": load_after,
        "games": len(logs), "moves": moves, "concurrency": concurrency,
        "seconds": elapsed, "games_per_s": len(logs) / elapsed, "moves_per_s": moves / elapsed,
        "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
        "max_ms": 1000 * lat[-1], "mean_ms": 1000 * statistics.fmean(lat),
        "server_cpu_ms": 1000 * (timed[1] - timed[0]) / max(1, moves) if len(timed) == 2
        else None,
        "client_cpu_ms": 1000 * (client[1] - client[0]) / max(1, moves) if len(client) == 2
        else None,
        "postgres_cpu_ms": 1000 * (pg_cpu[1] - pg_cpu[0]) / max(1, moves)
        if len(pg_cpu) == 2 else None,
        # the cores each process kept busy over the timed part (CPU seconds / seconds)
        "cores": {
            "server processes": [
                round((workers_cpu[1].get(p, 0.0) - t) / elapsed, 2)
                for p, t in workers_cpu[0].items()
                if workers_cpu[1].get(p, 0.0) - t > 0.01 * elapsed]
            if len(workers_cpu) == 2 else [],
            "postgres": round((pg_cpu[1] - pg_cpu[0]) / elapsed, 2) if len(pg_cpu) == 2
            else None,
            "client": round((client[1] - client[0]) / elapsed, 2) if len(client) == 2
            else None},
        "problems": problems,
    }


@contextmanager
def private_postgres() -> Iterator[str]:
    """A PostgreSQL server for this run only (the tests' helper: Debian's packages)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres import binaries, postgres

    if binaries() is None:
        raise SystemExit("PostgreSQL is not installed (apt-get install postgresql), give "
                         "--db postgresql+psycopg://USER@HOST/DB, or --no-postgres")
    with postgres() as url:
        yield url


def _load(values: tuple[float, ...] | None) -> str:
    return "?" if values is None else " / ".join(f"{x:.1f}" for x in values)


def _stack() -> str:
    """The event loop and HTTP parser ``nugar serve`` runs in this environment."""
    import importlib.util

    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio's own loop"
    parser = "httptools" if importlib.util.find_spec("httptools") else "h11"
    return f"{loop} and {parser}"


def _ms(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"


def _targets(results: list[dict[str, Any]]) -> list[str]:
    """Sentences on the targets of issue 17 and on what this machine allows, from the rows."""
    out = []
    sqlite = [r for r in results if r["database"] == "SQLite" and r["workers"] == 1]
    pg = {r["workers"]: r for r in results if r["database"] == "PostgreSQL"}
    cpus = results[0]["cpus"] or 1
    if sqlite:
        r = sqlite[0]
        met = r["moves_per_s"] >= 2000 and r["p99_ms"] <= 50
        bound = 1000 / r["server_cpu_ms"] if r["server_cpu_ms"] else None
        out.append(
            f"Target, one SQLite worker >= 2,000 moves/s with p99 <= 50 ms at 32 games: "
            f"{'met' if met else 'not met'} ({r['moves_per_s']:.0f} moves/s, p99 "
            f"{r['p99_ms']:.0f} ms). One worker is one process on one core: at "
            f"{_ms(r['server_cpu_ms'])} ms of server CPU per move it serves at most "
            + (f"{bound:.0f} moves/s however quiet the machine." if bound else "? moves/s."))
    if 1 in pg and len(pg) > 1:
        one = pg[1]
        n, many = max(pg.items())
        ratio = many["moves_per_s"] / one["moves_per_s"]
        parts = [one["server_cpu_ms"], one["postgres_cpu_ms"], one["client_cpu_ms"]]
        text = (f"Target, {n} PostgreSQL workers >= 1.6 x one: "
                f"{'met' if ratio >= 1.6 else 'not met'} ({ratio:.2f} x).")
        if None not in parts and one["server_cpu_ms"]:
            total = sum(parts)
            machine = 1000 * cpus / total
            alone = 1000 / one["server_cpu_ms"]
            text += (
                f" Here the clients and PostgreSQL share the machine's {cpus} cores with the "
                f"workers: one move costs {one['server_cpu_ms']:.2f} ms of worker CPU, "
                f"{one['postgres_cpu_ms']:.2f} ms of PostgreSQL and {one['client_cpu_ms']:.2f} "
                f"ms of the client's, {total:.2f} ms in all, so even with no cost for "
                f"spreading games over workers the machine serves at most "
                f"{machine:.0f} moves/s, against {alone:.0f} for one worker on a core of its "
                f"own: at most {min(n, machine / alone):.2f} x on this machine. With "
                f"{n} workers a move costs {_ms(many['server_cpu_ms'])} ms of worker CPU "
                "(the worker holding a game's spectator replays and draws the moves decided "
                "by the other).")
        out.append(text)
    return out


def markdown(results: list[dict[str, Any]], command: str) -> str:
    rows = []
    for r in results:
        lost = "n/a" if r["database"].startswith("none") else (
            "none" if not r["problems"] else f"{len(r['problems'])} problems")
        cores = r.get("cores") or {}
        busy = " + ".join(f"{c:.2f}" for c in cores.get("server processes") or []) or "?"
        busy += f" / {cores['postgres']:.2f}" if cores.get("postgres") is not None else " / -"
        busy += f" / {cores['client']:.2f}" if cores.get("client") is not None else " / ?"
        pg = "-" if r.get("postgres_cpu_ms") is None else _ms(r["postgres_cpu_ms"])
        rows.append(f"| {r['database']} | {r['workers']} | {r['games']} ({r['moves']}) | "
                    f"{r['moves_per_s']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | "
                    f"{_ms(r['server_cpu_ms'])} | {pg} | {_ms(r.get('client_cpu_ms'))} | "
                    f"{busy} | {lost} | {_load(r['load_before'])} -> "
                    f"{_load(r['load_after'])} |")
    first = results[0]
    return "\n".join([
        "## Web server load",
        "",
        f"`{command}`: `nugar serve` (uvicorn with {_stack()}, rate limit off) on "
        "127.0.0.1; each game is played by two players over kept-alive HTTP/1.1 "
        "connections, picking random legal moves from each answer, and watched by one "
        f"websocket spectator; rule sets {', '.join(RULES)} in turn; games still running "
        f"after {MAX_MOVES} moves are resigned; {first['concurrency']} games at once. SQLite "
        "is a file in WAL mode with `synchronous=FULL` (every acknowledged move is synced to "
        "disk); the private PostgreSQL server the script starts runs with `fsync=off` (like "
        "the tests'). The no-op row is a FastAPI endpoint that reads a move's body and "
        "answers at once, served the same way: the ceiling of the HTTP stack with this "
        "client. The client (one process, on uvloop when installed) runs on the same machine "
        f"({first['cpus']} CPUs), so the figures are a floor rather than the server's "
        "capacity. Load is the 1/5/15-minute load average before and after each row. "
        f"Measured {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC.",
        "",
        "| database | workers | games (moves) | moves/s | p50 ms | p99 ms | server CPU ms "
        "per move | PostgreSQL CPU ms per move | client CPU ms per move | cores busy: "
        "server / PostgreSQL / client | moves lost or doubled | load |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *rows,
        "",
        "Moves lost or doubled: the moves played, the stored game, the spectator's events "
        "and the stored journal compared move by move for every game. CPU per move: the "
        "user and system time over the timed part, divided by the moves, of the server's "
        "processes (all workers), of PostgreSQL's (the server and its backends), and of the "
        "client; on a shared machine they are steadier than the rates. Cores busy: each "
        "one's CPU seconds per second of the timed part (each worker on its own).",
        "",
        *[line for t in _targets(results) for line in (t, "")],
        "Where a move's CPU goes, and the figures before each change: the section \"Web "
        "server: where a move's CPU goes\" below. To run it again:",
        "",
        "```",
        "python benchmarks/load_server.py --games 200 --concurrency 32 --workers 2 "
        "--write-docs",
        "```",
        "",
    ])


def write_docs(text: str, path: Path) -> None:
    """Put the section in ``path``, replacing only an earlier "Web server load" section."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    lines = old.splitlines()
    out: list[str] = []
    skipping = False
    placed = False
    for line in lines:
        if line.strip() == "## Web server load":
            skipping = True
            out.extend([*text.rstrip().splitlines(), ""])
            placed = True
            continue
        if skipping and line.startswith("## "):
            skipping = False
        if not skipping:
            out.append(line)
    body = "\n".join(out).rstrip() + "\n"
    if not placed:
        body += "\n" + text
    path.write_text(body, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games to play (at most 5000)")
    parser.add_argument("--concurrency", type=int, default=32,
                        help="games played at once (at most 256)")
    parser.add_argument("--time-limit", type=float, default=120.0,
                        help="stop starting new games after this many seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2,
                        help="workers of the second PostgreSQL run (the first has 1)")
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the PostgreSQL database of the PostgreSQL runs, on this machine "
                        "(default: a private server started for the run)")
    parser.add_argument("--no-postgres", action="store_true",
                        help="measure only SQLite and the no-op endpoint")
    parser.add_argument("--only", choices=("sqlite", "postgres", "noop"), default=None,
                        help="measure one configuration only")
    parser.add_argument("--write-docs", action="store_true",
                        help="replace the section in docs/benchmarks.md")
    parser.add_argument("--no-fast-lane", action="store_true",
                        help="serve with the move fast lane off (nugar.server.http.fastlane)")
    parser.add_argument("--serve-noop", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_noop is not None:
        import uvicorn

        sys.path.insert(0, str(ROOT / "src"))
        from nugar.server.http.http_timeouts import timed_protocol

        uvicorn.run(noop_app(), host=HOST, port=args.serve_noop, log_level="warning",
                    http=timed_protocol(10.0), limit_concurrency=1000)
        return 0
    if not 1 <= args.games <= 5000 or not 1 <= args.concurrency <= 256:
        parser.error("--games must be 1..5000 and --concurrency 1..256")
    if not 0 < args.time_limit <= 3600:
        parser.error("--time-limit must be between 0 and 3600 seconds")
    if not 1 <= args.workers <= 64:
        parser.error("--workers must be 1..64")
    if args.db is not None and not args.db.startswith("postgresql"):
        parser.error("--db must be a PostgreSQL URL (postgresql+psycopg://USER@HOST/DB); "
                     "the SQLite run always uses a temporary file")
    common = dict(games=args.games, concurrency=args.concurrency, time_limit=args.time_limit,
                  seed=args.seed,
                  serve_args=("--no-fast-lane",) if args.no_fast_lane else ())
    results: list[dict[str, Any]] = []

    def report(r: dict[str, Any]) -> None:
        results.append(r)
        print(f"{r['database']}, {r['workers']} worker(s): {r['moves_per_s']:.0f} moves/s, "
              f"p50 {r['p50_ms']:.1f} ms, p99 {r['p99_ms']:.1f} ms, server CPU "
              f"{r['server_cpu_ms'] or 0:.2f} ms/move, client CPU "
              f"{r['client_cpu_ms'] or 0:.2f} ms/move, postgres CPU "
              f"{r['postgres_cpu_ms'] or 0:.2f} ms/move, cores {r['cores']}, load "
              f"{_load(r['load_before'])}", file=sys.stderr)

    if args.only in (None, "sqlite"):
        report(run(**common))
    if args.only in (None, "postgres") and not args.no_postgres:
        with (contextmanager(lambda: iter([args.db]))() if args.db else private_postgres()
              ) as url:
            report(run(**common, db_url=url, workers=1))
            if args.workers > 1:
                report(run(**common, db_url=url, workers=args.workers))
    if args.only in (None, "noop"):
        report(run(**common, noop=True))
    command = "python benchmarks/load_server.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]) if a != "--write-docs")
    text = markdown(results, command.strip())
    print(text)
    problems = [p for r in results for p in r["problems"]]
    for p in problems[:20]:
        print("PROBLEM:", p, file=sys.stderr)
    if args.write_docs:
        write_docs(text, ROOT / "docs" / "benchmarks.md")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
