"""The family switches of ``kernels/dispatch.py`` and what is built on them (perft, random
playouts), against the family kernels called directly; and the one generator of
``kernels/rng.py``."""

from __future__ import annotations

import random
from types import ModuleType

import numpy as np
import pytest

import nugar
from nugar.kernels import alignment as KA
from nugar.kernels import batch as B
from nugar.kernels import dispatch as D
from nugar.kernels import rng, search_core
from nugar.kernels.common import OUTCOME_RUNNING, ST_OUTCOME
from nugar.rules.family import family_of
from rule_sets import RULE_SETS, is_small

IntArray = np.ndarray

NO_LIMIT = 10**9  # plies: no random game comes near


def _family(rules: str) -> tuple[int, ModuleType]:
    parts = family_of(rules).parts
    return parts.code, parts.kernel


def _params(rules: str) -> IntArray:
    params: IntArray = nugar.new_game(rules).params
    return params


@pytest.mark.parametrize("rules", RULE_SETS)
def test_switches_give_what_the_family_kernels_give(rules: str) -> None:
    fam, kernels = _family(rules)
    params = _params(rules)
    assert D.fam_num_actions(fam, params) == kernels.num_actions(params)
    start = D.fam_initial_state(fam, params)
    assert np.array_equal(start, kernels.initial_state(params))
    width = int(kernels.num_actions(params))
    mine, theirs = np.empty(width, np.int64), np.empty(width, np.int64)
    ours_history, their_history = np.zeros(400, np.int64), np.zeros(400, np.int64)
    rnd = random.Random(rules)
    for _game in range(3):
        state, direct = start.copy(), start.copy()
        count = D.fam_note_position(fam, params, state, ours_history, 0)
        direct_count = 0
        if kernels is KA:
            direct_count = KA.note_position(params, direct, their_history, 0)
        for _ in range(300):
            n = D.fam_legal(fam, params, state, mine)
            assert n == kernels.legal_actions(params, direct, theirs)
            assert mine[:n].tolist() == theirs[:n].tolist()
            if n == 0:
                break
            action = int(mine[rnd.randrange(n)])
            D.fam_apply(fam, params, state, action)
            kernels.apply_action(params, direct, action)
            count = D.fam_note_position(fam, params, state, ours_history, count)
            if kernels is KA:
                direct_count = KA.note_position(params, direct, their_history, direct_count)
            assert count == direct_count
            assert np.array_equal(state, direct)
        assert state[ST_OUTCOME] != OUTCOME_RUNNING or n > 0


def test_sowing_keeps_no_history() -> None:
    params = _params("kalah")
    state = D.fam_initial_state(D.FAM_SOWING, params)
    history = np.full(4, -7, np.int64)
    assert D.fam_note_position(D.FAM_SOWING, params, state, history, 2) == 2
    assert (history == -7).all()


def _tree_count(fam: int, params: IntArray, state: IntArray, depth: int) -> int:
    """perft by recursion over the family switches, one copy per node (the reference)."""
    if depth == 0:
        return 1
    moves = np.empty(D.fam_num_actions(fam, params), np.int64)
    n = D.fam_legal(fam, params, state, moves)
    total = 0
    for action in moves[:n].tolist():
        child = state.copy()
        D.fam_apply(fam, params, child, action)
        total += _tree_count(fam, params, child, depth - 1)
    return total


@pytest.mark.parametrize("rules", ["dara", "dala", "kalah", "dracala"])
def test_perft_counts_the_tree_from_later_positions(rules: str) -> None:
    fam, _ = _family(rules)
    params = _params(rules)
    rnd = random.Random(3)
    state = D.fam_initial_state(fam, params)
    moves = np.empty(D.fam_num_actions(fam, params), np.int64)
    plies = 0
    # into the middle game (alignment: past the drops), to a position with a choice
    while plies < 30 or D.fam_legal(fam, params, state, moves) < 2:
        n = D.fam_legal(fam, params, state, moves)
        assert n > 0
        D.fam_apply(fam, params, state, int(moves[rnd.randrange(n)]))
        plies += 1
    before = state.copy()
    counts = [D.perft(fam, params, state, depth) for depth in range(4)]
    assert counts == [_tree_count(fam, params, state, depth) for depth in range(4)]
    assert counts[0] == 1 and counts[3] > counts[1] > 1
    assert np.array_equal(state, before)


