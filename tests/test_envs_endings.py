"""How every research face ends an episode: each end of the rules terminates, the step cap alone
truncates.

A draw by repetition or by the quiet limit ends the game by its rules (``Game.is_over``), so it
is reported as ``terminated`` with rewards 0, as a win or a loss is; ``truncated`` belongs to
the cap ``max_steps`` the user sets (off by default). Each face replays the same line from
``tests/draws.py`` (a game the engine itself ends by that draw) and is checked at its last
decision; ``nugar.jax`` is checked in ``tests/test_jax_faces.py``.
"""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import nugar
import nugar.envs.openspiel
from draws import QUIET_LIMIT_RULES, REPETITION_RULES, draw_line
from nugar.ai.base import Agent, Analysis, Limits
from nugar.envs.batch import BatchSimulator
from nugar.envs.gymnasium import NugarEnv, NugarVectorEnv
from nugar.envs.pettingzoo import AGENTS, env
from nugar.rules.base import Game

DRAWS = ([(rules, "repetition") for rules in REPETITION_RULES]
         + [(rules, "quiet_limit") for rules in QUIET_LIMIT_RULES])


class Scripted(Agent):
    """Plays the decisions of a fixed line, whichever its turn in it is."""

    spec = "scripted"

    def __init__(self, line: tuple[int, ...]) -> None:
        self.line = line

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        raise NotImplementedError  # pragma: no cover - choose is all the envs call

    def choose(self, game: Game, limits: Limits | None = None) -> nugar.Move:
        return game.action_to_move(self.line[game.ply])


@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_the_engine_ends_the_line_by_that_draw(rules: str, reason: str) -> None:
    game = nugar.new_game(rules)
    for action in draw_line(rules, reason):
        assert not game.is_over
        game.push_action(action)
    assert game.is_over and game.outcome is not None
    assert (game.outcome.reason, game.outcome.winner) == (reason, None)


# --- PettingZoo ------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_pettingzoo_draw_terminates(rules: str, reason: str) -> None:
    e = env(rules)
    e.reset(seed=0)
    for action in draw_line(rules, reason):
        _, _, term, trunc, _ = e.last()
        assert not term and not trunc
        e.step(action)
    seen = []
    for agent in e.agent_iter(10):
        _, reward, term, trunc, info = e.last()
        seen.append(agent)
        assert (term, trunc, reward) == (True, False, 0.0)
        assert info["outcome"] == reason
        e.step(None)
    assert sorted(seen) == sorted(AGENTS) and not e.agents


def test_pettingzoo_step_cap_truncates() -> None:
    e = env("kalah", max_steps=3)
    e.reset(seed=0)
    for action in (0, 1, 5):  # no bonus step, no end: three decisions of a running game
        e.step(action)
    raw = e.unwrapped
    assert not raw.game.is_over
    assert raw.truncations == dict.fromkeys(AGENTS, True)
    assert raw.terminations == dict.fromkeys(AGENTS, False)
    assert raw.infos[AGENTS[0]]["outcome"] == "max_steps"
    assert not e.observe(AGENTS[0])["action_mask"].any()
    for _ in e.agent_iter(10):
        assert e.last()[1] == 0.0
        e.step(None)
    assert not e.agents


# --- Gymnasium -------------------------------------------------------------------------------


@pytest.mark.parametrize("player", [1, 2])
@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_gymnasium_draw_terminates(rules: str, reason: str, player: int) -> None:
    line = draw_line(rules, reason)
    e = NugarEnv(rules, opponent=Scripted(line), player=player)
    e.reset(seed=0)
    result = None
    while not e.game.is_over:
        result = e.step(line[e.game.ply])
        if not e.game.is_over:
            assert result[2:4] == (False, False)
    assert result is not None
    _, reward, terminated, truncated, info = result
    assert (reward, terminated, truncated) == (0.0, True, False)
    assert info["outcome"] == reason


@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_gymnasium_vector_draw_terminates(rules: str, reason: str) -> None:
    line = draw_line(rules, reason)
    venv = NugarVectorEnv(rules, 2, opponent=Scripted(line), player=1)
    venv.reset(seed=0)
    for _ in range(len(line)):
        ply = venv.games[0].ply
        _, rewards, terminated, truncated, info = venv.step(np.array([line[ply]] * 2))
        if terminated.any():
            break
        assert not truncated.any()
    assert terminated.tolist() == [True, True] and truncated.tolist() == [False, False]
    assert rewards.tolist() == [0.0, 0.0]
    assert info["_final_obs"].tolist() == [True, True]


