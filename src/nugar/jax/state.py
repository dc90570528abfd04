"""The state pytrees of the JAX environments and the helpers both families share.

A state is a frozen dataclass registered with JAX as a pytree, so ``jax.jit``, ``jax.vmap``
and ``jax.lax`` loops take it; ``state.replace(field=value)`` makes a changed copy (the name
and the behaviour pgx's states have, so pgx's wrappers such as ``auto_reset`` take these).
The public fields are pgx's; the fields whose names begin with ``_`` are the position itself
and belong to the family module that made the state (``sowing.py``, ``alignment.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Self, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from ..kernels.common import (
    OUTCOME_DRAW,
    OUTCOME_FIRST,
    OUTCOME_SECOND,
    REASON_QUIET_LIMIT,
    REASON_REPETITION,
)

Array = jax.Array


@dataclass(frozen=True)
class State:
    """What every nugar JAX state holds, with pgx's field names.

    ``current_player``: 0 for the first player, 1 for the second (the seat, int32);
    ``observation``: the planes or vector of ``docs/envs.md`` for the player to decide;
    ``rewards``: float32 ``(2,)``, first player first, non-zero only on the step that ends the
    game; ``terminated``: the game is over by a rule of the game; ``truncated``: it is over by a
    house draw rule (repetition, quiet limit), as in the other faces; ``legal_action_mask``:
    bool ``(num_actions,)`` (all true once the game is over, as pgx has it, so that sampling
    from masked logits never meets an empty mask); ``_step_count``: steps played.
    """

    current_player: Array
    observation: Array
    rewards: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _step_count: Array

    def replace(self, **changes: Any) -> Self:
        """A copy with the named fields changed."""
        return dataclasses.replace(self, **changes)


def register(cls: type[State]) -> type[State]:
    """Register a state dataclass as a JAX pytree (every field is an array)."""
    names = [f.name for f in dataclasses.fields(cls)]
    jax.tree_util.register_dataclass(cls, data_fields=names, meta_fields=[])
    return cls


def ending_fields(outcome: Array, reason: Array) -> tuple[Array, Array, Array]:
    """Rewards (first player first), ``terminated`` and ``truncated`` of an outcome code and
    reason (``kernels/common.py``), as ``kernels/batch.py`` reports them."""
    won = jnp.where(outcome == OUTCOME_FIRST, 1.0, 0.0)
    lost = jnp.where(outcome == OUTCOME_SECOND, 1.0, 0.0)
    rewards = jnp.stack([won - lost, lost - won]).astype(jnp.float32)
    over = outcome != 0
    house = (outcome == OUTCOME_DRAW) & ((reason == REASON_REPETITION)
                                         | (reason == REASON_QUIET_LIMIT))
    return rewards, over & ~house, over & house


def ratio_table(numerators: int, scale: float) -> Array:
    """``float32(k * scale)`` for ``k = 0 .. numerators`` computed in double precision and
    rounded once, as the numba observation kernels compute and store them, so that an
    observation is read from this table bit for bit equal to theirs."""
    values = np.arange(numerators + 1, dtype=np.float64) * scale
    return jnp.asarray(values.astype(np.float32))


def quotient_table(numerators: int, denominator: int) -> Array:
    """``float32(k / denominator)`` for ``k = 0 .. numerators``, divided in double precision
    (the numba kernels divide two integers, then store the double as float32)."""
    values = np.arange(numerators + 1, dtype=np.float64) / denominator
    return jnp.asarray(values.astype(np.float32))


S = TypeVar("S", bound="State")


def select(flag: Array, on_true: S, on_false: S) -> S:
    """The whole state ``on_true`` where ``flag`` holds, else ``on_false`` (no branch: under
    ``vmap`` both sides are computed anyway)."""
    out: S = jax.tree_util.tree_map(lambda a, b: jnp.where(flag, a, b), on_true, on_false)
    return out
