"""Fairness under abuse, on loopback only: one client address attacks, another one plays, and
the player's latency is compared with its latency on an idle server (issue 30; the bounds
are in docs/server.md, "Fair under abuse").

Starts ``nugar serve`` on 127.0.0.1 with a SQLite file in a temporary directory. The player
connects from 127.0.0.2 (another loopback address, so the server sees two clients): it plays
hot-seat Dara through the JSON API (a random legal move, then a read of what changed, about
8 requests a second), and a game against level 1 whose computer replies it waits for on the
game's websocket. Each phase lasts ``--seconds``:

- ``idle``: the player alone;
- ``connections``: the attacker (127.0.0.1, in a process of its own) opens 200 game
  websockets and 200 idle connections, keeps the websockets answering pings and reopens the
  idle connections the server closes;
- ``replay``: the attacker posts a 3,600-move record of ``kalah(pits=32,seeds=64)`` to
  ``POST /api/replay`` 28 times a second;
- ``ai``: the attacker creates 60 games against level 8, the computer to move first, as fast
  as the rate limit lets it (again after each ``ai_busy``), and moves again in each as soon as
  the computer has answered;
- ``lobby``: the attacker posts 100 challenges to the lobby as fast as the rate limit lets it
  (again after each refusal) and keeps them alive by reading each with its key;
- ``signin3`` and ``signin10`` (issue 42): 3 or 10 attacking addresses (127.0.0.3 up) each
  keep 20 sign-ins with wrong passwords under way (an Argon2id check each), within the
  rate limit; the player signs in with its own account every 2 s (its sign-ins' latency and
  refusals have a column of their own);
- ``pages``: the attacker asks for ``GET /rules/rules`` 29 times a second;
- ``analysis``: the attacker keeps 5 analyses of long pasted records asked for (a new
  record each time one is done or refused); the player asks for the analysis of a short
  record of its own every 5 s and counts the refusals (``analysis_busy``).

In every phase the player also opens a challenge of its own every 2 s and withdraws it: a
lobby full of the attacker's challenges refuses it (``503 lobby_full``), a failure counted in
the player's column.

Every attack stays within the default rate limit (30 requests a second, bursts of 120). The
report gives, per phase, the player's request count and latency (median, p99) and the p99's
ratio to the idle phase, the computer's reply time in the player's AI game, and what the
attacker's requests got (status counts). ``--unbounded`` serves with the per-address bounds
off (what the server did before them, but for the AI pool's turns, which stay fair);
``--src`` serves another checkout's code (e.g. the one before the bounds) to compare with.

    python benchmarks/abuse.py                  # five phases of 20 s
    python benchmarks/abuse.py --seconds 10 --phases idle,replay
    python benchmarks/abuse.py --unbounded
    python benchmarks/abuse.py --src ../before/src
    python benchmarks/abuse.py --phases idle,replay --serve "--work-processes 0"  # no pool
    python benchmarks/abuse.py --soak 100000   # memory over many games, no attack

``--soak N`` instead plays N short games in this process (a Hub over a SQLite file, as the
server keeps them: at most 2,000 rooms, the others evicted) and prints the resident memory
every tenth of them, with Python's garbage collector's full collections left to run as they
come: an evicted room must be freed at once, so the memory stays flat.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import multiprocessing
import os
import random
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

ROOT = Path(__file__).resolve().parents[1]
ATTACKER, PLAYER = "127.0.0.1", "127.0.0.2"
#: in this order: a flood of the AI may leave its queue full after its phase (on a server
#: without the bounds), so it comes last
PHASES = ("idle", "connections", "replay", "lobby", "signin3", "signin10", "pages",
          "analysis", "ai")
#: what the attacks send, all within the default rate limit (30/s, bursts of 120)
SOCKETS, IDLE, AI_GAMES, REPLAYS_PER_S, CHALLENGES = 200, 200, 60, 28, 100
#: the sign-ins each attacking address keeps under way, the analyses the attacker keeps asked
SIGN_INS, ANALYSES = 20, 5
#: the player's own account (signed up before the phases)
PLAYER_NAME, PLAYER_PASSWORD = "player", "the player's password"
UNBOUNDED = ("--client-connections", "0", "--client-sockets", "0", "--ai-per-client", "10000",
             "--work-rate", "0")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def start_server(db: Path, extra: list[str], src: Path
                 ) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.Popen([sys.executable, "-m", "nugar", "serve", "--port", str(port),
                             "--db", f"sqlite:///{db}", *extra], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 600  # a first run compiles the AI's levels
    while time.monotonic() < end:
        try:
            if httpx.get(base + "/api/warmup", timeout=2).json().get("ready"):
                return proc, base
        except (httpx.HTTPError, ValueError):
            pass
        if proc.poll() is not None:
            raise SystemExit("nugar serve did not start")
        time.sleep(0.5)
    proc.kill()
    raise SystemExit("nugar serve did not get ready within 600 s")


def record_text() -> str:
    from nugar.record import dumps
    from nugar.rules import new_game

    game = new_game("kalah(pits=32,seeds=64)")
    rnd = random.Random(30)
    while game.outcome is None and game.ply < 3600:
        game.play(rnd.choice(game.legal_moves()))
    return dumps(game, {})


# --- the attacker (a process of its own) -------------------------------------------------------
def attack(kind: str, base: str, seconds: float, record: str, out: Any) -> None:
    counts: collections.Counter[str] = collections.Counter()
    asyncio.run(_attack(kind, base, seconds, record, counts))
    out.put(dict(counts))


async def _attack(kind: str, base: str, seconds: float, record: str,
                  counts: collections.Counter[str]) -> None:
    end = time.monotonic() + seconds
    if kind.startswith("signin"):
        addresses = [f"127.0.0.{3 + i}" for i in range(int(kind.removeprefix("signin")))]
        await asyncio.gather(*(_sign_in_flood(base, a, end, counts) for a in addresses))
        return
    transport = httpx.AsyncHTTPTransport(local_address=ATTACKER, retries=0)
    limits = httpx.Limits(max_connections=64)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30,
                                 limits=limits) as http:
        bucket = _Bucket()
        if kind == "connections":
            await _connections(http, base, end, counts, bucket)
        elif kind == "ai":
            await _ai_flood(http, end, counts, bucket)
        elif kind == "replay":
            await _replays(http, end, record, counts)
        elif kind == "lobby":
            await _lobby_flood(http, end, counts, bucket)
        elif kind == "pages":
            await _page_flood(http, end, counts, bucket)
        elif kind == "analysis":
            await _analysis_flood(http, end, counts, bucket)


class _Bucket:
    """The client's own copy of the server's rate limit, so the attack stays within it."""

    def __init__(self, rate: float = 29.0, burst: float = 110.0) -> None:
        self.rate, self.tokens, self.last = rate, burst, time.monotonic()
        self.burst = burst

    async def take(self) -> None:
        while True:
            now = time.monotonic()
            self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
            self.last = now
            if self.tokens >= 1:
                self.tokens -= 1
                return
            await asyncio.sleep((1 - self.tokens) / self.rate)


async def _connections(http: httpx.AsyncClient, base: str, end: float,
                       counts: collections.Counter[str], bucket: _Bucket) -> None:
    gid = (await http.post("/api/games", json={"mode": "hotseat"})).json()["id"]
    url = base.replace("http", "ws") + f"/ws/games/{gid}"
    sockets: list[Any] = []

    async def hold_socket() -> None:
        await bucket.take()
        try:
            ws = await connect(url, local_addr=(ATTACKER, 0), open_timeout=10)
        except Exception:
            counts["ws refused"] += 1
            return
        counts["ws open"] += 1
        sockets.append(ws)

    async def hold_idle() -> None:
        host, port = base.rsplit("/", 1)[1].split(":")
        while time.monotonic() < end:
            try:
                reader, writer = await asyncio.open_connection(host, int(port),
                                                               local_addr=(ATTACKER, 0))
            except OSError:
                counts["idle refused"] += 1
                await asyncio.sleep(1)
                continue
            counts["idle open"] += 1
            try:  # held until the server closes it, then opened again
                await asyncio.wait_for(reader.read(1), max(0.1, end - time.monotonic()))
            except TimeoutError:
                pass
            writer.close()
            await asyncio.sleep(0.5)

    await asyncio.gather(*(hold_socket() for _ in range(SOCKETS)))
    idle = [asyncio.create_task(hold_idle()) for _ in range(IDLE)]
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    for task in idle:
        task.cancel()
    await asyncio.gather(*idle, return_exceptions=True)
    for ws in sockets:
        await ws.close()


async def _ai_flood(http: httpx.AsyncClient, end: float, counts: collections.Counter[str],
                    bucket: _Bucket) -> None:
    games: list[tuple[str, str]] = []
    rnd = random.Random(2)
    while time.monotonic() < end:
        if len(games) < AI_GAMES:
            await bucket.take()
            r = await http.post("/api/games", json={"rules": "kalah", "mode": "ai",
                                                    "level": 8, "seat": 2})
            counts[f"create {r.status_code}"] += 1
            if r.status_code == 201:
                games.append((r.json()["id"], r.json()["keys"]["2"]))
            elif r.status_code == 503:
                await asyncio.sleep(float(r.headers.get("retry-after", "1")))
            continue
        for gid, key in games:  # answer every computer move at once
            if time.monotonic() >= end:
                break
            await bucket.take()
            state = (await http.get(f"/api/games/{gid}")).json()
            if state.get("to_move") == 2 and state.get("legal"):
                await bucket.take()
                r = await http.post(f"/api/games/{gid}/move", json={
                    "key": key, "move": rnd.choice(state["legal"]), "v": state["v"]})
                counts[f"move {r.status_code}"] += 1


async def _replays(http: httpx.AsyncClient, end: float, record: str,
                   counts: collections.Counter[str]) -> None:
    body = {"record": record}
    tasks: set[asyncio.Task[None]] = set()

    async def one() -> None:
        try:
            r = await http.post("/api/replay", json=body)
            counts[f"replay {r.status_code}"] += 1
        except httpx.HTTPError:
            counts["replay failed"] += 1

    while time.monotonic() < end:
        task = asyncio.create_task(one())
        tasks.add(task)
        task.add_done_callback(tasks.discard)
        await asyncio.sleep(1 / REPLAYS_PER_S)
    await asyncio.gather(*tasks, return_exceptions=True)


async def _lobby_flood(http: httpx.AsyncClient, end: float, counts: collections.Counter[str],
                       bucket: _Bucket) -> None:
    """Fill the lobby with challenges and keep them alive by polling them with their keys."""
    held: list[tuple[str, str]] = []
    while time.monotonic() < end:
        await bucket.take()
        if len(held) < CHALLENGES:
            try:
                r = await http.post("/api/challenges", json={"rules": "dara"})
            except httpx.HTTPError:
                counts["post failed"] += 1
                continue
            counts[f"post {r.status_code}"] += 1
            if r.status_code == 201:
                held.append((r.json()["challenge"]["id"], r.json()["key"]))
            elif len(held) and r.status_code in (429, 503):
                await asyncio.sleep(0.05)
        if held:
            cid, key = held[int(time.monotonic() * 10) % len(held)]
            try:
                r = await http.post(f"/api/challenges/{cid}/status", json={"key": key})
                counts[f"poll {r.status_code}"] += 1
            except httpx.HTTPError:
                counts["poll failed"] += 1


async def _sign_in_flood(base: str, address: str, end: float,
                         counts: collections.Counter[str]) -> None:
    """From ``address``: :data:`SIGN_INS` sign-ins with wrong passwords kept under way."""
    transport = httpx.AsyncHTTPTransport(local_address=address, retries=0)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60,
                                 limits=httpx.Limits(max_connections=SIGN_INS)) as http:
        bucket = _Bucket()

        async def one(n: int) -> None:
            rnd = random.Random(n)
            while time.monotonic() < end:
                await bucket.take()
                try:
                    r = await http.post("/api/session", json={
                        "username": f"user{rnd.randrange(10**6)}", "password": "not it at all"})
                except httpx.HTTPError:
                    counts["sign-in failed"] += 1
                    continue
                counts[f"sign-in {r.status_code}"] += 1

        await asyncio.gather(*(one(n) for n in range(SIGN_INS)))


async def _page_flood(http: httpx.AsyncClient, end: float, counts: collections.Counter[str],
                      bucket: _Bucket) -> None:
    while time.monotonic() < end:
        await bucket.take()
        try:
            r = await http.get("/rules/rules")
        except httpx.HTTPError:
            counts["page failed"] += 1
            continue
        counts[f"page {r.status_code}"] += 1


#: the attacker's long records (about 440 turns) and the player's short ones (about 30,
#: made in a few milliseconds, so the player's loop, which times its requests, is not held)
LONG_RULES, SHORT_RULES = "kalah(pits=16,seeds=16)", "kalah"


def random_record(rules: str, seed: int) -> str:
    """A game of ``rules`` played by random legal moves (every seed its own) as a record."""
    from nugar.record import dumps
    from nugar.rules import new_game

    game = new_game(rules)
    rnd = random.Random(seed)
    while game.outcome is None:
        game.play(rnd.choice(game.legal_moves()))
    return dumps(game, {})


async def _analysis_flood(http: httpx.AsyncClient, end: float,
                          counts: collections.Counter[str], bucket: _Bucket) -> None:
    """Keep :data:`ANALYSES` analyses of long records asked for: a new record whenever one
    is done or refused."""
    seeds = iter(range(10**6))

    async def one() -> None:
        while time.monotonic() < end:
            await bucket.take()
            try:
                r = await http.post("/api/replay/analysis",
                                    json={"record": random_record(LONG_RULES, next(seeds))})
            except httpx.HTTPError:
                counts["analysis failed"] += 1
                continue
            counts[f"analysis {r.status_code}"] += 1
            if r.status_code != 202:
                await asyncio.sleep(1)
                continue
            aid = r.json()["id"]
            while time.monotonic() < end:  # until it is done
                await asyncio.sleep(1)
                await bucket.take()
                got = await http.get(f"/api/replay/analysis/{aid}")
                if got.status_code != 200 or got.json().get("done"):
                    break

    await asyncio.gather(*(one() for _ in range(ANALYSES)))


# --- the player ---------------------------------------------------------------------------------
async def play(base: str, seconds: float, phase: str = "idle"
               ) -> tuple[list[float], list[float], int, collections.Counter[str]]:
    """Play for ``seconds`` from :data:`PLAYER`: the latency of each request (s), the computer's
    reply times in a game against level 1 (s), the requests that failed, and what its own
    sign-ins (in the sign-in phases) and analyses (in the analysis phase) got."""
    latencies: list[float] = []
    replies: list[float] = []
    extra: collections.Counter[str] = collections.Counter()
    failed = 0
    end = time.monotonic() + seconds
    transport = httpx.AsyncHTTPTransport(local_address=PLAYER, retries=0)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as http:

        async def timed(method: str, url: str, **kw: Any) -> httpx.Response | None:
            nonlocal failed
            start = time.perf_counter()
            try:
                r = await http.request(method, url, **kw)
            except httpx.HTTPError:
                failed += 1
                return None
            latencies.append(time.perf_counter() - start)
            if r.status_code >= 400 and r.status_code != 409:
                failed += 1
            return r

        jobs = [_hotseat(timed, end), _against_ai(base, timed, end, replies),
                _challenges(timed, end)]
        if phase.startswith("signin"):
            jobs.append(_own_sign_ins(base, end, extra))
        if phase == "analysis":
            jobs.append(_own_analyses(http, end, extra))
        await asyncio.gather(*jobs)
    return latencies, replies, failed, extra


async def _own_sign_ins(base: str, end: float, got: collections.Counter[str]) -> None:
    """Sign in with the player's own account every 2 s (a client of its own: its cookie
    would make the player's other requests an account's)."""
    transport = httpx.AsyncHTTPTransport(local_address=PLAYER, retries=0)
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as http:
        while time.monotonic() < end:
            start = time.perf_counter()
            r = await http.post("/api/session", json={"username": PLAYER_NAME,
                                                      "password": PLAYER_PASSWORD})
            got[f"sign-in {r.status_code}"] += 1
            if r.status_code == 200:
                got["sign-in ms"] = max(got["sign-in ms"],
                                        round((time.perf_counter() - start) * 1000))
            http.cookies.clear()
            await asyncio.sleep(2)


async def _own_analyses(http: httpx.AsyncClient, end: float,
                        got: collections.Counter[str]) -> None:
    """Ask for the analysis of a record of the player's own every 5 s."""
    seed = 10**7
    while time.monotonic() < end:
        seed += 1
        record = random_record(SHORT_RULES, seed)
        r = await http.post("/api/replay/analysis", json={"record": record})
        got[f"analysis {r.status_code}"] += 1
        await asyncio.sleep(5)


