"""Puzzles (:mod:`nugar.puzzles`): the shipped sets (sizes, ids, legal solutions), their
uniqueness checked again without the miner (every whole turn of a sample solved by a fresh
exact solver; Dara's and Dala's by a plain search of the win's plies through the ``Game``
API), the miner on small rule sets, the judge of an attempt, the choices of the next and the
daily puzzle, and ``nugar puzzles``."""

from __future__ import annotations

import datetime
import random
from pathlib import Path

import pytest

from nugar import from_position
from nugar.cli.main import main
from nugar.kernels.common import ST_TO_MOVE
from nugar.puzzles import THEMES, Puzzle, PuzzleError, read, shipped, shipped_rules, write
from nugar.puzzles.choose import daily, near, streak_rating
from nugar.puzzles.mine import mine, sowing_puzzle, tablebase_puzzle
from nugar.rules import Game
from nugar.solver import Solver
from nugar.solver.kernels import terminal_value
from nugar.solver.tablebase import Tablebase, build
from puzzle_turns import all_turns

SHIPPED = ("dala", "dara", "dracala", "kalah")


def exact_turn_values(solver: Solver, game: Game) -> dict[str, int]:
    """Each whole turn's exact value for the mover, solved from the position after it."""
    mover = game.to_move
    values = {}
    for text, after in all_turns(game):
        state = after.state.copy()
        # a finished game's value by the solver's objective, else the search's; both for
        # the player the state names to move
        v = int(terminal_value(solver.params, state)) if after.is_over else solver.value(state)
        values[text] = v if int(state[ST_TO_MOVE]) == mover else -v
    return values


@pytest.mark.parametrize("rules", SHIPPED)
def test_each_game_ships_over_a_thousand_puzzles_with_unique_ids(rules: str) -> None:
    assert rules in shipped_rules()
    found = shipped(rules)
    assert len(found) >= 1000
    assert len({p.id for p in found}) == len(found)
    assert len({p.position for p in found}) == len(found)
    assert [p.rating for p in found] == sorted(p.rating for p in found)
    for p in found[::50]:
        assert p.rules == rules and set(p.themes) <= set(THEMES)
        assert p.answer(p.solution).verdict == "right", p


@pytest.mark.parametrize("rules", ["kalah", "dracala"])
def test_a_sample_of_the_sowing_puzzles_has_one_best_turn_by_a_fresh_solver(rules: str) -> None:
    solver = Solver(rules, max_memory_mb=16, db_seeds=0, disk_db=False)
    sample = random.Random(7).sample(shipped(rules), 12)
    for p in sample:
        values = exact_turn_values(solver, p.game())
        best = max(values.values())
        assert [t for t, v in values.items() if v == best] == [p.solution], p
        assert best == p.proof["value"]
        assert max(v for t, v in values.items() if t != p.solution) == p.proof["other"]


def forced_win(game: Game, me: int, plies: int) -> bool:
    """Whether ``me`` wins within ``plies`` turns (both sides') by a plain search."""
    if game.is_over:
        return game.outcome is not None and game.outcome.winner == me
    if plies == 0:
        return False
    results = (forced_win(after, me, plies - 1) for _, after in all_turns(game))
    return any(results) if game.to_move == me else all(results)


@pytest.mark.parametrize("rules", ["dara", "dala"])
def test_a_sample_of_the_short_alignment_puzzles_is_proven_by_a_plain_search(rules: str) -> None:
    short = [p for p in shipped(rules) if p.proof["plies"] <= 3]
    assert short
    for p in random.Random(3).sample(short, 3):
        game = p.game()
        me = game.to_move
        for text, after in all_turns(game):
            wins = forced_win(after, me, p.proof["plies"] - 1)
            assert wins == (text == p.solution), (p, text)


def test_the_sowing_miner_keeps_only_positions_with_one_best_turn() -> None:
    rules = "kalah(pits=4,seeds=3)"
    batch = mine(rules, 6, seed=5, ladder=False)
    assert len(batch.puzzles) == 6 and batch.positions >= 6
    solver = Solver(rules, max_memory_mb=8, db_seeds=0, disk_db=False)
    for p in batch.puzzles:
        values = exact_turn_values(solver, p.game())
        best = max(values.values())
        assert [t for t, v in values.items() if v == best] == [p.solution]
    # the same seed mines the same puzzles
    assert [p.id for p in mine(rules, 6, seed=5, ladder=False).puzzles] == \
        [p.id for p in batch.puzzles]


def test_a_position_with_two_best_turns_is_no_puzzle() -> None:
    # Kalah(2, 1) at the start: either hole keeps the value (checked by a fresh solver)
    game = from_position("kalah(pits=2,seeds=1) 1,1:0/1,1:0 s")
    solver = Solver("kalah(pits=2,seeds=1)", max_memory_mb=4, db_seeds=0, disk_db=False)
    values = exact_turn_values(solver, game)
    unique = list(values.values()).count(max(values.values())) == 1
    assert (sowing_puzzle(solver, game) is not None) == unique


