"""Texel tuning of a preset's evaluation weights from self-play data.

    python -m nugar.scale.tune DATA_DIR [DATA_DIR ...] --output weights.json

Each ``DATA_DIR`` is a ``nugar selfplay`` folder (its ``schema.json`` names the rules, whose
AI profile picks the weights tuned). The method is the one chess programmers call Texel
tuning (Chess Programming Wiki, "Texel's Tuning Method",
https://www.chessprogramming.org/Texel%27s_Tuning_Method): the chance that the player to move
goes on to win is modelled as ``sigmoid(f . b)``, where ``f`` are the position's evaluation
features (:mod:`nugar.scale.features`: the evaluation is ``f . w``) and ``b`` the weights on a
probability scale; ``b`` is fitted to the games' results (1, 0.5 or 0 for the mover) by
minimising the mean cross-entropy, a logistic regression, with a small ridge penalty. The
optimiser is Newton's method with a step-halving line search (the loss is convex, so it
converges in a few steps), written here with numpy alone. The tuned weights are ``b`` scaled
so that the material weight is 100 again: the unit of a weight stays a hundredth of a piece
(the unit of the agents' ``noise`` and ``contempt``), and scaling does not change which move a
search prefers. The old weights get the same treatment (their best scale ``K`` fitted), so
the two cross-entropies, on games held out from the fit, compare fairly.

Data written before the evaluation gained terms stores fewer features than it now has: then
the features are computed again, by replaying each game's decisions (the ``action`` column)
from the start and asking :mod:`nugar.scale.features` at every position.

A feature that is zero in every position (an option switched off in the preset) keeps its old
weight. Only the positions where the agent searched (not the random opening) at the start
of a turn (the only ones the search evaluates statically) are used.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

#: every HOLDOUT-th game (by index) is kept out of the fit and only used to compare
HOLDOUT = 10
#: the ridge penalty per weight (on the probability scale), as a share of the data's loss
RIDGE = 1e-6


@dataclass
class Data:
    """Features and results of the positions of one AI profile."""

    profile: str
    rules: str
    features: FloatArray   # (n, k)
    results: FloatArray    # (n,)
    games: npt.NDArray[np.int64]


def load(folders: Sequence[str | Path]) -> Data:
    """The searched positions of the self-play folders (all of one AI profile)."""
    import pyarrow.dataset as ds

    from ..rules import parse_rules
    from .features import default_weights

    feats, results, games = [], [], []
    profile = rules_text = ""
    offset = 0
    for folder in folders:
        meta = json.loads((Path(folder) / "schema.json").read_text(encoding="utf-8"))
        rules = parse_rules(meta["settings"]["rules"])
        if profile and rules.ai_profile.name != profile:
            raise ValueError(f"{folder} holds {rules.ai_profile.name} data, not {profile}")
        profile, rules_text = rules.ai_profile.name, rules.text
        columns = ["game", "ply", "player", "searched", "features", "result", "action"]
        table = ds.dataset(Path(folder) / "rows", format="parquet").to_table(
            columns=columns).sort_by([("game", "ascending"), ("ply", "ascending")])
        keep = _turn_starts(table) & np.asarray(
            table.column("searched").to_numpy(zero_copy_only=False), bool)
        f = np.array(table.column("features").to_pylist(), dtype=np.float64)
        if f.ndim != 2 or f.shape[1] != default_weights(rules).shape[0]:
            f = replayed_features(rules.text, table.column("game").to_numpy(),
                                  table.column("action").to_numpy())
        f = f[keep]
        feats.append(f)
        results.append(table.column("result").to_numpy()[keep].astype(np.float64))
        g = table.column("game").to_numpy()[keep].astype(np.int64)
        games.append(g + offset)
        offset += int(g.max()) + 1 if g.size else 0
    if not feats:
        raise ValueError("no data folders given")
    return Data(profile, rules_text, np.concatenate(feats), np.concatenate(results),
                np.concatenate(games))


def replayed_features(rules: str, games: npt.NDArray[Any],
                      actions: npt.NDArray[Any]) -> FloatArray:
    """The current evaluation's features before each decision of rows sorted by game and
    ply, found by replaying every game's ``actions`` from its start."""
    import nugar

    from .features import evaluation_features

    out: list[Any] = []
    game = nugar.new_game(rules)
    for i in range(len(games)):
        if i > 0 and games[i] != games[i - 1]:
            game = nugar.new_game(rules)
        out.append(evaluation_features(game))
        game.push_action(int(actions[i]))
    return np.array(out, dtype=np.float64)


