"""Scale-out (issue 19): matches, tournaments and self-play on Ray, the self-play Parquet
data, and the evaluation features. The Ray tests share one local Ray instance (2 CPUs, a
small object store) started once for this module."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nugar
from nugar.ai import Limits
from nugar.ai import tournament as T
from nugar.cli import main

ray = pytest.importorskip("ray")  # the [ray] extra; the test extra installs it
pq = pytest.importorskip("pyarrow.parquet")

from nugar.scale import ray_runner as R  # noqa: E402
from nugar.scale import selfplay as S  # noqa: E402
from nugar.scale.features import evaluation, evaluation_features, linear_check  # noqa: E402

A, B = "alphabeta:nodes=300", "alphabeta:depth=2"


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    if ray.is_initialized():
        ray.shutdown()
    R.connect("local", num_cpus=2)
    yield
    ray.shutdown()


def _records(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): p.read_text(encoding="utf-8")
            for p in sorted(folder.rglob("*.txt"))}


def test_core_and_cli_do_not_import_ray() -> None:
    code = ("import sys, nugar, nugar.ai.tournament, nugar.envs\n"
            "from nugar.cli.main import build_parser\n"
            "build_parser().parse_args(['match', 'greedy', 'random', '--ray', 'auto'])\n"
            "build_parser().parse_args(['solve', 'kalah', '--build-db', '3', '--ray', 'auto'])\n"
            "build_parser().parse_args(['solve', 'dara', '--build-tb', '7', '--ray', 'auto'])\n"
            "bad = [m for m in ('ray', 'pyarrow', 'nugar.scale.ray_runner',\n"
            "                   'nugar.scale.egdb_ray', 'nugar.scale.tb_ray')\n"
            "       if m in sys.modules]\n"
            "assert not bad, bad\n")
    subprocess.run([sys.executable, "-c", code], check=True, env=dict(os.environ))


def test_bad_addresses_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for address, words in (("nowhere", "cannot read the Ray address"),
                           ("127.0.0.1:1", "no Ray cluster answers")):
        assert main(["match", "greedy", "random", "--games", "2", "--ray", address]) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and "\n" not in err
    assert main(["match", "greedy", "random", "--workers", "2", "--ray", "local"]) == 2
    assert "cannot be combined" in capsys.readouterr().err


def test_a_reset_search_plays_as_a_fresh_one() -> None:
    # the move-ordering history of an earlier game once leaked through reset() into the
    # next one, so a game played by a reused agent (a worker's) differed from the same game
    # played by a fresh one: the searches below visited different numbers of nodes
    import random

    from nugar.ai.alphabeta import AlphaBetaAgent

    game, rng = nugar.new_game("dala"), random.Random(3)
    for _ in range(20):
        game.push_action(rng.choice(game.legal_actions()))
    used = AlphaBetaAgent(depth=4)
    used.analyse(game)
    used.reset()
    fresh = AlphaBetaAgent(depth=4).analyse(game)
    again = used.analyse(game)
    assert (again.move, again.score, again.nodes, again.pv) == (
        fresh.move, fresh.score, fresh.nodes, fresh.pv)


def test_match_on_ray_equals_local_match(cluster: None, tmp_path: Path) -> None:
    local = T.run_match(A, B, "dara", 6, Limits(), save=tmp_path / "local", seed=7)
    seen: list[int] = []
    on_ray = T.run_match(A, B, "dara", 6, Limits(), save=tmp_path / "ray", seed=7,
                         on_result=lambda r: seen.append(r.index), runner=R.RayRunner())
    assert sorted(seen) == list(range(6))
    assert on_ray.to_json() == local.to_json()
    assert on_ray.results == local.results
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")


def test_tournament_command_on_ray_equals_local(cluster: None, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tournament", A, B, "greedy", "--rules", "dala", "--games", "2", "--seed", "3",
            "--json"]
    assert main([*args, "--save", str(tmp_path / "local")]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main([*args, "--save", str(tmp_path / "ray"), "--ray", "local"]) == 0
    assert json.loads(capsys.readouterr().out) == local
    assert _records(tmp_path / "ray") == _records(tmp_path / "local")
    assert len(_records(tmp_path / "ray")) == 6


def _dying_play(marker: str, spec: T.GameSpec) -> T.GameResult:
    """Plays the game, except that the first attempt at game 1 kills its worker process
    (as a lost node would)."""
    if spec.index == 1 and not os.path.exists(marker):
        Path(marker).write_text(str(os.getpid()))
        os._exit(1)
    return T.play_game(spec)


def test_a_game_lost_with_its_worker_is_retried_and_counted_once(cluster: None,
                                                                  tmp_path: Path) -> None:
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    marker = tmp_path / "killed"
    runner = R.RayRunner(play=functools.partial(_dying_play, str(marker)))
    counted: list[int] = []
    on_ray = T.run_match(A, B, "dara", 4, Limits(), seed=5,
                         on_result=lambda r: counted.append(r.index), runner=runner)
    assert marker.exists()  # a worker did die
    assert sorted(counted) == [0, 1, 2, 3]
    assert on_ray.games == 4
    assert on_ray.to_json() == T.run_match(A, B, "dara", 4, Limits(), seed=5).to_json()


def test_map_tasks_reports_each_key_once(cluster: None) -> None:
    seen: list[int] = []
    done = R.map_tasks(abs, [-1, 1, -2, 2, 2], abs, seen.append)
    assert done == {1: 1, 2: 2}
    assert sorted(seen) == [1, 2]


# --- self-play --------------------------------------------------------------------------------

def _rows(folder: Path) -> Any:
    import pyarrow.dataset as ds

    return ds.dataset(folder / "rows", format="parquet").to_table().sort_by(
        [("game", "ascending"), ("ply", "ascending")])


def _comparable(table: Any) -> list[dict[str, Any]]:
    """The rows with NaN scores (random decisions) as None, so that equal rows compare equal."""
    rows: list[dict[str, Any]] = table.to_pylist()
    for row in rows:
        if row["score"] != row["score"]:
            row["score"] = None
        row["move_scores"] = [None if x != x else x for x in row["move_scores"]]
    return rows


def test_selfplay_rows_follow_the_schema(tmp_path: Path) -> None:
    out = tmp_path / "sp"
    assert main(["selfplay", A, "--rules", "dala", "--games", "2", "--out", str(out),
                 "--seed", "4", "--quiet"]) == 0
    meta = json.loads((out / "schema.json").read_text())
    assert [c["name"] for c in meta["columns"]] == [n for n, _ in S.COLUMNS]
    table = _rows(out)
    assert table.schema == S.row_schema()
    rows = table.to_pylist()
    size = int(np.prod(meta["observation_shape"]))
    for row in rows:
        assert len(row["observation"]) == size
        assert len(row["legal_mask"]) == meta["num_actions"] and row["legal_mask"][row["action"]]
        assert row["searched"] == (row["ply"] >= 4)
        assert row["result"] in (0.0, 0.5, 1.0)
    # replaying the actions gives the record's game, and its result
    for g in (0, 1):
        game = nugar.new_game("dala")
        mine = [r for r in rows if r["game"] == g]
        for r in mine:
            assert list(evaluation_features(game)) == r["features"]
            game.push_action(r["action"])
        text = (out / "records" / f"game-{g:06d}.txt").read_text()
        assert nugar.record.load_one(text).turns == game.turns()
        winner = game.outcome.winner if game.outcome else None
        assert all(r["result"] == (0.5 if winner is None else float(winner == r["player"]))
                   for r in mine)


def test_selfplay_rows_carry_the_policy_target(tmp_path: Path) -> None:
    out = tmp_path / "ab"
    S.run_selfplay("alphabeta:depth=3", "kalah(pits=4,seeds=3)", 2, out, opening=2, seed=1)
    best = searched = 0
    for row in _rows(out).to_pylist():
        scores = np.array(row["move_scores"], np.float64)
        legal = np.array(row["legal_mask"])
        assert len(scores) == len(legal) and not any(row["visits"])
        if row["ply"] < 2:
            assert np.isnan(scores).all() and not row["searched"]
            continue
        assert row["searched"]
        assert (np.isnan(scores) == ~legal).all()
        searched += 1
        best += scores[row["action"]] == np.nanmax(scores)
    # the plain searches of the moves mostly rank the agent's move first (not always: the
    # agent's own search extends bonus steps and keeps its table between iterations)
    assert best >= 0.7 * searched
    # a level's blunders are not searched moves
    out = tmp_path / "blunder"
    S.run_selfplay("alphabeta:depth=2,blunder=1", "kalah(pits=4,seeds=3)", 1, out, opening=0)
    rows = _rows(out).to_pylist()
    assert all(r["searched"] == (sum(r["legal_mask"]) == 1) for r in rows)
    assert any(not r["searched"] for r in rows)
    # MCTS: root visits, most on the move played
    out = tmp_path / "mcts"
    S.run_selfplay("mcts:playouts=60", "kalah(pits=4,seeds=3)", 1, out, opening=1, seed=2)
    checked = 0
    for row in _rows(out).to_pylist():
        visits = np.array(row["visits"])
        if row["ply"] < 1 or sum(row["legal_mask"]) == 1:
            continue
        assert visits[~np.array(row["legal_mask"])].sum() == 0
        assert 0 < visits.sum() <= 60 and visits[row["action"]] == visits.max()
        checked += 1
    assert checked > 0


def test_selfplay_workers_write_the_same_rows(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    assert main(["selfplay", A, "--rules", "kalah(pits=4,seeds=3)", "--games", "3", "--out",
                 str(one), "--seed", "4", "--quiet"]) == 0
    assert main(["selfplay", A, "--rules", "kalah(pits=4,seeds=3)", "--games", "3", "--out",
                 str(two), "--seed", "4", "--quiet", "--workers", "2"]) == 0
    assert _comparable(_rows(one)) == _comparable(_rows(two))
    bare = tmp_path / "bare"
    assert main(["selfplay", A, "--rules", "kalah(pits=4,seeds=3)", "--games", "3", "--out",
                 str(bare), "--seed", "4", "--quiet", "--no-move-scores"]) == 0
    rows, scored = _comparable(_rows(bare)), _comparable(_rows(one))
    assert all(x is None for row in rows for x in row["move_scores"])
    assert any(x is not None for row in scored for x in row["move_scores"])
    for row in rows + scored:
        del row["move_scores"]
    assert rows == scored  # the same games otherwise


def test_selfplay_resumes_and_is_the_same_on_ray(cluster: None, tmp_path: Path) -> None:
    local, on_ray = tmp_path / "local", tmp_path / "ray"
    assert S.run_selfplay(A, "dara", 4, local, opening=2, seed=9) == [0, 1, 2, 3]
    (local / "rows" / "game-000002.parquet").unlink()
    assert S.run_selfplay(A, "dara", 5, local, opening=2, seed=9) == [2, 4]
    assert S.run_selfplay(A, "dara", 5, on_ray, opening=2, seed=9,
                          runner=S.ray_selfplay_runner()) == [0, 1, 2, 3, 4]
    assert _comparable(_rows(on_ray)) == _comparable(_rows(local))
    assert _records(on_ray) == _records(local)
    with pytest.raises(ValueError, match="other settings"):
        S.run_selfplay(A, "dara", 5, local, opening=2, seed=10)


@pytest.mark.parametrize("rules", ["dara", "dala", "kalah", "dracala"])
def test_evaluation_is_the_features_weighted(rules: str) -> None:
    import random

    game, rng = nugar.new_game(rules), random.Random(2)
    for _ in range(40):
        if game.is_over:
            break
        assert linear_check(game)
        game.push_action(rng.choice(game.legal_actions()))
    w = np.arange(1, evaluation_features(game).shape[0] + 1, dtype=np.int64)
    assert evaluation(game, w) == int(evaluation_features(game) @ w)


# --- Texel tuning -----------------------------------------------------------------------------

def test_logistic_fit_recovers_known_weights() -> None:
    from nugar.scale.tune import cross_entropy, fit_logistic, fit_scale

    rng = np.random.default_rng(5)
    x = rng.integers(-6, 7, size=(40_000, 3)).astype(np.float64)
    true = np.array([0.5, -0.2, 0.05])
    y = (rng.random(40_000) < 1 / (1 + np.exp(-x @ true))).astype(np.float64)
    b = fit_logistic(x, y, ridge=0.0)
    assert np.allclose(b, true, atol=0.03)
    assert cross_entropy(x, y, b) <= cross_entropy(x, y, true)
    # the best scale of a direction proportional to the truth is the proportion
    assert fit_scale(x, y, 100 * true) == pytest.approx(0.01, rel=0.05)


def test_tune_on_selfplay_data(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from nugar.kernels.search_alignment import N_WEIGHTS
    from nugar.scale.tune import load, main, replayed_features, tune

    S.run_selfplay("alphabeta:depth=1,noise=50", "dara", 30, tmp_path / "d", opening=4, seed=1)
    data = load([tmp_path / "d"])
    assert data.profile == "dara" and data.features.shape[1] == N_WEIGHTS
    assert data.features.shape[0] == data.results.shape[0] > 500
    # replaying the decisions finds the stored features again (how older data, with fewer
    # features, is read)
    table = pq.read_table(tmp_path / "d" / "rows" / "game-000003.parquet")
    stored = np.array(table.column("features").to_pylist(), dtype=np.float64)
    again = replayed_features("dara", table.column("game").to_numpy(),
                              table.column("action").to_numpy())
    assert stored.shape[0] > 10 and np.array_equal(again, stored)
    result = tune(data)
    assert result.tuned[0] == 100 and len(result.tuned) == N_WEIGHTS
    assert result.positions + result.holdout_positions == data.features.shape[0]
    out = tmp_path / "w.json"
    assert main([str(tmp_path / "d"), "--output", str(out)]) == 0
    assert json.loads(out.read_text())["dara"]["tuned"] == result.tuned


# --- endgame database builds on Ray ----------------------------------------------------------

def _db_files(folder: Path) -> dict[str, bytes]:
    """The files of a databases folder but the build's lock file (``build.lock``: empty, held
    while a build runs, left for the next one)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "build.lock"}


