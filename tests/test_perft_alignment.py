"""Move-path counts from the start (``fixtures/perft.md``) for the alignment presets, with the
compiled kernel perft and the Python ``nugar.perft`` (which goes through ``AlignmentGame``)."""

from __future__ import annotations

import re

import pytest

import nugar
from fixtures_path import fixture
from nugar.kernels import dispatch as D
from nugar.rules.alignment import AlignmentGame


def _table() -> dict[str, list[int]]:
    """Rule set name -> counts by depth, read from the fixture's markdown table."""
    rows: dict[str, list[int]] = {}
    for line in fixture("perft.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        names = re.findall(r"`([^`]+)`", cells[0])
        if not names:
            continue
        counts = [int(c.replace(",", "")) for c in cells[1:] if c]
        for name in names:
            rows[name] = counts
    return rows


PERFT = _table()
CASES = [(name, depth, PERFT[name][depth - 1])
         for name, top in (("dara", 3), ("dara-niger", 3), ("dala", 7))
         for depth in range(1, top + 1)]


def test_fixture_table_was_read() -> None:
    assert PERFT["dala"][:3] == [4, 12, 24]
    assert len(PERFT["dala"]) == 7


@pytest.mark.parametrize(("rules", "depth", "expected"), CASES)
def test_compiled_perft(rules: str, depth: int, expected: int) -> None:
    game = AlignmentGame(rules)
    assert D.perft(D.FAM_ALIGNMENT, game.params, game.state, depth) == expected


@pytest.mark.parametrize(("rules", "depth", "expected"),
                         [c for c in CASES if c[2] <= 30_000])
def test_python_perft_agrees(rules: str, depth: int, expected: int) -> None:
    game = nugar.new_game(rules)
    before = game.state.copy()
    assert nugar.perft(game, depth) == expected
    assert (game.state == before).all()


def test_perft_from_a_later_position_agrees() -> None:
    game = nugar.new_game("dara-sheet")
    for turn in ("c3", "d3", "c4", "d4", "a1", "f5", "b2", "e4"):
        game.play(turn)
    for depth in (1, 2, 3):
        assert D.perft(D.FAM_ALIGNMENT, game.params, game.state, depth) == nugar.perft(game, depth)