def test_the_tablebase_miner_on_a_small_board(tmp_path: Path) -> None:
    from nugar import parse_rules
    rules = parse_rules("dara(rows=4,cols=4)")
    build(rules, 6, root=tmp_path)  # 3 against 3
    tb = Tablebase(rules, tmp_path)
    batch = mine(rules.text, 5, seed=2, tb_root=tmp_path, ladder=False, seconds=60)
    assert batch.puzzles
    for p in batch.puzzles:
        game = p.game()
        wins = [c.turn for c in tb.choices(game) if c.value == 1]
        assert wins == [p.solution]
        assert tablebase_puzzle(tb, game) == p
        me = game.to_move
        for text, after in all_turns(game):
            assert forced_win(after, me, p.proof["plies"] - 1) == (text == p.solution)


def test_an_attempt_is_judged_as_a_lesson_step_is() -> None:
    p = next(p for p in shipped("kalah") if "store" in p.themes)
    first = p.solution.split("-")[0]
    assert p.answer(p.solution).verdict == "right"
    assert p.answer(first).verdict == "goes_on"
    others = [t for t, _ in all_turns(p.game()) if t != p.solution]
    assert p.answer(others[0]).verdict == "wrong"
    assert p.answer("9").verdict in ("illegal", "unreadable")
    assert p.answer("hello").verdict == "unreadable"


def test_choosing_near_a_rating_the_daily_puzzle_and_a_streak() -> None:
    puzzles = shipped("dara")
    rng = random.Random(1)
    chosen = near(puzzles, 1500, rng)
    assert chosen is not None and abs(chosen.rating - 1500) <= 150
    # attempted puzzles are skipped, the window widening until one is left
    skip = {p.id for p in puzzles[1:]}
    assert near(puzzles, 2000, rng, skip) == puzzles[0]
    assert near(puzzles, 1500, rng, {p.id for p in puzzles}) is None
    day = datetime.date(2026, 12, 8)
    assert daily(puzzles, day) == daily(puzzles, day)
    days = [daily(puzzles, day + datetime.timedelta(d)) for d in range(10)]
    assert len({p.id for p in days if p is not None}) > 5
    assert all(p is not None and 1200 <= p.rating <= 1800 for p in days)
    assert streak_rating(0) < streak_rating(3) < streak_rating(10)


def test_files_round_trip_and_bad_rows_are_refused(tmp_path: Path) -> None:
    some = list(shipped("dala")[:5])
    path = tmp_path / "p.jsonl.gz"
    assert write(path, some) == 5
    assert list(read(path)) == some
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": 1, "id": "x"}\n')
    with pytest.raises(PuzzleError, match="lacks"):
        list(read(bad))
    bad.write_text('{"format": 1, "id": "x", "rules": "dara", "position": "p", '
                   '"solution": "a1", "themes": ["nonsense"], "rating": 1}\n')
    with pytest.raises(PuzzleError, match="unknown theme 'nonsense'"):
        list(read(bad))
    bad.write_text("not json\n")
    with pytest.raises(PuzzleError, match="line 1: not JSON"):
        list(read(bad))


def test_the_command_line_builds_merges_and_shows(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "k.jsonl.gz"
    rules = "kalah(pits=4,seeds=3)"
    assert main(["puzzles", "build", rules, "--count", "3", "--out", str(out), "--quiet"]) == 0
    assert "3 new puzzles" in capsys.readouterr().out
    assert main(["puzzles", "build", rules, "--count", "3", "--seed", "9", "--out", str(out),
                 "--quiet"]) == 0
    merged = list(read(out))
    capsys.readouterr()
    assert len(merged) >= 4 and len({p.id for p in merged}) == len(merged)
    assert main(["puzzles", "show", str(out), "--limit", "2"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    assert main(["puzzles", "stats", str(out)]) == 0
    assert f"{len(merged)} puzzles" in capsys.readouterr().out
    # a file of another rule set, an unknown rule set, a missing file: one line, no traceback
    assert main(["puzzles", "build", "kalah", "--count", "1", "--out", str(out)]) == 1
    assert "holds puzzles of kalah(pits=4,seeds=3)" in capsys.readouterr().err
    assert main(["puzzles", "build", "chess", "--out", str(tmp_path / "c.jsonl")]) == 2
    assert main(["puzzles", "show", str(tmp_path / "none.jsonl")]) == 1
    assert "no file" in capsys.readouterr().err


def test_dara_without_its_tables_says_how_to_build_them(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    assert main(["puzzles", "build", "dara", "--count", "1", "--db-dir", str(tmp_path),
                 "--out", str(tmp_path / "d.jsonl.gz")]) == 1
    assert "nugar solve dara --build-tb 6" in capsys.readouterr().err


def test_a_puzzle_is_data() -> None:
    p = shipped("kalah")[0]
    assert isinstance(p, Puzzle) and p.game().position_text() == p.position
