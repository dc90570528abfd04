"""pgx's own API test run on a ``nugar.jax`` environment (the JAX tests share it)."""

from __future__ import annotations

from typing import Literal, get_args

import jax
import jax.numpy as jnp
import pytest

import nugar.jax as nj


def pgx_api_test(env: nj.Env, monkeypatch: pytest.MonkeyPatch, games: int) -> None:
    """Run ``pgx.api_test`` on ``env`` with the two changes pgx 2.6.0 needs to test a game of
    another package: its list of known ids (``EnvId``, which the test requires ``env.id`` to
    be in) is extended by ``env.id``, and, where pgx's random player fails on one unbatched
    mask under this JAX (as it does for pgx's own ``tic_tac_toe``: ``jax.random.categorical``
    with ``axis=1`` on a 1-D mask), that player is given the mask with a batch axis of one."""
    pgx = pytest.importorskip("pgx", reason="pgx is not installed (it is in the test extra)")
    import pgx._src.api_test as pgx_tests

    monkeypatch.setattr(pgx_tests, "EnvId",
                        Literal[(*get_args(pgx_tests.EnvId), env.id)])  # type: ignore[misc]
    act = pgx_tests.act_randomly
    try:
        act(jax.random.PRNGKey(0), jnp.ones(3, bool))
    except IndexError:
        monkeypatch.setattr(pgx_tests, "act_randomly", jax.jit(
            lambda key, mask: act(key, mask[None])[0] if mask.ndim == 1 else act(key, mask)))
    assert isinstance(env, pgx.Env)
    pgx.api_test(env, games)
