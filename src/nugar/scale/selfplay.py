"""Self-play data: ``nugar selfplay AGENT --rules R --games N --out DIR [--ray ADDRESS]``.

An agent plays both sides of ``N`` games; every decision becomes one training row. Game ``i``
is a pure function of ``(agent, rules, limits, opening, seed, i)``: its opening of
``opening`` random decisions and the agent's own random choices (noise, blunders) are seeded
from ``seed`` and ``i``, so with a search bounded by depth or nodes (not time) the same seed
writes the same rows, locally or on a cluster, in any order and after any interruption.

Layout of ``DIR`` (a Parquet dataset: ``pyarrow.dataset.dataset(DIR / "rows")`` reads it
all)::

    DIR/schema.json                 the run's settings and the column list below
    DIR/rows/game-000042.parquet    the rows of game 42, one per decision
    DIR/records/game-000042.txt     its record (``nugar replay`` reads it)

A game's files appear together, each written to a temporary name and renamed, the record
first: a game whose rows file exists is complete, and a second run with the same settings
plays only the games that are missing (``resume``). The columns (``ROW_SCHEMA``):

``game``         int32    game index
``ply``          int32    decision number in the game, from 0
``player``       int8     the player to move, 1 or 2
``observation``  float32  list, the envs' observation (``nugar.envs.encoding.Encoder``) from
                          the mover's side, flattened in C order; its shape is in schema.json
``legal_mask``   bool     list, one per action code (``Encoder.num_actions``): legal or not
``action``       int32    the action code played
``searched``     bool     whether the move played is the one the agent's search found (false:
                          a random opening decision, a level's deliberate blunder, a greedy
                          agent's noise, a random agent)
``score``        float32  the agent's score of the move its search found, for the mover, in
                          pieces or seeds (``Analysis.score``; beyond +-9000 a forced result;
                          MCTS: the chance of winning), NaN for a random opening decision
``move_scores``  float32  list, one per action code: each legal move's search score at the
                          root (the policy target), NaN for illegal codes and random openings;
                          see :func:`move_scores`
``visits``       int32    list, one per action code: MCTS's root visits (all 0 for other
                          agents and random openings)
``depth``        int16    depth the search completed (0 when random)
``nodes``        int64    positions searched (0 when random)
``features``     int64    list, the evaluation's features of the position from the mover's
                          side (``nugar.scale.features``; the evaluation is their dot product
                          with the preset's weights)
``result``       float32  the game's result for the mover: 1 win, 0.5 draw, 0 loss
"""

from __future__ import annotations

import functools
import json
import math
import os
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..ai.base import Agent, Limits
from ..ai.tournament import MAX_DECISIONS

#: the columns of a rows file, in order, with their Arrow types (as text) and meaning
COLUMNS: tuple[tuple[str, str], ...] = (
    ("game", "int32"), ("ply", "int32"), ("player", "int8"),
    ("observation", "list<float32>"), ("legal_mask", "list<bool>"), ("action", "int32"),
    ("searched", "bool"), ("score", "float32"), ("move_scores", "list<float32>"),
    ("visits", "list<int32>"), ("depth", "int16"), ("nodes", "int64"),
    ("features", "list<int64>"), ("result", "float32"),
)
SCHEMA_VERSION = 2


def _arrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise RuntimeError("nugar selfplay writes Parquet: install pyarrow with "
                           "pip install -e '.[ray]' in nugar's checkout") from None
    return pyarrow


def check_available() -> None:
    """``RuntimeError`` with the install line when pyarrow is missing."""
    _arrow()


def row_schema() -> Any:
    """The Arrow schema of a rows file."""
    pa = _arrow()
    types = {"int8": pa.int8(), "int16": pa.int16(), "int32": pa.int32(), "int64": pa.int64(),
             "float32": pa.float32(), "bool": pa.bool_(),
             "list<float32>": pa.list_(pa.float32()), "list<bool>": pa.list_(pa.bool_()),
             "list<int64>": pa.list_(pa.int64()), "list<int32>": pa.list_(pa.int32())}
    return pa.schema([(name, types[t]) for name, t in COLUMNS])


@dataclass(frozen=True)
class SelfPlayJob:
    """One self-play game: everything a worker needs."""

    index: int
    agent: str
    rules: str
    limits: Limits
    opening: int
    seed: int
    #: whether to score every legal move (``move_scores``; NaN throughout when off)
    score_moves: bool = True


