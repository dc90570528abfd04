"""The server's own work per move, without HTTP: moves played through ``Hub.move`` (the
session, the room's state and update, the JSON, the store's writer thread on a SQLite file
synced as ``nugar serve`` syncs it), each game watched by a listener. The CPU per move is
the process's (every thread), the steadier figure on a shared machine; compare two trees by
running this on each in the same minutes (``PYTHONPATH=OLD/src python
benchmarks/bench_hub.py`` and then the new one).

Run: ``python benchmarks/bench_hub.py [--games 64] [--repeat 3]``. Games of
kalah(pits=4,seeds=3), dara and dracala in turn, random legal moves (seeded per game), at most 80
moves each, all at once; a few games first, not timed (the kernels load).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from nugar.server.play.room import Listener
from nugar.server.play.rooms import Hub
from nugar.server.storage.store import Store

RULES = ("kalah(pits=4,seeds=3)", "dara", "dracala")
MAX_MOVES = 80


async def play_all(games: int, seed: int) -> tuple[int, float, float]:
    """Play ``games`` games at once; (moves, CPU seconds, wall seconds) of the moves."""
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'bench.db'}")
        hub = Hub(store)
        started: list[tuple[str, str, dict[str, Any]]] = []
        for i in range(games):
            room, keys = await hub.create(RULES[i % len(RULES)], "hotseat", None, None)
            room.listeners.add(Listener(limit=10 ** 6))  # a watcher that keeps every event
            started.append((room.row.id, keys["0"], room.state()))
        moves = 0

        async def play(number: int, gid: str, key: str, state: dict[str, Any]) -> None:
            nonlocal moves
            rng = random.Random(seed * 100_003 + number)  # its own: the same game every run
            for _ in range(MAX_MOVES):
                if state["over"]:
                    return
                state = await hub.move(gid, key, rng.choice(state["legal"]), expect=state["v"])
                moves += 1

        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(play(i, *g) for i, g in enumerate(started)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        await hub.close()
        store.close()
    return moves, cpu, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    asyncio.run(play_all(6, args.seed))  # not timed: the kernels load or compile
    for _ in range(args.repeat):
        moves, cpu, wall = asyncio.run(play_all(args.games, args.seed))
        print(f"{moves} moves: {1000 * cpu / moves:.3f} ms of CPU a move, "
              f"{1000 * wall / moves:.3f} ms of wall time", flush=True)


if __name__ == "__main__":
    main()
