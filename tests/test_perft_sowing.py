"""Move-path counts of the sowing rule sets against ``fixtures/perft.md``.

The compiled ``kernels.sowing.perft`` runs every depth of the table; the Python
``nugar.perft`` (through the ``Game`` API) runs the shallow ones, so the two paths are checked
against each other as well as against the fixture.
"""

from __future__ import annotations

import re

import pytest

import nugar
from fixtures_path import fixture
from nugar.kernels import dispatch as D
from nugar.rules.sowing import SowingGame

PERFT_MD = fixture("perft.md")
RULE_SETS = ("kalah", "kalah(empty_capture=single)", "dracala")
PYTHON_MAX_DEPTH = 4


def read_table() -> dict[str, list[int]]:
    """Rows of the perft table: rule-set text -> counts from depth 1."""
    rows: dict[str, list[int]] = {}
    for line in PERFT_MD.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`[^|]*\|(.*)\|\s*$", line)
        if not m:
            continue
        cells = [c.strip().replace(",", "") for c in m.group(2).split("|")]
        rows[m.group(1)] = [int(c) for c in cells if c]
    return rows


TABLE = read_table()
CASES = [(rules, depth, count) for rules in RULE_SETS
         for depth, count in enumerate(TABLE[rules], start=1)]


def test_fixture_has_the_sowing_rows() -> None:
    assert len(TABLE["kalah"]) == 8
    assert len(TABLE["kalah(empty_capture=single)"]) == 8
    assert len(TABLE["dracala"]) == 9


@pytest.mark.parametrize("rules, depth, expected", CASES)
def test_compiled_perft(rules: str, depth: int, expected: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, SowingGame)
    assert D.perft(D.FAM_SOWING, game.params, game.state, depth) == expected


@pytest.mark.parametrize("rules, depth, expected",
                         [c for c in CASES if c[1] <= PYTHON_MAX_DEPTH])
def test_python_perft_agrees(rules: str, depth: int, expected: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, SowingGame)
    start = game.state.copy()
    assert nugar.perft(game, depth) == expected
    assert (game.state == start).all() and game.move_stack == []


def test_perft_does_not_touch_the_state() -> None:
    game = nugar.new_game("dracala")
    assert isinstance(game, SowingGame)
    start = game.state.copy()
    D.perft(D.FAM_SOWING, game.params, game.state, 5)
    assert (game.state == start).all()
    assert D.perft(D.FAM_SOWING, game.params, game.state, 0) == 1


def test_perft_of_a_finished_game_is_zero() -> None:
    game = nugar.new_game("kalah(pits=1,seeds=1)")
    assert isinstance(game, SowingGame)
    assert [D.perft(D.FAM_SOWING, game.params, game.state, d) for d in (1, 2, 3)] == [1, 0, 0]
    assert [nugar.perft(game, d) for d in (1, 2, 3)] == [1, 0, 0]