def test_database_built_on_ray_equals_local_build(cluster: None, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.rules import parse_rules
    from nugar.scale.egdb_ray import build_on_ray
    from nugar.solver import egdb as E

    rules = parse_rules("kalah(pits=3,seeds=3)")
    E.build(rules, 9, root=tmp_path / "local", workers=1)
    # ranges of 300 positions: levels 5..9 split into 2 to 7 tasks, whose memoised searches
    # compute positions of other tasks' ranges on the way
    seen: list[tuple[int, int, int]] = []
    reports = build_on_ray(rules, 9, root=tmp_path / "ray", range_size=300,
                           progress=lambda n, done, count, s: seen.append((n, done, count)))
    assert [r.status for r in reports] == ["built"] * 10
    assert sum(r.steps for r in reports) > 0
    assert (9, E.level_count(3, 9), E.level_count(3, 9)) in seen
    local, on_ray = _db_files(tmp_path / "local"), _db_files(tmp_path / "ray")
    assert len(local) == 10 and all(k.endswith(".egdb") for k in local)
    assert on_ray == local
    # a damaged level is rebuilt on Ray, the sound ones kept; the command line does the same
    path = tmp_path / "ray" / next(k for k in on_ray if k.endswith("level-007.egdb"))
    data = bytearray(path.read_bytes())
    data[E.HEADER_BYTES + 5] ^= 1
    path.write_bytes(bytes(data))
    assert main(["solve", rules.text, "--build-db", "9", "--ray", "local",
                 "--db-dir", str(tmp_path / "ray")]) == 0
    err = capsys.readouterr().err
    assert "level   7" in err and "rebuilt: it is corrupted" in err
    assert err.count(", kept,") == 9
    assert _db_files(tmp_path / "ray") == local


def test_tablebases_built_on_ray_equal_the_local_build(cluster: None, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """``--build-tb N --ray``: the layers' moves phases as Ray tasks (several ranges a
    layer) write the files of a local build byte for byte; a damaged material is rebuilt,
    the sound ones kept (resumable by material)."""
    from nugar.rules import parse_rules
    from nugar.scale.tb_ray import build_on_ray
    from nugar.solver import tablebase as TB

    rules = parse_rules("dara(rows=4,cols=5,loss_at=1)")
    TB.build(rules, 6, root=tmp_path / "local", workers=1)
    seen: list[tuple[tuple[int, int], str, int, int]] = []
    reports = build_on_ray(rules, 6, root=tmp_path / "ray", workers=1,
                           progress=lambda mat, phase, done, total, s: seen.append(
                               (mat, phase, done, total)))
    assert [r.status for r in reports] == ["built"] * 4
    # the 3-3 layer is split into several ranges, each placed as it came
    moves = [x for x in seen if x[0] == (3, 3) and x[1] == "moves"]
    assert len(moves) > 2 and moves[-1][2] == moves[-1][3] == reports[-1].positions
    local, on_ray = _db_files(tmp_path / "local"), _db_files(tmp_path / "ray")
    assert len(local) == 6 and all(k.endswith(".tb") for k in local)
    assert on_ray == local
    path = tmp_path / "ray" / next(k for k in on_ray if k.endswith("m3-3.tb"))
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert main(["solve", rules.text, "--build-tb", "6", "--ray", "local",
                 "--db-dir", str(tmp_path / "ray")]) == 0
    err = capsys.readouterr().err
    assert err.count(", kept") == 3 and "3 against 3" in err and "built" in err
    assert _db_files(tmp_path / "ray") == local
    assert main(["solve", "dara", "--position", "dara ....../....../....../....../...... b "
                 "hand=0,0", "--ray", "local"]) == 2
    assert "--ray goes with --build-tb" in capsys.readouterr().err


def test_solve_ray_option_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["solve", "kalah(pits=3,seeds=3)", "--db-dir", str(tmp_path)]
    assert main([*args, "--build-db", "3", "--ray", "local", "--workers", "2"]) == 2
    assert "cannot be combined" in capsys.readouterr().err
    assert main([*args, "--ray", "local"]) == 2
    assert "--ray goes with --build-db only" in capsys.readouterr().err


def test_puzzles_built_on_ray_are_those_built_here(cluster: None, tmp_path: Path) -> None:
    from nugar.puzzles import read

    args = ["puzzles", "build", "kalah(pits=4,seeds=3)", "--count", "4", "--batches", "2",
            "--quiet"]
    assert main([*args, "--out", str(tmp_path / "here.jsonl")]) == 0
    assert main([*args, "--out", str(tmp_path / "ray.jsonl"), "--ray", "local"]) == 0
    here = list(read(tmp_path / "here.jsonl"))
    assert len(here) == 4 and list(read(tmp_path / "ray.jsonl")) == here
