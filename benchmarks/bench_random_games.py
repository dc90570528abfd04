"""Random games per second for every preset, through the public API and the compiled core.

Run:  python benchmarks/bench_random_games.py [--seconds 3] [--presets dara kalah ...]

Both paths play uniformly random legal decisions to the end of the game under the preset's
default options (draw rules included). The public-API path calls ``legal_actions`` and
``push_action`` from Python for every decision; the compiled path calls the kernel
``random_playout`` once per game. Where OpenSpiel is installed, its C++ ``mancala`` (Kalah 6x4)
is timed in the same run through ``pyspiel.random_sim_test``, which plays its random games in
C++, so the ratio compares like with like. Everything runs on one core (one process).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable

import numpy as np

import nugar
from nugar.kernels import alignment as align_kernels
from nugar.kernels import sowing as sow_kernels

PRESETS = ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]


def _rate(run_one: Callable[[int], int], seconds: float) -> tuple[float, float]:
    """Games per second and mean decisions per game over about ``seconds`` of play."""
    run_one(0)  # compile and warm up
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        decisions += run_one(games + 1)
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / games


def api_game(rules: str) -> Callable[[int], int]:
    def run(seed: int) -> int:
        rng = random.Random(seed)
        game = nugar.new_game(rules)
        n = 0
        while not game.is_over:
            game.push_action(rng.choice(game.legal_actions()))
            n += 1
        return n

    return run


def compiled_game(rules: str) -> Callable[[int], int]:
    rule_set = nugar.parse_rules(rules)
    kernels = align_kernels if rule_set.family == "alignment" else sow_kernels
    params = nugar.new_game(rules).params  # type: ignore[attr-defined]
    start = kernels.initial_state(params)

    def run(seed: int) -> int:
        state = start.copy()
        kernels.random_playout(params, state, seed)
        return 0

    return run


def openspiel_mancala(seconds: float) -> float | None:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("mancala")
    batch = 200
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        pyspiel.random_sim_test(game, num_sims=batch, serialize=False, verbose=False)
        games += batch
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--presets", nargs="*", default=PRESETS)
    args = parser.parse_args()
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"Python {platform.python_version()}, numpy {np.__version__}")
    print(f"command: python benchmarks/bench_random_games.py --seconds {args.seconds}\n")
    print("| rule set | decisions/game | API games/s | compiled games/s | compiled/API |")
    print("| --- | ---: | ---: | ---: | ---: |")
    kalah_rate = None
    for rules in args.presets:
        api, length = _rate(api_game(rules), args.seconds)
        compiled, _ = _rate(compiled_game(rules), args.seconds)
        if rules == "kalah":
            kalah_rate = compiled
        ratio = compiled / api
        print(f"| `{rules}` | {length:.0f} | {api:,.0f} | {compiled:,.0f} | {ratio:.0f}x |")
    if kalah_rate is not None:
        peer = openspiel_mancala(args.seconds)
        if peer is None:
            print("\nOpenSpiel not installed: no peer figure for Kalah.")
        else:
            print(f"\nOpenSpiel C++ `mancala` (random_sim_test, no serialisation): {peer:,.0f} "
                  f"games/s; nugar compiled `kalah` / OpenSpiel = {kalah_rate / peer:.1f}x")


if __name__ == "__main__":
    main()