async def _challenges(timed: Any, end: float) -> None:
    """Open a challenge in the lobby every 2 s and withdraw it."""
    while time.monotonic() < end:
        r = await timed("POST", "/api/challenges", json={"rules": "dala"})
        if r is not None and r.status_code == 201:
            made = r.json()
            await timed("POST", f"/api/challenges/{made['challenge']['id']}/cancel",
                        json={"key": made["key"]})
        await asyncio.sleep(2)


async def _hotseat(timed: Any, end: float) -> None:
    rnd = random.Random(1)
    while time.monotonic() < end:
        r = await timed("POST", "/api/games", json={"mode": "hotseat", "rules": "dara"})
        if r is None or r.status_code != 201:
            await asyncio.sleep(0.5)
            continue
        gid, key, state = r.json()["id"], r.json()["keys"]["0"], r.json()["state"]
        while time.monotonic() < end and not state["over"] and state["legal"]:
            await asyncio.sleep(0.2)
            r = await timed("POST", f"/api/games/{gid}/move", json={
                "key": key, "move": rnd.choice(state["legal"]), "v": state["v"]})
            if r is None or r.status_code != 200:
                break
            r = await timed("GET", f"/api/games/{gid}")
            if r is None or r.status_code != 200:
                break
            state = r.json()


