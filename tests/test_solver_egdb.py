"""The Kalah endgame databases on disk (``nugar.solver.egdb``): the same values as the
in-memory database, the plain-Python minimax and the database-free solver; the file format's
checks (truncated, corrupted, foreign files are found, left out and rebuilt); building by
independent index ranges and resuming; the search and the command line on top of them."""

from __future__ import annotations

import itertools
import json
import os
import random
import re
from pathlib import Path

import numpy as np
import pytest

from nugar.cli.solve import main as solve_main
from nugar.kernels import sowing as K
from nugar.kernels.common import ST_TO_MOVE
from nugar.rules.options import parse_rules
from nugar.rules.sowing import SowingGame
from nugar.solver import Solver, solve
from nugar.solver import egdb as E
from nugar.solver.db import UNKNOWN, EndgameDB
from solver_oracle import minimax, random_position, vectors

CAPTURES = ("none", "single")


def level_values(db: EndgameDB, n: int) -> np.ndarray:
    m = 2 * db.pits
    first = int(db.binom[n + m - 1, m]) if n > 0 else 0
    return db.table[first:first + E.level_count(db.pits, n)]


@pytest.mark.parametrize("capture", CAPTURES)
@pytest.mark.parametrize("pits,k", [(2, 10), (3, 8)])
def test_disk_levels_equal_the_in_memory_database(tmp_path: Path, pits: int, k: int,
                                                  capture: str) -> None:
    rules = parse_rules(f"kalah(pits={pits},seeds=1,empty_capture={capture})")
    reports = E.build(rules, k, root=tmp_path, workers=2)
    assert [r.status for r in reports] == ["built"] * (k + 1)
    disk = E.DiskDB(rules, root=tmp_path)
    mem = EndgameDB(rules, k)
    assert disk.levels == k and not disk.problems
    for n in range(k + 1):
        assert np.array_equal(disk.region.level(n), level_values(mem, n)), n
    assert disk.nbytes == sum(E.HEADER_BYTES + E.level_count(pits, n) for n in range(k + 1))
    disk.close()


@pytest.mark.parametrize("capture", CAPTURES)
def test_sampled_entries_of_every_level_equal_exhaustive_search(tmp_path: Path,
                                                                capture: str) -> None:
    rules_text = f"kalah(pits=2,seeds=1,empty_capture={capture})"
    rules = parse_rules(rules_text)
    k = 9
    E.build(rules, k, root=tmp_path, workers=1)
    disk = E.DiskDB(rules, root=tmp_path)
    rng = random.Random(18)
    for n in range(1, k + 1):
        vecs = list(vectors(4, n))
        for vec in rng.sample(vecs, min(6, len(vecs))):
            to_move = rng.choice((1, 2))
            holes = [list(vec[:2]), list(vec[2:])]
            if to_move == 2:
                holes.reverse()
            game = SowingGame.from_position(rules_text, holes[0], holes[1], (2, 5), to_move)
            if game.outcome is not None:
                continue
            first = minimax(game)[1]
            s1, s2 = game.score
            own = s1 - s2 if to_move == 1 else s2 - s1
            assert own + disk.value(game.state) == (first if to_move == 1 else -first)
    disk.close()


@pytest.mark.parametrize("capture", CAPTURES)
def test_six_pit_levels_match_the_solver_without_database(tmp_path: Path,
                                                          capture: str) -> None:
    rules_text = f"kalah(empty_capture={capture})"
    rules = parse_rules(rules_text)
    E.build(rules, 9, root=tmp_path, workers=2)
    disk = E.DiskDB(rules, root=tmp_path)
    plain = Solver(rules_text, max_memory_mb=8, db_seeds=0)
    seen = set()
    for seed in range(40):
        game = random_position(rules_text, 9, 1800 + seed)
        n = sum(map(sum, game.holes))
        if game.outcome is not None or n in seen:
            continue
        seen.add(n)
        s1, s2 = game.score
        own = s1 - s2 if game.to_move == 1 else s2 - s1
        assert own + disk.value(game.state) == plain.solve(game).margin
    assert len(seen) >= 3
    disk.close()


