"""The state pytrees of the JAX environments and the helpers both families share.

A state is a frozen dataclass registered with JAX as a pytree, so ``jax.jit``, ``jax.vmap``
and ``jax.lax`` loops take it; ``state.replace(field=value)`` makes a changed copy (the name
and the behaviour pgx's states have, so pgx's wrappers such as ``auto_reset`` take these).
The public fields are pgx's; the fields whose names begin with ``_`` are the position itself
and belong to the family module that made the state (``sowing.py``, ``alignment.py``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from ..kernels.common import OUTCOME_FIRST, OUTCOME_SECOND

Array = jax.Array


@dataclass(frozen=True)
class State:
    """What every nugar JAX state holds, with pgx's field names.

    ``current_player``: 0 for the first player, 1 for the second (the seat, int32);
    ``observation``: the planes or vector of ``docs/envs.md`` for the player to decide;
    ``rewards``: float32 ``(2,)``, first player first, non-zero only on the step that ends the
    game; ``terminated``: the game is over by its rules (a win, a loss, or a draw of any
    rule, repetition and quiet limit included); ``truncated``: it was cut off by the step cap
    the user set (``make(rules, max_steps=...)``; never without one); ``legal_action_mask``:
    bool ``(num_actions,)`` (all true once the game is over, as pgx has it, so that sampling
    from masked logits never meets an empty mask); ``_step_count``: steps played;
    ``_env_id``: the environment's id (a static field of the pytree, not an array).
    """

    current_player: Array
    observation: Array
    rewards: Array
    terminated: Array
    truncated: Array
    legal_action_mask: Array
    _step_count: Array
    _env_id: str = field(default="nugar", kw_only=True)

    def replace(self, **changes: Any) -> Self:
        """A copy with the named fields changed."""
        return dataclasses.replace(self, **changes)

    @property
    def env_id(self) -> str:
        """The id of the environment that made the state (``Env.id``), as pgx states have."""
        return self._env_id

    # --- pictures (pgx's to_svg / save_svg) ----------------------------------------------------
    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """An SVG picture of the position (of each game of a batch side by side, the first
        16 at most): pgx's method, drawn here since pgx's drawer knows only pgx's games.
        ``color_theme`` ``"dark"`` draws on black; ``scale`` multiplies the size."""
        size = 40.0 * (1.0 if scale is None else float(scale))
        ink, paper = ("#eee", "#222") if color_theme == "dark" else ("#222", "#fff")
        games = int(np.prod(np.shape(self.current_player)))
        flat = jax.tree_util.tree_map(lambda a: np.asarray(a).reshape(games, *np.shape(a)[
            np.ndim(self.current_player):]), self)
        parts: list[str] = []
        x = 0.0
        height = 0.0
        for g in range(min(games, 16)):
            one = jax.tree_util.tree_map(lambda a, g=g: a[g], flat)
            body, w, h = one._picture(size, ink)
            parts.append(f'<g transform="translate({x:g},0)">{body}</g>')
            x += w + size / 2
            height = max(height, h)
        width = max(x - size / 2, size)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" '
                f'height="{height:g}"><rect width="100%" height="100%" fill="{paper}"/>'
                + "".join(parts) + "</svg>")

    def save_svg(self, filename: str | Path, *, color_theme: str | None = None,
                 scale: float | None = None) -> None:
        """Write :meth:`to_svg` to ``filename`` (pgx's method)."""
        Path(filename).write_text(self.to_svg(color_theme=color_theme, scale=scale),
                                  encoding="utf-8")

    def _picture(self, size: float, ink: str) -> tuple[str, float, float]:
        """SVG elements of one game's position, its width and height (family states)."""
        raise NotImplementedError


def register(cls: type[State]) -> type[State]:
    """Register a state dataclass as a JAX pytree (every field an array but ``_env_id``, a
    static string)."""
    names = [f.name for f in dataclasses.fields(cls) if f.name != "_env_id"]
    jax.tree_util.register_dataclass(cls, data_fields=names, meta_fields=["_env_id"])
    return cls


def ending_fields(outcome: Array) -> tuple[Array, Array]:
    """Rewards (first player first) and ``terminated`` of an outcome code
    (``kernels/common.py``), as ``kernels/batch.py`` reports them: every end of the rules
    terminates, a draw (by any rule) with rewards 0."""
    won = jnp.where(outcome == OUTCOME_FIRST, 1.0, 0.0)
    lost = jnp.where(outcome == OUTCOME_SECOND, 1.0, 0.0)
    rewards = jnp.stack([won - lost, lost - won]).astype(jnp.float32)
    return rewards, outcome != 0


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