async def _against_ai(base: str, timed: Any, end: float, replies: list[float]) -> None:
    rnd = random.Random(3)
    while time.monotonic() < end:
        r = await timed("POST", "/api/games", json={"mode": "ai", "rules": "kalah", "level": 1})
        if r is None or r.status_code != 201:
            await asyncio.sleep(1)
            continue
        gid, key, state = r.json()["id"], r.json()["keys"]["1"], r.json()["state"]
        url = base.replace("http", "ws") + f"/ws/games/{gid}"
        async with connect(url, local_addr=(PLAYER, 0)) as ws:
            while time.monotonic() < end and not state["over"]:
                if state["to_move"] != 1:  # the computer's turn: wait for its move
                    started = time.perf_counter()
                    while time.monotonic() < end:
                        try:
                            msg = json.loads(await asyncio.wait_for(ws.recv(), 1.0))
                        except TimeoutError:
                            continue
                        update = msg.get("update") if msg.get("type") == "move" else None
                        if update and (update.get("to_move") == 1 or update.get("over")):
                            replies.append(time.perf_counter() - started)
                            break
                    r = await timed("GET", f"/api/games/{gid}")
                    if r is None or r.status_code != 200:
                        break
                    state = r.json()
                    continue
                await asyncio.sleep(0.3)
                r = await timed("POST", f"/api/games/{gid}/move", json={
                    "key": key, "move": rnd.choice(state["legal"]), "v": state["v"]})
                if r is None or r.status_code != 200:
                    break
                state = r.json()


