"""The analysis of a game (``nugar.ai.analysis``): exact marks where the solver answers, the
search elsewhere, the same answer every time, the record's comments and ``nugar analyse
--game``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from nugar.ai.analysis import (
    GameAnalyser,
    PlyAnalysis,
    PositionEval,
    analyse_game,
    loss_of,
    mark_of,
    record_comments,
)
from nugar.kernels.common import ST_OUTCOME, ST_TO_MOVE
from nugar.record import dumps, load_one
from nugar.rules import Game, new_game
from nugar.solver import kernels as S
from nugar.solver.core import Solver


def random_game(rules: str, seed: int, max_turns: int = 200) -> Game:
    rng = random.Random(seed)
    game = new_game(rules)
    while not game.is_over and len(game.turn_list()) < max_turns:
        game.play(rng.choice(game.legal_moves()))
    return game


def _value(solver: Solver, state: np.ndarray, player: int) -> tuple[int, int]:
    """The exact value and result of ``state`` for ``player``, from a solver of the test's
    own (a table apart from the analysis')."""
    if int(state[ST_OUTCOME]) != 0:
        value = int(S.terminal_value(solver.params, state))
    else:
        value = solver.value(state)
    result = solver.result_of(state, value)
    if int(state[ST_TO_MOVE]) != player:
        return -value, -result
    return value, result


@pytest.mark.parametrize("rules", ["kalah(pits=4,seeds=3)", "dracala(pits=3,seeds=3)"])
def test_marks_are_exact_on_small_boards(rules: str) -> None:
    """Every turn of 50 random games: the analysis' loss is the change of the exact value
    the solver gives (misère: with the blunder threshold added at each change of result),
    its mark follows the thresholds, and the best turn keeps the value."""
    solver = Solver(rules, max_memory_mb=16, db_seeds=0)
    thresholds = new_game(rules).rules.ai_profile.marks
    misere = solver.misere
    checked = marked = 0
    for seed in range(50):
        game = random_game(rules, seed)
        plies = analyse_game(game, nodes=2000)
        assert len(plies) == len(game.turn_list()) + 1
        assert all(p.exact for p in plies)
        replay = new_game(rules)
        for (mover, moves), ply in zip(game.turn_list(), plies[1:], strict=True):
            before = replay.state.copy()
            v_before, r_before = _value(solver, before, mover)
            best_line = replay.copy()
            assert ply.best is not None
            best_line.play(ply.best)
            v_best, _ = _value(solver, best_line.state, mover)
            assert v_best == v_before, (seed, ply)
            for m in moves:
                replay.play(m)
            v_after, r_after = _value(solver, replay.state, mover)
            loss = v_before - v_after
            if misere:
                loss += (r_before - r_after) * (int(thresholds[2]) - 1)
            assert ply.loss == loss, (seed, ply)
            expected = None
            if loss >= thresholds[2]:
                expected = "blunder"
            elif loss >= thresholds[1]:
                expected = "mistake"
            elif loss >= thresholds[0]:
                expected = "inaccuracy"
            assert ply.mark == expected, (seed, ply)
            sign = 1 if mover == 1 else -1
            assert ply.eval == pytest.approx(sign * (v_after + (r_after * (int(
                thresholds[2]) - 1) if misere else 0)))
            checked += 1
            marked += ply.mark is not None
    assert checked > 300 and marked > 20  # random games: plenty of marked turns


def test_search_positions_and_progress() -> None:
    """Dara (no solver): search values, marked by the profile's thresholds; the progress
    callback counts every position; the same game gives the same analysis twice."""
    game = random_game("dara", 3, max_turns=14)
    seen: list[tuple[int, int]] = []
    first = analyse_game(game, nodes=3000, progress=lambda d, t: seen.append((d, t)))
    assert seen[-1] == (15, 15) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert [p.ply for p in first] == list(range(15))
    assert first[0].move is None and first[1].move == game.turns()[0]
    assert not any(p.exact for p in first)
    for p in first[1:]:
        assert p.best is not None and p.pv and p.pv[0] == p.best
        assert p.mark == mark_of(p.loss, game.rules.ai_profile.marks)
        if p.move == p.best:
            assert p.loss == 0
    again = analyse_game(game, nodes=3000)
    assert [p.to_json() for p in again] == [p.to_json() for p in first]


def test_stepwise_equals_whole() -> None:
    game = random_game("kalah(pits=3,seeds=2)", 1)
    a = GameAnalyser(game, nodes=1000)
    while a.step():
        pass
    assert [p.to_json() for p in a.plies()] == [p.to_json() for p in analyse_game(
        game, nodes=1000)]


def test_loss_between_scales() -> None:
    """A forced win kept is no loss however its length changes; giving it away is a
    blunder; values on different scales are capped."""
    win_far = PositionEval(9990.0, False, 1)
    win_near = PositionEval(9950.0, False, 1)
    even = PositionEval(0.3, False, None)
    exact_loss = PositionEval(-4.0, True, -1)
    assert loss_of(win_far, win_near, 1) == 0
    assert mark_of(loss_of(win_far, even, 1), (0.5, 1, 2)) == "blunder"
    assert mark_of(loss_of(even, exact_loss, 1), (2, 4, 8)) == "blunder"
    assert loss_of(even, exact_loss, 2) == 0  # good for the second player


def test_record_comments_read_back() -> None:
    game = random_game("kalah(pits=4,seeds=3)", 7)
    plies = analyse_game(game, nodes=2000)
    text = dumps(game, {"Date": "2026.01.01"}, comments=record_comments(plies))
    record = load_one(text)
    assert record.turns == game.turns()
    assert record.comments[-1][0].startswith("start ")
    for p in plies[1:]:
        comment = record.comments[p.ply - 1][0]
        assert comment.startswith(f"{p.eval:+.2f}")
        if p.mark is not None:
            assert f"best {p.best}" in comment


def _json_plies(out: str) -> list[PlyAnalysis]:
    data = json.loads(out)
    return [PlyAnalysis(**p) for p in data["plies"]]


def test_cli_analyse_game(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    from nugar.cli.main import main

    game = random_game("kalah(pits=4,seeds=3)", 11)
    path = Path(str(tmp_path)) / "game.txt"
    path.write_text(dumps(game))
    assert main(["analyse", "--game", str(path), "--json", "--nodes", "2000"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["rules"] == "kalah(pits=4,seeds=3)"
    expected = [p.to_json() for p in analyse_game(game, nodes=2000)]
    assert data["plies"] == expected
    assert main(["analyse", "--game", str(path), "--nodes", "2000"]) == 0
    text = capsys.readouterr().out
    assert "[Rules \"kalah(pits=4,seeds=3)\"]" in text
    for p in expected[1:]:
        assert f"{p['eval']:+.2f}" in text
    assert sum(1 for p in expected if p["mark"]) == sum(
        text.count(f"{m}, best") for m in ("inaccuracy", "mistake", "blunder"))


def test_cli_analyse_needs_rules_or_game(capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.cli.main import main

    assert main(["analyse"]) == 2
    err = capsys.readouterr().err
    assert "RULES" in err and "--game" in err and len(err.strip().splitlines()) == 1


def test_docs_table_of_thresholds_is_the_profiles() -> None:
    """docs/ai.md's table of marks says what each AI profile holds."""
    from pathlib import Path

    from nugar.rules.family import ai_profiles

    doc = (Path(__file__).resolve().parents[1] / "docs" / "ai.md").read_text(encoding="utf-8")
    section = doc.split("**Thresholds**", 1)[1].split("\n\n", 2)[1]
    rows = {}
    for line in section.splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = tuple(float(c) for c in cells[2:5])
    assert rows == {p.name: p.marks for p in ai_profiles()}
