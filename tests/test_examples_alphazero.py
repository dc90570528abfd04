"""examples/alphazero_kalah.py: a tiny run of the AlphaZero example, and its value targets.

The example needs mctx, Flax and optax (``examples/requirements-alphazero.txt``): they are
the example's own requirements, not nugar's nor its test extra's, so this module is skipped
where they are not installed.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

REASON = ("examples/alphazero_kalah.py needs mctx, flax and optax, the example's own "
          "requirements (pip install -r examples/requirements-alphazero.txt), which are not "
          "dependencies of nugar or of its test extra")
for _name in ("jax", "mctx", "flax", "optax"):
    pytest.importorskip(_name, reason=REASON)

import jax.numpy as jnp  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "alphazero_kalah.py"


@pytest.fixture(scope="module")
def example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("alphazero_kalah", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def test_value_targets_follow_the_player_to_move(example: ModuleType) -> None:
    """A first player's step, a bonus step of the second, the second's winning step, then
    a new game's first step that the window cuts off: the outcome is +1 for the second
    player's positions, -1 for the first player's, and unknown for the unfinished game."""
    reward = jnp.array([[0.0], [0.0], [1.0], [0.0]])
    done = jnp.array([[False], [False], [True], [False]])
    same = jnp.array([[False], [True], [False], [False]])
    zeros = jnp.zeros((4, 1))
    values, known = example.Trainer.value_targets(
        example.Batch(zeros, zeros, zeros, reward, done, same))
    assert values[:, 0].tolist()[:3] == [-1.0, 1.0, 1.0]
    assert known[:, 0].tolist() == [True, True, True, False]


def test_a_tiny_run_trains_plays_and_checks_values(example: ModuleType) -> None:
    """Two training windows, then two games against each of two nugar agents (both sides),
    and the value head compared with the solver on the positions of those games."""
    lines: list[str] = []
    config = example.parse_args([
        "--iterations", "2", "--batch", "8", "--unroll", "6", "--simulations", "4",
        "--random-moves", "2", "--eval-simulations", "4", "--eval-games", "2", "--final-games", "2",
        "--no-eval-at-start", "--opponents", "random,level:4", "--hidden", "16",
        "--train-batch", "16"])
    report = example.train(config, log=lines.append)
    assert report.iterations == 2
    [final] = report.evaluations
    assert final.positions_trained == 2 * 8 * 6
    assert set(final.scores) == {"random", "level:4"}
    for score, wins, draws, losses in final.scores.values():
        assert wins + draws + losses == 2
        assert score == (wins + draws / 2) / 2
    assert final.value_positions > 0
    assert 0.0 <= final.value_mae <= 2.0 and not math.isnan(final.value_accuracy)
    assert any(line.startswith("final [") and "value vs solver" in line for line in lines)
    assert lines[-1].startswith("done: 2 iterations")
