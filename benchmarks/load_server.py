"""Load and reliability check of the web server, on loopback only.

Starts ``nugar serve`` in a subprocess on 127.0.0.1 with a fresh SQLite file, then plays many
games at once through the JSON API, each watched by a websocket spectator. Both players of a
game pick random legal moves from the state the server returns. At the end it checks, for
every game, that the moves the players made, the moves the server stored, the events the
spectator saw and the stored event journal are the same list: nothing lost, nothing doubled.

    python benchmarks/load_server.py --games 200 --concurrency 32
    python benchmarks/load_server.py --write-docs   # append the figures to docs/benchmarks.md

The run is bounded by ``--games`` and by ``--time-limit`` seconds.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

HOST = "127.0.0.1"
RULES = ("kalah(pits=4,seeds=3)", "dara", "dracala")
MAX_MOVES = 80  # a game still running after this many moves is resigned


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


async def _watch(base_ws: str, log: GameLog, ready: asyncio.Event) -> None:
    async with connect(f"{base_ws}/ws/games/{log.gid}?since=1", open_timeout=60) as ws:
        ready.set()
        while True:
            msg = json.loads(await ws.recv())
            if msg.get("type") in ("move", "resign", "undo", "takeback"):
                log.seen_versions.append(msg["v"])
                if msg["type"] == "move":
                    log.seen_moves.extend(msg["data"]["moves"])
            elif msg.get("type") == "uptodate":
                continue
            state = msg.get("state")
            if state and state["over"] and log.seen_versions and \
                    log.seen_versions[-1] == state["v"]:
                return


async def _play_one(client: httpx.AsyncClient, base_ws: str, rules: str, rng: random.Random,
                    latencies: list[float]) -> GameLog:
    made = (await client.post("/api/games", json={"rules": rules, "mode": "friend"})).json()
    log = GameLog(made["id"], rules)
    keys = made["keys"]
    ready = asyncio.Event()
    watcher = asyncio.create_task(_watch(base_ws, log, ready))
    await asyncio.wait_for(ready.wait(), 90)
    state = made["state"]
    while not state["over"]:
        key = keys[str(state["to_move"])]
        if len(log.played) >= MAX_MOVES:
            r = await client.post(f"/api/games/{log.gid}/resign", json={"key": key})
            r.raise_for_status()
            state = r.json()
            break
        move = rng.choice(state["legal"])
        t0 = time.perf_counter()
        r = await client.post(f"/api/games/{log.gid}/move", json={"key": key, "move": move})
        latencies.append(time.perf_counter() - t0)
        r.raise_for_status()
        log.played.append(move)
        state = r.json()
    await asyncio.wait_for(watcher, 90)
    final = (await client.get(f"/api/games/{log.gid}")).json()
    log.stored_moves = final["moves"]
    log.final_version = final["v"]
    log.done = True
    return log


async def _run(base: str, games: int, concurrency: int, time_limit: float, seed: int
               ) -> tuple[list[GameLog], list[float], float]:
    base_ws = base.replace("http://", "ws://")
    latencies: list[float] = []
    logs: list[GameLog] = []
    rng = random.Random(seed)
    sem = asyncio.Semaphore(concurrency)
    deadline = time.monotonic() + time_limit
    # idle connections are dropped well before the server's keep-alive ends, so a request
    # never goes out on a connection the server is closing
    limits = httpx.Limits(max_connections=concurrency * 2, keepalive_expiry=2.0)

    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as client:

        async def one(i: int) -> None:
            async with sem:
                if time.monotonic() > deadline:
                    return
                logs.append(await _play_one(client, base_ws, RULES[i % len(RULES)],
                                            random.Random(rng.random()), latencies))

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(games)))
        elapsed = time.perf_counter() - t0
    return logs, latencies, elapsed


def _check_journal(db_url: str, logs: list[GameLog]) -> list[str]:
    """Compare every game with its stored journal; returns the problems found."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from nugar.server.store import Store

    store = Store(db_url)
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