# --- the soak -----------------------------------------------------------------------------------
def soak(games: int, db: Path) -> None:
    """``games`` hot-seat Dara games of two moves each through a Hub, 20 at a time; RSS
    every tenth."""
    from nugar.server.play.rooms import Hub
    from nugar.server.storage.store import Store
    from nugar.server.work.ai_pool import AiPool

    class NoComputer:  # hot-seat games never ask the computer
        def prepare(self, game: Any, level: int) -> None: ...
        def agent(self, level: int) -> Any: ...
        def limits(self) -> Any: ...

    def rss_mb() -> float:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    async def run() -> None:
        store = Store(f"sqlite:///{db}")
        hub = Hub(store, AiPool(NoComputer()), expire_days=None)  # type: ignore[arg-type]
        every = max(1, games // 10)
        start = time.perf_counter()
        print("| games | rooms kept | RSS MB | seconds |\n| --- | --- | --- | --- |")
        async def one() -> None:
            room, keys = await hub.create("dara", "hotseat", None, None)
            await hub.move(room.row.id, keys["0"], "c3")
            await hub.move(room.row.id, keys["0"], "d4")

        done = 0
        while done < games:  # 20 games at once, as concurrent players would: group commits
            batch = min(20, games - done)
            await asyncio.gather(*(one() for _ in range(batch)))
            before, done = done, done + batch
            if done // every > before // every or done == games:
                print(f"| {done} | {len(hub.rooms)} | {rss_mb():.0f} | "
                      f"{time.perf_counter() - start:.0f} |", flush=True)
        await hub.close()
        store.close()

    asyncio.run(run())


# --- the run -------------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    ap.add_argument("--phases", default=",".join(PHASES),
                    help=f"comma-separated phases among {', '.join(PHASES)}")
    ap.add_argument("--ai-time", type=float, default=1.0, help="the server's --ai-time")
    ap.add_argument("--unbounded", action="store_true",
                    help="serve with the per-address bounds off")
    ap.add_argument("--serve", default="", metavar="OPTIONS",
                    help="more options of nugar serve, e.g. \"--work-rate 0.05\"")
    ap.add_argument("--src", type=Path, default=ROOT / "src",
                    help="serve the nugar of this source folder, e.g. an older checkout's to "
                    "compare with (its server is given no per-address options)")
    ap.add_argument("--soak", type=int, default=0, metavar="N",
                    help="play N games in this process and print the memory instead")
    args = ap.parse_args()
    if args.soak:
        if not 1 <= args.soak <= 1_000_000:
            raise SystemExit("--soak takes 1..1000000 games")
        with tempfile.TemporaryDirectory() as tmp:
            soak(args.soak, Path(tmp) / "soak.db")
        return
    phases = [p for p in args.phases.split(",") if p]
    if any(p not in PHASES for p in phases) or not 1 <= args.seconds <= 120:
        raise SystemExit(f"phases among {PHASES}, 1..120 seconds each")
    loads = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        bounds = UNBOUNDED if args.unbounded and args.src == ROOT / "src" else ()
        extra = ["--ai-time", str(args.ai_time), *bounds, *shlex.split(args.serve)]
        proc, base = start_server(Path(tmp) / "abuse.db", extra, args.src)
        record = record_text() if "replay" in phases else ""
        httpx.post(base + "/api/accounts", json={"username": PLAYER_NAME,
                                                 "password": PLAYER_PASSWORD},
                   headers={"Origin": base}, timeout=30)
        rows = []
        try:
            for phase in phases:
                out: Any = multiprocessing.Queue()
                attacker = None
                if phase != "idle":
                    attacker = multiprocessing.Process(
                        target=attack, args=(phase, base, args.seconds + 2, record, out))
                    attacker.start()
                    time.sleep(2)  # the attack under way before the player starts
                lat, replies, failed, own = asyncio.run(play(base, args.seconds, phase))
                got = out.get(timeout=120) if attacker else {}
                if attacker:
                    attacker.join(30)
                rows.append((phase, lat, replies, failed, got, own))
                print(f"{phase}: done ({len(lat)} requests)", file=sys.stderr)
        finally:
            proc.terminate()
            proc.wait(10)
    idle_p99 = next((pct(lat, 0.99) for p, lat, *_ in rows if p == "idle"), None)
    load = os.getloadavg()
    shown = " ".join(sys.argv[1:])
    print(f"\n`python benchmarks/abuse.py {shown}` (load average before: "
          f"{loads[0]:.1f}, after: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}, "
          f"{os.cpu_count()} CPUs)\n")
    print("| phase | player's requests | failed | median ms | p99 ms | p99 / idle | computer "
          "reply p99 ms | the player's own sign-ins, analyses | the attacker's answers |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for phase, lat, replies, failed, got, own in rows:
        p99 = pct(lat, 0.99)
        ratio = f"{p99 / idle_p99:.2f}" if idle_p99 else "-"
        answers = ", ".join(f"{k}: {v}" for k, v in sorted(got.items())) or "-"
        mine = ", ".join(f"{k}: {v}" for k, v in sorted(own.items())) or "-"
        print(f"| {phase} | {len(lat)} | {failed} | {statistics.median(lat) * 1000:.1f} | "
              f"{p99 * 1000:.1f} | {ratio} | {pct(replies, 0.99) * 1000:.0f} | {mine} | "
              f"{answers} |")


if __name__ == "__main__":
    main()