def test_ranges_build_independently_in_any_order(tmp_path: Path) -> None:
    rules = parse_rules("kalah(pits=3,seeds=1,empty_capture=single)")
    E.build(rules, 6, root=tmp_path, workers=1)
    n = 7
    count = E.level_count(3, n)
    E.prepare_level(rules, n, root=tmp_path)
    cuts = [0, count // 3, count // 2, count]
    for a, b in reversed(list(itertools.pairwise(cuts))):  # the last range first
        E.build_range(rules, n, a, b, root=tmp_path)
    E.finish_level(rules, n, root=tmp_path)
    assert E.check_level(rules, E.db_directory(rules, tmp_path), n) is None
    disk = E.DiskDB(rules, root=tmp_path)
    assert disk.levels == n
    assert np.array_equal(disk.region.level(n), level_values(EndgameDB(rules, n), n))
    disk.close()


def test_unfinished_level_is_not_given_a_name(tmp_path: Path) -> None:
    rules = parse_rules("kalah(pits=2,seeds=1)")
    E.build(rules, 3, root=tmp_path, workers=1)
    E.prepare_level(rules, 4, root=tmp_path)
    E.build_range(rules, 4, 0, 3, root=tmp_path)  # only part of the level
    with pytest.raises(E.EGDBError, match="not computed"):
        E.finish_level(rules, 4, root=tmp_path)
    assert E.levels_on_disk(rules, tmp_path) == 3


def test_resume_keeps_the_levels_done(tmp_path: Path) -> None:
    rules = parse_rules("kalah(pits=3,seeds=1)")
    E.build(rules, 5, root=tmp_path, workers=1)
    reports = E.build(rules, 8, root=tmp_path, workers=2)
    assert [r.status for r in reports] == ["kept"] * 6 + ["built"] * 3


def damage_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:-7])


def damage_flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[E.HEADER_BYTES + len(data[E.HEADER_BYTES:]) // 2] ^= 0x41
    path.write_bytes(bytes(data))


def damage_header(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[20] ^= 0x7F
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage,why", [(damage_truncate, "truncated"),
                                        (damage_flip, "checksum"),
                                        (damage_header, "header|settings")])
def test_damaged_file_is_detected_never_used_and_rebuilt(tmp_path: Path, damage: object,
                                                         why: str) -> None:
    rules = parse_rules("kalah(pits=3,seeds=2)")
    E.build(rules, 8, root=tmp_path, workers=1)
    directory = E.db_directory(rules, tmp_path)
    good = E.level_path(directory, 6).read_bytes()
    damage(E.level_path(directory, 6))  # type: ignore[operator]
    problem = E.check_level(rules, directory, 6)
    assert problem is not None and re.search(why, problem), problem
    disk = E.DiskDB(rules, root=tmp_path)
    assert disk.levels == 5 and disk.problems and disk.problems[0][0] == 6
    disk.close()
    solver = Solver(rules, max_memory_mb=4, db_root=tmp_path)
    assert solver.db_reach == 5  # the damaged level and those above are not read
    plain = solve("kalah(pits=3,seeds=2)", max_memory_mb=4, db_seeds=0)
    assert solver.solve().value == plain.value
    reports = E.build(rules, 8, root=tmp_path, workers=1)
    assert reports[6].status.startswith("rebuilt") and reports[7].status == "kept"
    assert E.level_path(directory, 6).read_bytes() == good


