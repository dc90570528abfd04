"""``turn_board``: the observation seen from the player to move, in every face.

Each face's turned observation is checked against the plain one turned half round by hand
(Dara and Dala; sowing games do not change), faces against each other without JAX, and the
JAX env's turned observations against the batched simulator's where JAX is installed."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest
from numpy.typing import NDArray
from open_spiel.python.observation import make_observation

import nugar.envs.openspiel  # noqa: F401  (registers the games)
from nugar.envs.batch import BatchSimulator
from nugar.envs.encoding import Encoder
from nugar.envs.gymnasium import NugarEnv, NugarVectorEnv
from nugar.envs.pettingzoo import raw_env
from nugar.kernels import batch as batch_kernels
from nugar.rules import new_game

ALIGNMENT = ["dara", "dala", "dara(rows=4,cols=4,pieces=6,no_return=on,quiet_limit=8)"]
SOWING = ["kalah", "dracala(pits=3,seeds=2)"]


def turned(obs: NDArray[np.float32], player: int, sowing: bool) -> NDArray[np.float32]:
    """The reference: ``obs`` (one observation) turned half round when the second player
    observes a board."""
    return obs if sowing or player == 1 else obs[:, ::-1, ::-1]


def turned_rows(obs: NDArray[np.float32], players: NDArray[np.int64],
                sowing: bool) -> NDArray[np.float32]:
    return np.stack([turned(o, int(p), sowing) for o, p in zip(obs, players, strict=True)])


@pytest.mark.parametrize("rules", ALIGNMENT + SOWING)
def test_faces_agree_on_the_turned_board(rules: str) -> None:
    """Random games played in the batched simulator (stepped, without auto_reset, with
    resets of the finished games, and the functional form), the encoder, PettingZoo and
    OpenSpiel, turned and plain, from the same choices."""
    sowing = rules in SOWING
    games, steps = 6, 120
    plain = BatchSimulator(rules, games, auto_reset=False)
    turn = BatchSimulator(rules, games, auto_reset=False, turn_board=True)
    plain_enc, turn_enc = Encoder(rules), Encoder(rules, turn_board=True)
    out_p, out_t = plain.reset(), turn.reset()
    batch_p, batch_t = plain.initial_states(), turn.initial_states()
    game = new_game(rules)
    zoo = raw_env(rules, turn_board=True)
    zoo.reset()
    spiel = pyspiel.load_game(f"nugar_{rules.split('(')[0]}", {"turn_board": True}
                              | ({} if "(" not in rules else _spiel_params(rules)))
    spiel_state = spiel.new_initial_state()
    observer = make_observation(spiel)
    rng = np.random.default_rng(3)
    for _ in range(steps):
        assert (out_t.observations == turned_rows(out_p.observations, out_p.to_move,
                                                  sowing)).all()
        assert (batch_t.observations == turned_rows(batch_p.observations, batch_p.to_move,
                                                     sowing)).all()
        for player in (1, 2):
            want = turned(plain_enc.observe(game, player), player, sowing)
            assert (turn_enc.observe(game, player) == want).all()
            assert (zoo.observe(f"player_{player - 1}")["observation"] == want).all()
            observer.set_from(spiel_state, player - 1)
            assert (observer.tensor.reshape(want.shape) == want).all()
        # one random legal action per game; game 0 is also played in the single-game faces
        scores = np.where(out_p.masks, rng.random(out_p.masks.shape), -1.0)
        acts = np.where(out_p.masks.any(axis=1), scores.argmax(axis=1), -1)
        if acts[0] >= 0:
            game.push_action(int(acts[0]))
            zoo.step(int(acts[0]))
            spiel_state.apply_action(int(acts[0]))
        out_p, out_t = plain.step(acts), turn.step(acts)
        f_scores = np.where(batch_p.masks, rng.random(batch_p.masks.shape), -1.0)
        f_acts = np.where(batch_p.masks.any(axis=1), f_scores.argmax(axis=1), -1)
        batch_p, batch_t = plain.step_states(batch_p, f_acts), turn.step_states(batch_t, f_acts)
        ended = out_p.terminated | out_p.truncated
        ended[0] = False  # game 0 goes on in step with the single-game faces (it waits at -1)
        if ended.any():
            out_p, out_t = plain.reset(ended), turn.reset(ended)
    # run_random keeps the turned buffer consistent too
    auto_p = BatchSimulator(rules, games)
    auto_t = BatchSimulator(rules, games, turn_board=True)
    auto_p.run_random(50, seed=1)
    auto_t.run_random(50, seed=1)
    out_p, out_t = auto_p.step(auto_p.random_actions(2)), auto_t.step(auto_t.random_actions(2))
    assert (out_t.observations == turned_rows(out_p.observations, out_p.to_move, sowing)).all()


def _spiel_params(rules: str) -> dict[str, object]:
    """OpenSpiel parameters of a rules text ``name(k=v,...)`` (ints and on/off only)."""
    body = rules[rules.index("(") + 1:-1]
    out: dict[str, object] = {}
    for item in body.split(","):
        key, value = item.split("=")
        out[key] = True if value == "on" else False if value == "off" else int(value)
    return out


def kernel_view(sim: BatchSimulator, g: int, player: int) -> NDArray[np.float32]:
    """The kernels' (unturned) observation of game ``g`` of ``sim`` for ``player``."""
    out = np.zeros(sim.encoder.observation_size, np.float32)
    batch_kernels.observe(sim._fam, sim.params, sim.states[g], player, out)
    return out.reshape(sim.observation_shape)


