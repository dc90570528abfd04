"""The compile cache's place, the interpreted path while compiling, and the warm-up with its
progress in ``nugar engine``, ``nugar play`` and the web server.

Toy kernels are written to a temporary module file (numba caches only functions with a
source file) and compiled for real; nothing here relies on the real kernels' cache being
cold.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numba
import pytest

import nugar
from nugar import warmup
from nugar.ai import Limits, make_agent
from nugar.kernels import jit, search_core
from nugar.rules import parse_rules
from nugar.warmup import Progress, Step, Warmup, line_reporter, steps_for

TOY = '''
from nugar.kernels.jit import kernel


@kernel
def add_one(x):
    return x + 1


@kernel
def shift(x, d):
    return x + d


@kernel
def shifts(x):
    return shift(x, 1) + shift(x, 2) + shift(x, 3)


@kernel
def with_default(x, y=5):
    return x + y
'''


def load_toy(folder: Path, name: str = "toy_kernels") -> ModuleType:
    """A fresh module of toy kernels from ``folder/name.py`` (written if missing)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.py"
    if not path.exists():
        path.write_text(TOY)
    spec = importlib.util.spec_from_file_location(f"{name}_{time.monotonic_ns()}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture()
def cache_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """``NUGAR_CACHE_DIR`` at an empty folder, chosen afresh by the next kernel made."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("NUGAR_CACHE_DIR", str(cache))
    jit.reset_cache_choice()
    yield cache
    jit.reset_cache_choice()


@pytest.fixture()
def gate_closed() -> Iterator[None]:
    yield
    jit.set_interpret_gate(None)


def files_under(path: Path) -> list[Path]:
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.exists() else []


def until(test: Callable[[], bool], seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.01)


# --- where the compiled code goes --------------------------------------------------------


def test_cache_directory_is_nugar_then_numba_then_the_platform_default(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("NUGAR_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert jit.cache_dir() == tmp_path / "home" / ".cache" / "nugar" / "numba"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jit.cache_dir() == tmp_path / "xdg" / "nugar" / "numba"
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numbas"))
    assert jit.cache_dir() == tmp_path / "numbas"
    monkeypatch.setenv("NUGAR_CACHE_DIR", str(tmp_path / "ours"))
    assert jit.cache_dir() == tmp_path / "ours"
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.delenv("NUGAR_CACHE_DIR")
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert jit.cache_dir() == tmp_path / "home" / "Library" / "Caches" / "nugar" / "numba"


def test_kernels_cache_in_the_user_directory_never_beside_their_source(
        cache_env: Path, tmp_path: Path) -> None:
    package = tmp_path / "package"
    package.mkdir()
    # a file where numba's own in-tree cache (__pycache__) would go: nothing can be written
    # beside the source, as in a read-only installed package (even for root)
    (package / "__pycache__").write_text("not a directory")
    toy = load_toy(package)
    assert toy.add_one(41) == 42
    assert toy.shifts(10) == 36
    cached = files_under(cache_env)
    assert any(p.suffix == ".nbi" for p in cached) and any(p.suffix == ".nbc" for p in cached)
    assert sorted(p.name for p in package.iterdir()) == ["__pycache__", "toy_kernels.py"]
    assert jit.is_cached(toy.add_one)
    again = load_toy(package)  # a new process would see the same: loaded, not compiled
    assert again.add_one(1) == 2
    assert sum(again.add_one.stats.cache_hits.values()) == 1
    assert not again.add_one.stats.cache_misses


def test_an_edit_of_any_kernel_source_gives_a_fresh_cache_folder(cache_env: Path,
                                                                 tmp_path: Path) -> None:
    # a cached kernel holds the code of the kernels it calls, from other files too
    first = load_toy(tmp_path / "src")
    assert first.add_one(1) == 2
    (tmp_path / "src" / "other_kernels.py").write_text("# a kernel module that changed\n")
    jit.reset_cache_choice()
    second = load_toy(tmp_path / "src")
    assert second.add_one(1) == 2
    assert second.add_one._cache.cache_path != first.add_one._cache.cache_path
    assert sum(second.add_one.stats.cache_misses.values()) == 1  # compiled afresh
    folders = sorted(p.name for p in cache_env.iterdir())
    assert len(folders) == 2 and folders[0].split("-")[0] == folders[1].split("-")[0]


def test_numba_cache_dir_of_the_user_is_used(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.delenv("NUGAR_CACHE_DIR", raising=False)
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba-cache"))
    jit.reset_cache_choice()
    try:
        toy = load_toy(tmp_path / "src")
        assert toy.add_one(1) == 2
    finally:
        jit.reset_cache_choice()
    assert any(p.suffix == ".nbi" for p in files_under(tmp_path / "numba-cache"))


def test_an_unwritable_cache_warns_once_and_the_kernels_still_run(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("NUGAR_CACHE_DIR", str(blocker / "cache"))
    jit.reset_cache_choice()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            toy = load_toy(tmp_path / "src")
            assert toy.add_one(1) == 2
            assert toy.shifts(0) == 6
            assert toy.with_default(1) == 6
    finally:
        jit.reset_cache_choice()
    ours = [w for w in caught if issubclass(w.category, jit.CacheWarning)]
    assert len(ours) == 1
    text = str(ours[0].message)
    assert str(blocker / "cache") in text and "NUGAR_CACHE_DIR" in text
    assert not jit.is_cached(toy.add_one)
    assert blocker.is_file()


def test_a_constant_argument_does_not_compile_a_kernel_again(cache_env: Path,
                                                            tmp_path: Path) -> None:
    toy = load_toy(tmp_path / "src")
    assert toy.shifts(10) == 36
    # plain numba would compile shift three times, once for each literal 1, 2, 3
    assert len(toy.shift.signatures) == 1


# --- interpreted while compiling ---------------------------------------------------------


def test_a_missed_kernel_runs_interpreted_while_the_gate_is_open(
        cache_env: Path, tmp_path: Path, gate_closed: None) -> None:
    toy = load_toy(tmp_path / "src")
    jit.set_interpret_gate(lambda: True)
    before = jit.interpreted_calls()
    assert toy.add_one(1) == 2
    assert toy.with_default(1) == 6  # numba passes the left-out default as a placeholder
    assert toy.shifts(0) == 6        # its callees run interpreted too: one call counted
    assert jit.interpreted_calls() == before + 3
    assert toy.add_one.signatures == [] and toy.shift.signatures == []
    with jit.compiling_thread():     # the warm-up's own thread compiles
        assert toy.add_one(2) == 3
    assert len(toy.add_one.signatures) == 1
    assert toy.add_one(5) == 6       # compiled now: no longer interpreted
    assert jit.interpreted_calls() == before + 3
    jit.set_interpret_gate(None)
    assert toy.shift(1, 1) == 2
    assert len(toy.shift.signatures) == 1


# --- the warm-up and its progress --------------------------------------------------------


def test_warmup_reports_each_step_and_notices_a_first_run(cache_env: Path,
                                                          tmp_path: Path) -> None:
    toy = load_toy(tmp_path / "src")
    release = threading.Event()
    steps = [Step("toy compile", lambda: toy.add_one(1)), Step("blocker", release.wait)]
    engine = Warmup(interpret=False)
    assert engine.progress().finished and engine.progress().message() == "Engine ready."
    log = io.StringIO()
    engine.subscribe(line_reporter("test: ", log))
    engine.add(steps)
    until(lambda: engine.progress().current == "blocker")
    p = engine.progress()
    assert (p.done, p.total, p.compiling, p.finished) == (1, 2, True, False)
    assert p.compiled >= 1
    assert p.message() == ("Preparing the engine (first run only): compiling 2/2 kernels "
                           "(blocker)...")
    assert not engine.ready(steps) and engine.ready(steps[:1])
    assert engine.wait(timeout=0.05).finished is False
    seen: list[Progress] = []
    threading.Timer(0.2, release.set).start()
    final = engine.wait(seen.append)
    assert final.finished and final.done == 2 and final.errors == ()
    assert final.message().startswith("Engine ready: compiled 2 kernels in ")
    assert seen[0].current == "blocker" and seen[-1].finished
    assert log.getvalue().splitlines() == [
        "test: Preparing the engine (first run only): compiling 1/2 kernels (toy compile)...",
        "test: Preparing the engine (first run only): compiling 2/2 kernels (blocker)...",
        final.message().join(["test: ", ""]),
    ]
    info = final.as_dict()
    assert info["ready"] is True and info["total"] == 2 and info["message"] == final.message()
    assert engine.add(steps).done == 2  # queued before: nothing to do


def test_a_warm_cache_loads_without_a_word(cache_env: Path, tmp_path: Path) -> None:
    assert load_toy(tmp_path / "src").add_one(1) == 2  # fills the cache
    toy = load_toy(tmp_path / "src")
    engine = Warmup(interpret=False)
    log = io.StringIO()
    engine.subscribe(line_reporter("test: ", log))
    engine.add([Step("toy", lambda: toy.add_one(1))])
    final = engine.wait()
    assert final.finished and not final.compiling and final.compiled == 0
    assert log.getvalue() == "" and final.message() == "Engine ready."


def test_other_threads_interpret_missed_kernels_while_a_warm_up_runs(
        cache_env: Path, tmp_path: Path, gate_closed: None) -> None:
    toy = load_toy(tmp_path / "src")
    release = threading.Event()
    engine = Warmup()
    engine.add([Step("waits", release.wait), Step("toy", lambda: toy.add_one(1))])
    try:
        assert engine.interpreting()
        assert toy.shift(1, 2) == 3 and toy.shift.signatures == []
        assert not engine.progress().compiling  # nothing compiled yet: not known to be cold
    finally:
        release.set()
    final = engine.wait()
    assert final.compiling and len(toy.add_one.signatures) == 1  # compiled by its thread
    assert not engine.interpreting()
    assert toy.shift(1, 2) == 3 and len(toy.shift.signatures) == 1


def test_a_failing_step_is_reported_and_the_others_still_run(cache_env: Path) -> None:
    done: list[str] = []

    def fail() -> None:
        raise ValueError("no such kernel")

    engine = Warmup(interpret=False)
    engine.add([Step("bad", fail), Step("good", lambda: done.append("good"))])
    final = engine.wait()
    assert done == ["good"] and final.done == 2
    assert final.errors == ("bad: ValueError: no such kernel",)


def test_what_each_agent_needs_compiled() -> None:
    dara, dracala = parse_rules("dara"), parse_rules("dracala")
    assert warmup.agent_names(dara, ["level:8"]) == {"alphabeta"}
    assert warmup.agent_names(dracala, ["level:8"]) == {"perfect", "alphabeta"}
    assert warmup.agent_names(dara, ["level:1", "random"]) == {"greedy", "random"}
    names = [s.name for s in steps_for(dara, ["greedy"])]
    assert names == ["alignment rules: start position", "alignment rules: legal moves",
                     "alignment rules: playing moves"]
    with_search = [s.name for s in steps_for(dara, ["level:8"])]
    assert "search: alpha-beta" in with_search and "search: Monte Carlo" not in with_search
    assert "search: Monte Carlo" in [s.name for s in steps_for(dara, ["mcts"])]
    assert "solver: Dracala" in [s.name for s in steps_for(dracala, ["level:8"])]
    assert len({s.name for s in warmup.server_steps()}) == len(warmup.server_steps())


def test_the_warm_up_compiles_the_versions_the_search_calls() -> None:
    for rules in ("dara", "kalah"):
        for step in steps_for(parse_rules(rules), ["alphabeta", "mcts"]):
            step.run()
        game = nugar.new_game(rules)
        make_agent("alphabeta").analyse(game, Limits(depth=3))
        make_agent("mcts").analyse(game, Limits(nodes=64))
    search = [k for k in jit.KERNELS if k.py_func.__module__ == search_core.__name__]
    assert search and all(len(k.signatures) <= 1 for k in search), \
        {k.py_func.__name__: k.signatures for k in search if len(k.signatures) > 1}


# --- the front ends ----------------------------------------------------------------------


def fake_steps(monkeypatch: pytest.MonkeyPatch, toy: ModuleType,
               pause: Callable[[], Any]) -> Warmup:
    """A fresh warm-up for the process, whose plan is: compile a toy kernel, then pause."""
    engine = Warmup(interpret=False)
    steps = [Step("toy compile", lambda: toy.add_one(1)), Step("toy pause", pause)]
    monkeypatch.setattr(warmup, "WARMUP", engine)
    monkeypatch.setattr(warmup, "steps_for", lambda rules, specs=(): steps)
    return engine


def test_engine_shows_compiling_on_stderr_and_keeps_stdout_for_the_protocol(
        cache_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nugar.protocol import run

    engine = fake_steps(monkeypatch, load_toy(tmp_path / "src"), lambda: time.sleep(0.2))
    out, log = io.StringIO(), io.StringIO()
    # a go without movetime waits for the compiled code, so the warm-up ends first
    assert run(io.StringIO("name\ngo agent random\nquit\n"), out, "dara", log=log) == 0
    replies = out.getvalue().split("\n\n")
    assert replies[0] == "= nugar" and replies[1].startswith("= ") and replies[2] == "= "
    assert engine.progress().finished
    assert log.getvalue().splitlines() == [
        "nugar engine: Preparing the engine (first run only): compiling 1/2 kernels "
        "(toy compile)...",
        "nugar engine: Preparing the engine (first run only): compiling 2/2 kernels "
        "(toy pause)...",
        "nugar engine: " + engine.progress().message(),
    ]


def test_engine_answers_a_timed_go_at_once_while_compiling_and_says_so(
        cache_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gate_closed: None) -> None:
    from nugar.protocol import EngineSession

    toy = load_toy(tmp_path / "src")
    release = threading.Event()
    engine = Warmup()  # interprets: the search below misses compiled code
    steps = [Step("toy compile", lambda: toy.add_one(1)), Step("blocker", release.wait)]
    monkeypatch.setattr(warmup, "steps_for", lambda rules, specs=(): steps)
    # a search kernel not compiled yet in this process: what a first run finds
    fresh = jit.KernelDispatcher(py_func=search_core._search_root.py_func, locals={},
                                 targetoptions={"nopython": True, "nogil": True})
    monkeypatch.setattr(search_core, "_search_root", fresh)
    log = io.StringIO()
    try:
        session = EngineSession("dara", warmup=engine, log=log)
        until(lambda: engine.progress().current == "blocker")
        start = time.perf_counter()
        reply = session.handle("go movetime 300 agent alphabeta")
        took = time.perf_counter() - start
    finally:
        release.set()
    engine.wait()
    assert reply is not None and reply.startswith("= ")
    assert reply[2:].strip() in {str(m) for m in nugar.new_game("dara").legal_moves()}
    assert took < 5.0
    assert fresh.signatures == []  # searched interpreted: never compiled in this thread
    assert "still compiling (first run only)" in log.getvalue()


def test_engine_waits_for_cached_code_to_load_before_a_timed_go(
        monkeypatch: pytest.MonkeyPatch, gate_closed: None) -> None:
    from nugar.protocol import EngineSession

    make_agent("alphabeta").analyse(nugar.new_game("dara"), Limits(depth=1))  # loaded now
    engine = Warmup()
    steps = [Step("loading", lambda: time.sleep(0.3))]  # loads: no compile event
    monkeypatch.setattr(warmup, "steps_for", lambda rules, specs=(): steps)
    log = io.StringIO()
    session = EngineSession("dara", warmup=engine, log=log)
    before = jit.interpreted_calls()
    reply = session.handle("go movetime 100 agent alphabeta")
    assert reply is not None and reply.startswith("= ")
    assert engine.progress().finished and not engine.progress().compiling
    assert log.getvalue() == ""
    assert jit.interpreted_calls() == before


def test_play_shows_progress_until_the_engine_is_ready(
        cache_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.cli import main

    release = threading.Event()
    engine = fake_steps(monkeypatch, load_toy(tmp_path / "src"), lambda: release.wait(30))
    real_wait = engine.wait

    def wait(*args: Any, **kwargs: Any) -> Progress:
        release.set()  # the pause ends once the player waits for it: progress is shown
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(engine, "wait", wait)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "dara", "--first", "ai:random", "--second", "human"]) == 0
    out = capsys.readouterr().out
    # the first step may still run when the player waits, or already be done
    progress = out.index("Preparing the engine (first run only): compiling ")
    assert "/2 kernels (toy " in out[progress:]
    ready = out.index("The engine is ready.")
    assert progress < ready < out.index("nugar random plays")


def test_server_reports_the_warm_up_and_the_ai_waits_for_it(
        cache_env: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from nugar.server import create_app
    from nugar.server.config import ServerConfig

    toy = load_toy(tmp_path / "src")
    release = threading.Event()
    engine = Warmup(interpret=False)
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'games.db'}", ai_time=0.05, rate=None),
                     warmup=engine)
    with TestClient(app) as client:
        assert client.get("/api/warmup").json()["ready"] is True
        engine.add([Step("toy compile", lambda: toy.add_one(1)), Step("blocker", release.wait)])
        until(lambda: engine.progress().current == "blocker")
        info = client.get("/api/warmup").json()
        assert info["ready"] is False and info["compiling"] is True
        assert info["message"] == ("Preparing the engine (first run only): compiling 2/2 "
                                   "kernels (blocker)...")
        game = client.post("/api/games", json={"rules": "dara", "mode": "ai", "level": 3,
                                               "seat": 2}).json()
        time.sleep(0.3)
        assert client.get(f"/api/games/{game['id']}").json()["ply"] == 0  # the AI waits
        release.set()
        until(lambda: client.get(f"/api/games/{game['id']}").json()["ply"] >= 1)
        engine.wait()
        info = client.get("/api/warmup").json()
        assert info["ready"] is True and info["message"].startswith("Engine ready")


def test_server_first_computer_move_runs_interpreted_while_compiling(
        cache_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        gate_closed: None) -> None:
    """Issue 37: on a first run the web app's computer answered only once the warm-up had
    compiled its kernels (195 s on a loaded machine). Its first move now comes while the
    warm-up still compiles, from the search run interpreted."""
    from fastapi.testclient import TestClient

    from nugar.server import create_app
    from nugar.server.config import ServerConfig

    toy = load_toy(tmp_path / "src")
    release = threading.Event()
    engine = Warmup()  # interprets, as nugar serve's warm-up does
    # a search kernel not compiled yet in this process: what a first run finds
    fresh = jit.KernelDispatcher(py_func=search_core._search_root.py_func, locals={},
                                 targetoptions={"nopython": True, "nogil": True})
    monkeypatch.setattr(search_core, "_search_root", fresh)
    steps = [Step("toy compile", lambda: toy.add_one(1)), Step("blocker", release.wait)]
    monkeypatch.setattr(warmup, "steps_for", lambda rules, specs=(): steps)
    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'games.db'}", ai_time=0.2, rate=None),
                     warmup=engine)
    before = jit.interpreted_calls()
    try:
        with TestClient(app) as client:
            engine.add(steps)
            until(lambda: engine.progress().current == "blocker")
            game = client.post("/api/games", json={"rules": "dara", "mode": "ai", "level": 8,
                                                   "seat": 2}).json()
            until(lambda: client.get(f"/api/games/{game['id']}").json()["ply"] >= 1, 30)
            # the move came while the warm-up was still compiling, from the interpreted search
            assert engine.progress().current == "blocker" and not engine.progress().finished
            assert fresh.signatures == []
            assert jit.interpreted_calls() > before
    finally:
        release.set()
    engine.wait()
