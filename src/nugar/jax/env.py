"""``nugar.jax.make``: an environment with pgx's interface over the JAX rules of a rule set.

Where pgx is installed the environment class is also a ``pgx.Env`` (pgx's wrappers and
examples check for that), without pgx it has the same methods; ``pgx.make`` is left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from ..errors import RulesError
from ..kernels.batch import step_cap
from ..rules import RuleSet, parse_rules
from ..rules.base import check_history
from ..rules.family import family_of
from ..rules.options import AlignmentOptions, SowingOptions
from ..rules.symmetry import Symmetry
from .alignment import AlignmentRules, AlignmentState
from .sowing import SowingRules, SowingState
from .state import Array, State, register, select

if TYPE_CHECKING:
    _EnvBase = object
else:
    try:  # pgx's base class where pgx is installed; the environment works without it
        from pgx import Env as _EnvBase
    except ImportError:  # pragma: no cover - depends on what is installed
        _EnvBase = object

#: the sowing rule sets covered: any option, with at most this many holes and seeds
MAX_JAX_PITS = 8
MAX_JAX_SEEDS = 8

COVERAGE = (f"nugar.jax covers Kalah and Dracala (the sowing family) with pits up to "
            f"{MAX_JAX_PITS}, seeds up to {MAX_JAX_SEEDS} and every sowing option, and Dara "
            f"and Dala (the alignment family) with every alignment option")

VERSION = "v0"


def check_covered(rules: RuleSet) -> None:
    """Refuse, with ``RulesError``, a rule set the JAX rules do not cover (see COVERAGE)."""
    opts = rules.options
    if isinstance(opts, SowingOptions) and (opts.pits > MAX_JAX_PITS
                                            or opts.seeds > MAX_JAX_SEEDS):
        raise RulesError(f"{rules.text}: pits={opts.pits}, seeds={opts.seeds} is not covered; "
                         f"{COVERAGE}")


class Env(_EnvBase):
    """One rule set's game with pgx's interface; made by :func:`make`.

    ``init(key)`` gives the starting state (the games have no chance: the key is not used);
    ``step(state, action, key=None)`` plays one decision. Both are pure functions of arrays,
    for ``jax.jit`` and ``jax.vmap``. As in pgx: stepping a finished game changes nothing and
    gives zero rewards; an illegal action ends the game, the player who made it losing
    (reward -1, the other +1, ``terminated``). Every end of the rules, draws by repetition or
    by the quiet limit included, is ``terminated``; ``truncated`` is only the cap
    ``max_steps`` (decisions since ``init``, off by default).
    """

    def __init__(self, rules: RuleSet, *, turn_board: bool = False,
                 max_steps: int | None = None) -> None:
        self.rules = rules
        self.turn_board = bool(turn_board)
        step_cap(max_steps)  # refuses a bad value with ValueError
        self.max_steps = max_steps
        opts = rules.options
        self._rules: SowingRules | AlignmentRules
        if isinstance(opts, SowingOptions):
            self._rules = SowingRules(opts)
        elif isinstance(opts, AlignmentOptions):
            self._rules = AlignmentRules(opts)
        else:  # pragma: no cover - the two families are all there are
            raise RulesError(f"{rules.text}: {COVERAGE}")

    # --- pgx's interface -----------------------------------------------------------------------
    @property
    def id(self) -> str:
        """``nugar/`` and the rule-set text, e.g. ``nugar/kalah(pits=4,seeds=3)``."""
        return f"nugar/{self.rules.text}"

    @property
    def version(self) -> str:
        return VERSION

    @property
    def num_players(self) -> int:
        return 2

    @property
    def num_actions(self) -> int:
        """Size of the action space: the codes of ``docs/envs.md``."""
        return self._rules.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return self._rules.observation_shape

    @property
    def symmetries(self) -> tuple[Symmetry, ...]:
        """The board symmetries the rules keep, the identity first (``rules/symmetry.py``):
        each maps action codes (``.actions``, ``.action_vector``) and observations
        (``.observation``, on JAX arrays too), as the other faces' ``Encoder.symmetries``."""
        return family_of(self.rules).parts.symmetries(self.rules)

    def init(self, key: Array) -> State:
        """The starting state with its observation (``key`` is accepted and not used)."""
        state = self._init(key).replace(_env_id=self.id)
        return state.replace(observation=self._observe(state, state.current_player))

    def step(self, state: State, action: Array, key: Array | None = None) -> State:
        """Play ``action`` in ``state`` (``key`` is accepted and not used: no chance)."""
        action = jnp.asarray(action, jnp.int32)
        done = state.terminated | state.truncated
        codes = jnp.arange(self.num_actions, dtype=jnp.int32)
        legal = jnp.any(state.legal_action_mask & (codes == action))
        played = self._step(state, jnp.where(legal, action, jnp.argmax(state.legal_action_mask)),
                            key)
        nxt = select(legal & ~done, played, state)
        # an illegal action loses: the position is kept, with the mover's defeat recorded; a
        # finished game stays as it is, with zero rewards
        refused = ~legal & ~done
        penalty = jnp.where(jnp.arange(2) == state.current_player, -1.0, 1.0)
        rewards = jnp.where(refused, penalty.astype(jnp.float32), nxt.rewards)
        rewards = jnp.where(done, jnp.zeros_like(rewards), rewards)
        terminated = nxt.terminated | refused
        count = state._step_count + jnp.where(done, 0, 1)
        # the user's step cap cuts off a game still running by its rules; a finished game
        # keeps the flags it ended with
        truncated = state.truncated
        if self.max_steps is not None:
            truncated = truncated | (~terminated & (count >= self.max_steps))
        over = terminated | truncated
        nxt = nxt.replace(rewards=rewards, terminated=terminated, truncated=truncated,
                          legal_action_mask=nxt.legal_action_mask | over,
                          _step_count=count)
        return nxt.replace(observation=self._observe(nxt, nxt.current_player))

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """The observation of ``state`` for ``player_id`` (0 or 1; by default the player to
        decide): the planes or vector of ``docs/envs.md``."""
        player = state.current_player if player_id is None else jnp.asarray(player_id)
        return self._observe(state, player)

    # --- what pgx's base class asks of a game ----------------------------------------------------
    def _init(self, key: Array) -> State:
        return self._rules.initial()

    def _step(self, state: State, action: Array, key: Array | None) -> State:
        rules = self._rules
        if isinstance(rules, SowingRules):
            assert isinstance(state, SowingState)
            return rules.apply(state, action)
        assert isinstance(state, AlignmentState)
        return rules.apply(state, action)

    def _observe(self, state: State, player_id: Array) -> Array:
        rules = self._rules
        if isinstance(rules, SowingRules):
            assert isinstance(state, SowingState)
            return jax.lax.stop_gradient(rules.observe(state, player_id))
        assert isinstance(state, AlignmentState)
        return jax.lax.stop_gradient(rules.observe(state, player_id, self.turn_board))

    def __repr__(self) -> str:
        return (f"nugar.jax.Env({self.rules.text!r}, turn_board={self.turn_board}, "
                f"max_steps={self.max_steps})")


