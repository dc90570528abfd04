"""Games that end in a draw by a rule of the game, for the research faces' end-of-episode tests.

``draw_line(rules, reason)`` plays games through the public ``Game`` API (seeded choices) until
one ends by ``reason`` (``"repetition"`` or ``"quiet_limit"``) and returns its action codes, so
every face (PettingZoo, Gymnasium, the batched simulator, OpenSpiel, ``nugar.jax``) can replay
the same line and be checked against what the engine says. In the move phase each player
steps his last-moved piece straight back where he can (positions then come round again:
repetition), else picks a step at random that forms no three where he can (no capture: the
quiet counter runs on).
"""

from __future__ import annotations

from functools import cache

import numpy as np

import nugar
from nugar.rules.base import Game

#: rule sets that reach each draw quickly: the presets' own repetition rule, and a short
#: quiet limit on the Dara board
REPETITION_RULES = ("dara", "dala")
QUIET_LIMIT_RULES = ("dara(quiet_limit=2)",)


def _reverse(action: int, rows: int, cols: int) -> int | None:
    """The step back from a step's target to its origin (``None`` for any other action)."""
    n = rows * cols
    if not n <= action < 5 * n:
        return None
    sq, d = divmod(action - n, 4)
    r, c = divmod(sq, cols)
    r, c = (r + 1, c) if d == 0 else (r, c + 1) if d == 1 else (r - 1, c) if d == 2 else (r,
                                                                                          c - 1)
    return n + 4 * (r * cols + c) + (d ^ 2)


def _play(rules: str, seed: int, limit: int = 400) -> tuple[Game, list[int]]:
    game = nugar.new_game(rules)
    opts = game.rules.options
    rows, cols = opts.rows, opts.cols  # type: ignore[union-attr]
    rng = np.random.default_rng(seed)
    last: dict[int, int] = {}
    line: list[int] = []
    while not game.is_over and len(line) < limit:
        legal = game.legal_actions()
        mover = game.to_move
        back = _reverse(last[mover], rows, cols) if mover in last else None
        if back is not None and back in legal:
            action = back
        else:
            quiet = []
            for a in legal:
                trial = game.copy()
                trial.push_action(a)
                if trial.to_move != mover or trial.is_over:
                    quiet.append(a)  # the turn ended: no capture owed
            action = int(rng.choice(quiet or legal))
        game.push_action(action)
        line.append(action)
        if _reverse(action, rows, cols) is not None:
            last[mover] = action
    return game, line


@cache
def draw_line(rules: str, reason: str) -> tuple[int, ...]:
    """The action codes of a game of ``rules`` that ends in a draw by ``reason``."""
    for seed in range(200):
        game, line = _play(rules, seed)
        outcome = game.outcome
        if outcome is not None and outcome.reason == reason:
            assert outcome.winner is None
            return tuple(line)
    raise AssertionError(f"no {reason} draw found for {rules}")  # pragma: no cover
