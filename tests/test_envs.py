"""The RL adapters: action space and observations, PettingZoo AEC and Gymnasium environments."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

import nugar
from nugar import PRESETS, IllegalMoveError, InvalidMoveError
from nugar.ai import DEFAULT_LEVEL, LEVELS, Limits
from nugar.ai.agents import LevelAgent
from nugar.envs.encoding import Encoder
from nugar.envs.gymnasium import NugarEnv
from nugar.envs.pettingzoo import AGENTS, env, raw_env

ALL_PRESETS = list(PRESETS)


# --- action space and observations ---------------------------------------------------------


@pytest.mark.parametrize(("rules", "size"), [("dara", 181), ("dala", 217), ("kalah", 6),
                                             ("dracala(pits=4)", 4)])
def test_action_space_size(rules: str, size: int) -> None:
    assert Encoder(rules).num_actions == size


def test_alignment_action_names() -> None:
    enc = Encoder("dara")  # 5 rows x 6 columns, N = 30
    assert enc.action_name(0) == "a1"
    assert enc.action_name(29) == "f5"
    assert enc.action_name(30 + 4 * 0 + 0) == "a1-a2"
    assert enc.action_name(30 + 4 * 0 + 1) == "a1-b1"
    assert enc.action_name(30 + 4 * 0 + 2) == "a1-down"
    assert enc.action_name(30 + 4 * 0 + 3) == "a1-left"
    assert enc.action_name(150 + 14) == "xc3"
    assert enc.action_name(180) == "pass"


@pytest.mark.parametrize("rules", ALL_PRESETS)
def test_action_names_match_the_engine(rules: str) -> None:
    enc = Encoder(rules)
    game = nugar.new_game(rules)
    rng = np.random.default_rng(3)
    seen = 0
    while not game.is_over and seen < 300:
        for a in game.legal_actions():
            assert enc.action_name(a) == str(game.action_to_move(a))
        game.push_action(int(rng.choice(game.legal_actions())))
        seen += 1


@pytest.mark.parametrize("bad", [-1, 181, "3", 2.5, True, None])
def test_bad_action_codes_are_rejected(bad: object) -> None:
    with pytest.raises(InvalidMoveError):
        Encoder("dara").check_action(bad)


def test_alignment_observation_planes() -> None:
    enc = Encoder("dara")
    game = nugar.new_game("dara")
    game.play("c3")
    first, second = enc.observe(game, 1), enc.observe(game, 2)
    assert first.shape == second.shape == (13, 5, 6)
    assert first[0, 2, 2] == 1 and first[0].sum() == 1 and first[1].sum() == 0
    assert second[1, 2, 2] == 1 and second[1].sum() == 1 and second[0].sum() == 0
    assert np.allclose(first[2], 11 / 12) and np.allclose(first[3], 1.0)
    assert np.allclose(second[2], 1.0) and np.allclose(second[3], 11 / 12)
    assert first[4].all() and second[4].all()          # drop phase
    assert not first[5].any() and second[5].all()      # the second player decides now
    assert not first[6].any()                           # no capture owed
    assert not first[7:11].any()                        # no_return is off in dara
    assert not first[11].any() and not first[12].any()  # quiet counter, pass


def test_no_return_planes_show_the_last_steps() -> None:
    rules = "dara-sheet"
    enc = Encoder(rules)
    game = nugar.new_game(rules)
    drops = ["a1", "f5", "c1", "d5", "e1", "b5", "a3", "f3", "c3", "d3", "e3", "b3",
             "a5", "f1", "c5", "d1", "e5", "b1", "b2", "e4", "d2", "c4", "f2", "a4"]
    for d in drops:
        game.play(d)
    assert not game.in_drop_phase  # type: ignore[attr-defined]
    game.play("a1-a2")  # forms no three: the turn passes to the second player
    first, second = enc.observe(game, 1), enc.observe(game, 2)
    assert not first[6].any()
    assert first[7, 0, 0] == 1 and first[7].sum() == 1     # own last step: from a1
    assert first[8, 1, 0] == 1 and first[8].sum() == 1     # ... to a2
    assert second[9, 0, 0] == 1 and second[10, 1, 0] == 1  # the opponent's last step
    assert not first[9:11].any() and not second[7:9].any()


def test_sowing_observation_is_from_the_observer_side() -> None:
    enc = Encoder("kalah")
    game = nugar.new_game("kalah")
    game.play("3")  # four seeds from hole 3: the last lands in the store, bonus step
    total = 48
    first, second = enc.observe(game, 1), enc.observe(game, 2)
    assert first.shape == (18,)
    assert np.allclose(first[:7] * total, [4, 4, 0, 5, 5, 5, 1])
    assert np.allclose(first[7:14] * total, [4, 4, 4, 4, 4, 4, 0])
    assert np.allclose(second[:7] * total, [4, 4, 4, 4, 4, 4, 0])
    assert np.allclose(second[7:14] * total, [4, 4, 0, 5, 5, 5, 1])
    assert list(first[14:]) == [1, 1, 1, 0]  # to move, first step played, last capturer me
    assert list(second[14:]) == [0, 1, 0, 1]


def test_observer_must_be_a_player() -> None:
    with pytest.raises(ValueError, match="player must be 1 or 2"):
        Encoder("kalah").observe(nugar.new_game("kalah"), 0)


# --- PettingZoo --------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:Observation space for each agent probably")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")  # dict obs, as PZ's own
@pytest.mark.parametrize("rules", ALL_PRESETS)
def test_pettingzoo_api_and_seed(rules: str) -> None:
    api_test(env(rules), num_cycles=300)
    seed_test(lambda: env(rules), num_cycles=100)


def _play_aec(rules: str, seed: int
              ) -> tuple[raw_env, int, dict[str, float], set[tuple[bool, bool]]]:
    """Play one random game, checking at every decision that the AEC view matches the engine.
    Returns the env, the number of repeated selections of one agent, the final rewards and
    the (termination, truncation) flags each agent saw at the end."""
    e = env(rules)
    e.reset(seed=seed)
    raw = e.unwrapped
    assert isinstance(raw, raw_env)
    rng = np.random.default_rng(seed)
    repeats = 0
    last_agent = None
    total = dict.fromkeys(AGENTS, 0.0)
    end_flags: set[tuple[bool, bool]] = set()
    for agent in e.agent_iter(20_000):
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            end_flags.add((bool(term), bool(trunc)))
            e.step(None)
            continue
        game = raw.game
        assert agent == AGENTS[game.to_move - 1]
        assert np.flatnonzero(obs["action_mask"]).tolist() == game.legal_actions()
        other = AGENTS[2 - game.to_move]
        assert not e.observe(other)["action_mask"].any()
        assert np.array_equal(obs["observation"], raw.encoder.observe(game, game.to_move))
        if agent == last_agent:
            repeats += 1
        last_agent = agent
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert raw.game.is_over and not e.agents
    return raw, repeats, total, end_flags


@pytest.mark.parametrize("rules", ["kalah", "dracala", "dara", "dala"])
def test_pettingzoo_full_games_match_the_engine(rules: str) -> None:
    repeats_seen = 0
    for seed in range(3):
        raw, repeats, total, flags = _play_aec(rules, seed)
        repeats_seen += repeats
        assert flags == {(True, False)}  # these seeded games end by the rules proper
        outcome = raw.game.outcome
        assert outcome is not None
        if outcome.winner is None:
            assert total == {"player_0": 0.0, "player_1": 0.0}
        else:
            winner = AGENTS[outcome.winner - 1]
            assert total[winner] == 1.0 and total[AGENTS[2 - outcome.winner]] == -1.0
    # bonus steps (sowing) and capture decisions (alignment) select the same agent again
    assert repeats_seen > 0


def test_bonus_step_keeps_the_agent() -> None:
    e = env("kalah")
    e.reset()
    e.step(2)  # hole 3: last seed in the store
    assert e.agent_selection == "player_0"
    e.step(0)
    assert e.agent_selection == "player_1"


def test_house_draws_are_terminations() -> None:
    """Random games to a quiet-limit or a repetition draw: every agent sees a termination
    (``tests/test_envs_endings.py`` replays chosen lines in every face)."""
    reasons = set()
    for seed in range(10):
        raw, _, total, flags = _play_aec("dara(quiet_limit=off,repetition=2)", seed)
        outcome = raw.game.outcome
        assert outcome is not None
        reasons.add(outcome.reason)
        assert flags == {(True, False)}
        if outcome.reason == "repetition":
            assert total == {"player_0": 0.0, "player_1": 0.0}
    assert "repetition" in reasons
    raw = raw_env("dara(quiet_limit=1)")
    raw.reset()
    rng = np.random.default_rng(1)
    while not raw.game.is_over:
        raw.step(int(rng.choice(raw.game.legal_actions())))
    assert raw.game.outcome is not None and raw.game.outcome.reason == "quiet_limit"
    assert raw.terminations == {"player_0": True, "player_1": True}
    assert raw.truncations == {"player_0": False, "player_1": False}


def test_pettingzoo_rejects_illegal_actions() -> None:
    e = env("dara")
    e.reset()
    e.step(14)  # c3
    with pytest.raises(IllegalMoveError, match="not legal"):
        e.step(14)  # c3 is taken now
    with pytest.raises(InvalidMoveError):
        e.step(500)
    assert e.unwrapped.game.turns() == ["c3"]


def test_pettingzoo_render_and_arguments() -> None:
    e = env("kalah", render_mode="ansi")
    e.reset()
    assert e.render() == str(e.unwrapped.game)
    with pytest.raises(ValueError, match="render_mode"):
        raw_env("kalah", render_mode="rgb_array")
    with pytest.raises(nugar.RulesError):
        env("chess")


def test_pettingzoo_render_test_and_human_mode(capsys: pytest.CaptureFixture[str]) -> None:
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: env("kalah(pits=3,seeds=2)", render_mode=render_mode))
    e = env("dara", render_mode="human")
    e.reset()
    capsys.readouterr()
    assert e.render() is None
    assert capsys.readouterr().out.strip() == str(e.unwrapped.game).strip()
    e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert str(e.unwrapped.game).strip() in capsys.readouterr().out


# --- Gymnasium ---------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ALL_PRESETS)
def test_gymnasium_check_env(rules: str) -> None:
    check_env(gym.make(f"nugar/{rules}-v0", opponent="level:1").unwrapped)
    made = gym.make(f"nugar/{rules}-v0", opponent="level:2", player=2, render_mode="ansi")
    check_env(made.unwrapped)  # made through the registry: the render modes are checked too


def test_gymnasium_make() -> None:
    e = gym.make("nugar/dracala-v0", opponent="random")
    obs, info = e.reset(seed=0)
    assert obs.shape == (18,) and info["action_mask"].shape == (6,)


def test_gymnasium_opponent_is_the_default_level() -> None:
    # the same level as the terminal and the web page, from one constant
    for e in (NugarEnv("dara"), gym.make("nugar/kalah-v0").unwrapped):
        assert isinstance(e, NugarEnv)
        assert isinstance(e.opponent, LevelAgent)
        assert (e.opponent.level, e.opponent.spec) == (DEFAULT_LEVEL, f"level:{DEFAULT_LEVEL}")
    assert min(LEVELS) < DEFAULT_LEVEL < max(LEVELS)  # a middle level (docs/ai.md)


@pytest.mark.parametrize(("rules", "player"), [("kalah", 1), ("kalah", 2), ("dara", 2)])
def test_gymnasium_episode(rules: str, player: int) -> None:
    e = NugarEnv(rules, opponent="level:1", player=player)
    obs, info = e.reset(seed=5)
    assert e.game.to_move == player
    if player == 2:
        assert e.game.move_stack  # the opponent has already played
    rng = np.random.default_rng(5)
    done, reward = False, 0.0
    while not done:
        mask = info["action_mask"]
        assert np.flatnonzero(mask).tolist() == e.game.legal_actions()
        assert np.array_equal(obs, e.encoder.observe(e.game, player))
        obs, reward, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
        if not done:
            assert e.game.to_move == player and reward == 0.0
    outcome = e.game.outcome
    assert outcome is not None
    expected = 0.0 if outcome.winner is None else (1.0 if outcome.winner == player else -1.0)
    assert reward == expected
    assert not info["action_mask"].any()
    with pytest.raises(IllegalMoveError, match="reset"):
        e.step(0)


def test_gymnasium_seeded_opponent_replays() -> None:
    def opening(seed: int) -> list[str]:
        e = NugarEnv("dara", opponent="random", player=2)
        e.reset(seed=seed)
        for _ in range(5):
            e.step(int(np.flatnonzero(e.action_masks())[0]))
        return e.game.turns()

    assert opening(1) == opening(1)
    assert len({tuple(opening(s)) for s in range(4)}) > 1


def test_gymnasium_illegal_actions() -> None:
    e = NugarEnv("dara", opponent="level:1")
    e.reset(seed=0)
    e.step(14)  # c3
    _, reward, term, trunc, info = e.step(14)  # c3 again: lost
    assert (reward, term, trunc, info["illegal"]) == (-1.0, True, False, True)
    assert e.game.outcome is not None and e.game.outcome.winner == 2
    strict = NugarEnv("dara", opponent="level:1", illegal_action="raise")
    strict.reset(seed=0)
    strict.step(14)
    with pytest.raises(IllegalMoveError, match="not legal"):
        strict.step(14)
    with pytest.raises(InvalidMoveError):
        strict.step(-3)


def test_gymnasium_bad_arguments() -> None:
    with pytest.raises(ValueError, match="player"):
        NugarEnv("kalah", player=3)
    with pytest.raises(ValueError, match="illegal_action"):
        NugarEnv("kalah", illegal_action="ignore")
    with pytest.raises(ValueError, match="render_mode"):
        NugarEnv("kalah", render_mode="rgb_array")
    with pytest.raises(ValueError, match="level"):
        NugarEnv("kalah", opponent="level:9")


@pytest.mark.parametrize(("rules", "opponent", "player"),
                         [("kalah(pits=3,seeds=2)", "random", 1),
                          ("kalah(pits=3,seeds=2)", "greedy", 2),
                          ("dara(quiet_limit=6)", "random", 2)])
def test_gymnasium_vector_env_follows_the_games(rules: str, opponent: str, player: int) -> None:
    from nugar.envs.gymnasium import NugarVectorEnv

    n = 4
    venv = NugarVectorEnv(rules, n, opponent=opponent, player=player)
    assert isinstance(venv, gym.vector.VectorEnv)
    obs, info = venv.reset(seed=3)
    assert obs.shape == (n, *Encoder(rules).observation_shape)
    assert venv.observation_space.contains(obs)
    rng = np.random.default_rng(1)
    enc = Encoder(rules)
    ends = 0
    for _ in range(60):
        masks = info["action_mask"].astype(bool)
        assert np.array_equal(masks, venv.action_masks())
        for i in range(n):
            state = venv.sim.states[i]
            game = nugar.rules.from_state(rules, state)
            assert game.to_move == player
            assert np.flatnonzero(masks[i]).tolist() == game.legal_actions()
            assert np.array_equal(obs[i], enc.observe(game, player))
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        done = terminated | truncated
        assert rewards[~done].tolist() == [0.0] * int((~done).sum())
        assert set(rewards[done].tolist()) <= {-1.0, 0.0, 1.0}
        if done.any():
            ends += int(done.sum())
            assert np.array_equal(info["_final_obs"], done)
            assert info["final_obs"].shape == obs.shape
    assert ends > 0
    with pytest.raises(InvalidMoveError):
        venv.step(np.full(n, -5))


def test_gymnasium_vector_env_illegal_actions() -> None:
    from nugar.envs.gymnasium import NugarVectorEnv

    rules = "dara"  # at the start only drops are legal: step codes are not
    venv = NugarVectorEnv(rules, 3, opponent="random")
    _, info = venv.reset(seed=1)
    masks = info["action_mask"].astype(bool)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    before = venv.sim.states[1].copy()
    _, rewards, terminated, _, info = venv.step(actions)
    assert info["illegal"].tolist() == [False, True, False]
    assert rewards[1] == -1.0 and terminated[1] and info["_final_obs"][1]
    assert np.array_equal(venv.sim.states[1], before)  # lost, and started again
    strict = NugarVectorEnv(rules, 3, opponent="random", illegal_action="raise")
    strict.reset(seed=1)
    start = strict.sim.states.copy()
    with pytest.raises(IllegalMoveError):
        strict.step(actions)
    assert np.array_equal(strict.sim.states, start)
    with pytest.raises(ValueError, match="illegal_action"):
        NugarVectorEnv(rules, 2, illegal_action="ignore")


def test_gymnasium_vector_env_agent_opponent_sees_the_history() -> None:
    from nugar.envs.gymnasium import NugarVectorEnv

    venv = NugarVectorEnv("kalah(pits=3,seeds=2)", 2, opponent="level:2", player=2,
                          opponent_limits=Limits(depth=2))
    venv.reset(seed=0)
    masks = venv.action_masks()
    for i, game in enumerate(venv.games):  # the opponent (first player) moved in both games
        assert game.turns() and game.to_move == 2
        assert game.legal_actions() == np.flatnonzero(masks[i]).tolist()
        mirrored = nugar.rules.from_state(game.rules, venv.sim.states[i])
        assert mirrored.position_text() == game.position_text()
