"""Throughput of ``nugar.jax`` (the games as JAX functions), in environment steps per second.

One environment step = one decision applied in one game with its legal-action mask, its
observation, rewards and automatic reset computed (``nugar.jax.auto_reset``), the way pgx
measures its environments: ``steps`` batch steps of uniformly random legal play in one
``jit``-compiled ``lax.fori_loop`` over a ``vmap``ped batch, compiled ahead of time (the
compilation is timed apart, its own column) and then timed up to ``block_until_ready``.
Beside it, in the same run, the numba batched simulator (``BatchSimulator.run_random``, one
CPU thread) at the same batch sizes up to 2^16, and with ``--peers`` (always with ``--gpu``)
pgx's own ``connect_four`` and ``othello`` in the same loop, where pgx is installed.

Every preset by default (``--games`` to choose), batch sizes 2^10..2^22 (``--sizes`` as
exponents of two). On a CPU the largest batch is capped (``--max-exp``, by default 2^20 for
Kalah and Dracala and 2^16 for Dara and Dala: the memory and time of a small machine; an
alignment game holds about 2.6 kB with its observation and key history). On an accelerator:

    python benchmarks/bench_jax.py --gpu --out jax-gpu.md

runs every size of every preset and the pgx peers without a cap; a size that does not fit in
the device's memory is reported as such in its row and the run goes on. Prints one Markdown
table (``--out FILE`` also writes it, with the machine, the command and the load around it).
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import nugar.jax as nj
from bench_batch import compiled_rate
from nugar.envs.batch import BatchSimulator

#: the largest batch measured per family on a CPU (memory and time of this 2-core machine:
#: an alignment game holds about 2.6 kB, its observation planes and key history included)
CPU_MAX_EXP = {"sowing": 20, "alignment": 16}
NUMBA_MAX_EXP = 16


def _random_play(step: Callable[..., Any], init: Callable[..., Any], size: int,
                 steps: int, keyed: bool) -> Callable[[Any], Any]:
    """A compiled loop of ``steps`` random batch steps over ``size`` games.

    The random choices come from a xorshift generator per game (a few integer operations),
    so that the loop times the games rather than JAX's counter-based generator; ``keyed``:
    the step takes a key per game (pgx's ``auto_reset`` asks for one), split each step."""
    vstep = jax.vmap(step)

    def body(_: int, carry: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        state, seeds, key = carry
        seeds = seeds ^ (seeds << 13)
        seeds = seeds ^ (seeds >> 17)
        seeds = seeds ^ (seeds << 5)
        mask = state.legal_action_mask
        codes = jnp.arange(mask.shape[1], dtype=jnp.uint32)
        noise = (seeds[:, None] ^ (codes * np.uint32(0x9E3779B9))) * np.uint32(0x85EBCA6B)
        action = jnp.argmax(jnp.where(mask, noise >> 8, 0), axis=1)
        if keyed:
            key, sub = jax.random.split(key)
            state = vstep(state, action, jax.random.split(sub, size))
        else:
            state = vstep(state, action)
        return state, seeds, key

    @jax.jit
    def run(key: Any) -> Any:
        state = jax.vmap(init)(jax.random.split(key, size))
        seeds = jnp.arange(1, size + 1, dtype=jnp.uint32) * np.uint32(2654435761)
        state, _, _ = jax.lax.fori_loop(0, steps, body, (state, seeds, key))
        return state.rewards

    return run


def jax_rate(step: Callable[..., Any], init: Callable[..., Any], size: int,
             seconds: float, keyed: bool = False) -> tuple[float, float]:
    """(steps per second, seconds to compile) of random play over ``size`` games.

    Each loop is compiled ahead of time (``jit(...).lower(key).compile()``), timed apart: the
    compile column is the first loop's (8 steps; the loop's length does not change what XLA
    compiles, only its trip count). The loop is then run once to warm up and once timed,
    lengthened until one run takes ``seconds``."""
    steps = 8
    first_compile = None
    while True:
        key = jax.random.PRNGKey(0)
        start = time.perf_counter()
        run = _random_play(step, init, size, steps, keyed).lower(key).compile()
        if first_compile is None:
            first_compile = time.perf_counter() - start
        jax.block_until_ready(run(key))  # warms up
        start = time.perf_counter()
        jax.block_until_ready(run(jax.random.PRNGKey(1)))
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or steps >= 4096:
            return steps * size / elapsed, first_compile
        steps *= max(2, min(16, int(seconds / max(elapsed, 1e-3)) + 1))


def numba_rate(rules: str, size: int, seconds: float) -> float:
    """Steps per second of ``BatchSimulator.run_random`` (compiled, one thread)."""
    return compiled_rate(BatchSimulator(rules, size), seconds)


def _load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every system
        return "n/a"


def _cell(thunk: Callable[[], tuple[float, float]]) -> tuple[str, str]:
    """A measurement as table text; a batch too large for the device says so."""
    try:
        rate, compiled = thunk()
    except Exception as exc:  # XLA reports an exhausted device as a runtime error
        if "RESOURCE_EXHAUSTED" in str(exc) or "out of memory" in str(exc).lower():
            return "out of device memory", ""
        raise
    return f"{rate:,.0f}", f"{compiled:.1f}"


def main() -> None:
    from nugar.rules import PRESETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(PRESETS),
                        help="rule sets to measure (default: every preset)")
    parser.add_argument("--sizes", nargs="+", type=int, default=None,
                        help="batch sizes as exponents of two (default 10..22, capped on CPU)")
    parser.add_argument("--max-exp", type=int, default=None,
                        help="the largest batch, as an exponent of two (default on CPU: 20 "
                             "for sowing, 16 for alignment; none with --gpu)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--quick", action="store_true", help="0.3 s per measurement")
    parser.add_argument("--gpu", action="store_true",
                        help="the accelerator's run: every size, pgx's games as peers")
    parser.add_argument("--peers", action="store_true",
                        help="measure pgx's connect_four and othello too (always with --gpu)")
    parser.add_argument("--no-numba", action="store_true",
                        help="leave out the numba batched simulator's column")
    parser.add_argument("--out", default=None, help="also write the table to this file")
    args = parser.parse_args()
    seconds = 0.3 if args.quick else args.seconds
    device = jax.devices()[0]
    if args.gpu and device.platform == "cpu":
        sys.exit("--gpu: JAX sees no accelerator here (jax.devices() lists only the CPU)")
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
        f"python {platform.python_version()}, jax {jax.__version__}, device {device}")
    say(f"command: python {shlex.join(sys.argv)}")
    say(f"load average (1, 5, 15 min) before: {_load()}")
    say()
    say("| game | engine | batch size | steps/s | compile s |")
    say("| --- | --- | ---: | ---: | ---: |")
    exps = args.sizes or list(range(10, 23))

    def cap(family: str) -> int:
        if args.max_exp is not None:
            return int(args.max_exp)
        return 99 if args.gpu else CPU_MAX_EXP[family]

    for rules in args.games:
        env = nj.make(rules)
        for e in (e for e in exps if e <= cap(env.rules.family)):
            size = 2 ** e
            rate, compiled = _cell(lambda size=size, env=env: jax_rate(
                nj.auto_reset(env), env.init, size, seconds))
            say(f"| {rules} | nugar.jax | 2^{e} | {rate} | {compiled} |")
            if e <= NUMBA_MAX_EXP and not args.no_numba:
                numba = numba_rate(rules, size, seconds)
                say(f"| {rules} | numba batch (1 CPU thread) | 2^{e} | {numba:,.0f} | |")
    if args.gpu or args.peers:
        try:
            import pgx
            from pgx.experimental import auto_reset
        except ImportError:
            say("\npgx is not installed: no peers measured")
        else:
            for name in ("connect_four", "othello"):
                peer = pgx.make(name)
                for e in (e for e in exps if e <= cap("alignment")):
                    size = 2 ** e
                    rate, compiled = _cell(lambda size=size, peer=peer: jax_rate(
                        auto_reset(peer.step, peer.init), peer.init, size, seconds,
                        keyed=True))
                    say(f"| {name} | pgx {pgx.__version__} (peer) | 2^{e} | {rate} | "
                        f"{compiled} |")
    say(f"\nload average (1, 5, 15 min) after: {_load()}")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