def test_opening_checks_every_level_once_in_threads(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # DiskDB checks the level files in threads; each checksum once, the damaged level
    # still found and neither it nor the levels above used
    import threading

    rules = parse_rules("kalah(pits=3,seeds=2)")
    E.build(rules, 8, root=tmp_path, workers=1)
    directory = E.db_directory(rules, tmp_path)
    damage_flip(E.level_path(directory, 6))
    monkeypatch.setattr(E, "_VERIFIED", {})
    seen: list[tuple[str, str]] = []
    crc = E._file_crc

    def counted(path: Path, count: int) -> str:
        seen.append((path.name, threading.current_thread().name))
        return crc(path, count)

    monkeypatch.setattr(E, "_file_crc", counted)
    disk = E.DiskDB(rules, root=tmp_path)
    assert disk.levels == 5 and disk.problems == [(6, "is corrupted (checksum mismatch)")]
    disk.close()
    names = sorted(name for name, _ in seen)
    assert names == [E.level_path(directory, n).name for n in range(9)]
    if (os.cpu_count() or 1) >= 2:  # in the pool's threads (which starts first is a race)
        assert {thread for _, thread in seen} <= {f"nugar-egdb_{i}" for i in range(4)}
    E.DiskDB(rules, root=tmp_path).close()
    assert len(seen) == 9  # remembered: no second checksum


def test_database_of_other_options_is_refused(tmp_path: Path) -> None:
    a = parse_rules("kalah(pits=2,seeds=1)")
    b = parse_rules("kalah(pits=2,seeds=1,empty_capture=single)")
    E.build(a, 4, root=tmp_path, workers=1)
    src = E.level_path(E.db_directory(a, tmp_path), 4)
    dst_dir = E.db_directory(b, tmp_path)
    dst_dir.mkdir(parents=True)
    E.level_path(dst_dir, 0).write_bytes(E.level_path(E.db_directory(a, tmp_path), 0)
                                         .read_bytes())
    why = E.check_level(b, dst_dir, 0)
    assert why is not None and "other settings" in why
    assert src.exists()


@pytest.mark.parametrize("capture", CAPTURES)
@pytest.mark.parametrize("board", ["kalah(pits=4,seeds=2)", "kalah(pits=3,seeds=4)",
                                   "kalah(pits=6,seeds=1)"])
def test_solves_with_the_disk_database_agree_with_plain_search(tmp_path: Path, board: str,
                                                               capture: str) -> None:
    text = board.replace(")", f",empty_capture={capture})")
    rules = parse_rules(text)
    E.build(rules, 9, root=tmp_path, workers=2)
    plain = solve(text, max_memory_mb=8, db_seeds=0)
    solver = Solver(text, max_memory_mb=8, db_root=tmp_path, db_seeds=9)
    assert solver.disk is not None and solver.db_reach == 9
    s = solver.solve()
    assert (s.value, s.margin, s.final) == (plain.value, plain.margin, plain.final)
    assert s.db_hits > 0 and s.db_seeds == 9
    steps = Solver(text, max_memory_mb=8, db_root=tmp_path, db_seeds=9)
    best = steps.best_actions(steps.start_state, s.value)
    assert best == Solver(text, max_memory_mb=8, db_seeds=0).best_actions(
        steps.start_state, s.value)


def test_memory_bound_holds_with_the_disk_database(tmp_path: Path) -> None:
    rules = parse_rules("kalah(pits=4,seeds=3)")
    E.build(rules, 10, root=tmp_path, workers=1)
    solver = Solver(rules, max_memory_mb=1, db_root=tmp_path)
    s = solver.solve()
    assert solver.memory_bytes <= 1 << 20
    assert s.value == solve(rules, max_memory_mb=8, db_seeds=0).value


def test_cli_build_steps_and_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(tmp_path)
    assert solve_main(["kalah(pits=3,seeds=3)", "--build-db", "7", "--db-dir", root,
                       "--quiet"]) == 0
    out = capsys.readouterr()
    assert "levels 0..7" in out.out
    assert solve_main(["kalah(pits=3,seeds=3)", "--steps", "--json", "--db-dir", root]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["db_seeds"] == 7
    plain = Solver("kalah(pits=3,seeds=3)", max_memory_mb=4, db_seeds=0)
    start = plain.start_state
    for row in data["steps"]:
        child = start.copy()
        K.apply_action(plain.params, child, row["step"] - 1)
        v = plain.value(child)
        same = int(child[ST_TO_MOVE]) == int(start[ST_TO_MOVE])
        assert row["value"] == (v if same else -v) and row["bonus"] == same
    assert max(r["value"] for r in data["steps"]) == data["value"] == solve(
        "kalah(pits=3,seeds=3)", max_memory_mb=4, db_seeds=0).value
    assert solve_main(["kalah(pits=3,seeds=3)", "--steps", "--json", "--db-dir", root,
                       "--workers", "2", "--memory", "8"]) == 0
    both = json.loads(capsys.readouterr().out)
    assert [(r["step"], r["value"]) for r in both["steps"]] == \
        [(r["step"], r["value"]) for r in data["steps"]]
    assert all(r["nodes"] > 0 for r in both["steps"])
    assert solve_main(["kalah(pits=3,seeds=3)", "--build-db", "-1"]) == 2
    assert "--build-db must be" in capsys.readouterr().err
    assert solve_main(["dracala", "--build-db", "4"]) == 2
    assert "no endgame database" in capsys.readouterr().err
    assert solve_main(["kalah", "--build-db", "4", "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err


def test_data_directory_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                tmp_path: Path) -> None:
    monkeypatch.setenv("NUGAR_DATA_DIR", str(tmp_path / "a"))
    assert E.data_dir() == tmp_path / "a"
    monkeypatch.delenv("NUGAR_DATA_DIR")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "x"))
    assert E.data_dir() == tmp_path / "x" / "nugar"
    assert UNKNOWN == -128


def test_perfect_player_says_how_to_get_its_databases(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from nugar.ai import perfect

    monkeypatch.setenv("NUGAR_DATA_DIR", str(tmp_path))
    status = perfect.perfect_status(parse_rules("kalah"))
    assert status["offered"] and not status["ready"]
    assert "nugar solve 'kalah' --build-db" in status["note"]
    assert perfect.perfect_status(parse_rules("kalah(pits=3,seeds=3)"))["ready"]  # small
    assert perfect.perfect_status(parse_rules("dracala"))["ready"]  # no database needed
    assert not perfect.perfect_status(parse_rules("dara"))["offered"]
    monkeypatch.setattr(perfect, "RECOMMENDED_DB_SEEDS", 5)
    E.build(parse_rules("kalah"), 5, workers=1)
    assert perfect.perfect_status(parse_rules("kalah"))["ready"]


def test_web_api_reports_the_perfect_player(client: object, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUGAR_DATA_DIR", str(tmp_path))
    r = client.get("/api/levels", params={"rules": "kalah"})  # type: ignore[attr-defined]
    assert r.status_code == 200
    body = r.json()
    assert body["perfect"]["offered"] and "--build-db" in body["perfect"]["note"]
    assert "perfect" not in client.get("/api/levels").json()  # type: ignore[attr-defined]
    bad = client.get("/api/levels", params={"rules": "nonsense"})  # type: ignore[attr-defined]
    assert bad.status_code == 422


def test_analyse_exact_lists_every_step(capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.cli.main import main

    assert main(["analyse", "kalah(pits=3,seeds=3)", "1", "--exact", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["step"] for r in data["steps"]] == [2, 3]  # hole 1 is empty after it
    assert data["value"] == solve("kalah(pits=3,seeds=3)", max_memory_mb=4,
                                  db_seeds=0).value  # 1 was an optimal bonus step
    assert main(["analyse", "kalah(pits=3,seeds=3)", "--exact"]) == 0
    out = capsys.readouterr().out
    assert "hole 1: win by 2" in out and "hole 3: loss by 4" in out
    # Dara is answered by its tablebases, which hold positions with every piece dropped only
    assert main(["analyse", "dara", "--exact"]) == 1
    assert "not a tablebase position" in capsys.readouterr().err


def test_a_short_disk_database_gives_way_to_the_automatic_one(tmp_path: Path) -> None:
    rules = parse_rules("kalah(pits=4,seeds=4)")  # automatic reach: 14 seeds in memory
    E.build(rules, 6, root=tmp_path, workers=1)
    solver = Solver(rules, max_memory_mb=4, db_root=tmp_path)
    assert solver.disk is None and solver.db_seeds == 14
    assert Solver(rules, max_memory_mb=4, db_root=tmp_path, db_seeds=6).disk is not None
