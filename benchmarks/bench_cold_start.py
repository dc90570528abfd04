"""Cold start: how long the first answers take while numba compiles the kernels.

Run: ``python benchmarks/bench_cold_start.py [--parts engine,play,serve,moves,steps]
[--src DIR] [--repeat 1]``. Every part runs in fresh processes whose compile cache is a new
empty directory (``NUGAR_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` both point at it), so what is
timed is a first run on a new machine; "warm" rows run once more on the cache the cold
run filled.

* ``engine``: ``nugar engine`` answering ``rules dara``, ``agent level:8``,
  ``go movetime 500``, seconds from the process start to each reply; then the time the
  compiled engine is ready (its "Engine ready" line on stderr) and a second ``go movetime
  500`` after it.
* ``play``: ``nugar play dara --first ai:8 --second human --movetime 0.5``: seconds until the
  computer's first move is printed, and the progress lines shown before it.
* ``serve``: ``nugar serve``: seconds until it answers HTTP; then a Dara game and a Kalah
  game against level 8, the computer moving first, each created through the web app's API
  (``POST /api/games``) the moment the server answers: seconds from its creation until the
  computer's first move is stored; and until ``GET /api/warmup`` says ready.
* ``moves``: ``nugar moves dara`` (the rules kernels only), seconds to exit.
* ``kernels``: the kernels the engine's first move compiles, without a warm-up (each where
  it is first called from Python, with every kernel it calls): seconds and numba
  compilations of each. Works on any checkout, so it compares before and after.
* ``steps``: the warm-up steps of ``nugar.warmup`` one by one in one process (every game,
  the search, MCTS and the solver): compile seconds (wall and CPU) and numba
  compilations of each.

``--src DIR`` runs another checkout's ``src`` (for a before/after comparison: export the
older tree with ``git archive``); ``steps`` needs the warm-up module and is skipped there.
Prints Markdown tables for ``docs/benchmarks.md`` ("Cold start"), with the machine and the
load average before and after each part (the figures are wall-clock seconds, so a busy
machine makes them longer).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parent.parent
GO = "go movetime 500"


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def machine() -> str:
    import numba

    return (f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}, numba {numba.__version__}")


@contextmanager
def fresh_cache(keep: Path | None = None) -> Iterator[tuple[Path, dict[str, str]]]:
    """An empty cache directory and the environment that makes nugar (and numba) use it."""
    path = keep or Path(tempfile.mkdtemp(prefix="nugar-cold-"))
    env = dict(os.environ, NUGAR_CACHE_DIR=str(path), NUMBA_CACHE_DIR=str(path),
               NO_COLOR="1", PYTHONUNBUFFERED="1")
    try:
        yield path, env
    finally:
        if keep is None:
            shutil.rmtree(path, ignore_errors=True)


def with_src(env: dict[str, str], src: Path | None) -> dict[str, str]:
    if src is not None:
        env = dict(env, PYTHONPATH=str(src))
    return env


@dataclass
class Lines:
    """The lines of a stream, each with the seconds since ``start`` it arrived at."""

    start: float
    got: list[tuple[float, str]] = field(default_factory=list)
    cond: threading.Condition = field(default_factory=threading.Condition)
    closed: bool = False

    def pump(self, stream: IO[str]) -> None:
        for line in stream:
            with self.cond:
                self.got.append((time.perf_counter() - self.start, line.rstrip("\n")))
                self.cond.notify_all()
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def wait_for(self, test: Callable[[str], bool], after: int = 0,
                 timeout: float = 300.0) -> tuple[int, float] | None:
        """Index and time of the first line from ``after`` on that passes ``test``."""
        end = time.monotonic() + timeout
        with self.cond:
            while True:
                for i in range(after, len(self.got)):
                    if test(self.got[i][1]):
                        return i, self.got[i][0]
                if self.closed or time.monotonic() > end:
                    return None
                self.cond.wait(0.2)


def start(cmd: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[str], Lines, Lines]:
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    out, err = Lines(t0), Lines(t0)
    assert proc.stdout is not None and proc.stderr is not None
    threading.Thread(target=out.pump, args=(proc.stdout,), daemon=True).start()
    threading.Thread(target=err.pump, args=(proc.stderr,), daemon=True).start()
    return proc, out, err


def send(proc: subprocess.Popen[str], text: str) -> None:
    assert proc.stdin is not None
    proc.stdin.write(text + "\n")
    proc.stdin.flush()


def fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.1f}"


# --- parts ------------------------------------------------------------------------------------


def engine_run(env: dict[str, str]) -> dict[str, Any]:
    proc, out, err = start([sys.executable, "-m", "nugar", "engine"], env)
    row: dict[str, Any] = {}
    seen = 0
    for name, command in (("rules", "rules dara"), ("agent", "agent level:8"), ("go", GO)):
        send(proc, command)
        hit = out.wait_for(lambda line: line.startswith(("=", "?")), seen)
        if hit is None:
            raise RuntimeError(f"nugar engine gave no reply to {command!r}: "
                               + " | ".join(t for _, t in err.got[-5:]))
        seen = hit[0] + 1
        row[name] = hit[1]
        row[name + "_reply"] = out.got[hit[0]][1]
    row["interpreted"] = any("interpreted" in t for _, t in err.got)
    row["progress_lines"] = sum("Preparing the engine" in t for _, t in err.got)
    ready = None
    if row["progress_lines"]:  # compiling in the background: wait for its end
        ready = err.wait_for(lambda line: "Engine ready" in line, 0, timeout=300.0)
    row["ready"] = None if ready is None else ready[1]
    send(proc, GO)
    t = time.perf_counter()
    hit = out.wait_for(lambda line: line.startswith(("=", "?")), seen)
    row["go2"] = None if hit is None else hit[1] - (t - out.start)
    send(proc, "quit")
    proc.wait(timeout=60)
    return row


def part_engine(src: Path | None, repeat: int) -> None:
    print("### nugar engine (dara, level 8)\n")
    print(f"load before: {load()}\n")
    print("| cache | `rules dara` answered | `agent level:8` | first `go movetime 500` "
          "| first move | interpreted | compiled engine ready | next `go` took |")
    print("| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |")
    for _ in range(repeat):
        with fresh_cache() as (_path, env):
            env = with_src(env, src)
            for label in ("cold", "warm"):
                r = engine_run(env)
                print(f"| {label} | {fmt(r['rules'])} | {fmt(r['agent'])} | {fmt(r['go'])} | "
                      f"{r['go_reply']} | {'yes' if r['interpreted'] else 'no'} | "
                      f"{fmt(r['ready'])} | {fmt(r['go2'])} |", flush=True)
    print(f"\nload after: {load()}\n")


def play_run(env: dict[str, str]) -> tuple[float | None, int]:
    cmd = [sys.executable, "-m", "nugar", "play", "dara", "--first", "ai:8", "--second",
           "human", "--movetime", "0.5"]
    proc, out, _err = start(cmd, env)
    hit = out.wait_for(lambda line: " plays " in line, 0)
    send(proc, "quit")
    proc.wait(timeout=60)
    shown = [t for _, t in out.got if "Preparing the engine" in t]
    return (None if hit is None else hit[1]), len(shown)


def part_play(src: Path | None, repeat: int) -> None:
    print("### nugar play (dara, the computer at level 8 moves first, 0.5 s a move)\n")
    print(f"load before: {load()}\n")
    print("| cache | first computer move printed | progress lines before it |")
    print("| --- | ---: | ---: |")
    for _ in range(repeat):
        with fresh_cache() as (_path, env):
            env = with_src(env, src)
            for label in ("cold", "warm"):
                t, n = play_run(env)
                print(f"| {label} | {fmt(t)} | {n} |", flush=True)
    print(f"\nload after: {load()}\n")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _http(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


#: the games ``serve`` times the computer's first move of, level 8 moving first
SERVE_GAMES = ("dara", "kalah")


def _first_move(base: str, rules: str, end: float) -> float | None:
    """Seconds from creating a game of ``rules`` against level 8 (the computer moving
    first) to the computer's first move."""
    t = time.perf_counter()
    game = _http("POST", base + "/api/games", {"rules": rules, "mode": "ai", "level": 8,
                                               "seat": 2})
    while time.monotonic() < end:
        if _http("GET", f"{base}/api/games/{game['id']}")["ply"] >= 1:
            return time.perf_counter() - t
        time.sleep(0.05)
    return None


