"""The games as pure JAX functions, with pgx's interface: ``nugar.jax.make(rules)``.

Needs the optional extra ``jax`` (from a checkout ``pip install -e ".[jax]"``); nothing else of
nugar imports JAX. ``make("kalah")`` returns an environment whose ``init(key)`` and
``step(state, action, key=None)`` are pure functions of arrays, for ``jax.jit`` and
``jax.vmap`` on any JAX backend (CPU, GPU, TPU), with the action codes and observations of the
other faces (``docs/envs.md``). The rules are re-expressed in JAX (``sowing.py``,
``alignment.py``), the one second implementation of the rules nugar has, for accelerators;
``tests/test_jax.py`` checks it against the numba kernels step by step.

>>> import jax
>>> env = make("dara")
>>> state = jax.jit(env.init)(jax.random.PRNGKey(0))
>>> int(state.legal_action_mask.sum()), state.observation.shape
(30, (13, 5, 6))
"""

from __future__ import annotations

from .env import (
    COVERAGE,
    MAX_JAX_PITS,
    MAX_JAX_SEEDS,
    VERSION,
    Env,
    HistoryEnv,
    HistoryState,
    auto_reset,
    check_covered,
    make,
)
from .state import State

__all__ = ["COVERAGE", "MAX_JAX_PITS", "MAX_JAX_SEEDS", "VERSION", "Env", "HistoryEnv",
           "HistoryState", "State", "auto_reset", "check_covered", "make"]
