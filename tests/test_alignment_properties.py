"""Properties of random alignment games under many rule sets (hypothesis): undo, notation,
piece conservation, the incremental key, the end of the game, and agreement of the compiled
kernels with the same code run as plain Python (``NUMBA_DISABLE_JIT=1`` in a subprocess)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nugar
from nugar.kernels import alignment as K
from nugar.kernels import dispatch as D
from nugar.kernels.common import ST_KEY, ST_OUTCOME, ST_TO_MOVE
from nugar.rules.alignment import AlignmentGame, alignment_params, make_params
from random_play import random_game
from rule_sets import PRESET_NAMES, of_family

#: the alignment rule sets of the shared list (tests/rule_sets.py)
RULE_SETS = of_family("alignment")


def board_words(rules: str) -> int:
    """How many 63-bit words hold one player's pieces on the board of ``rules``."""
    options = nugar.parse_rules(rules).options
    assert isinstance(options, nugar.AlignmentOptions)
    return int(make_params(options)[K.P_W])


#: boards of one 63-bit word, where move generation uses whole-board bit operations, and the
#: largest such board (63 squares: the highest bit of the word is used)
ONE_WORD_RULES = [rules for rules in RULE_SETS if board_words(rules) == 1]
ONE_WORD_BOARDS = [*ONE_WORD_RULES, "dara(rows=7,cols=9,pieces=20)",
                   "dala(rows=9,cols=7,pieces=20,no_return=on,long_lines=forbidden)",
                   "dara(rows=7,cols=1,pieces=2,loss_at=0,no_return=on,drop_limit=none)",
                   "dara(rows=1,cols=7,pieces=2,loss_at=0,no_return=on,drop_limit=none)"]

OPTION_VALUES = {
    "centre_first": ["on", "off"],
    "drop_capture": ["on", "off"],
    "drop_limit": ["none", "no_four", "no_three"],
    "long_lines": ["forbidden", "allowed"],
    "protect_threes": ["on", "off"],
    "all_protected": ["forfeit", "take_any"],
    "no_return": ["on", "off"],
    "blocked": ["pass", "lose"],
    "repetition": ["off", "2", "3"],
    "quiet_limit": ["off", "1", "10", "100"],
}


@st.composite
def random_rules(draw: st.DrawFn) -> str:
    """A rule-set text with every alignment option drawn at random, on boards up to 8x8."""
    loss_at = draw(st.integers(0, 3))
    parts = [f"rows={draw(st.integers(1, 8))}", f"cols={draw(st.integers(1, 8))}",
             f"pieces={draw(st.integers(loss_at + 1, loss_at + 14))}", f"loss_at={loss_at}"]
    parts += [f"{name}={draw(st.sampled_from(values))}" for name, values in OPTION_VALUES.items()]
    return "dara(" + ",".join(parts) + ")"


ANY_RULES = st.one_of(st.sampled_from(RULE_SETS), random_rules())

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=ANY_RULES, seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_every_invariant(rules: str, seed: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, AlignmentGame)
    pieces = game.options.pieces
    rng = random.Random(seed)
    lost = [0, 0, 0]
    while not game.is_over and len(game.move_stack) < 250:
        moves = game.legal_moves()
        assert moves, "a running game always has a legal move (a pass at least)"
        actions = game.legal_actions()
        assert actions == sorted(actions)
        for move, action in zip(moves, actions, strict=True):
            assert game.parse_move(str(move)) == move
            assert game.move_to_action(move) == action
        if game.capture_pending:
            assert all(m.kind == "capture" for m in moves)
        else:
            assert all(m.kind != "capture" for m in moves)
        before = game.state.copy()
        move = rng.choice(moves)
        mover = game.to_move
        game.play(move)
        game.undo()
        assert np.array_equal(game.state, before)
        game.play(str(move))
        if move.kind == "capture":
            lost[3 - mover] += 1
        for player in (1, 2):
            assert game.on_board[player - 1] + game.in_hand[player - 1] + lost[player] == pieces
            assert game.score[player - 1] == pieces - lost[player]
        assert game.key == K.compute_key(game.params, game.state)
    if game.is_over:
        assert game.legal_moves() == [] and game.legal_actions() == []
        with pytest.raises(nugar.IllegalMoveError, match="game is over"):
            game.play("pass")
    text = " ".join(game.turns())
    replay = nugar.new_game(rules)
    for turn in text.split():
        replay.play(turn)
    assert np.array_equal(replay.state, game.state)