def serve_run(env: dict[str, str], db: Path) -> dict[str, float | None]:
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "nugar", "serve", "--port", str(port), "--rate", "0",
           "--ai-time", "1.0", "--db", f"sqlite:///{db}"]
    proc, _out, _err = start(cmd, env)
    t0 = _out.start
    row: dict[str, float | None] = {"up": None, "ready": None}
    try:
        end = time.monotonic() + 600
        while time.monotonic() < end:
            try:
                _http("GET", base + "/api/levels")
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.05)
        row["up"] = time.perf_counter() - t0
        for rules in SERVE_GAMES:
            row[rules] = _first_move(base, rules, end)
        while time.monotonic() < end:
            try:
                info = _http("GET", base + "/api/warmup")
            except urllib.error.HTTPError:
                break  # an older server without the endpoint
            if info.get("ready"):
                row["ready"] = time.perf_counter() - t0
                break
            time.sleep(0.2)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return row


def part_serve(src: Path | None, repeat: int) -> None:
    print("### nugar serve (a Dara game, then a Kalah game, against level 8, the computer "
          "moving first, 1 s a move)\n")
    print(f"load before: {load()}\n")
    print("| cache | HTTP up | " + " | ".join(f"{r}: first computer move after creation"
                                             for r in SERVE_GAMES)
          + " | `/api/warmup` ready | load after (1, 5, 15 min) |")
    print("| --- | ---: | " + " | ".join("---:" for _ in SERVE_GAMES) + " | ---: | --- |")
    for _ in range(repeat):
        with fresh_cache() as (path, env):
            env = with_src(env, src)
            env["NUGAR_DATA_DIR"] = str(path / "data")  # no endgame databases: a new user's
            for label in ("cold", "warm"):
                r = serve_run(env, path / f"games-{label}.db")
                print(f"| {label} | {fmt(r['up'])} | "
                      + " | ".join(fmt(r[g]) for g in SERVE_GAMES)
                      + f" | {fmt(r['ready'])} | {load()} |", flush=True)
    print(f"\nload after: {load()}\n")