# not on the small boards: there twelve random games can all end alike (all drawn, or a one-hole
# game won by its only move), so their outcomes would not show that the seed matters
@pytest.mark.parametrize("rules", [rules for rules in RULE_SETS if not is_small(rules)])
def test_random_playout_leaves_its_input_and_plays_the_generators_game(rules: str) -> None:
    """One contract for both families: the state passed is not changed, the outcome comes
    back, the same seed plays the same game, and that game is the one the generator of
    ``rng`` picks move by move."""
    fam, _ = _family(rules)
    params = _params(rules)
    start = D.fam_initial_state(fam, params)
    before = start.copy()
    outcomes = [D.random_playout(fam, params, start, seed, NO_LIMIT) for seed in range(12)]
    assert np.array_equal(start, before)
    assert set(outcomes) <= {1, 2, 3} and len(set(outcomes)) > 1
    assert [D.random_playout(fam, params, start, seed, NO_LIMIT) for seed in range(12)] == outcomes
    # the same game move by move, from Python
    seed = 5
    state = start.copy()
    history = np.zeros(4096, np.int64)
    count = D.fam_note_position(fam, params, state, history, 0)
    moves = np.empty(D.fam_num_actions(fam, params), np.int64)
    x = rng.seed_state(seed)
    while state[ST_OUTCOME] == OUTCOME_RUNNING:
        n = D.fam_legal(fam, params, state, moves)
        x = rng.advance(x)
        D.fam_apply(fam, params, state, int(moves[_choose(x, n)]))
        count = D.fam_note_position(fam, params, state, history, count)
    assert D.random_playout(fam, params, start, seed, NO_LIMIT) == state[ST_OUTCOME]
    in_place = start.copy()
    assert D.play_random(fam, params, in_place, seed, NO_LIMIT) == state[ST_OUTCOME]
    assert np.array_equal(in_place, state)


def test_a_playout_stops_at_max_plies() -> None:
    params = _params("kalah")
    start = D.fam_initial_state(D.FAM_SOWING, params)
    state = start.copy()
    assert D.play_random(D.FAM_SOWING, params, state, 1, 3) == OUTCOME_RUNNING
    assert D.perft(D.FAM_SOWING, params, state, 1) > 0
    assert not np.array_equal(state, start)
    assert D.random_playout(D.FAM_SOWING, params, start, 1, 3) == OUTCOME_RUNNING


# --- the generator ---------------------------------------------------------------------------
def _minimal_standard(seed: int, count: int) -> list[int]:
    """Park and Miller's generator written out: x -> 48271 x mod (2**31 - 1)."""
    x = seed % (2**31 - 2) + 1
    out = []
    for _ in range(count):
        x = x * 48271 % (2**31 - 1)
        out.append(x)
    return out


def _choose(x: int, n: int) -> int:
    """Which of ``n`` choices the number ``x`` (31 bits) picks: ``x / 2**31`` scaled to ``n``."""
    return x * n // 2**31


def test_a_choice_scales_the_number_to_the_count() -> None:
    for x in (1, 2**30, 2**31 - 2, 123_456_789):
        for n in (1, 2, 3, 6, 7, 100, 2**20):
            assert rng.pick(x, n) == _choose(x, n) < n
    # every choice of n is as likely as with a remainder: the counts over all of 1..M-1
    # differ by at most one between choices (checked on a small scale, M = 2**12)
    counts = [0] * 6
    for x in range(1, 2**12):
        counts[x * 6 >> 12] += 1
    assert max(counts) - min(counts) <= 1


@pytest.mark.parametrize("seed", [0, 1, 12345, 2**40 + 7, -3])
def test_the_generator_is_the_minimal_standard(seed: int) -> None:
    x = rng.seed_state(seed)
    drawn = []
    for _ in range(50):
        x = rng.advance(x)
        drawn.append(x)
    assert drawn == _minimal_standard(seed, 50)
    stream = np.array([rng.seed_state(seed)], np.int64)
    assert [rng.draw(stream) for _ in range(50)] == drawn


def test_batch_random_actions_draw_from_the_generator_and_chain() -> None:
    legal = np.tile(np.arange(7, dtype=np.int64), (5, 1))
    num_legal = np.array([7, 3, 0, 5, 1], np.int64)
    out = np.empty(5, np.int64)
    next_seed = B.random_legal_actions(legal, num_legal, 99, out)
    draws = iter(_minimal_standard(99, 4))
    expected = [-1 if n == 0 else _choose(next(draws), n) for n in num_legal.tolist()]
    assert out.tolist() == expected
    # a chained call continues the same sequence
    B.random_legal_actions(legal, num_legal, next_seed, out)
    later = iter(_minimal_standard(99, 8)[4:])
    assert out.tolist() == [-1 if n == 0 else _choose(next(later), n) for n in num_legal.tolist()]


def test_leaf_noise_is_the_generators_hash() -> None:
    ctx = np.zeros(search_core.CX_SIZE, np.int64)
    ctx[search_core.CX_NOISE] = 25
    ctx[search_core.CX_NOISE_SEED] = 4242
    for key in (0, 1, -1, 2**62 + 3, -(2**63), 987654321987):
        h = ((key ^ (key >> 31)) ^ 4242) & 0x7FFFFFFF
        h = (h * 48271 + 11) % (2**31 - 1)
        h = (h * 48271 + 13) % (2**31 - 1)
        assert search_core._leaf_noise(ctx, key) == h % 51 - 25
