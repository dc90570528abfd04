"""Generic conformance test run over every rule set (in the spirit of OpenSpiel's
``random_sim_test``): random games through the public API must keep every invariant."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nugar
from nugar import IllegalMoveError, Move
from random_play import UNTIL_THE_END, play_random
from rule_sets import PRESET_NAMES, RULE_SETS, not_large

REASONS = {"pieces", "blocked", "repetition", "quiet_limit", "majority", "empty_side"}
MAX_DECISIONS = 20_000


def play_random_game(rules: str, seed: int, undo_every: int = 7) -> nugar.Game:
    """Play one random game, checking the invariants at every decision."""
    rng = random.Random(seed)
    game = nugar.new_game(rules)
    for decision in range(MAX_DECISIONS):
        legal = game.legal_moves()
        if game.is_over:
            assert legal == []
            break
        assert legal, "a running game must offer a move"
        assert len(set(legal)) == len(legal)
        for move in legal:
            text = str(move)
            assert Move.parse(text) == move
            assert game.parse_move(text) == move
            assert eval(repr(move), {"Move": Move}) == move
        mover = game.to_move
        before = (str(game), game.turns(), game.score, legal)
        move = rng.choice(legal)
        game.play(move)
        assert game.move_stack[-1] == move
        if decision % undo_every == 0:
            assert game.undo() == move
            assert (str(game), game.turns(), game.score, game.legal_moves()) == before
            assert game.to_move == mover
            game.play(str(move))
    else:  # pragma: no cover - a failure path
        pytest.fail(f"{rules}: no end after {MAX_DECISIONS} decisions")
    return game


def check_finished(game: nugar.Game) -> None:
    outcome = game.outcome
    assert outcome is not None
    assert game.result in ("1-0", "0-1", "1/2-1/2")
    assert outcome.reason in REASONS
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play("pass" if game.rules.family == "alignment" else "1")


# not on the large boards, whose games checked this way take seconds each; the test below and
# test_alignment_properties.py still play random games on them
@pytest.mark.parametrize("rules", not_large())
def test_random_games_keep_every_invariant(rules: str) -> None:
    for seed in range(3):
        game = play_random_game(rules, seed)
        check_finished(game)
        # The turn texts replay to the same game, turn by turn.
        replay = nugar.new_game(rules)
        for turn in game.turns():
            replay.play(turn)
        assert replay.turns() == game.turns()
        assert str(replay) == str(game)
        assert replay.result == game.result and replay.score == game.score


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**32 - 1))
def test_copy_is_independent_and_undo_returns_to_the_start(rules: str, seed: int) -> None:
    rng = random.Random(seed)
    game = nugar.new_game(rules)
    start = (str(game), game.legal_moves())
    play_random(game, rng, rng.randrange(1, 60))
    snapshot = (str(game), game.turns(), game.result)
    twin = play_random(game.copy(), rng, UNTIL_THE_END)
    assert twin.is_over
    assert (str(game), game.turns(), game.result) == snapshot
    while game.move_stack:
        game.undo()
    assert (str(game), game.legal_moves()) == start
    assert game.turns() == []


@pytest.mark.parametrize("rules", ["dara", "kalah"])
def test_resign_and_undo_resignation(rules: str) -> None:
    game = nugar.new_game(rules)
    game.play(game.legal_moves()[0])
    loser = game.to_move
    game.resign()
    assert game.outcome == nugar.Outcome(3 - loser, "resigned")
    assert game.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        game.play(str(game.move_stack[0]))
    game.undo()
    assert game.outcome is None and game.legal_moves()


@pytest.mark.parametrize("rules", ["dara", "kalah"])
def test_agreed_draw_ends_the_game_and_undo_takes_it_back(rules: str) -> None:
    game = nugar.new_game(rules)
    game.play(game.legal_moves()[0])
    game.agree_draw()
    assert game.outcome == nugar.Outcome(None, "agreement")
    assert game.result == "1/2-1/2" and game.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.agree_draw()
    assert game.undo() is None
    assert game.outcome is None and game.legal_moves()


@pytest.mark.parametrize("rules", ["dara", "dala", "kalah", "dracala"])
def test_nothing_to_undo_is_a_clear_error(rules: str) -> None:
    with pytest.raises(IllegalMoveError, match="nothing to undo"):
        nugar.new_game(rules).undo()


@pytest.mark.parametrize("rules", PRESET_NAMES)
def test_perft_one_counts_the_legal_moves(rules: str) -> None:
    game = nugar.new_game(rules)
    assert nugar.perft(game, 1) == len(game.legal_moves())
    assert nugar.perft(game, 0) == 1


@pytest.mark.parametrize(
    ("rules", "bad"),
    [("dara", "zz"), ("dara", "g1"), ("dara", "4"), ("dala", "c3-c4-c5"), ("kalah", "c3"),
     ("kalah", "9"), ("dracala", "1-x")],
)
def test_unreadable_moves_name_the_legal_ones_and_change_nothing(rules: str, bad: str) -> None:
    game = nugar.new_game(rules)
    before = (str(game), game.turns())
    with pytest.raises(nugar.InvalidMoveError) as info:
        game.play(bad)
    legal = ", ".join(str(m) for m in game.legal_moves())
    first = {"alignment": "Black", "sowing": "South"}[game.family]
    assert str(info.value).endswith(f"; {first} may play: {legal}")
    assert (str(game), game.turns()) == before
