"""Matches, round robins, Elo figures, saved records and the ``match`` subcommands."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from nugar import record
from nugar.ai import Limits
from nugar.ai.tournament import (
    MatchTable,
    elo_from_score,
    elo_interval,
    match_specs,
    run_match,
    run_round_robin,
)
from nugar.cli import main


class TestElo:
    def test_even_score_is_zero(self) -> None:
        elo, lo, hi = elo_interval(10, 0, 10)
        assert elo == pytest.approx(0.0, abs=1e-9)
        assert lo < 0 < hi
        assert lo == pytest.approx(-hi)

    def test_symmetry_between_the_two_agents(self) -> None:
        a = elo_interval(30, 10, 12)
        b = elo_interval(12, 10, 30)
        assert a[0] == pytest.approx(-b[0])
        assert a[1] == pytest.approx(-b[2])

    def test_known_value(self) -> None:
        # a 75% score is about +191 Elo: 400 * log10(3)
        assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
        assert elo_interval(75, 0, 25)[0] == pytest.approx(400 * math.log10(3))

    def test_interval_narrows_with_more_games(self) -> None:
        small = elo_interval(7, 2, 3)
        large = elo_interval(700, 200, 300)
        assert small[0] == pytest.approx(large[0])
        assert (large[2] - large[1]) < (small[2] - small[1]) / 5

    def test_perfect_score_stays_finite(self) -> None:
        elo, lo, hi = elo_interval(8, 0, 0)
        assert all(math.isfinite(x) for x in (elo, lo, hi))
        assert 0 < lo < elo < hi

    def test_one_sided_results_get_an_open_end(self) -> None:
        for n in (2, 8, 50, 400):
            elo, lo, hi = elo_interval(n, 0, 0)
            assert lo < elo < hi < math.inf
            m_elo, m_lo, m_hi = elo_interval(0, 0, n)
            assert -math.inf < m_lo < m_elo < m_hi
            assert (m_elo, m_lo, m_hi) == pytest.approx((-elo, -hi, -lo))
        # the bound tightens with more games
        assert elo_interval(400, 0, 0)[2] - elo_interval(400, 0, 0)[0] < (
            elo_interval(8, 0, 0)[2] - elo_interval(8, 0, 0)[0])


class TestRatingList:
    def test_known_two_agent_fit(self) -> None:
        from nugar.ai.tournament import fit_ratings

        # 75 of 100 points: with the prior of 2 draws, 76/102, split around the mean
        a, b = fit_ratings(["a", "b"], [[0, 75], [25, 0]], [[0, 100], [100, 0]])
        assert a.elo - b.elo == pytest.approx(elo_from_score(76 / 102), abs=1e-6)
        assert a.elo == pytest.approx(-b.elo)
        assert a.elo_low < a.elo < a.elo_high

    def test_all_games_at_once_and_one_sided(self) -> None:
        from nugar.ai.tournament import fit_ratings

        # a beat b 8-0, b beat c 8-0, a never met c: the fit ranks a over c through b
        pts = [[0, 8, 0], [0, 0, 8], [0, 0, 0]]
        games = [[0, 8, 0], [8, 0, 8], [0, 8, 0]]
        a, b, c = fit_ratings(["a", "b", "c"], pts, games)
        assert a.elo > b.elo > c.elo
        assert sum(r.elo for r in (a, b, c)) == pytest.approx(0.0, abs=1e-6)
        for r in (a, b, c):
            assert math.isfinite(r.elo_low) and r.elo_low < r.elo < r.elo_high
        assert (a.elo_high - a.elo_low) > (b.elo_high - b.elo_low)  # b played twice as much

    def test_table_counts(self) -> None:
        table = MatchTable("a", "b", "dara")
        assert table.score == 0.5 and table.games == 0
        from nugar.ai.tournament import GameResult

        for pts in (1.0, 0.5, 0.0, 1.0):
            table.add(GameResult(0, True, "1-0", "pieces", pts, 10, None))
        assert (table.wins, table.draws, table.losses, table.games) == (2, 1, 1, 4)
        assert table.score == pytest.approx(2.5 / 4)
        data = table.to_json()
        assert {"games", "wins", "draws", "losses", "score"} <= set(data)


def test_specs_alternate_colours_and_pairs_share_openings() -> None:
    specs = match_specs("greedy", "random", "kalah", 6, Limits(time=0.1), opening=3, seed=1)
    assert [s.a_first for s in specs] == [True, False] * 3
    assert [s.first for s in specs] == ["greedy", "random"] * 3
    for even, odd in zip(specs[::2], specs[1::2], strict=True):
        assert even.opening_seed == odd.opening_seed
    assert len({s.opening_seed for s in specs}) == 3


def test_match_in_process_with_saved_records(tmp_path: Path) -> None:
    table = run_match("greedy:seed=1", "random:seed=2", "kalah", games=4,
                      limits=Limits(depth=2), save=tmp_path, seed=5)
    assert table.games == 4
    assert table.wins + table.draws + table.losses == 4
    assert [r.index for r in table.results] == [0, 1, 2, 3]
    files = sorted(tmp_path.glob("*.txt"))
    assert len(files) == 4
    for f, result in zip(files, table.results, strict=True):
        rec = record.load_one(f.read_text(encoding="utf-8"))
        assert rec.game.result == result.result
        first = "greedy:seed=1" if result.a_first else "random:seed=2"
        assert rec.tags["First"] == first
    # greedy against random in Kalah: far stronger, but the test only needs it to score
    assert table.score > 0.5


def test_match_in_worker_processes() -> None:
    table = run_match("alphabeta:depth=2", "random", "dara(rows=4,cols=4,pieces=5)", games=2,
                      limits=Limits(nodes=2000), workers=2, seed=3)
    assert table.games == 2
    assert {r.a_first for r in table.results} == {True, False}


def test_worker_processes_are_started_once_and_kept() -> None:
    from nugar.ai import tournament

    tournament.close_pools()
    args = ("alphabeta:depth=2", "random", "dara(rows=4,cols=4,pieces=5)")
    first = run_match(*args, games=4, limits=Limits(nodes=2000), workers=2, seed=3)
    pool = tournament.worker_pool(2)
    pids = {pid for pid, _ in pool.map(tournament._worker_ready, [0.2] * 4)}
    second = run_match(*args, games=4, limits=Limits(nodes=2000), workers=2, seed=3)
    assert tournament.worker_pool(2) is pool  # the same processes played the second match
    assert {pid for pid, _ in pool.map(tournament._worker_ready, [0.2] * 4)} == pids
    assert len(pids) == 2
    assert [r.result for r in first.results] == [r.result for r in second.results]
    assert pool.wait_ready() > 0.0
    tournament.close_pools()
    assert tournament.worker_pool(2) is not pool
    tournament.close_pools()


def test_round_robin_points_add_up() -> None:
    rr = run_round_robin(["random:seed=1", "greedy:seed=2", "alphabeta:depth=1"], "kalah",
                         games=2, seed=4)
    assert len(rr.tables) == 3
    assert sum(rr.points()) == pytest.approx(6.0)
    assert rr.games_played() == [4, 4, 4]
    data = rr.to_json()
    assert [s["agent"] for s in data["standings"]] == rr.agents


def test_bad_match_arguments() -> None:
    with pytest.raises(ValueError, match="allowed"):
        run_match("greedy", "deepblue", "kalah", games=2)
    with pytest.raises(ValueError, match="preset"):
        run_match("greedy", "random", "chess", games=2)
    with pytest.raises(ValueError, match="games"):
        run_match("greedy", "random", "kalah", games=0)
    with pytest.raises(ValueError, match="two agents"):
        run_round_robin(["greedy"], "kalah", games=2)


class TestCommandLine:
    def test_match_json(self, capsys: pytest.CaptureFixture[str]) -> None:
        code = main(["match", "greedy:seed=1", "random:seed=1", "--rules", "kalah", "--games",
                     "2", "--depth", "1", "--json", "--seed", "2"])
        assert code == 0
        data = json.loads(capsys.readouterr().out)
        assert data["games"] == 2
        assert data["wins"] + data["draws"] + data["losses"] == 2
        assert data["score"] == pytest.approx((data["wins"] + 0.5 * data["draws"]) / 2)

    def test_match_table_and_records(self, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
        code = main(["match", "random:seed=3", "greedy:seed=4", "--rules", "kalah", "--games",
                     "2", "--save", str(tmp_path / "games"), "--quiet"])
        assert code == 0
        out = capsys.readouterr().out
        assert "wins" in out and "Elo" in out
        assert len(list((tmp_path / "games").glob("*.txt"))) == 2

    def test_unknown_agent_is_a_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["match", "greedy", "oracle", "--games", "2"]) == 2
        err = capsys.readouterr().err
        assert "oracle" in err and "alphabeta" in err

    def test_tournament_json(self, capsys: pytest.CaptureFixture[str]) -> None:
        code = main(["tournament", "random:seed=1", "greedy:seed=1", "--rules", "kalah",
                     "--games", "2", "--json"])
        assert code == 0
        data = json.loads(capsys.readouterr().out)
        assert sum(s["points"] for s in data["standings"]) == pytest.approx(2.0)
        ratings = {r["agent"]: r for r in data["ratings"]}
        assert set(ratings) == {"random:seed=1", "greedy:seed=1"}
        for r in ratings.values():
            assert r["elo_low"] < r["elo"] < r["elo_high"]
        assert main(["tournament", "random:seed=1", "greedy:seed=1", "--rules", "kalah",
                     "--games", "2", "--quiet"]) == 0
        assert "Elo (95%)" in capsys.readouterr().out

    def test_analyse(self, capsys: pytest.CaptureFixture[str]) -> None:
        assert main(["analyse", "kalah", "--agent", "alphabeta", "--depth", "3",
                     "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["depth"] == 3 and data["pv"][0] == data["move"]


def test_a_game_stopped_at_the_decision_limit_is_adjudicated_a_draw(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A game too long to finish is scored as a draw by adjudication, which its record
    says with the termination tag (the game's own ending, not a word of the tournament's)."""
    from nugar.ai import tournament

    monkeypatch.setattr(tournament, "MAX_DECISIONS", 3)
    spec = tournament.GameSpec(0, "dara", "random", "random", True, Limits(depth=1), 0, 1,
                               record=True)
    result = tournament.play_game(spec)
    assert (result.result, result.reason, result.points_a) == ("1/2-1/2", "adjudication", 0.5)
    assert result.record is not None and '[Termination "adjudication"]' in result.record
    assert result.record.count("\n") > 3 and "stopped after 3 decisions" in result.record
