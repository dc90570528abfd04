"""Observations with history: ``Encoder.observe_history`` and ``nugar.jax.make(history=k)``.

The position rows of each of the last ``k`` positions are checked against the plain observation
of that position, replayed from the start; the JAX environment against the encoder at every
decision of random games, for both players, and under pgx's own API test.
"""

from __future__ import annotations

import numpy as np
import pytest

import nugar
from nugar.envs.encoding import Encoder


@pytest.mark.parametrize(("rules", "k", "shape"), [
    ("dara", 4, (2 * 4 + 11, 5, 6)), ("dala", 8, (2 * 8 + 11, 6, 6)),
    ("kalah", 3, (3 * 14 + 4,)), ("dracala(pits=4)", 2, (2 * 10 + 4,)), ("dara", 1, (13, 5, 6))])
def test_history_shapes(rules: str, k: int, shape: tuple[int, ...]) -> None:
    enc = Encoder(rules)
    assert enc.history_shape(k) == shape
    assert enc.observe_history(nugar.new_game(rules), 1, k).shape == shape


@pytest.mark.parametrize("turn_board", [False, True])
@pytest.mark.parametrize("rules", ["dara", "dala", "kalah", "dracala"])
def test_history_rows_are_the_past_positions(rules: str, turn_board: bool) -> None:
    enc = Encoder(rules, turn_board=turn_board)
    m, k = enc.position_rows, 3
    game = nugar.new_game(rules)
    rng = np.random.default_rng(5)
    line: list[int] = []
    for _ in range(12):
        for player in (1, 2):
            got = enc.observe_history(game, player, k)
            now = enc.observe(game, player)
            assert (got[k * m:] == now[m:]).all()  # flags and counters of the present
            for t in range(k):
                frame = got[t * m:(t + 1) * m]
                if t > len(line):
                    assert not frame.any()  # before the start: zeros
                    continue
                past = nugar.new_game(rules)
                for a in line[:len(line) - t]:
                    past.push_action(a)
                assert (frame == enc.observe(past, player)[:m]).all()
        assert (enc.observe_history(game, 1, 1) == enc.observe(game, 1)).all()
        action = int(rng.choice(game.legal_actions()))
        game.push_action(action)
        line.append(action)


def test_history_after_a_resignation_and_bad_lengths() -> None:
    enc = Encoder("kalah")
    game = nugar.new_game("kalah")
    game.push_action(0)
    before = enc.observe(game, 1)
    game.resign(2)
    got = enc.observe_history(game, 1, 2)
    assert (got[:14] == before[:14]).all()  # a resignation is not a position
    assert (got[14:28] == enc.observe(nugar.new_game("kalah"), 1)[:14]).all()
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="history must be a whole number"):
            enc.history_shape(bad)  # type: ignore[arg-type]


# --- nugar.jax -------------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "turn_board"), [("dara", False), ("dala", True),
                                                   ("kalah(pits=3,seeds=2)", False)])
def test_jax_history_matches_the_encoder(rules: str, turn_board: bool) -> None:
    jax = pytest.importorskip("jax")
    import nugar.jax as nj

    k = 4
    env = nj.make(rules, history=k, turn_board=turn_board)
    enc = Encoder(rules, turn_board=turn_board)
    assert env.observation_shape == enc.history_shape(k)
    step = jax.jit(nj.auto_reset(env))
    observe = jax.jit(env.observe)
    state = env.init(jax.random.PRNGKey(0))
    game = nugar.new_game(rules)
    rng = np.random.default_rng(2)
    restarts = 0
    for _ in range(150):
        assert state.observation.shape == env.observation_shape
        assert (np.asarray(state.observation)
                == enc.observe_history(game, game.to_move, k)).all()
        for player in (0, 1):
            assert (np.asarray(observe(state, player))
                    == enc.observe_history(game, player + 1, k)).all()
        action = int(rng.choice(game.legal_actions()))
        state = step(state, action)
        game.push_action(action)
        if game.is_over:  # auto_reset has started the game again, history and all
            assert bool(state.terminated)
            game = nugar.new_game(rules)
            restarts += 1
    if rules.startswith("kalah"):  # its short games end: the restart is checked too
        assert restarts > 0


def test_jax_history_passespgx_api_test(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("jax")
    import nugar.jax as nj
    from pgx_check import pgx_api_test

    env = nj.make("kalah(pits=3,seeds=2)", history=3)
    pgx_api_test(env, monkeypatch, 2)
    with pytest.raises(ValueError, match="history must be a whole number"):
        nj.make("kalah", history=0)
