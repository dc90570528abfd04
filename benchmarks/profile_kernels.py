"""Where the time of a random game goes, per decision, in nugar's compiled kernels.

Run: ``python benchmarks/profile_kernels.py [dara dala kalah dracala ...]``

Collects the positions of 300 random games of each rule set (the decisions ``random_playout``
makes), then times each kernel alone over all of them in compiled loops: legal-move generation
(by kind of decision for the alignment family: owed capture, drop, step), applying the decision
(which includes the piece count, quiet counter, the blocked check of the next player and the
key), the blocked check alone (``start_turn``) and the whole game loop. Nanoseconds per call,
best of three; CPU time of this process, so other jobs on the machine disturb it less than a
wall clock would (but still: run it on a quiet machine for figures to quote).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

import nugar
from nugar.kernels import alignment as A
from nugar.kernels import dispatch, rng
from nugar.kernels import sowing as S
from nugar.kernels import sowing_words as W
from nugar.kernels.common import HEADER, ST_TO_MOVE
from nugar.rules.family import family_of

GAMES = 300
REPS = 5


@numba.njit
def _collect(fam: int, params: Any, start: Any, games: int) -> tuple[Any, Any]:
    cap = games * 2000
    states = np.empty((cap, start.shape[0]), np.int64)
    acts = np.empty(cap, np.int64)
    moves = np.empty(dispatch.fam_num_actions(fam, params), np.int64)
    history = np.empty(100_000, np.int64)
    k = 0
    for g in range(games):
        s = start.copy()
        x = rng.seed_state(g)
        count = dispatch.fam_note_position(fam, params, s, history, 0)
        while s[1] == 0 and k < cap:
            n = dispatch.fam_legal(fam, params, s, moves)
            x = rng.advance(x)
            states[k] = s
            acts[k] = moves[rng.pick(x, n)]
            k += 1
            dispatch.fam_apply(fam, params, s, moves[rng.pick(x, n)])
            count = dispatch.fam_note_position(fam, params, s, history, count)
    return states[:k], acts[:k]


@numba.njit
def _legal(fam: int, params: Any, states: Any, acts: Any, reps: int) -> int:
    moves = np.empty(dispatch.fam_num_actions(fam, params), np.int64)
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            t += dispatch.fam_legal(fam, params, states[i], moves)
    return t


@numba.njit
def _copy(fam: int, params: Any, states: Any, acts: Any, reps: int) -> int:
    buf = np.empty(states.shape[1], np.int64)
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            for j in range(states.shape[1]):
                buf[j] = states[i, j]
            t += buf[1]
    return t


@numba.njit
def _apply(fam: int, params: Any, states: Any, acts: Any, reps: int) -> int:
    buf = np.empty(states.shape[1], np.int64)
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            for j in range(states.shape[1]):
                buf[j] = states[i, j]
            dispatch.fam_apply(fam, params, buf, acts[i])
            t += buf[1]
    return t


@numba.njit
def _start_turn(fam: int, params: Any, states: Any, acts: Any, reps: int) -> int:
    buf = np.empty(states.shape[1], np.int64)
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            for j in range(states.shape[1]):
                buf[j] = states[i, j]
            A.start_turn(params, buf)
            t += buf[1]
    return t


@numba.njit
def _games(fam: int, params: Any, start: Any, games: int) -> int:
    t = 0
    for g in range(games):
        t += dispatch.random_playout(fam, params, start, g, 10**9)
    return t


@numba.njit
def _sides(s: Any, pits: int) -> tuple[int, int, int, int]:
    """The two words of a position (first player's, second's) and the mover's and the
    opponent's among them."""
    a = W.pack(s, HEADER, pits)
    b = W.pack(s, HEADER + pits + 1, pits)
    mine, theirs = (a, b) if s[ST_TO_MOVE] == 1 else (b, a)
    return a, b, mine, theirs


@numba.njit
def _w_pack(params: Any, states: Any, acts: Any, reps: int) -> int:
    pits = params[S.P_PITS]
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            t += W.pack(states[i], HEADER, pits) ^ W.pack(states[i], HEADER + pits + 1, pits)
    return t