def part_moves(src: Path | None, repeat: int) -> None:
    print("### nugar moves dara\n")
    print(f"load before: {load()}\n")
    print("| cache | seconds to exit |")
    print("| --- | ---: |")
    for _ in range(repeat):
        with fresh_cache() as (_path, env):
            env = with_src(env, src)
            for label in ("cold", "warm"):
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "nugar", "moves", "dara"], env=env,
                               cwd=ROOT, capture_output=True, check=True, timeout=600)
                print(f"| {label} | {time.perf_counter() - t:.1f} |", flush=True)
    print(f"\nload after: {load()}\n")


STEPS_CODE = """
import json, sys, threading, time
from numba.core import event
from nugar import warmup
from nugar.rules import parse_rules
count = [0]
class Count(event.Listener):
    def on_start(self, ev): count[0] += 1
    def on_end(self, ev): pass
event.register("numba:compile", Count())
steps = [*warmup.steps_for(parse_rules("dara"), ["alphabeta", "mcts"]),
         *warmup.rules_steps(parse_rules("kalah")),
         *warmup.solver_steps(parse_rules("dracala")), *warmup.solver_steps(parse_rules("kalah"))]
rows = []
for step in steps:
    n, wall, cpu = count[0], time.perf_counter(), time.process_time()
    step.run()
    rows.append([step.name, time.perf_counter() - wall, time.process_time() - cpu, count[0] - n])
print(json.dumps(rows))
"""


def _cold_runs(code: str, src: Path | None, repeat: int, what: str
               ) -> list[list[list[Any]]] | None:
    """Run ``code`` ``repeat`` times, each in a fresh process on an empty cache, and collect
    the JSON rows it prints last; ``None`` (after saying why) if a run fails."""
    runs: list[list[list[Any]]] = []
    for _ in range(repeat):
        with fresh_cache() as (_path, env):
            env = with_src(env, src)
            proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT,
                                  capture_output=True, text=True, timeout=1200)
            if proc.returncode != 0:
                print(f"({what} failed: {proc.stderr.strip().splitlines()[-1:]})\n")
                return None
            runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return runs


