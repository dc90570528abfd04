#!/usr/bin/env python
"""AlphaZero-style self-play for Kalah, with ``mctx`` and a small Flax network on ``nugar.jax``.

The game runs as JAX code (``nugar.jax.make``) inside the search and the self-play loop, all
under ``jax.jit`` and ``jax.vmap``: many games are played at once, each move chosen by
Gumbel MuZero search (``mctx.gumbel_muzero_policy``) with the network as prior and value;
the network then learns the search's policy and the games' outcomes. Every few minutes the
trained player (search with the network, ``--eval-simulations`` per move) plays nugar's own
levels (``level:4`` and ``level:6`` by default) from both sides, and the value head is
compared with the exact results of nugar's solver on the positions of those games.

Needs the example's own requirements (not the package's)::

    pip install -e ".[jax]" -r examples/requirements-alphazero.txt
    python examples/alphazero_kalah.py                        # kalah(pits=4,seeds=3), 30 min
    python examples/alphazero_kalah.py --rules kalah --minutes 60 --batch 2048   # on a GPU

What it prints and the figures measured: docs/envs.md, "Training with mctx".
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, cast

import flax.linen as nn
import jax
import jax.numpy as jnp
import mctx  # type: ignore[import-untyped]
import numpy as np
import optax  # type: ignore[import-untyped]

import nugar
import nugar.jax
from nugar.ai import Agent, make_agent
from nugar.rules.options import SowingOptions
from nugar.solver import Solver

Params = Any
State = nugar.jax.State

#: the transposition table of each opponent agent, in MB: one agent per game of a match, all
#: at once, so not the default 256 MB each
OPPONENT_TABLE_MB = 16

#: the logit of an illegal move (the lowest float32)
NEG_INF = float(np.finfo(np.float32).min)


@dataclass
class Config:
    """The options of a run (the command line's flags, see ``parse_args``)."""

    rules: str = "kalah(pits=4,seeds=3)"
    minutes: float = 30.0
    batch: int = 256
    unroll: int = 32
    simulations: int = 32
    random_moves: int = 6
    eval_simulations: int = 64
    eval_games: int = 40
    eval_every: float = 2.0
    eval_at_start: bool = True
    final_games: int = 100
    opponents: tuple[str, ...] = ("level:4", "level:6")
    target: float = 0.7
    stop_at_target: bool = False
    hidden: int = 128
    layers: int = 3
    learning_rate: float = 1e-3
    train_batch: int = 512
    seed: int = 0
    iterations: int | None = None
    value_check: str = "auto"
    save: str | None = None
    load: str | None = None
    quiet: bool = False


# --- the network -------------------------------------------------------------------------------


class PolicyValueNet(nn.Module):
    """A residual perceptron over the observation vector: move logits and a value in [-1, 1]
    for the player to move (the observation is seen from that player, docs/envs.md)."""

    num_actions: int
    hidden: int = 128
    layers: int = 3
    cell_scale: float = 1.0
    n_cells: int = 0

    @nn.compact
    def __call__(self, obs: jax.Array) -> tuple[jax.Array, jax.Array]:
        # the cells are shares of all seeds (small numbers): scaled so that a starting hole
        # reads 1, the four flags left as they are
        scale = jnp.where(jnp.arange(obs.shape[-1]) < self.n_cells, self.cell_scale, 1.0)
        x = nn.relu(nn.Dense(self.hidden)(obs * scale))
        for _ in range(self.layers - 1):
            x = x + nn.relu(nn.Dense(self.hidden)(nn.LayerNorm()(x)))
        logits = nn.Dense(self.num_actions)(x)
        v = nn.relu(nn.Dense(self.hidden // 2)(x))
        value = jnp.tanh(nn.Dense(1)(v))[..., 0]
        return logits, value


class Batch(NamedTuple):
    """What self-play gives per step and game: the position seen by the mover, its legal
    moves, the search's improved policy, and what the step brought (for the value targets)."""

    observation: jax.Array
    legal: jax.Array
    policy: jax.Array
    reward: jax.Array  # for the player who moved
    done: jax.Array  # the step ended the game (the state that follows is a new game)
    same_player: jax.Array  # the mover moves again (a bonus step)


@dataclass
class Evaluation:
    """One evaluation: score per opponent, the value head's error, and the clocks."""

    iteration: int
    seconds: float
    cpu_seconds: float
    positions_trained: int
    scores: dict[str, tuple[float, int, int, int]] = field(default_factory=dict)
    value_mae: float = math.nan
    value_accuracy: float = math.nan
    value_positions: int = 0


@dataclass
class Report:
    """What a run returns: every evaluation, and when the target was first reached."""

    config: Config
    evaluations: list[Evaluation] = field(default_factory=list)
    target_reached: Evaluation | None = None
    iterations: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0


def cpu_seconds() -> float:
    """User and system time of this process (all its threads)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# --- the search: mctx over the JAX game --------------------------------------------------------


class Trainer:
    """Self-play, training and evaluation for one rule set and one configuration."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.env = nugar.jax.make(config.rules)
        rules = self.env.rules
        if not isinstance(rules.options, SowingOptions):
            raise SystemExit(f"{rules.text}: this example trains on Kalah-family rule sets")
        opts = rules.options
        self.pits = opts.pits
        self.total_seeds = 2 * opts.pits * opts.seeds
        self.net = PolicyValueNet(self.env.num_actions, config.hidden, config.layers,
                                  cell_scale=float(2 * opts.pits),
                                  n_cells=2 * opts.pits + 2)
        key = jax.random.PRNGKey(config.seed)
        self.key, init_key = jax.random.split(key)
        dummy = jnp.zeros((1, *self.env.observation_shape), jnp.float32)
        self.params: Params = self.net.init(init_key, dummy)
        if config.load:
            from flax import serialization

            with open(config.load, "rb") as f:
                self.params = serialization.from_bytes(self.params, f.read())
        self.optimizer = optax.adam(config.learning_rate)
        self.opt_state = self.optimizer.init(self.params)
        self.step_reset = nugar.jax.auto_reset(self.env)
        self.states: State = jax.vmap(self.env.init)(
            jax.random.split(jax.random.PRNGKey(config.seed + 1), config.batch))
        self._selfplay = jax.jit(self._selfplay_fn)
        self._train = jax.jit(self._train_fn)
        self._eval_search = jax.jit(self._eval_search_fn)
        self._eval_init = jax.jit(jax.vmap(self.env.init))
        self._eval_step = jax.jit(jax.vmap(self.env.step))
        self.positions_trained = 0

    def _forward(self, params: Params, obs: jax.Array, legal: jax.Array
                 ) -> tuple[jax.Array, jax.Array]:
        logits, value = cast(tuple[jax.Array, jax.Array], self.net.apply(params, obs))
        logits = logits - jnp.max(logits, axis=-1, keepdims=True)
        return jnp.where(legal, logits, NEG_INF), value

    def _recurrent(self, params: Params, key: jax.Array, action: jax.Array, state: State
                   ) -> tuple[mctx.RecurrentFnOutput, State]:
        """One step inside the tree: the reward is the mover's; the child's value counts
        for the parent with sign +1 after a bonus step (same player) and -1 otherwise; a
        finished game has no value beyond its reward."""
        nxt = jax.vmap(self.env.step)(state, action)
        logits, value = self._forward(params, nxt.observation, nxt.legal_action_mask)
        mover = state.current_player
        reward = jnp.take_along_axis(nxt.rewards, mover[:, None], axis=1)[:, 0]
        done = nxt.terminated | nxt.truncated
        discount = jnp.where(done, 0.0, jnp.where(nxt.current_player == mover, 1.0, -1.0))
        return mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits,
                                      value=jnp.where(done, 0.0, value)), nxt

    def _search(self, params: Params, key: jax.Array, states: State, simulations: int,
                gumbel_scale: float) -> tuple[mctx.PolicyOutput[Any], jax.Array]:
        logits, value = self._forward(params, states.observation, states.legal_action_mask)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)
        out = mctx.gumbel_muzero_policy(
            params=params, rng_key=key, root=root, recurrent_fn=self._recurrent,
            num_simulations=simulations, invalid_actions=~states.legal_action_mask,
            max_num_considered_actions=self.env.num_actions, gumbel_scale=gumbel_scale)
        return out, value

    # --- self-play ------------------------------------------------------------------------
    def _selfplay_fn(self, params: Params, states: State, key: jax.Array
                     ) -> tuple[State, Batch]:
        """``unroll`` steps of every game of the batch; a finished game starts again."""
        sims = self.config.simulations

        def one(states: State, key: jax.Array) -> tuple[State, Batch]:
            opening = self.config.random_moves
            k1, k2, k3 = jax.random.split(key, 3) if opening > 0 else (key, key, key)
            out, _ = self._search(params, k1, states, sims, 1.0)
            action = out.action
            if opening > 0:
                # each of the first decisions of a game is, on the toss of a coin, a random
                # legal move: the search's own choice hardly varies once the network is
                # trained (Gumbel noise is small beside the values), and games that all
                # follow one line teach the network about that line only
                legal = states.legal_action_mask
                uniform = jax.random.categorical(k2, jnp.where(legal, 0.0, NEG_INF))
                coin = jax.random.bernoulli(k3, 0.5, action.shape)
                action = jnp.where((states._step_count < opening) & coin, uniform, action)
            nxt = jax.vmap(lambda s, a: self.step_reset(s, a, None))(states, action)
            mover = states.current_player
            reward = jnp.take_along_axis(nxt.rewards, mover[:, None], axis=1)[:, 0]
            return nxt, Batch(states.observation, states.legal_action_mask, out.action_weights,
                              reward, nxt.terminated | nxt.truncated,
                              nxt.current_player == mover)

        keys = jax.random.split(key, self.config.unroll)
        return jax.lax.scan(one, states, keys)

    # --- learning -------------------------------------------------------------------------
    @staticmethod
    def value_targets(batch: Batch) -> tuple[jax.Array, jax.Array]:
        """The outcome of each position's game for its mover (+1, 0, -1), read backwards
        from the game's end within the window, and whether the game ended in the window
        (positions of a game still running at its end get no value target)."""

        def back(carry: tuple[jax.Array, jax.Array], x: tuple[jax.Array, ...]
                 ) -> tuple[tuple[jax.Array, jax.Array], tuple[jax.Array, jax.Array]]:
            later, known = carry
            reward, done, same = x
            value = jnp.where(done, reward, jnp.where(same, later, -later))
            known = done | known
            return (value, known), (value, known)

        zeros = jnp.zeros_like(batch.reward[0])
        _, (values, known) = jax.lax.scan(
            back, (zeros, zeros.astype(bool)), (batch.reward, batch.done, batch.same_player),
            reverse=True)
        return values, known

    def _loss(self, params: Params, obs: jax.Array, legal: jax.Array, policy: jax.Array,
              value: jax.Array, known: jax.Array) -> tuple[jax.Array, jax.Array]:
        logits, predicted = self._forward(params, obs, legal)
        policy_loss = jnp.mean(optax.softmax_cross_entropy(logits, policy))
        weight = known.astype(jnp.float32)
        value_loss = jnp.sum(weight * (predicted - value) ** 2) / jnp.maximum(weight.sum(), 1)
        return policy_loss + value_loss, value_loss

    def _train_fn(self, params: Params, opt_state: optax.OptState, batch: Batch,
                  key: jax.Array) -> tuple[Params, optax.OptState, jax.Array]:
        """One pass over the window's positions in shuffled minibatches."""
        values, known = self.value_targets(batch)
        flat = jax.tree_util.tree_map(lambda a: a.reshape(-1, *a.shape[2:]),
                                      (batch.observation, batch.legal, batch.policy, values,
                                       known))
        n = flat[0].shape[0]
        size = min(self.config.train_batch, n)
        steps = n // size
        order = jax.random.permutation(key, n)[:steps * size].reshape(steps, size)

        def update(carry: tuple[Params, optax.OptState], idx: jax.Array
                   ) -> tuple[tuple[Params, optax.OptState], jax.Array]:
            params, opt_state = carry
            parts = jax.tree_util.tree_map(lambda a: a[idx], flat)
            grads, value_loss = jax.grad(self._loss, has_aux=True)(params, *parts)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), value_loss

        (params, opt_state), value_losses = jax.lax.scan(update, (params, opt_state), order)
        return params, opt_state, jnp.mean(value_losses)

    def iterate(self) -> float:
        """One window of self-play and one pass of learning on it; the value loss."""
        self.key, k1, k2 = jax.random.split(self.key, 3)
        self.states, batch = self._selfplay(self.params, self.states, k1)
        self.params, self.opt_state, value_loss = self._train(self.params, self.opt_state,
                                                              batch, k2)
        self.positions_trained += self.config.batch * self.config.unroll
        return float(value_loss)

    # --- evaluation against nugar's agents --------------------------------------------------
    def _eval_search_fn(self, params: Params, states: State, key: jax.Array
                        ) -> tuple[jax.Array, jax.Array]:
        out, value = self._search(params, key, states, self.config.eval_simulations, 0.0)
        return out.action, value

    def solver_used(self) -> bool:
        check = self.config.value_check
        return check == "on" or (check == "auto" and self.total_seeds <= 32)

    def play_match(self, opponent: str, games: int, seed: int, solver: Solver | None,
                   values: list[tuple[float, int]]) -> tuple[float, int, int, int]:
        """``games`` games against ``opponent`` (a nugar agent spec), all played at once:
        the trained player starts the even-numbered ones; each pair of games opens with the
        same two random decisions (as ``nugar match`` does). The JAX states and nugar games
        advance together by the same action codes (checked at every step). Appends to
        ``values`` the network's value and the solver's exact result (1, 0, -1) for the
        player to move in every position met. Returns the score (wins + draws / 2, over
        the games), wins, draws, losses."""
        rng = random.Random(seed)
        # one agent per game, seeded per game, as nugar match plays them; a table of
        # OPPONENT_TABLE_MB each (far more than a game's searches at these node budgets)
        agents: list[Agent] = []
        for i in range(games):
            agent = make_agent(opponent, table=OPPONENT_TABLE_MB)
            agent.reseed(random.Random(f"{seed}:{i}").randrange(1 << 31))
            agents.append(agent)
        batch = self._eval_init(jax.random.split(jax.random.PRNGKey(seed), games))
        nugar_games = [nugar.new_game(self.env.rules) for _ in range(games)]
        ours = [0 if i % 2 == 0 else 1 for i in range(games)]  # seat of the trained player
        pair_seeds = [rng.randrange(1 << 62) for _ in range(games // 2 + 1)]
        openings = [random.Random(pair_seeds[i // 2]) for i in range(games)]
        decisions = [0] * games
        key = jax.random.PRNGKey(seed)
        while not all(g.is_over for g in nugar_games):
            key, sub = jax.random.split(key)
            actions_ours, net_values = self._eval_search(self.params, batch, sub)
            actions_ours = np.asarray(actions_ours)
            net_values = np.asarray(net_values)
            player = np.asarray(batch.current_player)
            actions = np.zeros(games, np.int32)
            for i, game in enumerate(nugar_games):
                if game.is_over:
                    continue
                assert player[i] == game.to_move - 1, "the JAX and nugar games disagree"
                if solver is not None:
                    values.append((float(net_values[i]), solver.result(game.state)))
                if decisions[i] < 2:  # the pair's shared opening
                    legal = game.legal_actions()
                    action = legal[openings[i].randrange(len(legal))]
                elif player[i] == ours[i]:
                    action = int(actions_ours[i])
                else:
                    action = game.move_to_action(agents[i].choose(game))
                game.push_action(action)
                actions[i] = action
                decisions[i] += 1
            batch = self._eval_step(batch, jnp.asarray(actions))
        over = np.asarray(batch.terminated | batch.truncated)
        assert over.all(), "a nugar game ended where the JAX game did not"
        wins = draws = losses = 0
        for i, game in enumerate(nugar_games):
            outcome = game.outcome
            assert outcome is not None
            if outcome.winner is None:
                draws += 1
            elif outcome.winner - 1 == ours[i]:
                wins += 1
            else:
                losses += 1
        return (wins + 0.5 * draws) / games, wins, draws, losses

    def evaluate(self, iteration: int, start: float, cpu_start: float, games: int
                 ) -> Evaluation:
        """Matches of ``games`` games against every opponent and the value head's error on
        their positions."""
        solver = (Solver(self.env.rules, max_memory_mb=64, build_db=False)
                  if self.solver_used() else None)
        values: list[tuple[float, int]] = []
        ev = Evaluation(iteration, 0.0, 0.0, self.positions_trained)
        for k, opponent in enumerate(self.config.opponents):
            ev.scores[opponent] = self.play_match(opponent, games,
                                                  1000 * iteration + k, solver, values)
        if values:
            predicted = np.array([v for v, _ in values])
            exact = np.array([r for _, r in values], dtype=np.float64)
            ev.value_mae = float(np.mean(np.abs(predicted - exact)))
            # the value read as a result: above 1/3 a win, below -1/3 a loss, else a draw
            said = np.where(predicted > 1 / 3, 1, np.where(predicted < -1 / 3, -1, 0))
            ev.value_accuracy = float(np.mean(said == exact))
            ev.value_positions = len(values)
        ev.seconds = time.perf_counter() - start
        ev.cpu_seconds = cpu_seconds() - cpu_start
        return ev


def describe(ev: Evaluation) -> str:
    """One line of an evaluation, as the run prints it."""
    parts = [f"[{ev.seconds / 60:6.2f} min wall, {ev.cpu_seconds / 60:6.2f} min CPU] "
             f"iteration {ev.iteration}, {ev.positions_trained:,} positions trained:"]
    for opponent, (score, w, d, losses) in ev.scores.items():
        parts.append(f"vs {opponent} {100 * score:5.1f}% (+{w} ={d} -{losses})")
    if ev.value_positions:
        parts.append(f"value vs solver: MAE {ev.value_mae:.3f}, "
                     f"result right {100 * ev.value_accuracy:.1f}% "
                     f"on {ev.value_positions} positions")
    return "  ".join(parts)


def train(config: Config, log: Callable[[str], None] | None = None) -> Report:
    """Train for ``config.minutes`` of wall-clock time, evaluations included (or
    ``config.iterations`` windows, or up to the target when ``stop_at_target``), evaluating
    before training, every ``eval_every`` minutes, and at the end with ``final_games``
    games per opponent (training stops early enough for that last one to end in time)."""
    say = log if log is not None else (lambda s: None if config.quiet else print(s, flush=True))
    start, cpu_start = time.perf_counter(), cpu_seconds()
    trainer = Trainer(config)
    report = Report(config)
    say(f"{trainer.env.id}: {jax.default_backend()} backend, {config.batch} games at once, "
        f"{config.unroll} steps per window, {config.simulations} simulations per move "
        f"(evaluation: {config.eval_simulations}, {config.eval_games} games per opponent, "
        f"both sides), value check against the solver: "
        f"{'on' if trainer.solver_used() else 'off'}")
    deadline = start + 60 * config.minutes
    next_eval = start if config.eval_at_start else start + 60 * config.eval_every
    iteration = 0
    first = config.opponents[0] if config.opponents else None
    eval_seconds = 0.0  # the last evaluation's duration, to foresee the final one's
    while True:
        now = time.perf_counter()
        final_seconds = eval_seconds * config.final_games / max(config.eval_games, 1)
        out_of_time = now + final_seconds >= deadline
        capped = config.iterations is not None and iteration >= config.iterations
        due = now >= next_eval
        if due or out_of_time or capped:
            # a regular evaluation too near the end to leave room for the final one is it
            last = out_of_time or capped or now + eval_seconds + final_seconds >= deadline
            ev = trainer.evaluate(iteration, start, cpu_start,
                                  config.final_games if last else config.eval_games)
            report.evaluations.append(ev)
            say(("final " if last else "") + describe(ev))
            if not last:
                eval_seconds = time.perf_counter() - now
            next_eval = time.perf_counter() + 60 * config.eval_every
            if first is not None and report.target_reached is None \
                    and ev.scores[first][0] >= config.target:
                report.target_reached = ev
                say(f"target reached: {100 * config.target:.0f}% against {first} after "
                    f"{ev.seconds / 60:.2f} min wall-clock, {ev.cpu_seconds / 60:.2f} min CPU")
                if config.stop_at_target:
                    break
            if last:
                break
        value_loss = trainer.iterate()
        iteration += 1
        if iteration == 1 or iteration % 20 == 0:
            say(f"  iteration {iteration}: value loss {value_loss:.3f}, "
                f"{time.perf_counter() - start:.0f} s")
    report.iterations = iteration
    report.seconds = time.perf_counter() - start
    report.cpu_seconds = cpu_seconds() - cpu_start
    if config.save:
        from flax import serialization

        with open(config.save, "wb") as f:
            f.write(serialization.to_bytes(trainer.params))
        say(f"network saved to {config.save}")
    if first is not None and report.target_reached is None:
        say(f"target of {100 * config.target:.0f}% against {first} not reached")
    say(f"done: {iteration} iterations in {report.seconds / 60:.2f} min wall-clock, "
        f"{report.cpu_seconds / 60:.2f} min CPU")
    return report


def parse_args(argv: Sequence[str] | None = None) -> Config:
    d = Config()
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--rules", default=d.rules, help="a Kalah rule set (default %(default)s)")
    p.add_argument("--minutes", type=float, default=d.minutes,
                   help="wall-clock budget, evaluations included (default %(default)s)")
    p.add_argument("--batch", type=int, default=d.batch, help="self-play games at once")
    p.add_argument("--unroll", type=int, default=d.unroll,
                   help="self-play steps per training window")
    p.add_argument("--simulations", type=int, default=d.simulations,
                   help="search simulations per self-play move")
    p.add_argument("--random-moves", type=int, default=d.random_moves,
                   help="each of the first N decisions of a self-play game is a random legal "
                        "move with probability 1/2 (default %(default)s; 0: none)")
    p.add_argument("--eval-simulations", type=int, default=d.eval_simulations,
                   help="search simulations per move of the trained player in evaluations")
    p.add_argument("--eval-games", type=int, default=d.eval_games,
                   help="games per opponent per evaluation (half with each side)")
    p.add_argument("--eval-every", type=float, default=d.eval_every,
                   help="minutes between evaluations")
    p.add_argument("--no-eval-at-start", action="store_true",
                   help="no evaluation of the untrained network")
    p.add_argument("--final-games", type=int, default=d.final_games,
                   help="games per opponent in the closing evaluation")
    p.add_argument("--opponents", default=",".join(d.opponents),
                   help="nugar agent specs, comma-separated; the first one has the target")
    p.add_argument("--target", type=float, default=d.target,
                   help="score against the first opponent reported as reached")
    p.add_argument("--stop-at-target", action="store_true",
                   help="stop at the first evaluation that reaches the target")
    p.add_argument("--hidden", type=int, default=d.hidden)
    p.add_argument("--layers", type=int, default=d.layers)
    p.add_argument("--lr", type=float, default=d.learning_rate)
    p.add_argument("--train-batch", type=int, default=d.train_batch)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--iterations", type=int, default=None,
                   help="stop after this many training windows (0: evaluate only)")
    p.add_argument("--value-check", choices=("auto", "on", "off"), default=d.value_check,
                   help="compare the value head with the solver (auto: up to 32 seeds)")
    p.add_argument("--save", default=None, help="write the network's parameters here")
    p.add_argument("--load", default=None,
                   help="start from the parameters written by --save (with --iterations 0: "
                        "evaluate them)")
    a = p.parse_args(argv)
    return Config(rules=a.rules, minutes=a.minutes, batch=a.batch, unroll=a.unroll,
                  simulations=a.simulations, random_moves=a.random_moves,
                  eval_simulations=a.eval_simulations,
                  eval_games=a.eval_games, eval_every=a.eval_every,
                  eval_at_start=not a.no_eval_at_start, final_games=a.final_games,
                  opponents=tuple(s for s in a.opponents.split(",") if s),
                  target=a.target, stop_at_target=a.stop_at_target, hidden=a.hidden,
                  layers=a.layers, learning_rate=a.lr, train_batch=a.train_batch,
                  seed=a.seed, iterations=a.iterations, value_check=a.value_check,
                  save=a.save, load=a.load)


def main(argv: Sequence[str] | None = None) -> int:
    report = train(parse_args(argv))
    return 0 if report.evaluations else 1


if __name__ == "__main__":
    sys.exit(main())
