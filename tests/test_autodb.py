"""The small Kalah endgame databases built in the background on first use (``solver/autodb.py``),
the build lock of a database folder (``egdb.build_lock``), and the readers that pick up the
levels built while they run (the search's probing, the solver).

Every build here is of a few levels (a few thousand positions) in a temporary folder.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from nugar.rules import new_game, parse_rules
from nugar.solver import autodb, egdb

KALAH = parse_rules("kalah")


def until(test: Callable[[], bool], seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while not test():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def sound_levels(root: Path) -> list[int]:
    directory = egdb.db_directory(KALAH, root)
    return [n for n in range(30) if egdb.check_level(KALAH, directory, n) is None]


@pytest.fixture()
def auto(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """A database folder of its own, and an automatic build to 6 seeds."""
    root = tmp_path / "data"
    monkeypatch.setenv("NUGAR_DATA_DIR", str(root))
    monkeypatch.setenv(autodb.AUTO_ENV, "6")
    return root


def test_the_background_build_makes_the_small_levels_and_says_how_far(auto: Path) -> None:
    first = autodb.start(KALAH)
    assert first.state in ("building", "ready") and first.target == 6
    assert first.bytes == autodb.reach_bytes(6, 6)
    done = autodb.wait(KALAH, timeout=120)
    assert done.state == "ready" and done.have == 6 and done.share == 1.0
    assert sound_levels(auto) == list(range(7))
    directory = egdb.db_directory(KALAH)
    assert not list(directory.glob("*.part"))  # every level renamed once complete
    assert egdb.levels_on_disk(KALAH) == 6
    # once done, a call only looks: nothing is built again
    again = autodb.start(KALAH)
    assert again.state == "ready" and again.have == 6
    autodb.forget(KALAH)
    assert autodb.start(KALAH).state == "ready"  # from the disk: no thread started


def test_a_build_waits_while_another_holds_the_folder_and_keeps_what_it_built(
        auto: Path) -> None:
    directory = egdb.db_directory(KALAH)
    with egdb.build_lock(directory):
        egdb._build_locked(KALAH, 3, directory, None, 1, None, None)  # "the other build"
        status = autodb.start(KALAH)
        until(lambda: autodb.status(KALAH).state == "waiting")
        time.sleep(0.2)
        assert sound_levels(auto) == [0, 1, 2, 3]  # nothing written while it waits
        assert status.have == 3
    done = autodb.wait(KALAH, timeout=120)
    assert done.state == "ready" and sound_levels(auto) == list(range(7))


HOLDER = """
import sys
from pathlib import Path
from nugar.solver import egdb
with egdb.build_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_the_build_lock_holds_across_processes(tmp_path: Path) -> None:
    directory = egdb.db_directory(KALAH, tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        waited = threading.Event()
        worker = threading.Thread(target=egdb.build, args=(KALAH, 2),
                                  kwargs={"root": tmp_path, "workers": 1,
                                          "on_wait": waited.set})
        worker.start()
        assert waited.wait(30)
        time.sleep(0.2)
        assert worker.is_alive() and sound_levels(tmp_path) == []
        holder.stdin.write("\n")
        holder.stdin.flush()
        worker.join(120)
        assert not worker.is_alive() and sound_levels(tmp_path) == [0, 1, 2]
    finally:
        holder.kill()
        holder.wait()


def test_a_killed_holder_never_blocks_the_next_build(tmp_path: Path) -> None:
    directory = egdb.db_directory(KALAH, tmp_path)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == "held"
    holder.kill()  # a crash: the system drops its lock
    holder.wait()
    assert [r.status for r in egdb.build(KALAH, 1, root=tmp_path, workers=1)] == \
        ["built", "built"]


def test_unfinished_and_corrupted_files_are_never_read_and_are_built_again(
        auto: Path) -> None:
    egdb.build(KALAH, 3, workers=1)
    directory = egdb.db_directory(KALAH)
    egdb.prepare_level(KALAH, 4)  # a level being written (or left by a crash)
    assert egdb.levels_on_disk(KALAH) == 3  # its .part file is not a level
    path = egdb.level_path(directory, 2)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert egdb.levels_on_disk(KALAH) == 1  # the reach stops below the corrupted file
    assert autodb.start(KALAH).state == "building"
    done = autodb.wait(KALAH, timeout=120)
    assert done.state == "ready" and sound_levels(auto) == list(range(7))
    assert not list(directory.glob("*.part"))


def test_the_automatic_build_is_turned_off_or_sized_by_its_variable(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    root = tmp_path / "data"
    monkeypatch.setenv("NUGAR_DATA_DIR", str(root))
    monkeypatch.setenv(autodb.AUTO_ENV, "0")
    status = autodb.start(KALAH)
    assert status.state == "off" and status.have == -1
    assert not root.exists()  # nothing made, not even the folder
    assert autodb.auto_seeds({}) == autodb.AUTO_SEEDS
    assert autodb.auto_seeds({autodb.AUTO_ENV: "off"}) == 0
    assert autodb.auto_seeds({autodb.AUTO_ENV: " 12 "}) == 12
    for bad in ("yes", "-1", "27", "1.5"):
        with pytest.raises(ValueError, match=r"NUGAR_AUTO_DB=.* is not allowed: give 0 .* "
                                             r"1\.\.26"):
            autodb.auto_seeds({autodb.AUTO_ENV: bad})
    # rules without databases, and a board smaller than the reach
    assert autodb.start(parse_rules("dracala")).state == "none"
    assert autodb.start(parse_rules("dara")).state == "none"
    assert autodb.target_of(parse_rules("kalah(pits=2,seeds=1)"), 18) == 4


def test_a_build_that_cannot_write_says_why(monkeypatch: pytest.MonkeyPatch,
                                            tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("NUGAR_DATA_DIR", str(blocker / "data"))
    monkeypatch.setenv(autodb.AUTO_ENV, "4")
    autodb.start(KALAH)
    done = autodb.wait(KALAH, timeout=60)
    assert done.state == "failed" and "file" in done.error


def test_a_build_that_would_fill_the_disk_does_not_start(auto: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    monkeypatch.setattr(autodb, "FREE_MARGIN", 1 << 60)  # more than any disk has free
    autodb.start(KALAH)
    done = autodb.wait(KALAH, timeout=60)
    assert done.state == "failed" and done.error.startswith("not enough disk space in ")
    assert sound_levels(auto) == []


def test_the_search_and_the_solver_pick_up_levels_built_while_they_run(auto: Path) -> None:
    from nugar.ai import Limits, make_agent
    from nugar.ai.endgame import endgames_for
    from nugar.solver import Solver

    rules = parse_rules("kalah(pits=6,seeds=1)")  # 12 seeds: the reach matters at once
    game = new_game(rules)
    egdb.build(rules, 2, workers=1)
    first = endgames_for(game)
    assert first.reach == 2
    assert endgames_for(game) is first  # nothing changed: the same record
    probing = make_agent("alphabeta:probe=1")
    probing.analyse(game, Limits(depth=2))
    solver = Solver(rules, max_memory_mb=4, build_db=False)
    assert solver.db_reach == 2
    egdb.build(rules, 5, workers=1)  # finished while they run (another process, or autodb)
    second = endgames_for(game)
    assert second.reach == 5 and second is not first
    probing.analyse(game, Limits(depth=2))
    buffers = next(iter(probing._buffers.values()))  # type: ignore[attr-defined]
    assert buffers.tables.endgames is second
    assert solver.solve(game).value == Solver(rules, max_memory_mb=4).solve(game).value
    assert solver.db_reach == 5 and solver.disk is not None and solver.disk.levels == 5


def test_an_in_process_build_counts_its_cpu_time_once(tmp_path: Path) -> None:
    """``LevelReport.cpu_seconds`` of a build in this process (one worker) counted the
    same time twice, as the process's and as the workers'."""
    rules = parse_rules("kalah(pits=4,seeds=6)")
    egdb.build(rules, 1, root=tmp_path / "first", workers=1)  # the kernel loaded first
    cpu = time.thread_time()
    reports = egdb.build(rules, 18, root=tmp_path, workers=1)
    spent = time.thread_time() - cpu  # the build ran in this thread
    assert reports[-1].positions == egdb.level_count(4, 18) and spent > 0.1
    counted = sum(r.cpu_seconds for r in reports)
    assert 0.5 * spent <= counted <= spent


def test_the_web_app_builds_them_on_a_first_kalah_game_and_says_what_level_8_has(
        auto: Path, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from nugar.server import create_app
    from nugar.server.config import ServerConfig

    app = create_app(ServerConfig(f"sqlite:///{tmp_path / 'games.db'}", ai_time=0.05,
                                  rate=None))

    def perfect(lang: str = "en") -> dict[str, object]:
        got = client.get("/api/levels", params={"rules": "kalah"},
                         headers={"Accept-Language": lang})
        assert got.status_code == 200
        body: dict[str, object] = got.json()["perfect"]
        return body

    with TestClient(app) as client:
        before = perfect()
        assert before["databases"]["auto"]["state"] == "idle"  # type: ignore[index]
        assert before["databases_note"] == (
            "Level 8 has no endgame databases yet; build them with nugar solve 'kalah' "
            "--build-db 26 (2.5 GB, about 40 min).")
        game = client.post("/api/games", json={"rules": "kalah", "mode": "ai", "level": 8,
                                               "seat": 2}).json()
        until(lambda: client.get(f"/api/games/{game['id']}").json()["ply"] >= 1)
        assert autodb.wait(KALAH, timeout=120).state == "ready"  # started by that game
        assert sound_levels(auto) == list(range(7))
        assert perfect()["databases_note"] == (
            "Level 8 has the endgame databases to 6 seeds; larger ones: nugar solve 'kalah' "
            "--build-db 26 (2.5 GB, about 40 min).")
        assert str(perfect("fr")["databases_note"]).startswith(
            "Le niveau 8 a les bases de fins de partie jusqu'à 6 graines\u00a0; de plus "
            "grandes\u00a0: nugar solve 'kalah' --build-db 26")
        assert str(perfect("ar")["databases_note"]).startswith(
            "لدى المستوى 8 قواعد نهايات اللعب حتى 6 بذور")
        assert client.get("/api/levels", params={"rules": "dara"}).json()["perfect"][
            "databases_note"] is None


def test_the_page_note_says_how_far_a_build_is_in_every_language() -> None:
    from nugar.i18n import say
    from nugar.server.http.routes_api import databases_note

    info = {"have": 3, "recommended": 26, "gigabytes": 2.5, "minutes": 40,
            "command": "nugar solve 'kalah' --build-db 26",
            "auto": autodb.AutoStatus("building", 3, 18, 4, 0.25, 83 * 2**20).as_dict()}
    note = databases_note(info)
    assert note is not None
    assert str(note) == (
        "Level 8: building the endgame databases to 18 seeds in the background (25% done, "
        "83 MB); each level is used as soon as it is finished. Level 8 has the endgame "
        "databases to 3 seeds; larger ones: nugar solve 'kalah' --build-db 26 (2.5 GB, "
        "about 40 min).")
    assert say(note, "fr", "web").startswith(
        "Niveau 8\u00a0: construction en arrière-plan des bases de fins de partie jusqu'à 18 "
        "graines (25 % faits, 83 Mo)")
    assert say(note, "ar", "web").startswith("المستوى 8: جارٍ بناء قواعد نهايات اللعب حتى 18")
    info["auto"] = autodb.AutoStatus("waiting", 3, 18).as_dict()
    assert "another process is building" in str(databases_note(info))
    info["auto"] = autodb.AutoStatus("failed", 3, 18, error="disk full").as_dict()
    assert "could not be built: disk full" in str(databases_note(info))
    info["have"] = 26
    info["auto"] = autodb.AutoStatus("ready", 26, 18).as_dict()
    assert databases_note(info) is None


def test_build_db_says_it_waits_for_another_build(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.cli.solve import main as solve_main

    rules = parse_rules("kalah(pits=3,seeds=3)")
    directory = egdb.db_directory(rules, tmp_path)
    codes: list[int] = []
    with egdb.build_lock(directory):
        worker = threading.Thread(target=lambda: codes.append(solve_main(
            ["kalah(pits=3,seeds=3)", "--build-db", "3", "--db-dir", str(tmp_path),
             "--quiet"])))
        worker.start()
        said: list[str] = []
        until(lambda: said.append(capsys.readouterr().err) is None
              and "another build of these databases is running" in "".join(said), 60)
        assert worker.is_alive() and not codes  # waiting for the holder
        assert egdb.levels_on_disk(rules, tmp_path) == -1
    worker.join(120)
    assert codes == [0]
    assert egdb.levels_on_disk(rules, tmp_path) == 3