@pytest.mark.parametrize("rules", ["dara", "kalah"])
def test_gymnasium_sees_the_learners_side(rules: str) -> None:
    sowing = rules == "kalah"
    plain = Encoder(rules)
    env = NugarEnv(rules, opponent="random", player=2, turn_board=True)
    obs, _ = env.reset(seed=0)
    assert (obs == turned(plain.observe(env.game, 2), 2, sowing)).all()
    obs, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert (obs == turned(plain.observe(env.game, 2), 2, sowing)).all()
    vec = NugarVectorEnv(rules, 4, opponent="random", player=2, turn_board=True)
    obs, info = vec.reset(seed=0)
    for _ in range(3):
        want_rows = np.stack([kernel_view(vec.sim, i, 2) for i in range(4)])
        assert (obs == turned_rows(want_rows, np.full(4, 2), sowing)).all()
        obs, *_, info = vec.step(np.argmax(info["action_mask"], axis=1))


def test_default_is_unturned_and_option_is_kept() -> None:
    game = new_game("dara")
    for action in (0, 7):  # a1 by the first player, b2 by the second: first to move again
        game.push_action(action)
    game.push_action(29)
    plain, turn = Encoder("dara"), Encoder("dara", turn_board=True)
    seen = turn.observe(game, 2)
    assert seen[0, 3, 4] == 1.0 and plain.observe(game, 2)[0, 1, 1] == 1.0  # his b2
    assert (turn.observe(game, 1) == plain.observe(game, 1)).all()
    assert seen.flags.c_contiguous
    assert not BatchSimulator("dara", 2).turn_board
    assert pyspiel.load_game("nugar_dara").encoder.turn_board is False
    assert pyspiel.load_game("nugar_dara(turn_board=True)").encoder.turn_board is True


def test_jax_turned_observations_match_the_simulator() -> None:
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    import nugar.jax as nj

    for rules in ("dara", "dala", "kalah"):
        games = 8
        env = nj.make(rules, turn_board=True)
        sim = BatchSimulator(rules, games, turn_board=True)
        out = sim.reset()
        step = jax.jit(jax.vmap(nj.auto_reset(env)))
        other = jax.jit(jax.vmap(lambda s, e=env: e.observe(s, 1 - s.current_player)))
        state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), games))
        rng = np.random.default_rng(0)
        for _ in range(150):
            assert (np.asarray(state.observation) == out.observations).all(), rules
            others = np.asarray(other(state))
            for g in range(games):
                who = 3 - int(out.to_move[g])
                want = turned(kernel_view(sim, g, who), who, rules == "kalah")
                assert (others[g] == want).all(), rules
            scores = np.where(out.masks, rng.random(out.masks.shape), -1.0)
            actions = scores.argmax(axis=1)
            out = sim.step(actions)
            state = step(state, jnp.asarray(actions, jnp.int32))
