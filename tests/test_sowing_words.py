"""The packed-word sowing of random playouts (``nugar.kernels.sowing_words``) against the
generic array kernels: the same seed plays the same game, to the same final state."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import nugar
from nugar.kernels import dispatch as D
from nugar.kernels import sowing as K
from nugar.kernels import sowing_words as W
from nugar.kernels.common import HEADER
from nugar.rules.sowing import SowingGame
from sowing_rule_texts import rule_texts


def _generic(params: np.ndarray, state: np.ndarray, seed: int, max_plies: int) -> int:
    """The array kernels' random walk, in place (never the packed path)."""
    return int(D._play_random_on(D.FAM_SOWING, params, state, np.empty(0, dtype=np.int64),
                                 seed, max_plies))


def _words(params: np.ndarray, state: np.ndarray) -> tuple[int, int]:
    pits = int(params[K.P_PITS])
    return W.pack(state, HEADER, pits), W.pack(state, HEADER + pits + 1, pits)


@settings(max_examples=120, deadline=None)
@given(rules=rule_texts(), seed=st.integers(0, 2**40), before=st.integers(0, 30),
       limit=st.sampled_from([10**6, 1, 5, 17]))
def test_packed_playouts_play_the_generic_game(rules: str, seed: int, before: int,
                                               limit: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, SowingGame)
    params = game.params
    start = game.state.copy()
    _generic(params, start, seed ^ 0x5A5A, before)  # a position from the middle of a game
    if not W.fits(params, start):
        assert game.pits > W.MAX_PITS or 2 * game.pits * game.options.seeds >= W.MAX_SEEDS
        return
    expected = start.copy()
    outcome = _generic(params, expected, seed, limit)
    got = start.copy()
    assert W.play_random(params, got, got, seed, limit) == outcome
    assert np.array_equal(got, expected)
    assert got[1] == outcome
    # the public kernels take the packed path: same answers, the caller's copy untouched
    kept = start.copy()
    assert D.random_playout(D.FAM_SOWING, params, kept, seed, limit) == outcome
    assert np.array_equal(kept, start)
    in_place = start.copy()
    assert D.play_random(D.FAM_SOWING, params, in_place, seed, limit) == outcome
    assert np.array_equal(in_place, expected)


def test_boards_too_big_for_a_word_take_the_generic_path() -> None:
    for rules in ("kalah(pits=7)", "kalah(pits=6,seeds=11)"):
        game = nugar.new_game(rules)
        assert not W.fits(game.params, game.state)
        state = game.state.copy()
        outcome = D.play_random(D.FAM_SOWING, game.params, state, 7, 10**6)
        again = game.state.copy()
        assert _generic(game.params, again, 7, 10**6) == outcome
        assert np.array_equal(state, again)
    assert W.fits(nugar.new_game("kalah(pits=6,seeds=10)").params,
                  nugar.new_game("kalah(pits=6,seeds=10)").state)


def test_a_lap_round_the_board_then_a_capture() -> None:
    # Kalah(6, 4) (empty_capture=none), first player to move:
    #          6   5   4   3   2   1        second player's holes (his hole 1 on the right)
    #    [0]   1   0   2   0   3   0   [0]
    #          0  15   0   0   1   0        first player's holes 1..6
    # Hole 2's 15 seeds: a whole lap of 13 cells (his store included, the origin too, the
    # opponent's store never), then two more: holes 3 and 4. Hole 4 held 0 + 1 (lap) + 1
    # = 2 seeds: no capture; the last seed lands in hole 4.
    game = nugar.new_game("kalah")
    params = game.params
    state = game.state.copy()
    cells = [0, 15, 0, 0, 1, 0, 0, 0, 3, 0, 2, 0, 1, 0]
    state[HEADER:HEADER + 14] = cells
    K.setup_state(params, state)
    mine, theirs = _words(params, state)
    m2, t2, last = W.sow(mine, theirs, 1, 6, 0, 0)
    assert last == 3
    assert [W.cell(m2, i) for i in range(7)] == [1, 1, 2, 2, 2, 1, 1]
    assert [W.cell(t2, i) for i in range(6)] == [1, 4, 1, 3, 1, 2]
    reference = state.copy()
    K.apply_action(params, reference, 1)
    assert list(reference[HEADER:HEADER + 14]) == [*[W.cell(m2, i) for i in range(7)],
                                                   *[W.cell(t2, i) for i in range(7)]]


def test_a_capture_of_the_facing_hole() -> None:
    # Kalah(6, 4), first player to move:
    #          6   5   4   3   2   1
    #    [0]   0   5   0   0   0   0   [0]
    #          1   0   0   0   0   3
    # Hole 1's seed lands in the empty hole 2, which faces the opponent's hole 5: its 5
    # seeds and the sowing seed go to the store.
    game = nugar.new_game("kalah")
    params = game.params
    state = game.state.copy()
    state[HEADER:HEADER + 14] = [1, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 5, 0, 0]
    K.setup_state(params, state)
    mine, theirs = _words(params, state)
    assert W.rate(mine, theirs, 0, 6, 0, 0) == (6, False)
    assert W.rate(mine, theirs, 5, 6, 0, 0) == (1, False)  # store, then the opponent's side
    m2, t2, last = W.sow(mine, theirs, 0, 6, 0, 0)
    assert last == 1
    assert [W.cell(m2, i) for i in range(7)] == [0, 0, 0, 0, 0, 3, 6]
    assert t2 == 0
    assert W.side_seeds(m2, 6) == 3 and W.side_seeds(t2, 6) == 0
    reference = state.copy()
    K.apply_action(params, reference, 0)
    # the opponent's holes are all empty: the game ends and the 3 seeds left go to their owner
    assert list(reference[HEADER:HEADER + 14]) == [0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0]
    out = state.copy()
    assert W.play_random(params, state, out, 1, 1) == reference[1] == 1
    assert np.array_equal(out, reference)


def test_the_presets_play_the_generic_games() -> None:
    # Kalah's and Dracala's six holes are compiled as a constant: a separate code path
    # (it once went wrong there only, through a signed overflow in the byte arithmetic)
    for rules in ("kalah", "dracala", "kalah(empty_capture=single)",
                  "dracala(leftovers=last_capturer)"):
        game = nugar.new_game(rules)
        for seed in range(300):
            expected = game.state.copy()
            outcome = _generic(game.params, expected, seed, 10**6)
            got = game.state.copy()
            assert W.play_random(game.params, got, got, seed, 10**6) == outcome
            assert np.array_equal(got, expected), (rules, seed)
