"""Level 8 against every other agent at equal time: the ladder of docs/strength.md.

    python benchmarks/bench_level8.py                           # every cell, 20 games each
    python benchmarks/bench_level8.py --rules kalah --times 0.5 --games 10
    python benchmarks/bench_level8.py --kalah-data DIR          # Kalah also with databases
    python benchmarks/bench_level8.py --nodes 20000 --games 40   # at equal nodes instead

Issue 37's rule: at equal time, level 8 is never weaker than any other agent nugar has, with
or without the Kalah endgame databases, in every game. Each cell is one ``nugar match level:8
OPPONENT --rules R --time T --games G --opening O --seed S --json --quiet`` in its own
process (so each starts as a new user's would: nothing in memory), both players at ``T``
seconds a decision (``level:7`` stops at its node budget first). The openings are those of
the repository's matches: 2 random decisions, in Dracala none (its levels choose at random
themselves; docs/strength.md), in Kalah 4 (as issue 37 measured it).

Kalah is played twice: with an empty data folder (``NUGAR_DATA_DIR``: no databases, a fresh
install) and, with ``--kalah-data DIR``, with the databases built there (``NUGAR_DATA_DIR=DIR
nugar solve kalah --build-db N``; docs/solving.md has the size and time of each level).
With ``--nodes N`` every cell is played at ``--nodes N`` instead of a time (both searches stop
at ``N`` positions, level 8's solver has its own share on top, docs/ai.md): the same games on
any machine, at any load. Each cell prints one Markdown row as it finishes: W-D-L of level 8,
its score, the Elo difference with its 95% interval (``nugar match``'s), whether the score is
at least 50%, the load average (1 minute) at its start and end, and its wall-clock seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PRESETS = ("dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala")
OPPONENTS = ("alphabeta", "mcts", "level:7")
TIMES = (0.1, 0.5, 2.0)

#: random opening decisions of each game pair, by preset (default 2)
OPENING = {"kalah": 4, "dracala": 0}


def play(opponent: str, rules: str, limit: str, games: int, opening: int, seed: int,
         data_dir: Path, workers: int) -> dict[str, float]:
    """One cell: ``nugar match``'s JSON table, level 8 first; ``limit`` is ``--time T`` or
    ``--nodes N``."""
    command = [sys.executable, "-m", "nugar", "match", "level:8", opponent, "--rules", rules,
               "--games", str(games), *limit.split(), "--opening", str(opening),
               "--seed", str(seed), "--workers", str(workers), "--json", "--quiet"]
    env = {**os.environ, "NUGAR_DATA_DIR": str(data_dir)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    table: dict[str, float] = json.loads(done.stdout)
    return table


def row(rules: str, databases: str, opponent: str, limit: str, games: int, opening: int,
        seed: int, data_dir: Path, workers: int) -> str:
    load0 = os.getloadavg()[0]
    start = time.perf_counter()
    t = play(opponent, rules, limit, games, opening, seed, data_dir, workers)
    wall = time.perf_counter() - start
    elo = f"{t['elo']:+.0f} [{t['elo_low']:+.0f}, {t['elo_high']:+.0f}]"
    return (f"| {rules} | {databases} | {opponent} | {limit.split()[1]} | {int(t['games'])} | "
            f"{int(t['wins'])}-{int(t['draws'])}-{int(t['losses'])} | "
            f"{100 * t['score']:.1f}% | {elo} | {'yes' if t['score'] >= 0.5 else 'NO'} | "
            f"{load0:.1f}-{os.getloadavg()[0]:.1f} | {wall:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=list(PRESETS))
    ap.add_argument("--opponents", nargs="+", default=list(OPPONENTS))
    ap.add_argument("--times", nargs="+", type=float, default=list(TIMES),
                    help="seconds a decision (default 0.1 0.5 2)")
    ap.add_argument("--nodes", type=int, default=None, metavar="N",
                    help="play every cell at --nodes N instead of the times")
    ap.add_argument("--games", type=int, default=20, help="games a cell (default 20)")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--kalah-data", type=Path, default=None, metavar="DIR",
                    help="a data folder with Kalah endgame databases: Kalah is also played "
                         "with them")
    ap.add_argument("--no-empty", action="store_true",
                    help="with --kalah-data: skip Kalah without databases")
    args = ap.parse_args()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
          f"Python {platform.python_version()}; {args.games} games a cell, --seed "
          f"{args.seed}, --workers {args.workers}; {when}\n")
    print(f"| rules | databases | opponent | {'nodes' if args.nodes else 's/decision'} | "
          "games | W-D-L of level 8 | score | "
          "Elo [95%] | >= 50% | load | wall s |")
    print("| --- | --- | --- | ---: | ---: | --- | ---: | --- | --- | --- | ---: |")
    with tempfile.TemporaryDirectory(prefix="nugar-empty-") as empty:
        limits = [f"--nodes {args.nodes}"] if args.nodes else \
            [f"--time {seconds:g}" for seconds in args.times]
        for limit in limits:
            for rules in args.rules:
                opening = OPENING.get(rules, 2)
                folders: list[tuple[str, Path]] = []
                if rules != "kalah" or not (args.no_empty and args.kalah_data):
                    folders.append(("none", Path(empty)))
                if rules == "kalah" and args.kalah_data is not None:
                    folders.append((f"on disk ({args.kalah_data.name})", args.kalah_data))
                for databases, folder in folders:
                    for opponent in args.opponents:
                        print(row(rules, databases, opponent, limit, args.games, opening,
                                  args.seed, folder, args.workers), flush=True)


if __name__ == "__main__":
    main()
