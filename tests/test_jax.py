"""nugar.jax: the JAX rules against the numba kernels, step by step, and pgx's interface.

Random games are played at once in the JAX environment (``jit`` of ``vmap``, auto-reset) and
in the batched simulator over the kernels (``envs/batch.py``) from the same choices; every
step compares the legal masks, the player to move, the rewards, the ending flags and the
observations of both players, bit for bit. The default run plays 16 games or more per preset
and 8 or more per option set (every value of every covered option appears in one);
``NUGAR_JAX_FULL=1`` plays 10,000 or more of each (docs/envs.md, "nugar.jax").
"""

from __future__ import annotations

import os

import numpy as np
import pytest

jax = pytest.importorskip("jax")  # the [jax] extra; the test extra installs it
jnp = jax.numpy

import nugar.jax as nj  # noqa: E402
from nugar.envs.batch import BatchSimulator  # noqa: E402
from nugar.envs.encoding import Encoder  # noqa: E402
from nugar.errors import RulesError  # noqa: E402
from nugar.kernels import batch as batch_kernels  # noqa: E402
from nugar.rules import PRESETS  # noqa: E402
from nugar.rules.family import family_of  # noqa: E402

FULL = os.environ.get("NUGAR_JAX_FULL") == "1"

#: option sets beside the presets: together they give every covered option each of its
#: values (sowing: pits and seeds 1..8 at their ends; alignment: boards from 1 x 7 to 9 x 8,
#: which is more than the 63 squares of the kernels' one-word boards)
SOWING_SETS = [
    "kalah(pits=3,seeds=8,skip_origin=on,empty_capture=single,end=mover_empty,"
    "leftovers=last_capturer)",
    "dracala(pits=8,seeds=8,misere=off,leftovers=owner)",
    "kalah(pits=1,seeds=1)",
    "dracala(pits=2,seeds=7,skip_origin=on,end=mover_empty,empty_capture=single)",
    "kalah(pits=5,seeds=2,misere=on,leftovers=last_mover)",
]
ALIGNMENT_SETS = [
    "dara(quiet_limit=off,repetition=2)",
    "dara(rows=3,cols=3,pieces=4,loss_at=1,blocked=lose,quiet_limit=6,repetition=2)",
    "dara(rows=4,cols=4,pieces=6,all_protected=take_any,centre_first=on,drop_capture=on,"
    "long_lines=allowed)",
    "dala(rows=9,cols=8,pieces=20,no_return=on,quiet_limit=20)",
    "dara(rows=1,cols=7,pieces=3,loss_at=0,drop_limit=none)",
    "dara-sheet(rows=2,cols=2,pieces=2,loss_at=0,repetition=off)",
]


def play_and_compare(rules: str, games: int, finished: int, max_steps: int,
                     seed: int = 0) -> int:
    """Play ``games`` random games at once in both until ``finished`` have ended (or
    ``max_steps`` batch steps), comparing every step; returns the games finished."""
    env = nj.make(rules)
    sim = BatchSimulator(rules, games)
    out = sim.reset()
    fam = family_of(sim.rules).parts.code
    other_obs = np.zeros(sim.encoder.observation_size, np.float32)
    observe_other = jax.jit(jax.vmap(lambda s: env.observe(s, 1 - s.current_player)))
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(nj.auto_reset(env)))
    state = init(jax.random.split(jax.random.PRNGKey(seed), games))
    rng = np.random.default_rng(seed)
    done = 0

    def compare(when: str) -> None:
        mask = np.asarray(state.legal_action_mask)
        assert (mask == out.masks).all(), f"{rules}: masks differ {when}"
        assert (np.asarray(state.current_player) + 1 == out.to_move).all(), \
            f"{rules}: player to move differs {when}"
        obs = np.asarray(state.observation)
        assert obs.dtype == out.observations.dtype
        assert (obs == out.observations).all(), f"{rules}: observations differ {when}"
        # and what the player not to move sees (the kernels' observe for him)
        others = np.asarray(observe_other(state)).reshape(games, -1)
        for g in range(games):
            batch_kernels.observe(fam, sim.params, sim.states[g], 3 - int(out.to_move[g]),
                                  other_obs)
            assert (others[g] == other_obs).all(), f"{rules}: other's observation {when}"

    compare("at the start")
    for t in range(max_steps):
        # one uniformly random legal action per game, the same for both
        scores = np.where(out.masks, rng.random(out.masks.shape), -1.0)
        actions = scores.argmax(axis=1)
        out = sim.step(actions)
        state = step(state, jnp.asarray(actions, jnp.int32))
        when = f"after batch step {t}"
        assert (np.asarray(state.rewards) == out.rewards).all(), f"{rules}: rewards {when}"
        assert (np.asarray(state.terminated) == out.terminated).all(), \
            f"{rules}: terminated {when}"
        assert (np.asarray(state.truncated) == out.truncated).all(), f"{rules}: truncated {when}"
        compare(when)
        done += int(out.terminated.sum() + out.truncated.sum())
        if done >= finished:
            break
    return done


def _count(family_games: int) -> tuple[int, int, int]:
    """Games at once, games to finish, most batch steps."""
    if FULL:
        return 1024, 10_000, 1_000_000
    return 16, family_games, 300


