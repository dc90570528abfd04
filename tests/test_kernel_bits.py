"""The bit-counting helpers of the bitboard kernels give the same answers compiled (LLVM's
``cttz`` / ``ctpop``) and as plain Python (the path of interpreted kernels)."""

from __future__ import annotations

import random

import numba
import numpy as np

from nugar.kernels.bits import byte_reverse, lowest_square, popcount


@numba.njit(cache=False)
def _compiled(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    low = np.empty(values.shape[0], np.int64)
    count = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        low[i] = lowest_square(values[i])
        count[i] = popcount(values[i])
    return low, count


def test_lowest_square_and_popcount_agree_compiled_and_interpreted() -> None:
    rng = random.Random(5)
    values = [1, 2, 3, 1 << 62, (1 << 63) - 1, (1 << 62) | 1 << 30]
    values += [rng.randrange(1, 1 << 63) for _ in range(500)]
    values += [1 << rng.randrange(63) for _ in range(100)]
    low, count = _compiled(np.array(values, dtype=np.int64))
    for i, v in enumerate(values):
        expected_low = next(b for b in range(63) if (v >> b) & 1)
        assert lowest_square(v) == expected_low == low[i]
        assert lowest_square(np.int64(v)) == expected_low  # what interpreted kernels pass
        assert popcount(v) == bin(v).count("1") == count[i]
        assert popcount(np.int64(v)) == bin(v).count("1")
    assert popcount(0) == 0


@numba.njit(cache=False)
def _reversed(values: np.ndarray) -> np.ndarray:
    out = np.empty(values.shape[0], np.int64)
    for i in range(values.shape[0]):
        out[i] = byte_reverse(values[i])
    return out


def test_byte_reverse_agrees_compiled_and_interpreted() -> None:
    rng = random.Random(6)
    values = [0, 1, 0x0102030405060708, -1, -(1 << 63), (1 << 63) - 1, 0x0080808080808080]
    values += [rng.randrange(-(1 << 63), 1 << 63) for _ in range(500)]
    compiled = _reversed(np.array(values, dtype=np.int64))
    for i, v in enumerate(values):
        raw = (v & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little")
        expected = int.from_bytes(raw[::-1], "little", signed=True)
        assert byte_reverse(v) == expected == compiled[i]
        assert byte_reverse(np.int64(v)) == expected
    assert byte_reverse(0x0102030405060708) == 0x0807060504030201