def run(games: int = 200, concurrency: int = 32, time_limit: float = 120.0, seed: int = 1,
        db_url: str | None = None) -> dict[str, Any]:
    """Start a server, play the games, check them; returns the figures.

    ``db_url`` is the server's database (default: a SQLite file in a temporary folder).
    """
    port = _free_port()
    load_before = round(os.getloadavg()[0], 1) if hasattr(os, "getloadavg") else None
    with tempfile.TemporaryDirectory() as tmp:
        url = db_url or f"sqlite:///{Path(tmp) / 'load.db'}"
        env = dict(os.environ)
        proc = subprocess.Popen(
            [sys.executable, "-m", "nugar", "serve", "--host", HOST, "--port", str(port),
             "--db", url, "--rate", "0"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        base = f"http://{HOST}:{port}"
        try:
            end = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{base}/api/presets", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > end:
                    err = proc.stderr.read().decode() if proc.stderr else ""
                    raise RuntimeError(f"the server did not start: {err}")
                time.sleep(0.1)
            logs, latencies, elapsed = asyncio.run(
                _run(base, games, concurrency, time_limit, seed))
        finally:
            proc.terminate()
            proc.wait(20)
        problems = _check_journal(url, logs)
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

    return {
        "database": "SQLite file" if db_url is None else db_url.split(":", 1)[0],
        "cpus": os.cpu_count(), "load_before": load_before,
        "games": len(logs), "moves": moves, "concurrency": concurrency,
        "seconds": elapsed, "games_per_s": len(logs) / elapsed, "moves_per_s": moves / elapsed,
        "p50_ms": pct(0.50), "p90_ms": pct(0.90), "p99_ms": pct(0.99),
        "max_ms": 1000 * lat[-1], "mean_ms": 1000 * statistics.fmean(lat),
        "problems": problems,
    }


def markdown(r: dict[str, Any]) -> str:
    lost = "none" if not r["problems"] else f"{len(r['problems'])} problems"
    return "\n".join([
        "## Web server load",
        "",
        f"`python benchmarks/load_server.py --games {r['games']} --concurrency "
        f"{r['concurrency']}`: one `nugar serve` process ({r['database']}, uvicorn, rate "
        "limit off) on 127.0.0.1; each game is played by two HTTP clients picking random legal "
        f"moves and watched by one websocket spectator; rule sets {', '.join(RULES)} in turn; "
        f"games still running after {MAX_MOVES} moves are resigned. The clients run on the "
        f"same machine ({r['cpus']} CPUs, shared; load average {r['load_before']} before the "
        "run), so the figures are a floor rather than the server's capacity.",
        "",
        "| figure | value |",
        "| --- | --- |",
        f"| games played | {r['games']} ({r['moves']} moves) in {r['seconds']:.1f} s |",
        f"| games per second | {r['games_per_s']:.2f} |",
        f"| moves per second | {r['moves_per_s']:.1f} |",
        f"| move latency p50 / p90 / p99 / max | {r['p50_ms']:.1f} / {r['p90_ms']:.1f} / "
        f"{r['p99_ms']:.1f} / {r['max_ms']:.1f} ms |",
        f"| moves lost or duplicated | {lost} (players, stored game, spectator, journal "
        "compared move by move) |",
        "",
    ])


def write_docs(text: str, path: Path) -> None:
    """Append the section to ``path``, replacing only an earlier "Web server load" section."""
    old = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    lines = old.splitlines()
    out: list[str] = []
    skipping = False
    for line in lines:
        if line.strip() == "## Web server load":
            skipping = True
            continue
        if skipping and line.startswith("## "):
            skipping = False
        if not skipping:
            out.append(line)
    body = "\n".join(out).rstrip() + "\n\n" + text
    path.write_text(body, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games to play (at most 5000)")
    parser.add_argument("--concurrency", type=int, default=32,
                        help="games played at once (at most 256)")
    parser.add_argument("--time-limit", type=float, default=120.0,
                        help="stop starting new games after this many seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", default=None, metavar="URL",
                        help="the server's database (default: a temporary SQLite file); "
                        "must be on this machine")
    parser.add_argument("--write-docs", action="store_true",
                        help="append the figures to docs/benchmarks.md")
    args = parser.parse_args(argv)
    if not 1 <= args.games <= 5000 or not 1 <= args.concurrency <= 256:
        parser.error("--games must be 1..5000 and --concurrency 1..256")
    if not 0 < args.time_limit <= 3600:
        parser.error("--time-limit must be between 0 and 3600 seconds")
    result = run(args.games, args.concurrency, args.time_limit, args.seed, args.db)
    text = markdown(result)
    print(text)
    for p in result["problems"][:20]:
        print("PROBLEM:", p, file=sys.stderr)
    if args.write_docs:
        write_docs(text, Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md")
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