@pytest.mark.parametrize("rules", list(PRESETS))
def test_presets_match_the_kernels(rules: str) -> None:
    games, finished, steps = _count(16)
    assert play_and_compare(rules, games, finished, steps) >= finished


@pytest.mark.parametrize("rules", SOWING_SETS + ALIGNMENT_SETS)
def test_option_sets_match_the_kernels(rules: str) -> None:
    games, finished, steps = _count(8)
    assert play_and_compare(rules, games, finished, steps, seed=1) >= finished


def test_option_sets_give_every_option_each_value() -> None:
    """Every value of every switch and choice appears in a preset or an option set."""
    from dataclasses import fields

    from nugar.rules import parse_rules

    texts = list(PRESETS) + SOWING_SETS + ALIGNMENT_SETS
    seen: dict[tuple[str, str], set[object]] = {}
    for text in texts:
        rules = parse_rules(text)
        for f in fields(rules.options):
            seen.setdefault((rules.family, f.name), set()).add(getattr(rules.options, f.name))
    for text in ("kalah", "dara"):
        rules = parse_rules(text)
        for f in fields(rules.options):
            values = seen[(rules.family, f.name)]
            if f.metadata["kind"] == "switch":
                assert values == {True, False}, f.name
            elif f.metadata["kind"] == "choice":
                assert values == set(f.metadata["values"]), f.name
            elif f.metadata["off_ok"]:
                assert None in values and len(values) > 1, f.name
            else:
                assert len(values) > 1, f.name


# --- pgx's interface -------------------------------------------------------------------------
def test_interface_shapes_and_types() -> None:
    for rules in PRESETS:
        env = nj.make(rules)
        enc = Encoder(rules)
        assert env.num_actions == enc.num_actions
        assert env.observation_shape == enc.observation_shape
        assert env.num_players == 2
        assert env.id == f"nugar/{rules}" and env.version == "v0"
        state = jax.jit(env.init)(jax.random.PRNGKey(0))
        assert state.current_player.dtype == jnp.int32 and state.current_player.shape == ()
        assert state.rewards.dtype == jnp.float32 and state.rewards.shape == (2,)
        assert state.terminated.dtype == jnp.bool_ and state.truncated.dtype == jnp.bool_
        assert state.legal_action_mask.shape == (env.num_actions,)
        assert state.observation.shape == env.observation_shape
        assert state.observation.dtype == jnp.float32


def test_finished_games_stay_and_illegal_actions_lose() -> None:
    # one hole of two seeds: the first step empties the first player's side, 1 to 3
    env = nj.make("kalah(pits=1,seeds=2)")
    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    over = step(state, 0)
    assert bool(over.terminated) and over.rewards.tolist() == [-1.0, 1.0]
    assert bool(over.legal_action_mask.all())  # as pgx: never an empty mask
    again = step(over, 0)
    assert again.rewards.tolist() == [0.0, 0.0] and bool(again.terminated)
    env = nj.make("dara")
    state = env.init(jax.random.PRNGKey(0))
    lost = jax.jit(env.step)(state, env.num_actions - 1)  # a pass is not legal at the start
    assert bool(lost.terminated) and lost.rewards.tolist() == [-1.0, 1.0]


def test_jit_and_vmap_over_a_batch() -> None:
    env = nj.make("dala")
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    states = jax.jit(jax.vmap(env.init))(keys)
    actions = jnp.argmax(states.legal_action_mask, axis=1)
    after = jax.jit(jax.vmap(env.step))(states, actions)
    assert after.observation.shape == (8, *env.observation_shape)
    assert (after.current_player == 1).all()


def test_turned_board_for_the_second_player() -> None:
    plain = nj.make("dara")
    turned = nj.make("dara", turn_board=True)
    state = plain.init(jax.random.PRNGKey(0))
    for action in (0, 7, 29):  # drops: a1 (first player), b2 (second), f5 (first)
        state = plain.step(state, action)
    # second player to move: his view is the plain one turned half round
    assert int(state.current_player) == 1
    assert (turned.observe(state) == plain.observe(state)[:, ::-1, ::-1]).all()
    assert (turned.observe(state, 0) == plain.observe(state, 0)).all()
    seen = turned.observe(state)
    assert float(seen[0, 3, 4]) == 1.0  # his piece on b2 shows at the mirrored square


def test_uncovered_rules_are_refused() -> None:
    for text in ("kalah(pits=9)", "dracala(seeds=9)", "kalah(pits=32,seeds=64)"):
        with pytest.raises(RulesError, match=r"nugar\.jax covers"):
            nj.make(text)
    with pytest.raises(RulesError):
        nj.make("chess")


def test_pgx_when_installed() -> None:
    pgx = pytest.importorskip("pgx")
    env = nj.make("kalah")
    assert isinstance(env, pgx.Env)
    with pytest.raises(Exception):  # noqa: B017 - pgx.make is not patched: it knows no nugar
        pgx.make("nugar/kalah")
    from pgx.experimental import auto_reset

    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    state = jax.vmap(env.init)(keys)
    for _ in range(60):
        state = step(state, jnp.argmax(state.legal_action_mask, axis=1), keys)
    assert state.observation.shape == (4, *env.observation_shape)