def part_steps(src: Path | None, repeat: int) -> None:
    print("### Compile time of each warm-up step (one process, cold cache, in this order)\n")
    print(f"load before: {load()}\n")
    runs = _cold_runs(STEPS_CODE, src, repeat, "steps")
    if runs is None:
        return
    print("| step | wall s | CPU s | numba compilations |")
    print("| --- | ---: | ---: | ---: |")
    first = runs[0]
    for i, (name, *_rest) in enumerate(first):
        wall = min(r[i][1] for r in runs)
        cpu = min(r[i][2] for r in runs)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {first[i][3]} |")
    total_wall = sum(min(r[i][1] for r in runs) for i in range(len(first)))
    total_cpu = sum(min(r[i][2] for r in runs) for i in range(len(first)))
    print(f"| all | {total_wall:.1f} | {total_cpu:.1f} | {sum(r[3] for r in first)} |")
    print(f"\nload after: {load()}\n")


KERNELS_CODE = """
import json, time
from numba.core import event
stack, rows = [], []
class Top(event.Listener):
    def on_start(self, ev):
        stack.append((time.perf_counter(), time.process_time(), ev.data["dispatcher"]))
        rows.append(None)
    def on_end(self, ev):
        wall, cpu, disp = stack.pop()
        if not stack:
            f = disp.py_func
            rows.append([f.__module__.split(".")[-1] + "." + f.__name__,
                         time.perf_counter() - wall, time.process_time() - cpu])
event.register("numba:compile", Top())
try:
    from nugar.protocol import EngineSession
except ImportError:  # older checkouts
    from nugar.engine import EngineSession
session = EngineSession("dara")
session.handle("agent level:8")
session.handle("go depth 3")
tops, count = [], 0
for row in rows:
    if row is None:
        count += 1
    else:
        tops.append(row + [count])
        count = 0
print(json.dumps(tops))
"""


def part_kernels(src: Path | None, repeat: int) -> None:
    print("### Kernels compiled for the engine's first move (dara, level 8, `go depth 3`, "
          "no warm-up: compiled where first called)\n")
    print(f"load before: {load()}\n")
    runs = _cold_runs(KERNELS_CODE, src, repeat, "kernels")
    if runs is None:
        return
    print("| kernel called from Python (with what it calls) | wall s | CPU s | numba "
          "compilations |")
    print("| --- | ---: | ---: | ---: |")
    first = runs[0]
    for i, (name, _wall, _cpu, count) in enumerate(first):
        wall = min(r[i][1] for r in runs if i < len(r))
        cpu = min(r[i][2] for r in runs if i < len(r))
        print(f"| {name} | {wall:.2f} | {cpu:.2f} | {count} |")
    print(f"| all | {sum(r[1] for r in first):.1f} | {sum(r[2] for r in first):.1f} | "
          f"{sum(r[3] for r in first)} |")
    print(f"\nload after: {load()}\n")


PARTS: dict[str, Callable[[Path | None, int], None]] = {
    "engine": part_engine, "play": part_play, "serve": part_serve, "moves": part_moves,
    "kernels": part_kernels, "steps": part_steps,
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="comma-separated: " + ", ".join(PARTS))
    parser.add_argument("--src", type=Path, default=None,
                        help="the src directory of another checkout to measure instead")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each part")
    args = parser.parse_args(argv)
    parts = [p for p in args.parts.split(",") if p]
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; allowed: {', '.join(PARTS)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.src is not None and not (args.src / "nugar" / "__init__.py").is_file():
        parser.error(f"--src {args.src}: no nugar package there (give the src directory)")
    print(f"machine: {machine()}")
    print(f"source: {args.src or ROOT / 'src'}; command: python benchmarks/bench_cold_start.py "
          + " ".join(argv if argv is not None else sys.argv[1:]))
    print(f"date: {time.strftime('%Y-%m-%d %H:%M')}; load average (1, 5, 15 min): {load()}\n")
    for name in parts:
        if name == "steps" and args.src is not None \
                and not (args.src / "nugar" / "warmup.py").is_file():
            print("### steps: skipped (that checkout has no nugar.warmup)\n")
            continue
        PARTS[name](args.src, args.repeat)


if __name__ == "__main__":
    main()