@numba.njit
def _w_choices(params: Any, states: Any, acts: Any, reps: int) -> int:
    pits = params[S.P_PITS]
    duty = S.capture_duty(params)
    skip = params[S.P_SKIP_ORIGIN]
    single = params[S.P_EMPTY_SINGLE]
    ext = HEADER + 2 * pits + 2
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            s = states[i]
            a, b, mine, theirs = _sides(s, pits)
            if duty:
                t ^= W.duty_choices(mine, theirs, pits, skip, single, s[ext + S.F_FIRST_DONE])
            else:
                t ^= W.nonempty(mine, pits)
            t ^= a ^ b
    return t


@numba.njit
def _w_sow(params: Any, states: Any, acts: Any, reps: int) -> int:
    pits = params[S.P_PITS]
    skip = params[S.P_SKIP_ORIGIN]
    single = params[S.P_EMPTY_SINGLE]
    t = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            a, b, mine, theirs = _sides(states[i], pits)
            m, th, last = W.sow(mine, theirs, acts[i], pits, skip, single)
            t ^= m ^ th ^ last ^ a ^ b
    return t


def _ns(func: Callable[..., int], args: tuple[Any, ...], calls: int) -> float:
    func(*args)
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        func(*args)
        best = min(best, time.process_time() - t0)
    return best / calls * 1e9


def profile(rules: str) -> list[str]:
    rule_set = nugar.parse_rules(rules)
    params = nugar.new_game(rule_set).params
    fam = family_of(rule_set).parts.code
    start = dispatch.fam_initial_state(fam, params)
    states, acts = _collect(fam, params, start, GAMES)
    n = states.shape[0]
    lines = [f"### `{rules}`: {n / GAMES:.1f} decisions per game", "",
             "| part | decisions per game | ns per call |", "| --- | ---: | ---: |"]
    whole = _ns(_games, (fam, params, start, GAMES), n)
    lines.append(f"| whole random game, per decision | {n / GAMES:.1f} | {whole:.1f} |")
    groups = [("all decisions", np.ones(n, dtype=np.bool_))]
    if fam == dispatch.FAM_ALIGNMENT:
        pending = states[:, A.ST_PENDING] != 0
        drop = ~pending & (states[:, A.ST_HAND2] > 0)
        groups += [("owed capture", pending), ("drop", drop), ("step", ~pending & ~drop)]
    for label, mask in groups:
        sub = np.ascontiguousarray(states[mask])
        sub_acts = np.ascontiguousarray(acts[mask])
        k = sub.shape[0]
        if k == 0:
            continue
        args = (fam, params, sub, sub_acts, REPS)
        copy = _ns(_copy, args, k * REPS)
        parts = [("legal moves", _ns(_legal, args, k * REPS)),
                 ("apply (with end checks, key)", _ns(_apply, args, k * REPS) - copy)]
        if fam == dispatch.FAM_ALIGNMENT:
            parts.append(("  of which the blocked check (start_turn)",
                          _ns(_start_turn, args, k * REPS) - copy))
        if fam == dispatch.FAM_SOWING and W.fits(params, start):
            words = (params, sub, sub_acts, REPS)
            pack = _ns(_w_pack, words, k * REPS)
            parts += [("packed words (the playouts' path): pack both sides", pack),
                      ("packed words: legal choices (capture duty rated)",
                       _ns(_w_choices, words, k * REPS) - pack),
                      ("packed words: sow and capture", _ns(_w_sow, words, k * REPS) - pack)]
        for what, ns in parts:
            lines.append(f"| {label}: {what} | {k / GAMES:.1f} | {ns:.1f} |")
    return lines


def main() -> None:
    presets = sys.argv[1:] or ["dara", "dala", "kalah", "dracala"]
    print(f"numba {numba.__version__}, load average before: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    for rules in presets:
        print("\n".join(profile(rules)) + "\n", flush=True)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
