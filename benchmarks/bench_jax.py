"""Throughput of ``nugar.jax`` (the games as JAX functions), in environment steps per second.

One environment step = one decision applied in one game with its legal-action mask, its
observation, rewards and automatic reset computed (``nugar.jax.auto_reset``), the way pgx
measures its environments: ``steps`` batch steps of uniformly random legal play in one
``jit``-compiled ``lax.fori_loop`` over a ``vmap``ped batch, timed after a warm-up call that
compiles it, up to ``block_until_ready``. Beside it, in the same run, the numba batched
simulator (``BatchSimulator.run_random``, one CPU thread) at the same batch sizes.

Run on CPU: ``python benchmarks/bench_jax.py`` (``--quick`` for a short look; ``--games``,
``--sizes`` as exponents of two; ``--peers`` adds pgx's games where pgx is installed). On a
GPU machine: ``python benchmarks/bench_jax.py --gpu`` measures batch sizes 2^10..2^22 and,
where pgx is installed, pgx's own ``connect_four`` and ``othello`` in the same loop as the
peers (the numba simulator is then measured only up to 2^16 games, on the machine's CPU).
Prints a Markdown table.
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
             seconds: float, keyed: bool = False) -> float:
    """Steps per second of random play over ``size`` games, compilation excluded."""
    steps = 8
    while True:
        run = _random_play(step, init, size, steps, keyed)
        jax.block_until_ready(run(jax.random.PRNGKey(0)))  # compiles, warms up
        start = time.perf_counter()
        jax.block_until_ready(run(jax.random.PRNGKey(1)))
        elapsed = time.perf_counter() - start
        if elapsed >= seconds or steps >= 4096:
            return steps * size / elapsed
        steps *= max(2, min(16, int(seconds / max(elapsed, 1e-3)) + 1))


def numba_rate(rules: str, size: int, seconds: float) -> float:
    """Steps per second of ``BatchSimulator.run_random`` (compiled, one thread)."""
    return compiled_rate(BatchSimulator(rules, size), seconds)


def _load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every system
        return "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["kalah", "dracala", "dara", "dala"])
    parser.add_argument("--sizes", nargs="+", type=int, default=None,
                        help="batch sizes as exponents of two (default 10..22, capped on CPU)")
    parser.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    parser.add_argument("--quick", action="store_true", help="0.3 s per measurement")
    parser.add_argument("--gpu", action="store_true",
                        help="the accelerator's run: every size, pgx's games as peers")
    parser.add_argument("--peers", action="store_true",
                        help="measure pgx's connect_four and othello too (always with --gpu)")
    args = parser.parse_args()
    seconds = 0.3 if args.quick else args.seconds
    device = jax.devices()[0]
    if args.gpu and device.platform == "cpu":
        sys.exit("--gpu: JAX sees no accelerator here (jax.devices() lists only the CPU)")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cpus, "
          f"python {platform.python_version()}, jax {jax.__version__}, device {device}")
    print(f"command: python {shlex.join(sys.argv)}")
    print(f"load average (1, 5, 15 min) before: {_load()}")
    print()
    print("| game | batch size | JAX steps/s | numba batch steps/s |")
    print("| --- | ---: | ---: | ---: |")
    exps = args.sizes or list(range(10, 23))
    for rules in args.games:
        env = nj.make(rules)
        cap = 99 if args.gpu else CPU_MAX_EXP[env.rules.family]
        for e in exps:
            if e > cap:
                continue
            size = 2 ** e
            rate = jax_rate(nj.auto_reset(env), env.init, size, seconds)
            numba = (f"{numba_rate(rules, size, seconds):,.0f}" if e <= NUMBA_MAX_EXP
                     else "")
            print(f"| {rules} | 2^{e} | {rate:,.0f} | {numba} |", flush=True)
    if args.gpu or args.peers:
        try:
            import pgx
            from pgx.experimental import auto_reset
        except ImportError:
            print("\npgx is not installed: no peers measured")
            return
        for name in ("connect_four", "othello"):
            peer = pgx.make(name)
            for e in exps:
                if e > (99 if args.gpu else CPU_MAX_EXP["alignment"]):
                    continue
                size = 2 ** e
                rate = jax_rate(auto_reset(peer.step, peer.init), peer.init, size, seconds,
                                keyed=True)
                print(f"| pgx {name} | 2^{e} | {rate:,.0f} | |", flush=True)
    print(f"\nload average (1, 5, 15 min) after: {_load()}")


if __name__ == "__main__":
    main()
