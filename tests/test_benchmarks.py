"""The random-games benchmark's measuring functions: they play and count whole games correctly
on nugar and on OpenSpiel, and its rules check tells Kalah variants apart (a few games each)."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

import pytest

from benchmark_scripts import load_script

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_random_games.py"


bench = load_script("bench_random_games")


def _check(tally: object, games: int) -> None:
    assert isinstance(tally, bench.Tally)
    assert tally.games == games
    assert tally.first + tally.second + tally.draws == games


@pytest.mark.parametrize("rules", ["kalah", "dracala", "dara"])
def test_nugar_paths_play_the_games_asked(rules: str) -> None:
    for make in (bench.nugar_compiled, bench.nugar_api):
        _check(make(rules)(4, 7), 4)
    api = bench.nugar_api(rules)(2, 7)
    assert api.decisions >= 2 * 6  # no game of these presets ends in fewer than 6 decisions


def test_nugar_compiled_games_differ_by_seed_and_repeat_with_it() -> None:
    play = bench.nugar_compiled("kalah")
    runs = [play(30, seed) for seed in (1, 1, 500)]
    assert runs[0] == runs[1]
    assert runs[0].first > 0 and runs[0].second > 0  # not one game played over and over


def test_openspiel_paths_play_the_games_asked() -> None:
    cpp = bench.openspiel_cpp()(5, 3)
    _check(cpp, 5)
    python = bench.openspiel_python()(3, 3)
    _check(python, 3)
    assert python.decisions >= 3 * 6


def test_openspiel_returns_outside_win_loss_draw_are_refused() -> None:
    assert bench._tally_returns([[1.0, -1.0], [0.0, 0.0], [-1.0, 1.0]]) == bench.Tally(3, 1, 1, 1)
    with pytest.raises(RuntimeError, match="unexpected values"):
        bench._tally_returns([[0.5, -0.5]])
    with pytest.raises(RuntimeError, match="unexpected outcome codes"):
        bench._tally_codes([0])  # a game still running


def test_measure_counts_every_game_it_times() -> None:
    calls: list[int] = []
    inner = bench.nugar_compiled("kalah")

    def play(games: int, seed: int) -> object:
        calls.append(games)
        return inner(games, seed)

    sample = bench.measure(play, 0.05)
    assert sample.tally.games == sum(calls) > 0
    assert sample.wall >= 0.05
    assert sample.rate == sample.tally.games / sample.wall


def test_kalah_preset_plays_openspiel_mancala_rules() -> None:
    assert bench.compare_with_openspiel("kalah", 15) > 15 * 6


@pytest.mark.parametrize("variant", ["kalah(empty_capture=single)", "kalah(end=mover_empty)",
                                     "kalah(leftovers=last_mover)", "kalah(skip_origin=on)"])
def test_rules_check_catches_other_kalah_rules(variant: str) -> None:
    with pytest.raises(bench.RulesDiffer):
        bench.compare_with_openspiel(variant, 60)


def test_script_runs_end_to_end(capsys: pytest.CaptureFixture[str]) -> None:
    bench.main(["--seconds", "0.01", "--repeats", "1", "--presets", "dracala",
                "--check-games", "2"])
    out = capsys.readouterr().out
    assert "nugar / OpenSpiel = " in out
    assert "| `dracala` |" in out
    assert "load average (1, 5, 15 min) after:" in out


def test_node_counts_are_those_of_a_fixed_depth_search(monkeypatch: pytest.MonkeyPatch) -> None:
    from nugar.ai import Limits, make_agent

    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # the script imports bench_ai beside it
    spec = importlib.util.spec_from_file_location("node_counts", SCRIPT.parent / "node_counts.py")
    assert spec is not None and spec.loader is not None
    counts = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counts)
    rules = "kalah(pits=4,seeds=3)"
    expected = [make_agent("alphabeta").analyse(counts.position(rules, 4, seed),
                                                Limits(depth=3)).nodes
                for seed in (100, 101, 102)]
    assert counts.nodes(rules, 3) == sum(expected) and min(expected) > 0
    assert counts.nodes(rules, 4) > counts.nodes(rules, 3)  # a deeper search, a bigger tree


def test_search_call_cost_counts_the_searches_of_the_pair_benchmark(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``search_call_cost.py --instructions`` searches what ``node_counts.py`` does (the same
    nodes), and times each entry into the search."""
    import subprocess

    monkeypatch.syspath_prepend(str(SCRIPT.parent))  # the scripts import bench_ai beside them
    cost = importlib.import_module("search_call_cost")
    counts = importlib.import_module("node_counts")
    try:
        cost.callgrind_switch()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs a C compiler and valgrind's callgrind.h")
    rules = "kalah(pits=4,seeds=3)"
    assert cost.searches(rules, 3, 2) == 2 * counts.nodes(rules, 3)
    assert "search_root(depth 1)" in cost.per_call(rules)


def test_hub_benchmark_plays_every_move_it_counts() -> None:
    """``bench_hub.py`` plays its games through the hub (the same number of moves for the
    same seed) and times them."""
    import asyncio

    spec = importlib.util.spec_from_file_location("bench_hub", SCRIPT.parent / "bench_hub.py")
    assert spec is not None and spec.loader is not None
    hub = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hub)
    moves, cpu, wall = asyncio.run(hub.play_all(3, 5))
    again, _cpu, _wall = asyncio.run(hub.play_all(3, 5))
    assert 3 <= moves <= 3 * hub.MAX_MOVES and again == moves
    assert cpu > 0 and wall > 0