# --- observations with history: make(rules, history=k) -------------------------------------
# An AlphaZero-style network sees the last positions stacked, not the present one alone
# (AlphaZero took the last eight: "A general reinforcement learning algorithm that masters
# chess, shogi, and Go through self-play", Silver et al., Science 2018,
# https://www.science.org/doi/10.1126/science.aar6404). HistoryEnv keeps in its state the
# position rows of each player's observation for the last k positions
# (``Observation.position_rows``: the two piece planes of Dara and Dala, the holes and stores
# of sowing) and observes them newest first, then the present observation's other rows
# (player to move, phase, hands, counters) once: the numbers of ``Encoder.observe_history``.
# Positions before the start are zeros. Nothing here knows a family: the frames are sliced
# from the environment's own observations.


@dataclass(frozen=True)
class HistoryState(State):
    """The state of a :class:`HistoryEnv`: pgx's public fields (the observation with
    history), ``_inner`` the state of the plain environment and ``_frames`` ``(k, 2, m,
    ...)``: the position rows of each player's observation, newest first."""

    _inner: State
    _frames: Array

    def _picture(self, size: float, ink: str) -> tuple[str, float, float]:
        return self._inner._picture(size, ink)


register(HistoryState)


class HistoryEnv(Env):
    """:class:`Env` whose observation stacks the last ``history`` positions (the comment
    above; ``make(rules, history=k)``)."""

    def __init__(self, rules: RuleSet, *, history: int, turn_board: bool = False,
                 max_steps: int | None = None) -> None:
        super().__init__(rules, turn_board=turn_board, max_steps=max_steps)
        self.history = check_history(history)
        parts = family_of(self.rules).parts
        self.position_rows = int(parts.observation().position_rows(parts.params(
            self.rules.options)))

    @property
    def observation_shape(self) -> tuple[int, ...]:
        first, *rest = super().observation_shape
        m = self.position_rows
        return (self.history * m + first - m, *rest)

    def _frame(self, inner: State) -> Array:
        """The position rows of both players' observations of ``inner``: ``(2, m, ...)``."""
        m = self.position_rows
        return jnp.stack([self._observe(inner, jnp.asarray(p))[:m] for p in (0, 1)])

    def _wrap(self, inner: State, frames: Array) -> HistoryState:
        out = HistoryState(current_player=inner.current_player, observation=inner.observation,
                           rewards=inner.rewards, terminated=inner.terminated,
                           truncated=inner.truncated,
                           legal_action_mask=inner.legal_action_mask,
                           _step_count=inner._step_count, _env_id=self.id, _inner=inner,
                           _frames=frames)
        return out.replace(observation=self.observe(out))

    def init(self, key: Array) -> HistoryState:
        inner = super().init(key)
        now = self._frame(inner)
        frames = jnp.zeros((self.history, *now.shape), now.dtype).at[0].set(now)
        return self._wrap(inner, frames)

    def step(self, state: State, action: Array, key: Array | None = None) -> HistoryState:
        assert isinstance(state, HistoryState)
        # the public flags rule (a wrapper such as auto_reset clears them to step on)
        before = state._inner.replace(terminated=state.terminated, truncated=state.truncated)
        inner = super().step(before, action, key)
        moved = inner._step_count != before._step_count
        shifted = jnp.concatenate([self._frame(inner)[None], state._frames[:-1]])
        return self._wrap(inner, jnp.where(moved, shifted, state._frames))

    def observe(self, state: State, player_id: Array | None = None) -> Array:
        """The observation with history of ``state`` for ``player_id`` (0 or 1; by default the
        player to decide)."""
        assert isinstance(state, HistoryState)
        player = state.current_player if player_id is None else jnp.asarray(player_id)
        frames = jnp.where(player == 0, state._frames[:, 0], state._frames[:, 1])
        now = self._observe(state._inner, player)
        stacked = frames.reshape((-1, *frames.shape[2:]))
        return jnp.concatenate([stacked, now[self.position_rows:]])

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]}, history={self.history})"


