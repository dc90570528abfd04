"""Matches and round robins between agents, in parallel worker processes.

A match alternates who starts: games ``2k`` and ``2k + 1`` share a short random opening
(``opening`` decisions, the same for both) with the colours swapped, so that deterministic
agents do not replay one game over and over and neither side gains from the opening. The
agents' own random choices (noise, blunders, ties) are seeded afresh for every game from the
game's seed and index, so that a game does not depend on which process plays it or what that
process played before: the same ``seed`` gives the same games, in one process, in worker
processes or on a Ray cluster (with searches bounded by depth or nodes; a time limit
depends on the machine's speed). Every game can be saved as a record
(``nugar.record.dumps``). The table gives wins, draws and losses of the first-named agent,
its score and the Elo difference with a 95% interval; a round robin adds a rating list
fitted to all its games at once (:func:`fit_ratings`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from .base import Agent, Limits

#: decisions after which a game still running is stopped and counted a draw (only reachable
#: with the draw rules switched off)
MAX_DECISIONS = 5000


@dataclass(frozen=True)
class GameSpec:
    """Everything a worker needs to play one game."""

    index: int
    rules: str
    first: str            # agent spec of the first player
    second: str           # agent spec of the second player
    a_first: bool         # whether agent A is the first player
    limits: Limits
    opening: int          # random decisions played before the agents take over
    opening_seed: int
    record: bool
    #: the transposition table of the game's search agents in MB (None: their own default)
    table_mb: float | None = None


@dataclass(frozen=True)
class GameResult:
    """How one game went, seen from agent A."""

    index: int
    a_first: bool
    result: str           # "1-0", "0-1" or "1/2-1/2"
    reason: str
    points_a: float
    decisions: int
    record: str | None


@dataclass
class MatchTable:
    """Results of agent A against agent B."""

    agent_a: str
    agent_b: str
    rules: str
    wins: int = 0
    draws: int = 0
    losses: int = 0
    results: list[GameResult] = field(default_factory=list)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Fraction of the points won by agent A (draws count half); 0.5 before any game."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def add(self, result: GameResult) -> None:
        self.results.append(result)
        if result.points_a == 1.0:
            self.wins += 1
        elif result.points_a == 0.0:
            self.losses += 1
        else:
            self.draws += 1

    def elo(self) -> tuple[float, float, float]:
        """Elo difference of A over B and its 95% interval (see :func:`elo_interval`)."""
        return elo_interval(self.wins, self.draws, self.losses)

    def to_json(self) -> dict[str, Any]:
        elo, lo, hi = self.elo()
        return {"agent_a": self.agent_a, "agent_b": self.agent_b, "rules": self.rules,
                "games": self.games, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "score": self.score, "elo": elo, "elo_low": lo,
                "elo_high": hi}


def elo_from_score(score: float) -> float:
    """Elo difference that gives an expected ``score`` (0 < score < 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(wins: int, draws: int, losses: int) -> tuple[float, float, float]:
    """Elo difference and its 95% interval from a match's wins, draws and losses.

    The interval is Wilson's score interval on the mean points per game (with the binomial
    variance, which is never smaller than the variance with draws), mapped through the
    logistic Elo curve. It stays sensible for a perfect or zero score, where the estimate
    itself is clamped half a point from the end so that every figure is finite.

    A one-sided result (every point to one agent) has no finite upper bound by likelihood:
    the open end there is the bound of the score with ``PRIOR_DRAWS`` virtual draws added
    (the prior BayesElo uses), so that an 8-0 still says how much higher it may be.
    """
    n = wins + draws + losses
    if n == 0:
        return 0.0, -math.inf, math.inf
    s = (wins + 0.5 * draws) / n
    eps = 0.5 / n

    def clamp(x: float) -> float:
        return min(max(x, eps), 1.0 - eps)

    low, high = _wilson(s, n)
    elo, lo, hi = (elo_from_score(clamp(s)), elo_from_score(clamp(low)),
                   elo_from_score(clamp(high)))
    if s in (0.0, 1.0):
        m = n + PRIOR_DRAWS
        p_low, p_high = _wilson((n * s + 0.5 * PRIOR_DRAWS) / m, m)
        if s == 1.0:
            hi = max(elo_from_score(p_high), elo)
        else:
            lo = min(elo_from_score(p_low), elo)
    return elo, lo, hi


#: virtual draws added to a one-sided match's bound and between every pair of a rating
#: list, as BayesElo's prior does (they keep every rating finite)
PRIOR_DRAWS = 2


def _wilson(s: float, n: float, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of a mean score ``s`` over ``n`` games."""
    denom = 1.0 + z * z / n
    centre = (s + z * z / (2 * n)) / denom
    half = z * math.sqrt(s * (1.0 - s) / n + z * z / (4.0 * n * n)) / denom
    return centre - half, centre + half


@dataclass(frozen=True)
class Rating:
    """One agent of a rating list: Elo relative to the list's mean, with its 95% interval."""

    agent: str
    elo: float
    elo_low: float
    elo_high: float


def fit_ratings(agents: Sequence[str], points: Sequence[Sequence[float]],
                games: Sequence[Sequence[float]], prior_draws: float = PRIOR_DRAWS
                ) -> list[Rating]:
    """Elo ratings fitted to all games at once by maximum likelihood, as BayesElo and Ordo
    do: ``points[i][j]`` is what agent i scored against j (draws half), ``games[i][j]`` how
    many games they played. The expected score of i against j is
    ``1 / (1 + 10 ** ((r_j - r_i) / 400))``; ``prior_draws`` virtual draws between every
    pair that met keep one-sided results finite. The ratings average 0; the intervals are
    1.96 standard deviations from the curvature of the likelihood at its maximum (the
    observed information). Agents that met nobody get 0 with an infinite interval."""
    import numpy as np

    k = len(agents)
    n = np.array(games, dtype=np.float64)
    w = np.array(points, dtype=np.float64)
    met = n > 0
    n = n + np.where(met, prior_draws, 0.0)
    w = w + np.where(met, 0.5 * prior_draws, 0.0)
    c = math.log(10.0) / 400.0
    r = np.zeros(k)
    hess = np.zeros((k, k))
    for _ in range(100):  # Newton's method on the concave log-likelihood
        e = 1.0 / (1.0 + np.power(10.0, (r[None, :] - r[:, None]) / 400.0))
        grad = c * (w - n * e).sum(axis=1)
        curv = c * c * n * e * e.T
        hess = curv - np.diag(curv.sum(axis=1))
        step = np.linalg.lstsq(-hess, grad, rcond=None)[0]
        r = r + step
        r -= r.mean()
        if np.abs(step).max() < 1e-9:
            break
    cov = np.linalg.pinv(-hess)
    out = []
    for i, agent in enumerate(agents):
        if not met[i].any():
            out.append(Rating(agent, 0.0, -math.inf, math.inf))
            continue
        half = 1.96 * math.sqrt(max(float(cov[i, i]), 0.0))
        out.append(Rating(agent, float(r[i]), float(r[i]) - half, float(r[i]) + half))
    return out


# --- one game ------------------------------------------------------------------------------

_agents: dict[tuple[str, float | None], Agent] = {}


def _agent(spec: str, table_mb: float | None = None) -> Agent:
    """One agent per spec and process, reused from game to game (its table is reset)."""
    from .agents import make_agent

    agent = _agents.get((spec, table_mb))
    if agent is None:
        agent = make_agent(spec, table=table_mb)
        _agents[(spec, table_mb)] = agent
    reset = getattr(agent, "reset", None)
    if callable(reset):
        reset()
    return agent


def play_game(spec: GameSpec) -> GameResult:
    """Play one game to its end (or ``MAX_DECISIONS``) and report it from A's side."""
    import nugar

    game = nugar.new_game(spec.rules)
    players = {1: _agent(spec.first, spec.table_mb), 2: _agent(spec.second, spec.table_mb)}
    for player, agent in players.items():
        # each game seeds the agents' own random choices from its opening seed: the same
        # match seed plays the same games in any process and order (locally or on Ray)
        agent.reseed(random.Random(f"{spec.opening_seed}:{spec.index}:{player}")
                     .randrange(1 << 31))
    rng = random.Random(spec.opening_seed)
    decisions = 0
    while not game.is_over and decisions < MAX_DECISIONS:
        if decisions < spec.opening:
            game.push_action(rng.choice(game.legal_actions()))
        else:
            game.push(players[game.to_move].choose(game, spec.limits))
        decisions += 1
    stopped = game.outcome is None
    if stopped:  # too long: scored as a draw, and the record says so
        game.adjudicate(None)
    outcome = game.outcome
    assert outcome is not None
    result, reason, winner = outcome.result, outcome.reason, outcome.winner
    a_player = 1 if spec.a_first else 2
    points = 0.5 if winner is None else (1.0 if winner == a_player else 0.0)
    text = None
    if spec.record:
        from ..record import dumps

        tags = {"First": spec.first, "Second": spec.second, "Round": str(spec.index + 1)}
        if spec.limits.time is not None:
            tags["TimeControl"] = f"{spec.limits.time:g}s/move"
        if stopped:
            tags["Annotator"] = f"stopped after {MAX_DECISIONS} decisions"
        text = dumps(game, tags)
    return GameResult(spec.index, spec.a_first, result, reason, points, decisions, text)


def _warm_worker() -> None:
    """Load the compiled kernels once per worker before its first game (the search and the
    rules of both families, so that no game of any rule set pays for loading them)."""
    import nugar

    from .search_setup import warm_up

    for rules in ("kalah", "dara"):
        game = nugar.new_game(rules)
        warm_up(game)
        warm_up(game, mcts=True)
        game.push_action(game.legal_actions()[0])


def _worker_ready(pause: float) -> tuple[int, float]:
    """A worker's process id and the time (``time.time``) it answered; ``pause`` keeps it
    busy a moment so that the other workers answer the other calls."""
    import os
    import time

    time.sleep(pause)
    return os.getpid(), time.time() - pause


class WorkerPool:
    """``workers`` processes started once, each loading the compiled kernels before its
    first task (``_warm_worker``) and keeping its agents from task to task.

    A start costs seconds per process (the interpreter, numba and the kernels loaded from
    its cache: ``benchmarks/bench_workers.py``), paid once for every match and self-play
    run of this process: :func:`worker_pool` keeps one pool per size until the process ends
    (or :func:`close_pools`)."""

    def __init__(self, workers: int) -> None:
        import time

        self.workers = workers
        self.started = time.time()
        self.executor = ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                            initializer=_warm_worker)

    def map(self, fn: Callable[[Any], Any], items: Sequence[Any],
            on_done: Callable[[Any], None] | None = None) -> list[Any]:
        """``fn(item)`` for every item in the workers; results in the items' order,
        ``on_done`` called for each in that order too."""
        futures = [self.executor.submit(fn, item) for item in items]
        out = []
        for fut in futures:
            r = fut.result()
            out.append(r)
            if on_done is not None:
                on_done(r)
        return out

    def wait_ready(self) -> float:
        """Seconds from the pool's creation until every worker could take a task (its
        start-up); at once for a pool that was ready before."""
        answers = self.map(_worker_ready, [0.2] * (2 * self.workers))
        pids: dict[int, float] = {}
        for pid, at in answers:
            pids[pid] = min(at, pids.get(pid, at))
        return max(pids.values()) - self.started if pids else 0.0

    def close(self) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)