def _turn_starts(table: Any) -> npt.NDArray[np.bool_]:
    """Rows at the start of a turn: the first decision of a game, or one whose player did
    not also make the decision before (not a capture owed after a three, nor a sowing bonus
    step). The search never evaluates a position in the middle of a turn statically."""
    game = table.column("game").to_numpy()
    player = table.column("player").to_numpy()
    start = np.ones(len(game), dtype=bool)
    start[1:] = (game[1:] != game[:-1]) | (player[1:] != player[:-1])
    return start


def _sigmoid(z: FloatArray) -> FloatArray:
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * z))
    return out


def cross_entropy(x: FloatArray, y: FloatArray, b: FloatArray) -> float:
    """Mean cross-entropy of results ``y`` against ``sigmoid(x @ b)`` (stable form)."""
    z = x @ b
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def fit_logistic(x: FloatArray, y: FloatArray, ridge: float = RIDGE,
                 start: FloatArray | None = None, steps: int = 50) -> FloatArray:
    """``b`` minimising ``cross_entropy(x, y, b) + ridge * |b|^2`` by Newton's method."""
    n, k = x.shape
    b = np.zeros(k) if start is None else start.astype(np.float64).copy()

    def loss(v: FloatArray) -> float:
        return cross_entropy(x, y, v) + ridge * float(v @ v)

    current = loss(b)
    for _ in range(steps):
        p = _sigmoid(x @ b)
        grad = x.T @ (p - y) / n + 2 * ridge * b
        hess = (x * (p * (1 - p))[:, None]).T @ x / n + 2 * ridge * np.eye(k)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            trial = b - t * step
            value = loss(trial)
            if value <= current:
                break
            t *= 0.5
        else:
            break
        b, previous, current = trial, current, value
        if previous - current < 1e-12:
            break
    return b


def fit_scale(x: FloatArray, y: FloatArray, w: FloatArray) -> float:
    """The ``K`` that makes ``sigmoid(K * x @ w)`` fit best (Newton on one variable)."""
    s = (x @ w)[:, None]
    return float(fit_logistic(s, y, ridge=0.0, start=np.array([1e-3]))[0])


@dataclass
class TuneResult:
    profile: str
    rules: str
    old: list[int]
    tuned: list[int]
    positions: int
    games: int
    holdout_positions: int
    old_loss: float
    tuned_loss: float
    old_scale: float

    def to_json(self) -> dict[str, Any]:
        return self.__dict__.copy()


def tune(data: Data, material: int = 0) -> TuneResult:
    """Fit the weights of ``data``'s profile; compare old and new on the held-out games."""
    from ..rules import parse_rules
    from .features import default_weights

    old = default_weights(parse_rules(data.rules)).astype(np.float64)
    held = data.games % HOLDOUT == 0
    x, y = data.features[~held], data.results[~held]
    xh, yh = data.features[held], data.results[held]
    used = np.any(x != 0, axis=0)
    b = np.zeros(old.shape[0])
    b[used] = fit_logistic(x[:, used], y)
    if b[material] <= 0:
        raise ValueError("the fitted material weight is not positive: too little data?")
    tuned = np.where(used, np.rint(b * abs(old[material]) / b[material]), old)
    k_old = fit_scale(x, y, old)
    k_new = fit_scale(x, y, tuned)
    return TuneResult(data.profile, data.rules, [int(v) for v in old], [int(v) for v in tuned],
                      int(x.shape[0]), int(np.unique(data.games[~held]).size), int(xh.shape[0]),
                      cross_entropy(xh, yh, k_old * old), cross_entropy(xh, yh, k_new * tuned),
                      k_old)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nugar.scale.tune",
        description="Texel tuning: fit a preset's evaluation weights to self-play results "
                    "(folders written by nugar selfplay, one AI profile per run).")
    parser.add_argument("data", nargs="+", metavar="DATA_DIR")
    parser.add_argument("--output", metavar="FILE",
                        help="JSON file to add this profile's result to (kept: the others)")
    args = parser.parse_args(argv)
    try:
        result = tune(load(args.data))
    except (OSError, ValueError, KeyError) as exc:
        print(f"python -m nugar.scale.tune: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result.to_json()))
    if args.output:
        path = Path(args.output)
        doc: dict[str, Any] = {}
        if path.exists():
            doc = json.loads(path.read_text(encoding="utf-8"))
        data = [json.loads((Path(d) / "schema.json").read_text(encoding="utf-8"))["settings"]
                for d in args.data]
        doc[result.profile] = {**result.to_json(), "data": data,
                               "command": "python -m nugar.scale.tune " + " ".join(
                                   Path(d).name for d in args.data)}
        path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