def make(rules: str | RuleSet, *, turn_board: bool = False,
         max_steps: int | None = None, history: int | None = None) -> Env:
    """The environment of ``rules`` (a rule-set text such as ``"kalah(pits=4,seeds=3)"`` or a
    ``RuleSet``); ``turn_board``: observe Dara and Dala with the board turned half round for
    the second player (his side then is row 0, as the first player's is; action codes do not
    change); ``max_steps``: cut a game off as ``truncated`` after that many decisions (off by
    default: a game then ends only by its rules, as ``terminated``); ``history``: observe the
    last ``history`` positions stacked (a :class:`HistoryEnv`; ``docs/envs.md``). Raises
    ``RulesError`` for a bad rule set or one the JAX rules do not cover, ``ValueError`` for a
    bad ``max_steps`` or ``history``.

    >>> env = make("kalah(pits=4,seeds=3)")
    >>> env.id, env.num_actions, env.observation_shape
    ('nugar/kalah(pits=4,seeds=3)', 4, (14,))
    """
    parsed = parse_rules(rules)
    check_covered(parsed)
    if history is not None:
        return HistoryEnv(parsed, turn_board=turn_board, max_steps=max_steps, history=history)
    return Env(parsed, turn_board=turn_board, max_steps=max_steps)



def auto_reset(env: Env) -> Callable[[State, Array, Array | None], State]:
    """``env.step`` where a game that ends starts again at once, as the batched simulator's
    ``auto_reset`` does: the state returned for it is the new game's (observation, mask,
    player), with the ending step's ``rewards``, ``terminated`` and ``truncated`` (flags that
    the next step clears: they belong to the game that ended). pgx users may use
    ``pgx.experimental.auto_reset`` instead, which restarts on the following step."""

    def step(state: State, action: Array, key: Array | None = None) -> State:
        no = jnp.zeros_like(state.terminated)
        after = env.step(state.replace(terminated=no, truncated=no), action, key)
        fresh = env.init(jax.random.PRNGKey(0) if key is None else key)
        restarted = fresh.replace(rewards=after.rewards, terminated=after.terminated,
                                  truncated=after.truncated)
        return select(after.terminated | after.truncated, restarted, after)

    return step