_pools: dict[int, WorkerPool] = {}


def worker_pool(workers: int) -> WorkerPool:
    """The pool of ``workers`` processes kept by this process (started on first use)."""
    pool = _pools.get(workers)
    if pool is None:
        import atexit

        if not _pools:
            atexit.register(close_pools)
        pool = _pools[workers] = WorkerPool(workers)
    return pool


def close_pools() -> None:
    """Stop every kept worker pool."""
    while _pools:
        _pools.popitem()[1].close()


# --- matches -------------------------------------------------------------------------------


def match_specs(agent_a: str, agent_b: str, rules: str, games: int, limits: Limits,
                opening: int = 2, seed: int | None = None, record: bool = False
                ) -> list[GameSpec]:
    """The games of a match: A starts the even-numbered ones; pairs share an opening."""
    rng = random.Random(seed)
    specs: list[GameSpec] = []
    pair_seed = 0
    for i in range(games):
        if i % 2 == 0:
            pair_seed = rng.randrange(1 << 62)
        a_first = i % 2 == 0
        first, second = (agent_a, agent_b) if a_first else (agent_b, agent_a)
        specs.append(GameSpec(i, rules, first, second, a_first, limits, opening, pair_seed,
                              record))
    return specs


def check_match_args(agents: Sequence[str], rules: str, games: int, workers: int) -> None:
    """Raise ``ValueError`` for bad match arguments before any process starts."""
    import nugar

    from .agents import make_agent

    nugar.parse_rules(rules)
    for spec in agents:
        make_agent(spec)
    if games < 1:
        raise ValueError(f"games must be >= 1, not {games}")
    if workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers}")


