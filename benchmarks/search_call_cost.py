"""What a call from Python into the alpha-beta search costs, and how many instructions a fixed
set of searches takes: for comparing two source trees where timings are too noisy.

Run: ``python benchmarks/search_call_cost.py [--preset dracala]`` prints the CPU time of one
call of ``search_core.search_root`` at depth 1, of ``principal_variation``, and of an agent's
``analyse`` at depth 1 (the best of 7 timings of thousands of calls), for the tree on
``PYTHONPATH``; a tree from before issue 28, whose kernels took arrays instead of records,
runs too. Alternate the trees' runs: the lower figures are the steadier.

``--instructions R`` runs instead ``R`` rounds of the fixed-depth searches of
``bench_search_pair.py`` (the three positions of ``node_counts.py``, depth ``--depth``, a
reset agent each time) and prints their node count. Each ``analyse`` is wrapped in
callgrind's client requests (built with ``cc`` from valgrind's ``callgrind.h``; nothing
happens outside valgrind), so that ``valgrind --tool=callgrind --instr-atstart=no python
benchmarks/search_call_cost.py --instructions 2`` counts the instructions of the searches
alone ("Collected"), whatever the load. Valgrind does not run AVX-512 code: compile the
kernels for an older CPU (``NUMBA_CPU_NAME=haswell NUMBA_CPU_FEATURES=``, with a
``NUGAR_CACHE_DIR`` of their own), natively once before, so that valgrind loads them from
the cache instead of compiling; and run the interpreter itself, not a shim script.
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import tempfile
import time
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_ai import position
from nugar.ai import Limits, make_agent, search_setup
from nugar.kernels import search_core

SWITCH_C = """#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; }
void stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
"""


def per_call(rules: str) -> str:
    """The CPU microseconds of one call of each entry into the search."""
    game = position(rules, 4, 100)
    fam = search_setup.kernels_for(game)
    state = game.state
    buf = search_setup.SearchBuffers(state.shape[0], fam.n_actions, 1)
    buf.new_search([], None)
    calls: dict[str, Callable[[], object]]
    if hasattr(buf, "tables"):  # the records of issue 28
        tables = buf.tables
        tables.stack[0] = state
        calls = {"search_root(depth 1)": lambda: search_core.search_root(fam, tables, 1),
                 "principal_variation": lambda: search_core.principal_variation(
                     fam, tables, state, -1)}
    else:  # before: the arrays one by one
        b: Any = buf
        b.stack[0] = state
        arrays = (b.stack, b.moves, b.order, b.tt_keys, b.tt_data, b.killers, b.history,
                  b.path, b.ctx, b.stop)
        kernels: Any = search_core
        calls = {"search_root(depth 1)": lambda: kernels.search_root(
                     fam.fam, fam.params, fam.weights, *arrays, 1),
                 "principal_variation": lambda: kernels.principal_variation(
                     fam.fam, fam.params, state, b.tt_keys, b.tt_data, fam.n_actions, -1,
                     b.pv)}
    agent = make_agent("alphabeta")
    calls["analyse(depth 1)"] = lambda: agent.analyse(game, Limits(depth=1))
    out = []
    for name, call in calls.items():
        call()
        number = 2_000 if name.startswith("analyse") else 20_000
        best = min(timeit.repeat(call, number=number, repeat=7, timer=time.thread_time))
        out.append(f"{name} {best / number * 1e6:.2f} us")
    return ", ".join(out)


def callgrind_switch() -> tuple[Callable[[], None], Callable[[], None]]:
    """Functions that start and stop callgrind's counting (no-ops outside valgrind)."""
    folder = Path(tempfile.mkdtemp(prefix="nugar-callgrind-"))
    (folder / "switch.c").write_text(SWITCH_C)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(folder / "switch.so"),
                    str(folder / "switch.c")], check=True)
    lib = ctypes.CDLL(str(folder / "switch.so"))
    return lib.start, lib.stop


def searches(rules: str, depth: int, rounds: int) -> int:
    """Nodes of ``rounds`` rounds of the searches, counted by callgrind alone."""
    start, stop = callgrind_switch()
    games = [position(rules, 4, 100 + i) for i in range(3)]
    agent = make_agent("alphabeta")
    agent.analyse(games[0], Limits(depth=depth))  # load the compiled search, touch the table
    count = 0
    for _ in range(rounds):
        for game in games:
            agent.reset()
            start()
            count += agent.analyse(game, Limits(depth=depth)).nodes
            stop()
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="dracala")
    parser.add_argument("--depth", type=int, default=19,
                        help="depth of the --instructions searches")
    parser.add_argument("--instructions", type=int, metavar="R", default=0,
                        help="run R rounds of searches for callgrind instead of timing calls")
    args = parser.parse_args()
    if args.instructions:
        nodes = searches(args.preset, args.depth, args.instructions)
        print(f"{args.preset}: {nodes} nodes in {args.instructions} rounds at depth "
              f"{args.depth}")
    else:
        print(f"{args.preset}: {per_call(args.preset)}")


if __name__ == "__main__":
    main()
