"""``nugar.jax.make``: an environment with pgx's interface over the JAX rules of a rule set.

Where pgx is installed the environment class is also a ``pgx.Env`` (pgx's wrappers and
examples check for that), without pgx it has the same methods; ``pgx.make`` is left alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp

from ..errors import RulesError
from ..kernels.batch import step_cap
from ..rules import RuleSet, parse_rules
from ..rules.family import family_of
from ..rules.options import AlignmentOptions, SowingOptions
from ..rules.symmetry import Symmetry
from .alignment import AlignmentRules, AlignmentState
from .sowing import SowingRules, SowingState
from .state import Array, State, select

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
        return state.replace(observation=self.observe(state))

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
        return nxt.replace(observation=self.observe(nxt))

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


def make(rules: str | RuleSet, *, turn_board: bool = False,
         max_steps: int | None = None) -> Env:
    """The environment of ``rules`` (a rule-set text such as ``"kalah(pits=4,seeds=3)"`` or a
    ``RuleSet``); ``turn_board``: observe Dara and Dala with the board turned half round for
    the second player (his side then is row 0, as the first player's is; action codes do not
    change); ``max_steps``: cut a game off as ``truncated`` after that many decisions (off by
    default: a game then ends only by its rules, as ``terminated``). Raises ``RulesError`` for
    a bad rule set or one the JAX rules do not cover, ``ValueError`` for a bad ``max_steps``.

    >>> env = make("kalah(pits=4,seeds=3)")
    >>> env.id, env.num_actions, env.observation_shape
    ('nugar/kalah(pits=4,seeds=3)', 4, (14,))
    """
    parsed = parse_rules(rules)
    check_covered(parsed)
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
