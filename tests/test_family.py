"""Families described once (nugar.rules.family) and variants as data (options, presets)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Iterator

import numpy as np
import pytest

import nugar
from nugar import Preset, RulesError, SowingOptions, new_game, parse_rules, perft, record
from nugar.envs.encoding import Encoder
from nugar.rules import from_state
from nugar.rules.boards import GridBoard, PitBoard
from nugar.rules.family import ALIGNMENT, FAMILIES, SOWING, family_of
from nugar.rules.options import register_preset, unregister_preset
from rule_sets import RULE_SETS

DRACALA_AS_KALAH = "kalah(seeds=6,leftovers=last_mover,capture_duty=maximal,misere=on)"


def random_turns(rules: str, seed: int) -> Iterator[tuple[nugar.Game, nugar.Move]]:
    """The positions and moves of one random game."""
    game = new_game(rules)
    rng = random.Random(seed)
    while not game.is_over:
        move = rng.choice(game.legal_moves())
        yield game, move
        game.play(move)


# --- variants as data ------------------------------------------------------------------------

def test_the_dracala_preset_is_kalah_plus_options() -> None:
    assert parse_rules("dracala").options == parse_rules(DRACALA_AS_KALAH).options
    assert parse_rules(DRACALA_AS_KALAH).text == DRACALA_AS_KALAH


@pytest.mark.parametrize("seed", range(12))
def test_kalah_with_the_dracala_options_plays_exactly_as_dracala(seed: int) -> None:
    twin = new_game(DRACALA_AS_KALAH)
    for game, move in random_turns("dracala", seed):
        assert twin.legal_moves() == game.legal_moves()
        assert twin.outcome == game.outcome and twin.score == game.score
        twin.play(move)
    assert twin.outcome == game.outcome and twin.outcome is not None
    assert twin.turns() == game.turns() and twin.turn_captures() == game.turn_captures()


def test_perft_of_kalah_with_the_dracala_options_is_dracalas() -> None:
    for depth in range(1, 6):
        assert perft(new_game(DRACALA_AS_KALAH), depth) == perft(new_game("dracala"), depth)
    assert perft(new_game("dracala"), 5) == 2754  # the count of tests/fixtures/perft.md


def test_kalah_with_dracalas_board_alone_is_not_dracala() -> None:
    plain = "kalah(seeds=6,leftovers=last_mover)"
    assert perft(new_game(plain), 4) != perft(new_game("dracala"), 4)
    twin = new_game(plain)
    differs = False
    for game, move in random_turns("dracala", 3):  # Kalah allows every step Dracala does
        differs = differs or twin.legal_moves() != game.legal_moves()
        twin.play(move)
    assert differs
    assert parse_rules(plain).ai_profile.name == "kalah" and not parse_rules(plain).misere


def test_the_capture_duty_alone_filters_steps_but_keeps_the_bigger_store_winning() -> None:
    game = new_game("kalah(seeds=6,capture_duty=maximal)")
    game.play("1")  # the first step is free; it ends in the store (a bonus step)
    # now every step captures one seed and none earns a bonus: all are legal
    assert [str(m) for m in game.legal_moves()] == ["2", "3", "4", "5", "6"]
    # a store past half the seeds does not lose without misère
    ahead = nugar.from_position("kalah(pits=2,seeds=2,capture_duty=maximal) 0,1:5/1,1:0 s")
    assert ahead.outcome is None and ahead.legal_moves() == [nugar.Move.sow(2)]
    ahead.play("2")
    assert ahead.outcome == nugar.Outcome(1, "empty_side")


def test_misere_alone_makes_the_majority_lose_without_the_capture_duty() -> None:
    game = new_game("kalah(misere=on)")
    assert [str(m) for m in game.legal_moves()] == ["1", "2", "3", "4", "5", "6"]
    over = nugar.from_position("kalah(pits=2,seeds=2,misere=on) 0,1:4/1,1:1 s")
    assert over.outcome is None
    assert [str(m) for m in over.legal_moves()] == ["2"]
    over.play("2")  # the store reaches 5 of 8 seeds: South loses at once
    assert over.outcome == nugar.Outcome(2, "majority")
    assert parse_rules("kalah(misere=on)").ai_profile.name == "dracala"
    assert parse_rules("dracala(misere=off)").ai_profile.name == "kalah"


def test_the_opening_field_belongs_to_the_capture_duty() -> None:
    text = "kalah(capture_duty=maximal) 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s opening"
    assert nugar.from_position(text).position_text() == text
    with pytest.raises(nugar.NugarError, match="only under capture_duty=maximal"):
        nugar.from_position("kalah(misere=on) 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s opening")


# --- adding a variant in one place ------------------------------------------------------------

TOY = Preset("toy-misere", "Misère Kalah", "sowing", "a test of nugar",
             "Kalah on a small board whose bigger store loses",
             SowingOptions(pits=4, seeds=3, misere=True))


@pytest.fixture
def toy_variant() -> Iterator[Preset]:
    register_preset(TOY)
    try:
        yield TOY
    finally:
        unregister_preset(TOY.name)


def test_a_registered_variant_is_playable_through_the_whole_api(toy_variant: Preset) -> None:
    assert "toy-misere" in nugar.PRESETS
    rules = parse_rules("Toy-Misere(seeds=2)")
    assert rules.text == "toy-misere(seeds=2)" and rules.game == "Misère Kalah"
    assert family_of(rules) is SOWING and rules.ai_profile.name == "dracala"
    listed = {p["name"]: p for p in nugar.presets()}["toy-misere"]
    assert listed["players"] == ["South", "North"] and listed["overrides"]["misere"] is True
    for seed in range(3):
        *_, (game, _) = random_turns("toy-misere", seed)  # played to the end
        assert game.outcome is not None
        assert sum(game.score) == 2 * 4 * 3
        if game.outcome.winner is not None:  # the bigger store loses
            loser = 3 - game.outcome.winner
            assert game.score[loser - 1] > game.score[game.outcome.winner - 1]
        again = record.load_one(record.dumps(game)).game
        assert again.turns() == game.turns() and again.outcome == game.outcome
        assert nugar.from_position(game.position_text()) == game
    assert Encoder("toy-misere").observation_shape == (2 * 4 + 6,)


def test_presets_are_checked_when_registered(toy_variant: Preset) -> None:
    with pytest.raises(RulesError, match="already registered"):
        register_preset(TOY)
    with pytest.raises(RulesError, match="lower-case letters"):
        register_preset(Preset("Toy 2", "Toy", "sowing", "", "", SowingOptions()))
    with pytest.raises(RulesError, match="built-in preset"):
        unregister_preset("kalah")


def test_an_unregistered_variant_is_gone() -> None:
    register_preset(TOY)
    unregister_preset(TOY.name)
    with pytest.raises(RulesError, match="unknown preset 'toy-misere'"):
        parse_rules("toy-misere")
    with pytest.raises(RulesError, match="no preset named"):
        unregister_preset(TOY.name)


# --- the descriptors ----------------------------------------------------------------------------

def test_every_preset_has_a_registered_family() -> None:
    assert set(FAMILIES) == {"alignment", "sowing"}
    for preset in nugar.PRESETS.values():
        family = family_of(preset)
        assert family.name == preset.family
        assert isinstance(preset.options, family.options_type)
        game = new_game(preset.name)
        assert family_of(game) is family is family_of(preset.name)
        assert isinstance(game, family.parts.game_class)


def test_family_of_a_bad_text_is_a_rules_error() -> None:
    with pytest.raises(RulesError, match="unknown preset"):
        family_of("chess")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_the_action_table_round_trips_and_names_every_code(rules: str) -> None:
    game = new_game(rules)
    codec = family_of(game).parts.codec(game.rules)
    assert codec.size == int(family_of(game).parts.kernel.num_actions(game.params))
    assert Encoder(rules).action_names() == list(codec.names)
    for code in range(codec.size):
        move = codec.moves[code]
        if move is None:  # a step off the board: named by its direction, no move
            with pytest.raises(nugar.InvalidMoveError, match="off the board"):
                game.action_to_move(code)
            continue
        assert game.move_to_action(move) == code and game.action_to_move(code) == move
        assert codec.names[code] == str(move)
    with pytest.raises(nugar.InvalidMoveError, match=r"is outside 0\.\."):
        game.action_to_move(codec.size)
    with pytest.raises(nugar.InvalidMoveError, match=r"is outside 0\.\."):
        game.action_to_move(-1)


def test_board_data_comes_in_the_shape_of_the_family() -> None:
    dala = new_game("dala")
    dala.play("c3")
    grid = family_of(dala).parts.board(dala)
    assert isinstance(grid, GridBoard)
    assert (grid.rows, grid.cols, grid.hands, grid.on_board) == (6, 6, (11, 12), (1, 0))
    assert grid.owner(2, 2) == 1 and sum(map(sum, grid.grid)) == 1
    kalah = new_game("kalah")
    kalah.play("1")
    pits = family_of(kalah).parts.board(kalah)
    assert isinstance(pits, PitBoard)
    assert pits.holes == ((0, 5, 5, 5, 5, 4), (4,) * 6) and pits.stores == (0, 0)


def test_light_data_of_the_descriptors() -> None:
    assert (ALIGNMENT.score_label, SOWING.score_label) == ("pieces left", "stores")
    assert ALIGNMENT.split_turn("c3-c4xe5") == ["c3-c4", "xe5"]
    assert SOWING.split_turn("1-6") == ["1", "6"]
    assert SOWING.join_turn([nugar.Move.sow(1), nugar.Move.sow(6)]) == "1-6"
    assert SOWING.solvable and not ALIGNMENT.solvable


def test_each_rule_set_plays_with_an_ai_profile_of_its_family() -> None:
    """``RuleSet.ai_profile`` gives one object per profile, one its family's descriptor lists,
    and that object's weights are the compiled evaluation's."""
    from nugar.ai.search_setup import default_weights
    from nugar.kernels import search_alignment, search_sowing
    from nugar.rules.family import ai_profiles

    for rules in [*nugar.PRESETS, *RULE_SETS, "dara(drop_capture=on)", "kalah(misere=on)"]:
        rule_set = parse_rules(rules)
        assert rule_set.ai_profile in family_of(rule_set).ai_profiles
        assert rule_set.ai_profile is parse_rules(rules).ai_profile
    assert [p.name for p in ai_profiles()] == ["dara", "dala", "kalah", "dracala"]
    assert len({p.name for p in ai_profiles()}) == len(set(ai_profiles())) == 4
    kernels_weights = {"dara": search_alignment.DARA_WEIGHTS,
                       "dala": search_alignment.DALA_WEIGHTS,
                       "kalah": search_sowing.KALAH_WEIGHTS,
                       "dracala": search_sowing.DRACALA_WEIGHTS}
    for preset in ("dara", "dala", "kalah", "dracala"):
        profile = parse_rules(preset).ai_profile
        assert profile.name == preset and str(profile) == preset
        weights = profile.weights()
        assert np.array_equal(weights, kernels_weights[preset])
        assert np.array_equal(default_weights(parse_rules(preset)), weights)
        weights[0] += 1  # a copy: the search's defaults stay as they are
        assert np.array_equal(profile.weights(), kernels_weights[preset])


# --- the game's state -----------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["dala", "dracala"])
def test_games_pickle_and_copy_with_their_history(rules: str) -> None:
    game = new_game(rules)
    for turn in ("c3", "d3", "c4") if rules == "dala" else ("1", "4"):
        game.play(turn)
    for other in (pickle.loads(pickle.dumps(game)), game.copy()):
        assert other == game and other.turns() == game.turns()
        assert other.params is game.params and other.state is not game.state
        other.undo()
        assert other.turns() != game.turns() and len(game.move_stack) == 3 - (rules != "dala")
        assert other.legal_moves()


def test_state_and_params_are_read_only_properties() -> None:
    game = new_game("kalah")
    with pytest.raises(AttributeError):
        game.state = game.state.copy()  # type: ignore[misc]
    with pytest.raises(AttributeError):
        game.params = game.params  # type: ignore[misc]


def test_a_game_from_a_state_array() -> None:
    game = new_game("dara")
    for turn in ("a1", "b1", "c1"):
        game.play(turn)
    copy = from_state("dara", game.state)
    assert copy == game and copy.move_stack == [] and copy.state is not game.state
    with pytest.raises(nugar.NugarError, match="int64 numbers"):
        from_state("dara", np.zeros(3, np.int64))
