"""Time of a whole game's analysis (``nugar.ai.analysis``) at its default effort.

Run: ``python benchmarks/bench_analysis.py [--presets kalah,dara,dracala] [--level 5]``.
Each game is played by two agents of ``--level`` (seeded, 0.05 s a decision), then analysed
(the kernels compiled beforehand); prints a Markdown table (docs/benchmarks.md, "Game
analysis") with the load average before and after.
"""

from __future__ import annotations

import argparse
import os
import time

from nugar.ai import Limits, make_agent
from nugar.ai.analysis import ANALYSIS_NODES, GameAnalyser, analyse_game
from nugar.rules import Game, new_game


def played(rules: str, level: int) -> Game:
    game = new_game(rules)
    agents = {1: make_agent(f"level:{level},seed=1"), 2: make_agent(f"level:{level},seed=2")}
    while not game.is_over and game.ply < 400:
        game.play(agents[game.to_move].choose(game, Limits(time=0.05)))
    return game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", default="kalah,dara,dracala")
    parser.add_argument("--level", type=int, default=5)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}; {ANALYSIS_NODES:,} nodes a decision")
    print("| game | turns | wall s | CPU s | exact positions | marked turns |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for rules in args.presets.split(","):
        game = played(rules, args.level)
        analyse_game(new_game(rules), nodes=1000)  # compiling, outside the timing
        wall, cpu = time.perf_counter(), time.process_time()
        plies = GameAnalyser(game).run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        print(f"| {rules} | {len(plies) - 1} | {wall:.1f} | {cpu:.1f} | "
              f"{sum(p.exact for p in plies)} of {len(plies)} | "
              f"{sum(1 for p in plies if p.mark)} |")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