#: something else that plays a list of games (``nugar.scale.ray_runner.RayRunner``): it calls
#: ``on_result`` once per game and returns every game's result, each index exactly once
GameRunner = Callable[[Sequence[GameSpec], Callable[[GameResult], None] | None],
                      list[GameResult]]


def run_games(specs: Sequence[GameSpec], workers: int = 1,
              on_result: Callable[[GameResult], None] | None = None,
              runner: GameRunner | None = None) -> list[GameResult]:
    """Play games, in ``workers`` processes (1: in this process; the processes are kept for
    the next call, :func:`worker_pool`) or with ``runner``; results in game order."""
    results: list[GameResult] = []
    if runner is not None:
        results = runner(specs, on_result)
    elif workers <= 1 or len(specs) <= 1:
        for spec in specs:
            r = play_game(spec)
            results.append(r)
            if on_result is not None:
                on_result(r)
    else:
        # the processes are started once and kept for the next match (see WorkerPool); no
        # more of them than games
        results = worker_pool(min(workers, len(specs))).map(play_game, specs, on_result)
    return sorted(results, key=lambda r: r.index)


def run_match(agent_a: str, agent_b: str, rules: str = "dara", games: int = 200,
              limits: Limits | None = None, workers: int = 1, save: str | Path | None = None,
              opening: int = 2, seed: int | None = None,
              on_result: Callable[[GameResult], None] | None = None,
              runner: GameRunner | None = None) -> MatchTable:
    """Play a match and return its table; with ``save`` every record goes into that folder;
    ``runner`` plays the games instead of local worker processes (e.g. on Ray)."""
    check_match_args((agent_a, agent_b), rules, games, workers)
    lim = limits if limits is not None else Limits()
    specs = match_specs(agent_a, agent_b, rules, games, lim, opening, seed, save is not None)
    table = MatchTable(agent_a, agent_b, rules)

    def collect(r: GameResult) -> None:
        table.add(r)
        if on_result is not None:
            on_result(r)

    results = run_games(specs, workers, collect, runner)
    table.results = results
    if save is not None:
        save_records(results, Path(save), agent_a, agent_b)
    return table


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def save_records(results: Sequence[GameResult], folder: Path, agent_a: str, agent_b: str
                 ) -> list[Path]:
    """Write each game's record as ``NNNN-first-vs-second.txt`` into ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for r in results:
        if r.record is None:
            continue
        first, second = (agent_a, agent_b) if r.a_first else (agent_b, agent_a)
        path = folder / f"{r.index + 1:04d}-{_safe(first)}-vs-{_safe(second)}.txt"
        path.write_text(r.record, encoding="utf-8")
        paths.append(path)
    return paths


@dataclass
class RoundRobin:
    """Every pair of agents played a match; ``tables[(i, j)]`` is agent i against j."""

    agents: list[str]
    rules: str
    tables: dict[tuple[int, int], MatchTable]

    def points(self) -> list[float]:
        """Points of each agent over all its games."""
        pts = [0.0] * len(self.agents)
        for (i, j), t in self.tables.items():
            pts[i] += t.wins + 0.5 * t.draws
            pts[j] += t.losses + 0.5 * t.draws
        return pts

    def games_played(self) -> list[int]:
        n = [0] * len(self.agents)
        for (i, j), t in self.tables.items():
            n[i] += t.games
            n[j] += t.games
        return n

    def ratings(self) -> list[Rating]:
        """The rating list fitted to every game of the round robin (:func:`fit_ratings`)."""
        k = len(self.agents)
        points = [[0.0] * k for _ in range(k)]
        games = [[0.0] * k for _ in range(k)]
        for (i, j), t in self.tables.items():
            points[i][j] += t.wins + 0.5 * t.draws
            points[j][i] += t.losses + 0.5 * t.draws
            games[i][j] += t.games
            games[j][i] += t.games
        return fit_ratings(self.agents, points, games)

    def to_json(self) -> dict[str, Any]:
        pts = self.points()
        played = self.games_played()
        return {
            "rules": self.rules,
            "standings": [{"agent": a, "points": p, "games": g,
                           "score": p / g if g else 0.5}
                          for a, p, g in zip(self.agents, pts, played, strict=True)],
            "ratings": [asdict(r) for r in self.ratings()],
            "matches": [t.to_json() for t in self.tables.values()],
        }


def run_round_robin(agents: Sequence[str], rules: str = "dara", games: int = 20,
                    limits: Limits | None = None, workers: int = 1,
                    save: str | Path | None = None, opening: int = 2,
                    seed: int | None = None,
                    on_result: Callable[[GameResult], None] | None = None,
                    runner: GameRunner | None = None) -> RoundRobin:
    """A match of ``games`` games between every pair of ``agents`` (all games in one pool)."""
    if len(agents) < 2:
        raise ValueError(f"a round robin needs at least two agents, got {len(agents)}")
    check_match_args(agents, rules, games, workers)
    lim = limits if limits is not None else Limits()
    rng = random.Random(seed)
    pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    all_specs: list[GameSpec] = []
    owner: dict[int, tuple[int, int]] = {}
    for i, j in pairs:
        specs = match_specs(agents[i], agents[j], rules, games, lim, opening,
                            rng.randrange(1 << 62), save is not None)
        for s in specs:
            g = GameSpec(len(all_specs), s.rules, s.first, s.second, s.a_first, s.limits,
                         s.opening, s.opening_seed, s.record)
            owner[g.index] = (i, j)
            all_specs.append(g)
    tables = {(i, j): MatchTable(agents[i], agents[j], rules) for i, j in pairs}

    def collect(r: GameResult) -> None:
        tables[owner[r.index]].add(r)
        if on_result is not None:
            on_result(r)

    results = run_games(all_specs, workers, collect, runner)
    if save is not None:
        for (i, j), table in tables.items():
            mine = [r for r in results if owner[r.index] == (i, j)]
            table.results = mine
            save_records(mine, Path(save) / f"{_safe(agents[i])}-vs-{_safe(agents[j])}",
                         agents[i], agents[j])
    return RoundRobin(list(agents), rules, tables)