@dataclass
class SelfPlayGame:
    """A played game: its rows (column -> values) and its record."""

    index: int
    columns: dict[str, list[Any]]
    record: str
    result: str


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` of a run seeded ``seed`` (independent of the other games)."""
    return random.Random(f"nugar-selfplay:{seed}:{index}").randrange(1 << 62)


@functools.cache
def _agent(spec: str) -> Agent:
    """The agent of ``spec``, made once per process (its table is reused game after game)."""
    from ..ai.agents import make_agent

    return make_agent(spec)


@functools.cache
def _encoder(rules: str) -> Any:
    """The observation encoder of ``rules``, made once per process."""
    from ..envs.encoding import Encoder

    return Encoder(rules)


@functools.cache
def _scorer() -> Agent:
    """The plain search that scores each root move (default evaluation, no noise)."""
    from ..ai.agents import make_agent

    return make_agent("alphabeta")


#: the fewest positions a move's scoring search may visit (see ``move_scores``)
MIN_SCORE_NODES = 2000


def move_scores(game: Any, depth: int, num_actions: int, nodes: int = 0
                ) -> np.ndarray[Any, Any]:
    """Each legal move's score for the player to move (NaN for the other action codes): a
    move that ends the game scores its result (a win ``10000 - 1``, a loss the negation, a
    draw 0, as the search reports forced results); any other is a plain alpha-beta search
    (the game's default evaluation, no noise) of the position after it to ``depth - 1``
    decisions (at least 1), negated when the opponent decides there. The same depth for
    every move, so the scores compare (a policy target); the search the agent played may
    differ (noise, its own weights, the time it had). Each move's search also stops after
    ``max(nodes, MIN_SCORE_NODES)`` positions (``nodes``: what the agent's search visited),
    so that scoring a deep timed search cannot take many times its time; a bound by nodes
    keeps the scores the same on every machine."""
    from ..ai.base import Limits

    out = np.full(num_actions, np.nan, np.float32)
    mover = game.to_move
    scorer = _scorer()
    limits = Limits(depth=max(1, depth - 1), nodes=max(nodes, MIN_SCORE_NODES))
    for action in game.legal_actions():
        game.push_action(action)
        outcome = game.outcome
        if outcome is not None:
            out[action] = (0.0 if outcome.winner is None
                           else 9999.0 if outcome.winner == mover else -9999.0)
        else:
            score = scorer.analyse(game, limits).score or 0.0
            out[action] = score if game.to_move == mover else -score
        game.undo()
    return out


def play_selfplay_game(job: SelfPlayJob) -> SelfPlayGame:
    """Play game ``job.index`` with the agent on both sides and return its rows."""
    import nugar

    from ..record import dumps
    from .features import evaluation_features

    seed = game_seed(job.seed, job.index)
    rng = random.Random(seed)
    agent = _agent(job.agent)
    agent.reseed(seed)  # also forgets the search table of the last game
    _scorer().reseed(seed)  # the scores of a game do not depend on the games before it
    enc = _encoder(job.rules)
    game = nugar.new_game(job.rules)
    cols: dict[str, list[Any]] = {name: [] for name, _ in COLUMNS}
    ply = 0
    while not game.is_over and ply < MAX_DECISIONS:
        player = game.to_move
        legal = game.legal_actions()
        mask = np.zeros(enc.num_actions, dtype=bool)
        mask[legal] = True
        cols["observation"].append(enc.observe(game, player).ravel())
        cols["legal_mask"].append(mask)
        cols["features"].append(evaluation_features(game))
        visits = np.zeros(enc.num_actions, np.int32)
        if ply < job.opening:
            action = rng.choice(legal)
            score, depth, nodes, searched = math.nan, 0, 0, False
            scores = np.full(enc.num_actions, np.nan, np.float32)
        else:
            a = agent.analyse(game, job.limits)
            action = game.move_to_action(a.move)
            score = math.nan if a.score is None else a.score
            depth, nodes, searched = a.depth, a.nodes, a.searched
            if a.root_visits is not None:
                for code, count in a.root_visits.items():
                    visits[code] = count
            scores = (move_scores(game, depth, enc.num_actions, nodes) if job.score_moves
                      else np.full(enc.num_actions, np.nan, np.float32))
        for name, value in (("game", job.index), ("ply", ply), ("player", player),
                            ("action", action), ("searched", searched), ("score", score),
                            ("move_scores", scores), ("visits", visits),
                            ("depth", depth), ("nodes", nodes)):
            cols[name].append(value)
        game.push_action(action)
        ply += 1
    if game.outcome is None:  # too long: a draw, and the record says so
        game.adjudicate(None)
    outcome = game.outcome
    assert outcome is not None
    cols["result"] = [0.5 if outcome.winner is None else float(outcome.winner == p)
                      for p in cols["player"]]
    tags = {"First": job.agent, "Second": job.agent, "Round": str(job.index + 1),
            "Seed": str(seed)}
    return SelfPlayGame(job.index, cols, dumps(game, tags), outcome.result)


def _name(index: int) -> str:
    return f"game-{index:06d}"


def _write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


def write_game(out: Path, played: SelfPlayGame) -> None:
    """Write one game's record, then its rows (whose presence marks the game done)."""
    pa = _arrow()
    schema = row_schema()
    arrays = []
    for field in schema:
        values = played.columns[field.name]
        if pa.types.is_list(field.type):
            values = [np.asarray(v).tolist() for v in values]
        arrays.append(pa.array(values, type=field.type))
    table = pa.Table.from_arrays(arrays, schema=schema)
    name = _name(played.index)

    def record(path: Path) -> None:
        path.write_text(played.record, encoding="utf-8")

    def rows(path: Path) -> None:
        pa.parquet.write_table(table, path, compression="zstd")

    _write_atomic(out / "records" / f"{name}.txt", record)
    _write_atomic(out / "rows" / f"{name}.parquet", rows)


def done_games(out: Path) -> set[int]:
    """Indices of the games already written in ``out``."""
    rows = out / "rows"
    if not rows.is_dir():
        return set()
    return {int(p.stem.removeprefix("game-")) for p in rows.glob("game-*.parquet")
            if p.stem.removeprefix("game-").isdigit()}


def _settings(jobs_agent: str, rules: str, limits: Limits, opening: int, seed: int,
              score_moves: bool = True) -> dict[str, Any]:
    return {"agent": jobs_agent, "rules": rules, "limits": asdict(limits),
            "opening": opening, "seed": seed, "move_scores": score_moves}


def prepare_out(out: Path, settings: dict[str, Any]) -> None:
    """Create ``out`` with its ``schema.json``; refuse a folder written with other settings
    (resuming it would mix two data sets)."""
    enc = _encoder(settings["rules"])
    meta = {"schema_version": SCHEMA_VERSION, "settings": settings,
            "observation_shape": list(enc.observation_shape),
            "num_actions": enc.num_actions,
            "columns": [{"name": n, "type": t} for n, t in COLUMNS]}
    path = out / "schema.json"
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise ValueError(f"{path} is not a self-play schema file") from None
        if old.get("settings") != settings:
            raise ValueError(f"{out} holds self-play data of other settings "
                             f"({old.get('settings')}); use another --out folder")
    (out / "rows").mkdir(parents=True, exist_ok=True)
    (out / "records").mkdir(parents=True, exist_ok=True)
    if not path.exists():
        def write(p: Path) -> None:
            p.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")

        _write_atomic(path, write)


#: plays a list of jobs somewhere and hands each played game to a callback, once per index
SelfPlayRunner = Callable[[Sequence[SelfPlayJob], Callable[[SelfPlayGame], None]], None]


def run_selfplay(agent: str, rules: str, games: int, out: str | Path,
                 limits: Limits | None = None, opening: int = 4, seed: int = 0,
                 runner: SelfPlayRunner | None = None,
                 on_game: Callable[[SelfPlayGame | None], None] | None = None,
                 score_moves: bool = True) -> list[int]:
    """Write games ``0..games-1`` into ``out``, skipping those written before; returns the
    indices played now. ``on_game`` is called once per game written (with ``None`` first for
    each game skipped, so a progress bar can count them)."""
    from ..ai.agents import make_agent
    from ..rules import parse_rules

    parse_rules(rules)
    make_agent(agent)
    if games < 1:
        raise ValueError(f"games must be >= 1, not {games}")
    if opening < 0:
        raise ValueError(f"opening must be >= 0, not {opening}")
    lim = limits if limits is not None else Limits()
    folder = Path(out)
    prepare_out(folder, _settings(agent, rules, lim, opening, seed, score_moves))
    have = done_games(folder)
    jobs = [SelfPlayJob(i, agent, rules, lim, opening, seed, score_moves)
            for i in range(games) if i not in have]
    for _ in range(games - len(jobs)):
        if on_game is not None:
            on_game(None)

    def collect(played: SelfPlayGame) -> None:
        write_game(folder, played)
        if on_game is not None:
            on_game(played)

    if runner is None:
        for job in jobs:
            collect(play_selfplay_game(job))
    else:
        runner(jobs, collect)
    return [j.index for j in jobs]


def process_selfplay_runner(workers: int) -> SelfPlayRunner:
    """A runner playing the games in ``workers`` local processes (started once and kept:
    ``nugar.ai.tournament.worker_pool``), each game written as soon as its turn comes."""
    from ..ai.tournament import worker_pool

    def run(jobs: Sequence[SelfPlayJob], collect: Callable[[SelfPlayGame], None]) -> None:
        worker_pool(workers).map(play_selfplay_game, jobs, collect)

    return run


def ray_selfplay_runner() -> SelfPlayRunner:
    """A runner playing each self-play game as a Ray task (connect first)."""
    from .ray_runner import map_tasks

    def run(jobs: Sequence[SelfPlayJob], collect: Callable[[SelfPlayGame], None]) -> None:
        map_tasks(play_selfplay_game, jobs, lambda j: j.index, collect)

    return run
