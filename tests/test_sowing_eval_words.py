"""The sowing evaluation on packed words (small boards) equals the cell-by-cell one."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import nugar
from nugar.kernels import search_sowing as E
from nugar.kernels import sowing_words as W
from sowing_rule_texts import rule_texts

WEIGHTS = [E.KALAH_WEIGHTS, E.DRACALA_WEIGHTS, np.array([3, -5, 7, 11, 13], dtype=np.int64)]


@settings(max_examples=60, deadline=None)
@given(rules=rule_texts(), seed=st.integers(0, 2**32))
def test_packed_and_cell_evaluations_agree(rules: str, seed: int) -> None:
    rng = random.Random(seed)
    game = nugar.new_game(rules)
    while not game.is_over:
        state = game.state
        for weights in WEIGHTS:
            expected = E._evaluate_cells(game.params, state, weights)
            assert E.evaluate(game.params, state, weights) == expected
            if W.fits(game.params, state):
                assert E._evaluate_words(game.params, state, weights) == expected
        game.play(rng.choice(game.legal_moves()))
