"""The one pseudo-random generator of the kernels.

Random playouts, the batched simulator's random actions, the Monte Carlo search and the
evaluation noise of the levels all draw from the Park-Miller "minimal standard" generator
(Lehmer's multiplicative generator modulo the prime ``2**31 - 1``, multiplier 48271). Its
state is a number in ``1 .. MODULUS - 1``; every product stays below ``2**47``, so compiled
code (where signed overflow must not happen) and plain Python (``NUMBA_DISABLE_JIT=1``, whose
integers never wrap) compute the same numbers, and a seed gives the same games on both paths.

Two ways to hold the state:

* as a plain number, for a loop inside one kernel: ``x = seed_state(seed)``, then
  ``x = advance(x)`` before each draw and ``pick(x, n)`` to choose one of ``n``;
* in a one-element ``int64`` array ("stream") passed between kernels: ``stream[0] =
  seed_state(seed)``, then ``draw(stream)`` (and ``pick`` of it).

:func:`mix` is not a stream: it hashes a position key and a seed into a number, for offsets
that must stay the same wherever a position recurs.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .jit import kernel_noalloc

IntArray = npt.NDArray[np.int64]

MODULUS = 2_147_483_647  # 2**31 - 1, a prime
MULTIPLIER = 48_271
_LOW31 = 0x7FFFFFFF


@kernel_noalloc
def seed_state(seed: int) -> int:
    """The generator state for any integer ``seed`` (a number in ``1 .. MODULUS - 1``)."""
    return int(seed % (MODULUS - 1) + 1)


@kernel_noalloc
def advance(x: int) -> int:
    """The state after ``x``; it is also the next random number (``1 .. MODULUS - 1``)."""
    return int(x * MULTIPLIER % MODULUS)


@kernel_noalloc
def pick(x: int, n: int) -> int:
    """One of ``0 .. n - 1`` from the random number ``x`` (``1 .. MODULUS - 1``, ``n`` below
    ``2**31``): ``x`` scaled to ``n`` by a multiplication and a shift, where ``x % n`` would
    need a division (tens of cycles, a fifth of a random Kalah decision). The products stay
    below ``2**62``; each choice has the same chance to within ``n / 2**31``, as with a
    remainder."""
    return int((x * n) >> 31)


@kernel_noalloc
def continue_seed(x: int) -> int:
    """The seed whose :func:`seed_state` is ``x``: a caller that returns it lets the next
    call, seeded with it, continue the same sequence."""
    return int(x - 1)


@kernel_noalloc
def draw(stream: IntArray) -> int:
    """Advance the state kept in ``stream[0]`` and return the new random number."""
    x = advance(stream[0])
    stream[0] = x
    return x


@kernel_noalloc
def mix(key: int, seed: int) -> int:
    """A number in ``0 .. MODULUS - 1`` that depends only on ``key`` (any ``int64``) and
    ``seed`` (31 bits): the key's halves folded together with the seed, then two
    steps of the generator (with different increments, so that key 0 is not a fixed point)."""
    h = ((key ^ (key >> 31)) ^ seed) & _LOW31
    h = (h * MULTIPLIER + 11) % MODULUS
    return int((h * MULTIPLIER + 13) % MODULUS)
