"""OpenSpiel games for every preset: API conformance, parameters, and OpenSpiel's own bots."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts, minimax

import nugar
from nugar.envs.encoding import Encoder
from nugar.envs.openspiel import GAME_NAMES, NugarSpielGame, NugarSpielState
from nugar.rules.sowing import SowingGame

ALIGNMENT = ["nugar_dara", "nugar_dara_niger", "nugar_dara_sheet", "nugar_dala"]
SOWING = ["nugar_kalah", "nugar_dracala"]


def test_every_preset_is_registered() -> None:
    assert sorted(GAME_NAMES) == sorted(ALIGNMENT + SOWING)
    registered = set(pyspiel.registered_names())
    assert set(GAME_NAMES) <= registered


@pytest.mark.parametrize("name", ALIGNMENT + SOWING)
def test_random_sim_test(name: str) -> None:
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3 if name in SOWING else 2, serialize=True,
                            verbose=False)


@pytest.mark.parametrize("name", ALIGNMENT + SOWING)
def test_python_mcts_and_alpha_beta_play_legal_moves(name: str) -> None:
    game = pyspiel.load_game(name)
    rng = np.random.RandomState(7)
    bot = mcts.MCTSBot(game, 1.4, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    for _ in range(6):  # MCTS and alpha-beta take turns deciding for whoever is to move
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        value, action = minimax.alpha_beta_search(
            game, state, value_function=lambda s: 0.0, maximum_depth=2,
            maximizing_player_id=state.current_player())
        assert action in state.legal_actions() and -1.0 <= value <= 1.0
        state.apply_action(action)


def _solve(game: nugar.Game) -> int:
    """Exact value for the first player (+1, 0, -1) by plain search over the nugar API."""
    outcome = game.outcome
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == 1 else -1)
    values = []
    for a in game.legal_actions():
        game.push_action(a)
        values.append(_solve(game))
        game.undo()
    return max(values) if game.to_move == 1 else min(values)


def test_alpha_beta_and_mcts_find_the_only_winning_kalah_move() -> None:
    holes1, holes2, stores = [0, 1, 1, 0, 1, 1], [1, 0, 0, 0, 1, 0], (20, 22)
    reference = SowingGame.from_position("kalah", holes1, holes2, stores=stores)
    winning = []
    for a in reference.legal_actions():
        reference.push_action(a)
        if _solve(reference) == 1:
            winning.append(a)
        reference.undo()
    assert len(winning) == 1 and len(reference.legal_actions()) == 4

    game = pyspiel.load_game("nugar_kalah")
    state = NugarSpielState(game, SowingGame.from_position("kalah", holes1, holes2,
                                                           stores=stores))
    value, action = minimax.alpha_beta_search(game, state, maximum_depth=40,
                                              maximizing_player_id=0)
    assert (value, action) == (1.0, winning[0])
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 400, mcts.RandomRolloutEvaluator(1, rng), random_state=rng,
                       solve=True)
    assert bot.step(state.clone()) == winning[0]


def test_parameters_reach_the_rules() -> None:
    game = pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")
    assert isinstance(game, NugarSpielGame)
    assert game.rules.text == "kalah(pits=4,seeds=3)"
    assert game.num_distinct_actions() == 4
    assert game.observation_tensor_shape() == [14]
    dara = pyspiel.load_game("nugar_dara(quiet_limit=0,no_return=True,drop_limit=none)")
    assert dara.rules.options.quiet_limit is None
    assert dara.rules.text == "dara(drop_limit=none,no_return=on,quiet_limit=off)"
    assert dara.get_parameters()["quiet_limit"] == 0
    assert pyspiel.load_game("nugar_dracala").rules.ai_profile.name == "dracala"


def test_bad_parameters_are_rejected() -> None:
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter"):
        pyspiel.load_game("nugar_dara(colour=red)")
    with pytest.raises(ValueError, match="drop_limit"):
        pyspiel.load_game("nugar_dara(drop_limit=sometimes)")
    with pytest.raises(ValueError, match="repetition"):
        pyspiel.load_game("nugar_dara(repetition=1)")
    # called directly, the reader of the parameters lists every one, turn_board included
    from nugar.envs.openspiel import rules_from_parameters
    from nugar.rules import PRESETS

    with pytest.raises(ValueError, match=r"unknown parameter 'colour'.*quiet_limit, turn_board$"):
        rules_from_parameters(PRESETS["dara"], {"colour": "red"})


@pytest.mark.parametrize("name", ["nugar_dala", "nugar_dracala"])
def test_states_follow_the_nugar_game(name: str) -> None:
    game = pyspiel.load_game(name)
    rules = GAME_NAMES[name]
    encoder = Encoder(rules)
    state = game.new_initial_state()
    reference = nugar.new_game(rules)
    rng = np.random.default_rng(2)
    while not state.is_terminal():
        player = state.current_player()
        assert player == reference.to_move - 1
        assert state.legal_actions() == reference.legal_actions()
        for p in (0, 1):
            assert np.array_equal(np.asarray(state.observation_tensor(p)),
                                  encoder.observe(reference, p + 1).ravel())
        action = int(rng.choice(state.legal_actions()))
        assert state.action_to_string(player, action) == str(reference.action_to_move(action))
        clone = state.clone()
        state.apply_action(action)
        reference.push_action(action)
        assert clone.current_player() == player  # the clone is independent
    outcome = reference.outcome
    assert outcome is not None
    expected = {None: [0.0, 0.0], 1: [1.0, -1.0], 2: [-1.0, 1.0]}[outcome.winner]
    assert state.returns() == expected
    assert state.history() == [int(a) for a in state.history()]


@pytest.mark.parametrize("name", ALIGNMENT + SOWING)
def test_games_and_states_pickle(name: str) -> None:
    import pickle

    game = pyspiel.load_game(name)
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is type(game) and str(again) == str(game)
    assert again.rules == game.rules
    state = game.new_initial_state()
    rng = np.random.default_rng(3)
    for _ in range(7):
        state.apply_action(int(rng.choice(state.legal_actions())))
    copy = pickle.loads(pickle.dumps(state))
    assert copy.history() == state.history()
    assert str(copy) == str(state)
    assert copy.legal_actions() == state.legal_actions()
    assert copy.current_player() == state.current_player()
    assert np.array_equal(copy.observation_tensor(0), state.observation_tensor(0))
    action = state.legal_actions()[0]  # the copy is independent and plays on alike
    copy.apply_action(action)
    assert copy.history() != state.history()
    state.apply_action(action)
    assert str(copy) == str(state)


def test_parametrised_game_pickles_with_its_parameters() -> None:
    import pickle

    game = pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")
    again = pickle.loads(pickle.dumps(game))
    assert again.rules.options.pits == 4 and again.rules.options.seeds == 3


def test_nugar_bot_against_openspiel_mcts() -> None:
    from open_spiel.python.algorithms.evaluate_bots import evaluate_bots

    from nugar.ai.base import Limits
    from nugar.envs.openspiel import NugarBot, bot

    game = pyspiel.load_game("nugar_kalah(pits=4,seeds=3)")
    nugar_bot = bot("alphabeta:depth=8", game, seed=1)
    assert isinstance(nugar_bot, pyspiel.Bot) and isinstance(nugar_bot, NugarBot)
    rng = np.random.RandomState(5)
    mcts_bot = mcts.MCTSBot(game, 1.4, 30, mcts.RandomRolloutEvaluator(1, rng),
                            random_state=rng)
    total = 0.0
    for first in (True, False):
        bots = [nugar_bot, mcts_bot] if first else [mcts_bot, nugar_bot]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        total += returns[0 if first else 1]
    assert total > 0  # a depth-8 search beats 30 random playouts on the small board
    with pytest.raises(TypeError):
        bot("level:2", pyspiel.load_game("tic_tac_toe"))
    limited = bot("level:3", game, limits=Limits(depth=2))
    assert limited.step(game.new_initial_state()) in range(4)
