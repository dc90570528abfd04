"""The batched simulator against single games played through the public Game API."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import nugar
from nugar import IllegalMoveError, InvalidMoveError
from nugar.envs.batch import BatchSimulator
from nugar.envs.encoding import Encoder
from nugar.rules import from_state


def _lockstep(rules: str, num_envs: int, steps: int, seed: int) -> int:
    """Step a batch with random legal actions and the same actions on ``Game`` objects,
    checking masks, observations, players, rewards and end flags; returns games finished."""
    sim = BatchSimulator(rules, num_envs)
    enc = Encoder(rules)
    games = [nugar.new_game(rules) for _ in range(num_envs)]
    out = sim.reset()
    rng = np.random.default_rng(seed)
    finished = 0
    for _ in range(steps):
        for i, game in enumerate(games):
            assert np.flatnonzero(out.masks[i]).tolist() == game.legal_actions()
            assert out.to_move[i] == game.to_move
            assert np.array_equal(out.observations[i], enc.observe(game, game.to_move))
        actions = np.array([rng.choice(g.legal_actions()) for g in games])
        out = sim.step(actions)
        for i, game in enumerate(games):
            game.push_action(int(actions[i]))
            outcome = game.outcome
            if outcome is None:
                assert not out.terminated[i] and not out.truncated[i]
                assert list(out.rewards[i]) == [0.0, 0.0]
                continue
            finished += 1
            # every end of the rules terminates, house draws included (no step cap here)
            assert (bool(out.terminated[i]), bool(out.truncated[i])) == (True, False)
            expected = {None: [0.0, 0.0], 1: [1.0, -1.0], 2: [-1.0, 1.0]}[outcome.winner]
            assert list(out.rewards[i]) == expected
            games[i] = nugar.new_game(rules)  # the simulator has restarted this game
    return finished


@pytest.mark.parametrize(("rules", "steps"), [("kalah", 200), ("dracala", 200),
                                              ("kalah(pits=3,seeds=2,skip_origin=on)", 100),
                                              ("dracala(leftovers=last_capturer)", 120)])
def test_sowing_batch_matches_games(rules: str, steps: int) -> None:
    assert _lockstep(rules, 5, steps, seed=1) > 0


@pytest.mark.parametrize("rules", ["dara(quiet_limit=12)", "dala(quiet_limit=8)",
                                   "dara-sheet(quiet_limit=off,repetition=2)",
                                   "dara-niger(quiet_limit=10)"])
def test_alignment_batch_matches_games(rules: str) -> None:
    assert _lockstep(rules, 4, 150, seed=2) > 0


def test_alignment_batch_reports_house_draws_as_terminations() -> None:
    sim = BatchSimulator("dara(quiet_limit=1)", 8)
    seen_ended = 0
    for step in range(200):
        out = sim.step(sim.random_actions(seed=step))
        seen_ended += int(out.terminated.sum())
        assert not out.truncated.any()  # no step cap: nothing is cut off
        assert (out.rewards[out.terminated] == 0.0).all()  # quiet-limit draws, all of them
    assert seen_ended > 0


def test_illegal_actions_change_nothing() -> None:
    sim = BatchSimulator("dara", 3)
    sim.step(np.array([0, 1, 2]))
    before = sim.states.copy()
    with pytest.raises(IllegalMoveError, match="game 1: action 1 is not legal"):
        sim.step(np.array([5, 1, 7]))  # square 1 is taken in game 1
    assert np.array_equal(sim.states, before)
    with pytest.raises(IllegalMoveError):
        sim.step(np.array([5, 181, 7]))
    with pytest.raises(InvalidMoveError, match="shape"):
        sim.step(np.array([5, 6]))
    with pytest.raises(InvalidMoveError, match="integer"):
        sim.step(np.array([5.0, 6.0, 7.0]))


def test_without_auto_reset_a_finished_game_stays_over() -> None:
    sim = BatchSimulator("kalah(pits=2,seeds=1)", 2, auto_reset=False)
    out = sim.reset()
    for _ in range(50):
        if out.terminated.all():
            break
        actions = sim.random_actions(seed=3)
        actions[out.terminated] = 0
        if out.terminated.any():
            break
        out = sim.step(actions)
    done = int(np.flatnonzero(out.terminated)[0])
    assert not out.masks[done].any()
    assert sim.random_actions(seed=0)[done] == -1
    with pytest.raises(IllegalMoveError, match="game is over"):
        sim.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="auto_reset"):
        sim.run_random(10)


def test_finished_games_wait_while_the_others_step_and_reset_by_mask() -> None:
    rules = "kalah(pits=2,seeds=1)"
    sim = BatchSimulator(rules, 6, auto_reset=False)
    games = [nugar.new_game(rules) for _ in range(6)]
    out = sim.reset()
    rng = np.random.default_rng(4)
    resets = 0
    for step in range(120):
        actions = np.array([rng.choice(g.legal_actions()) if not g.is_over else -1
                            for g in games])
        movers = [0 if g.is_over else g.to_move for g in games]
        was_over = [g.is_over for g in games]
        out = sim.step(actions)
        for i, game in enumerate(games):
            if actions[i] >= 0:
                game.push_action(int(actions[i]))
            assert out.movers[i] == movers[i]
            if game.is_over:
                assert out.terminated[i] or out.truncated[i]
                assert not out.masks[i].any()
                if was_over[i]:
                    assert list(out.rewards[i]) == [0.0, 0.0] and out.mover_rewards[i] == 0.0
                else:
                    winner = game.outcome.winner
                    mine = 0.0 if winner is None else (1.0 if winner == movers[i] else -1.0)
                    assert out.mover_rewards[i] == mine
                    assert out.rewards[i, movers[i] - 1] == mine
            else:
                assert np.flatnonzero(out.masks[i]).tolist() == game.legal_actions()
                assert out.to_move[i] == game.to_move
        if step % 7 == 6:  # restart some finished games, leave the others waiting
            over = out.terminated | out.truncated
            pick = over & (np.arange(6) % 2 == 0)
            out = sim.reset(pick)
            for i in np.flatnonzero(pick):
                games[i] = nugar.new_game(rules)
                resets += 1
                assert not out.terminated[i] and out.masks[i].any()
            for i in np.flatnonzero(over & ~pick):
                assert out.terminated[i] or out.truncated[i]
    assert resets > 0
    with pytest.raises(ValueError, match="mask"):
        sim.reset(np.zeros(5, bool))
    waiting = BatchSimulator(rules, 2, auto_reset=False)
    start = waiting.states.copy()
    out = waiting.step(np.array([-1, int(np.flatnonzero(waiting.masks[1])[0])]))
    assert np.array_equal(waiting.states[0], start[0]) and out.movers.tolist() == [0, 1]
    assert not np.array_equal(waiting.states[1], start[1])
    with pytest.raises(IllegalMoveError):
        waiting.step(np.array([-2, -1]))


def test_functional_steps_leave_their_input_and_agree_with_the_simulator() -> None:
    for rules in ("kalah", "dara(quiet_limit=6)"):
        sim = BatchSimulator(rules, 5, auto_reset=False)
        batch = sim.initial_states()
        out = sim.reset()
        for step in range(40):
            actions = sim.random_actions(seed=step)
            before = batch.copy()
            after = sim.step_states(batch, actions)
            for name in ("states", "history", "counts", "masks", "observations"):
                assert np.array_equal(getattr(batch, name), getattr(before, name))
            out = sim.step(actions)
            assert np.array_equal(after.states, sim.states)
            assert np.array_equal(after.observations, out.observations)
            assert np.array_equal(after.masks, out.masks)
            assert np.array_equal(after.rewards, out.rewards)
            assert np.array_equal(after.mover_rewards, out.mover_rewards)
            assert np.array_equal(after.terminated, out.terminated)
            batch = after
        # one position stepped every legal way (a search's expansion)
        root = sim.initial_states(1)
        moves = np.flatnonzero(root.masks[0])
        children = sim.step_states(root.take([0] * len(moves)), moves)
        for k, a in enumerate(moves):
            game = nugar.new_game(rules)
            game.push_action(int(a))
            assert np.flatnonzero(children.masks[k]).tolist() == game.legal_actions()


def test_returned_buffers_are_reused_and_copy_keeps_them() -> None:
    sim = BatchSimulator("kalah", 3)
    first = sim.reset()
    kept = first.copy()
    sim.step(sim.random_actions(seed=2))
    assert first.observations is not kept.observations
    assert not np.array_equal(first.observations, kept.observations)  # overwritten
    assert np.array_equal(kept.observations, sim.initial_states(3).observations)


def test_run_random_keeps_consistent_states() -> None:
    for rules in ("kalah", "dala"):
        sim = BatchSimulator(rules, 16)
        finished = sim.run_random(400, seed=9)
        assert finished > 0
        enc = Encoder(rules)
        for i in range(16):  # every game is a position reachable by the engine again
            game = from_state(rules, sim.states[i])
            assert np.flatnonzero(sim.masks[i]).tolist() == game.legal_actions()
            assert np.array_equal(sim._obs[i].reshape(enc.observation_shape),
                                  enc.observe(game, game.to_move))


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        BatchSimulator("kalah", 0)
    with pytest.raises(nugar.RulesError):
        BatchSimulator("go", 4)


_SCRIPT = """
import numpy as np
from nugar.envs.batch import BatchSimulator
for rules in ("kalah", "dara(quiet_limit=6)"):
    sim = BatchSimulator(rules, 3)
    for step in range(60):
        out = sim.step(sim.random_actions(seed=step))
    print(rules, sim.states.tolist(), out.observations.round(6).tolist(), out.rewards.tolist())
"""


def test_compiled_and_pure_python_kernels_agree() -> None:
    results = []
    for disable in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=disable)
        done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                              text=True, timeout=300, check=True)
        results.append(done.stdout)
    assert results[0] == results[1]
    assert "kalah" in results[0]


def test_docstring_examples() -> None:
    import doctest

    import nugar.envs.batch

    failures, tried = doctest.testmod(nugar.envs.batch)
    assert tried > 0 and failures == 0
