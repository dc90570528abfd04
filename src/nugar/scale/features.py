"""The terms of a preset's static evaluation, one number per weight, for one position.

Both evaluations (``kernels/search_alignment.py``, ``kernels/search_sowing.py``) are linear in
their weights: the score of a position is ``sum(w[i] * f[i])`` for features ``f`` that do not
depend on ``w``. So feature ``i`` is the evaluation with weight ``i`` set to one and the others
to zero, computed by the same compiled evaluation the search calls; no second copy of the
evaluation exists that could drift from it. ``linear_check`` confirms the linearity on a
position (a test runs it for every preset).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ..ai.search_setup import default_weights, kernels_for

__all__ = ["default_weights", "evaluation", "evaluation_features", "linear_check"]
from ..kernels import search_core
from ..rules.base import Game

IntArray = npt.NDArray[np.int64]


def _unit_vectors(n: int) -> list[IntArray]:
    return [np.eye(n, dtype=np.int64)[i].copy() for i in range(n)]


def evaluation_features(game: Game) -> IntArray:
    """The evaluation's features of ``game``'s position, from the player to move's side."""
    fam = kernels_for(game)
    n = default_weights(game.rules).shape[0]
    scratch = search_core._scratch(fam.fam, fam.params)
    state = game.state
    return np.array([search_core._evaluate(fam.fam, fam.params, state, unit, scratch)
                     for unit in _unit_vectors(n)], dtype=np.int64)


def evaluation(game: Game, weights: IntArray) -> int:
    """The static evaluation of ``game``'s position with ``weights`` (the search's own)."""
    fam = kernels_for(game, weights)
    return int(search_core._evaluate(fam.fam, fam.params, game.state, fam.weights,
                                     search_core._scratch(fam.fam, fam.params)))


def linear_check(game: Game) -> bool:
    """Whether the default evaluation equals the features weighted by the default weights."""
    w = default_weights(game.rules)
    return evaluation(game, w) == int(evaluation_features(game) @ w)