def test_gymnasium_step_cap_truncates() -> None:
    e = NugarEnv("kalah", opponent="random", player=1, max_steps=1)
    e.reset(seed=0)
    _, reward, terminated, truncated, info = e.step(0)  # hole 1: no bonus step, no end
    assert (reward, terminated, truncated) == (0.0, False, True)
    assert info["outcome"] == "max_steps" and not info["action_mask"].any()
    assert len(e.game.move_stack) == 1  # the opponent was not asked to play past the cap
    with pytest.raises(nugar.IllegalMoveError, match="call reset"):
        e.step(1)
    # the cap counts both players' decisions
    e = NugarEnv("kalah", opponent="random", player=1, max_steps=4)
    e.reset(seed=1)
    steps = 0
    while True:
        steps += 1
        _, _, terminated, truncated, _ = e.step(int(np.flatnonzero(e.action_masks())[0]))
        if terminated or truncated:
            break
    assert truncated and e.game.ply == 4 and steps < 4


def test_gymnasium_vector_step_cap_truncates() -> None:
    venv = NugarVectorEnv("kalah", 3, opponent="random", player=1, max_steps=2)
    venv.reset(seed=0)
    _, rewards, terminated, truncated, info = venv.step(np.zeros(3, np.int64))
    assert truncated.all() and not terminated.any() and (rewards == 0).all()
    assert info["_final_obs"].all()


# --- the batched simulator -------------------------------------------------------------------


@pytest.mark.parametrize("auto_reset", [True, False])
@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_batch_draw_terminates(rules: str, reason: str, auto_reset: bool) -> None:
    line = draw_line(rules, reason)
    sim = BatchSimulator(rules, 2, auto_reset=auto_reset)
    out = sim.reset()
    for k, action in enumerate(line):
        out = sim.step(np.array([action, -1 if k == len(line) - 1 else action]))
        if k < len(line) - 1:
            assert not out.terminated.any() and not out.truncated.any()
    assert out.terminated.tolist() == [True, False] and not out.truncated.any()
    assert out.rewards.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert out.mover_rewards[0] == 0.0
    # the same in the functional form
    batch = sim.initial_states(1)
    for action in line:
        batch = sim.step_states(batch, np.array([action]))
    assert batch.terminated.tolist() == [True] and batch.truncated.tolist() == [False]


def test_batch_step_cap_truncates() -> None:
    sim = BatchSimulator("kalah", 2, auto_reset=False, max_steps=2)
    sim.step(np.array([0, 0]))
    out = sim.step(np.array([0, -1]))
    assert out.truncated.tolist() == [True, False] and not out.terminated.any()
    assert not out.masks[0].any() and out.masks[1].any()
    assert sim.random_actions(seed=0)[0] == -1  # a cut-off game waits, as a finished one
    with pytest.raises(nugar.IllegalMoveError, match="game 0"):
        sim.step(np.array([1, 1]))
    out = sim.step(np.array([-1, 1]))
    assert out.truncated.tolist() == [True, True]
    out = sim.reset(np.array([True, False]))
    assert out.truncated.tolist() == [False, True] and out.masks[0].any()
    # with auto_reset the cut-off game starts again in the same step
    sim = BatchSimulator("kalah", 1, max_steps=1)
    out = sim.step(np.array([0]))
    assert out.truncated.tolist() == [True] and out.to_move.tolist() == [1]
    assert sim.steps.tolist() == [0] and out.masks[0].all()
    assert sim.run_random(50, seed=3) > 0


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "10"])
def test_bad_step_caps_are_refused(bad: object) -> None:
    for make in (lambda: BatchSimulator("kalah", 2, max_steps=bad),  # type: ignore[arg-type]
                 lambda: NugarEnv("kalah", opponent="random", max_steps=bad),  # type: ignore[arg-type]
                 lambda: env("kalah", max_steps=bad)):  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="max_steps must be None"):
            make()


# --- OpenSpiel -------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_openspiel_draw_is_terminal(rules: str, reason: str) -> None:
    """OpenSpiel has no truncation: a draw of the rules is a terminal state with returns 0."""
    name = "nugar_" + rules.replace("-", "_")
    if "(" in rules:
        preset, options = rules[:-1].split("(")
        name = f"nugar_{preset}({options})"
    state = pyspiel.load_game(name).new_initial_state()
    for action in draw_line(rules, reason):
        assert not state.is_terminal()
        state.apply_action(action)
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