@pytest.mark.parametrize("rules", of_family("alignment", PRESET_NAMES))
def test_games_end_under_default_options(rules: str) -> None:
    for seed in range(3):
        game = random_game(rules, seed, 20_000)
        assert game.outcome is not None
        assert game.outcome.reason in ("pieces", "blocked", "repetition", "quiet_limit")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_compiled_playouts_end(rules: str) -> None:
    params = alignment_params(nugar.parse_rules(rules).options)  # type: ignore[arg-type]
    state = K.initial_state(params)
    before = state.copy()
    outcomes = {D.random_playout(D.FAM_ALIGNMENT, params, state, seed, 10**6)
                for seed in range(30)}
    assert outcomes <= {1, 2, 3}
    assert np.array_equal(state, before)


@SETTINGS
@given(rules=st.sampled_from(ONE_WORD_BOARDS), seed=st.integers(0, 2**32 - 1))
def test_bitboard_and_square_by_square_generation_agree(rules: str, seed: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, AlignmentGame)
    assert game.params[K.P_W] == 1
    size = K.num_actions(game.params)
    fast, slow = np.empty(size, np.int64), np.empty(size, np.int64)
    rng = random.Random(seed)
    while not game.is_over and len(game.move_stack) < 200:
        if not game.capture_pending:
            n = K._turn_moves_one_word(game.params, game.state, fast, False)
            assert n == K._turn_moves_any_board(game.params, game.state, slow, False)
            assert fast[:n].tolist() == slow[:n].tolist()
            assert K._turn_moves_one_word(game.params, game.state, fast, True) == min(n, 1)
        game.play(rng.choice(game.legal_moves()))


@SETTINGS
@given(rules=st.sampled_from(ONE_WORD_BOARDS),
       seed=st.integers(0, 2**32 - 1))
def test_bitboard_threes_and_captures_agree_with_the_line_walks(rules: str, seed: int) -> None:
    """Threes, captures and "did this step form a three" from whole-board bit operations are
    what walking the lines square by square gives, on boards of one word (up to 63 squares)."""
    game = nugar.new_game(rules)
    assert isinstance(game, AlignmentGame)
    params = game.params
    n = int(params[K.P_N])
    size = K.num_actions(params)
    fast, slow = np.empty(size, np.int64), np.empty(size, np.int64)
    rng = random.Random(seed)
    while not game.is_over and len(game.move_stack) < 200:
        state = game.state
        for player in (1, 2):
            for sq in range(n):
                if K.owns(params, state, player, sq):
                    assert K.in_three(params, state, player, sq) == \
                        K._in_three_walk(params, state, player, sq)
        for first_only in (False, True):
            count = K._captures(params, state, fast, first_only)
            assert count == K._captures_any_board(params, state, slow, first_only)
            if not first_only:
                assert fast[:count].tolist() == slow[:count].tolist()
        mover = int(state[ST_TO_MOVE])
        for action in game.legal_actions():
            if n <= action < 5 * n:
                after = state.copy()
                K.apply_action(params, after, action)
                origin = (action - n) >> 2
                target = int(params[params[K.P_OFF_NB] + action - n])
                walked = (K._in_three_walk(params, after, mover, target)
                          or K._forms_by_leaving(params, after, mover, origin, target))
                assert K._step_forms_three(params, after, mover, origin, target) == walked
        game.play(rng.choice(game.legal_moves()))


def trajectory(rules: str, seed: int, plies: int) -> list[int]:
    """Legal-move counts, keys and outcomes along a random game, straight from the kernels."""
    options = nugar.parse_rules(rules).options
    assert isinstance(options, nugar.AlignmentOptions)
    params = make_params(options)
    state = K.initial_state(params)
    history = np.empty(plies + 2, dtype=np.int64)
    count = K.note_position(params, state, history, 0)
    out = np.empty(K.num_actions(params), dtype=np.int64)
    rng = random.Random(seed)
    record: list[int] = []
    for _ in range(plies):
        n = K.legal_actions(params, state, out)
        record += [int(n), int(state[ST_KEY]), int(state[ST_OUTCOME])]
        if n == 0:
            break
        K.apply_action(params, state, int(out[rng.randrange(n)]))
        count = K.note_position(params, state, history, count)
    record += [int(x) for x in state]
    record.append(int(D.perft(D.FAM_ALIGNMENT, params, K.initial_state(params), 2)))
    return record


@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), extra=st.lists(random_rules(), min_size=6, max_size=6))
def test_compiled_kernels_agree_with_plain_python(seed: int, extra: list[str]) -> None:
    cases = [(rules, seed + i, 120) for i, rules in enumerate(RULE_SETS + extra)]
    compiled = [trajectory(*case) for case in cases]
    here = Path(__file__).resolve().parent
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from test_alignment_properties import trajectory; "
            "print(json.dumps([trajectory(*c) for c in json.loads(sys.argv[2])]))")
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, "-c", code, str(here), json.dumps(cases)],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout) == compiled
