"""The sowing board's geometry helpers (``kernels/sowing.py``) against the layout its module
docstring describes, the end-of-game rule shared by the array and the packed-word kernels, and
the typed access to a rule set's sowing options."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import nugar
from nugar.errors import RulesError
from nugar.kernels import sowing as sowing_kernels
from nugar.kernels.common import (
    HEADER,
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_RUNNING,
    OUTCOME_SECOND,
    REASON_EMPTY_SIDE,
    REASON_MAJORITY,
)
from nugar.rules.sowing import SowingGame, make_params


def described_layout(pits: int) -> list[tuple[str, int, int]]:
    """The state's cells as the module docstring lists them, from index ``HEADER``: the
    first player's holes 1..P and his store, then the second player's, then the ``F_*``
    fields: ``(kind, player, hole)`` per index."""
    cells: list[tuple[str, int, int]] = []
    for player in (1, 2):
        cells += [("hole", player, k) for k in range(1, pits + 1)]
        cells.append(("store", player, 0))
    return cells + [("field", 0, f) for f in range(sowing_kernels.N_FIELDS)]


@pytest.mark.parametrize("compiled", [True, False])
def test_the_geometry_helpers_agree_with_the_described_layout(compiled: bool) -> None:
    def plain(helper: Any) -> Any:
        return helper if compiled else helper.py_func

    holes_at, store_at = plain(sowing_kernels.holes_at), plain(sowing_kernels.store_at)
    fields_at, cell_count = plain(sowing_kernels.fields_at), plain(sowing_kernels.cell_count)
    opposite = plain(sowing_kernels.opposite)
    for pits in range(1, 33):
        layout = described_layout(pits)
        where = {entry: HEADER + i for i, entry in enumerate(layout)}
        assert cell_count(pits) == 2 * pits + 2
        assert fields_at(pits) == where[("field", 0, 0)]
        for player in (1, 2):
            assert holes_at(pits, player) == where[("hole", player, 1)]
            assert store_at(pits, player) == where[("store", player, 0)]
            for k in range(1, pits + 1):  # the holes follow hole 1 without a gap
                assert holes_at(pits, player) + k - 1 == where[("hole", player, k)]
            for k in range(1, pits + 1):  # hole k faces the other player's hole P + 1 - k
                cell = where[("hole", player, k)] - HEADER
                facing = opposite(pits, cell)
                assert layout[facing] == ("hole", 3 - player, pits + 1 - k)
                assert opposite(pits, facing) == cell
        state_size = make_params(nugar.parse_rules(f"kalah(pits={pits})").sowing_options)[
            sowing_kernels.P_STATE_SIZE]
        assert state_size == HEADER + len(layout)


@pytest.mark.parametrize("rules", ["kalah(pits=3,seeds=5)", "dracala", "kalah(pits=9)"])
def test_the_seed_counts_agree_with_the_holes_and_stores(rules: str) -> None:
    game = nugar.new_game(rules)
    rng = np.random.default_rng(7)
    while not game.is_over:
        assert isinstance(game, SowingGame)
        pits, state = game.pits, game.state
        holes1, holes2 = game.holes
        in_play = sum(holes1) + sum(holes2) + sum(game.stores)
        assert sowing_kernels.seeds_in_play(pits, state) == in_play
        assert sowing_kernels.seeds_on_board(pits, state) == sum(holes1) + sum(holes2)
        assert sowing_kernels.fields_start(game.params) == sowing_kernels.fields_at(pits)
        moves = game.legal_moves()
        game.play(moves[int(rng.integers(len(moves)))])


def test_sowing_options_are_typed_and_refused_for_other_families() -> None:
    options = nugar.parse_rules("kalah(pits=4,seeds=3)").sowing_options
    assert (options.pits, options.seeds) == (4, 3)
    with pytest.raises(RulesError, match="not a sowing game"):
        nugar.parse_rules("dara").sowing_options  # noqa: B018


def _rules(misere: bool = False, end_mover: bool = False,
           leftovers: int = sowing_kernels.LEFT_OWNER) -> sowing_kernels.SowingRules:
    return sowing_kernels.SowingRules(6, 0, 0, misere, misere, end_mover, leftovers)


@pytest.mark.parametrize("case", [
    # (rules, stores, sides, to_move, last mover, last capturer, total) -> result
    ((_rules(), (10, 20), (3, 5), 1, 2, 0, 38), (OUTCOME_RUNNING, 0, 10, 20, False)),
    ((_rules(), (10, 20), (0, 8), 1, 2, 0, 38), (OUTCOME_SECOND, REASON_EMPTY_SIDE, 10, 28, True)),
    ((_rules(), (15, 15), (4, 0), 2, 2, 0, 34), (OUTCOME_FIRST, REASON_EMPTY_SIDE, 19, 15, True)),
    ((_rules(), (15, 15), (0, 0), 2, 2, 0, 30), (OUTCOME_DRAW, REASON_EMPTY_SIDE, 15, 15, True)),
    ((_rules(end_mover=True), (10, 20), (0, 8), 2, 1, 0, 38),
     (OUTCOME_RUNNING, 0, 10, 20, False)),
    ((_rules(leftovers=sowing_kernels.LEFT_LAST_MOVER), (15, 15), (0, 8), 1, 1, 2, 38),
     (OUTCOME_FIRST, REASON_EMPTY_SIDE, 23, 15, True)),
    ((_rules(leftovers=sowing_kernels.LEFT_LAST_CAPTURER), (15, 15), (0, 8), 1, 1, 2, 38),
     (OUTCOME_SECOND, REASON_EMPTY_SIDE, 15, 23, True)),
    ((_rules(leftovers=sowing_kernels.LEFT_LAST_CAPTURER), (15, 15), (0, 8), 1, 1, 0, 38),
     (OUTCOME_FIRST, REASON_EMPTY_SIDE, 23, 15, True)),
    # misère: a majority ends the game at once, the seeds where they are
    ((_rules(misere=True), (25, 10), (6, 7), 1, 1, 1, 48),
     (OUTCOME_SECOND, REASON_MAJORITY, 25, 10, False)),
    ((_rules(misere=True), (10, 25), (6, 7), 1, 2, 2, 48),
     (OUTCOME_FIRST, REASON_MAJORITY, 10, 25, False)),
    # misère after the sweep: a majority loses, else a draw
    ((_rules(misere=True), (20, 10), (0, 18), 1, 2, 0, 48),
     (OUTCOME_FIRST, REASON_MAJORITY, 20, 28, True)),
    ((_rules(misere=True), (24, 20), (0, 4), 1, 2, 0, 48),
     (OUTCOME_DRAW, REASON_EMPTY_SIDE, 24, 24, True)),
])
@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("packed", [False, True])
def test_end_of_game(case: Any, compiled: bool, packed: bool) -> None:
    """The rule on seed counts, and on the words of packed sides (``sowing_words``): each
    side's seeds spread over three holes, a byte a hole."""
    (rules, (s1, s2), (side1, side2), to_move, mover, capturer, total), want = case
    end: Any = sowing_kernels.end_of_game
    if not compiled:
        end = end.py_func
    if packed:
        side1, side2 = (n // 3 | (n // 3) << 8 | (n - 2 * (n // 3)) << 16 for n in (side1, side2))
    got = end(rules, s1, s2, side1, side2, packed, to_move, mover, capturer, total)
    assert tuple(got) == want
