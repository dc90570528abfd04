"""nugar.jax as researchers use it: pgx's own API test, and how an episode ends.

``pgx.api_test`` is pgx's check of an environment (pure functions under ``jit`` and ``vmap``,
the state's fields and types, a mask never empty, episodes that end as ``terminated``); it runs
on every preset and on the draw rule sets of ``tests/draws.py``. Every end of the rules (a draw
by repetition or by the quiet limit included) is ``terminated`` with its rewards; ``truncated``
is only the step cap ``max_steps``.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from draws import QUIET_LIMIT_RULES, REPETITION_RULES, draw_line

jax = pytest.importorskip("jax")  # the [jax] extra; the test extra installs it
jnp = jax.numpy

import nugar.jax as nj  # noqa: E402
from nugar.rules import PRESETS  # noqa: E402
from pgx_check import pgx_api_test  # noqa: E402

DRAWS = ([(rules, "repetition") for rules in REPETITION_RULES]
         + [(rules, "quiet_limit") for rules in QUIET_LIMIT_RULES])


# --- pgx's own API test --------------------------------------------------------------------


@pytest.mark.parametrize("rules", list(PRESETS))
def test_pgx_api_test_on_every_preset(rules: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pgx_api_test(nj.make(rules), monkeypatch, 2)


@pytest.mark.parametrize(("rules", "turn_board"), [("dara(quiet_limit=2)", False),
                                                   ("dala", True)])
def test_pgx_api_test_on_a_draw_rule_and_turned_boards(
        rules: str, turn_board: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """With a short quiet limit most random games end by that draw: pgx's test, which plays
    each game until ``terminated``, would never end if the draw were a truncation."""
    pgx_api_test(nj.make(rules, turn_board=turn_board), monkeypatch, 2)


def test_states_draw_themselves(tmp_path: object) -> None:
    for rules in ("dara", "kalah"):
        env = nj.make(rules)
        state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 3))
        svg = state.to_svg()
        assert svg.startswith("<svg") and svg.endswith("</svg>")
        assert svg.count("<g transform") == 3  # one picture per game of the batch
        one = env.step(env.init(jax.random.PRNGKey(0)), 0)
        assert one.env_id == env.id == f"nugar/{rules}"
    dara = nj.make("dara")
    drawn = dara.step(dara.init(jax.random.PRNGKey(0)), 0).to_svg(color_theme="dark")
    assert drawn.count("<circle") == 1 and "#222" in drawn


# --- how an episode ends ---------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "reason"), DRAWS)
def test_draw_terminates(rules: str, reason: str) -> None:
    env = nj.make(rules)
    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    line = draw_line(rules, reason)
    for action in line:
        assert not bool(state.terminated) and not bool(state.truncated)
        state = step(state, action)
    assert bool(state.terminated) and not bool(state.truncated)
    assert state.rewards.tolist() == [0.0, 0.0]
    assert int(state._step_count) == len(line)
    assert bool(state.legal_action_mask.all())  # as pgx: a finished game's mask is all true
    # auto_reset restarts the game in the same step and reports the draw
    reset_step = jax.jit(nj.auto_reset(env))
    state = env.init(jax.random.PRNGKey(0))
    for action in line:
        state = reset_step(state, action)
    assert bool(state.terminated) and not bool(state.truncated)
    assert int(state._step_count) == 0


def test_step_cap_truncates() -> None:
    env = nj.make("kalah", max_steps=3)
    step = jax.jit(env.step)
    state = env.init(jax.random.PRNGKey(0))
    for k, action in enumerate((0, 1, 5)):  # three decisions, no bonus step, no end
        assert not bool(state.truncated), k
        state = step(state, action)
    assert bool(state.truncated) and not bool(state.terminated)
    assert state.rewards.tolist() == [0.0, 0.0] and bool(state.legal_action_mask.all())
    again = step(state, 2)  # a cut-off game stays as it is, as a finished one
    assert int(again._step_count) == 3 and bool(again.truncated)
    assert (np.asarray(again._cells) == np.asarray(state._cells)).all()
    # without a cap the same game runs on
    plain = nj.make("kalah")
    state = plain.init(jax.random.PRNGKey(0))
    for action in (0, 1, 5):
        state = plain.step(state, action)
    assert not bool(state.truncated) and not bool(state.terminated)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "5"])
def test_bad_step_caps_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="max_steps must be None"):
        nj.make("kalah", max_steps=bad)  # type: ignore[arg-type]


# --- the benchmark script ------------------------------------------------------------------


def test_bench_jax_writes_one_table(tmp_path: Path) -> None:
    """``benchmarks/bench_jax.py`` end to end on tiny batches: a row per game, engine and
    size with its rate and compile time, pgx's peers beside them where pgx is installed."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_jax.py"
    out = tmp_path / "table.md"
    done = subprocess.run(
        [sys.executable, str(script), "--seconds", "0.01", "--games", "kalah(pits=2,seeds=1)",
         "dara(rows=2,cols=3,pieces=2,loss_at=0)", "--sizes", "2", "3", "--max-exp", "2",
         "--peers", "--out", str(out)], capture_output=True, text=True, timeout=600,
        check=True)
    table = out.read_text(encoding="utf-8")
    assert table.strip() in done.stdout
    rows = [line.split(" | ") for line in table.splitlines() if line.startswith("| ")][2:]
    games = {(row[0].lstrip("| "), row[1]) for row in rows}
    assert ("kalah(pits=2,seeds=1)", "nugar.jax") in games
    assert ("dara(rows=2,cols=3,pieces=2,loss_at=0)", "numba batch (1 CPU thread)") in games
    assert all(row[2] == "2^2" for row in rows)  # --max-exp 2 leaves out 2^3
    for row in rows:
        assert float(row[3].replace(",", "")) > 0
    if importlib.util.find_spec("pgx") is not None:
        assert {name for name, _ in games} >= {"connect_four", "othello"}
    assert "load average (1, 5, 15 min) after:" in table
    if jax.devices()[0].platform == "cpu":  # (on an accelerator --gpu would run it all)
        refused = subprocess.run([sys.executable, str(script), "--gpu"], capture_output=True,
                                 text=True, timeout=600)
        assert refused.returncode != 0 and "JAX sees no accelerator" in refused.stderr
