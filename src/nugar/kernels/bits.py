"""Bit counting for the bitboard kernels: one machine instruction compiled, plain Python
interpreted.

``lowest_square(x)`` (the index of the lowest set bit) and ``popcount(x)`` (the number of set
bits) are ordinary Python functions, so that kernels run as plain Python (``NUMBA_DISABLE_JIT=1``,
or interpreted while a warm-up compiles: ``nugar.kernels.jit``) call them as they are. Inside
compiled kernels numba uses the ``overload`` registered for each instead, which emits LLVM's
``cttz`` and ``ctpop`` intrinsics (``tzcnt`` and ``popcnt`` on x86-64 where the CPU has them).
Both paths are only used on numbers ``0 <= x < 2**63`` (one-word bitboards), where they agree;
``lowest_square`` is not defined for 0.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir  # type: ignore[import-untyped]
from numba import types
from numba.core.extending import intrinsic, overload


def lowest_square(x: int) -> int:
    """Index of the lowest set bit of ``x`` (``0 < x < 2**63``)."""
    v = int(x)
    return (v & -v).bit_length() - 1


def popcount(x: int) -> int:
    """Number of set bits of ``x`` (``0 <= x < 2**63``)."""
    return int(x).bit_count()


def byte_reverse(x: int) -> int:
    """The eight bytes of the 64-bit word ``x`` in reverse order (``x`` taken modulo
    ``2**64``; the result as a signed 64-bit number, as compiled code has it)."""
    v = int.from_bytes((int(x) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little"), "big")
    return v - (1 << 64) if v >= 1 << 63 else v


@intrinsic
def _bswap(typingctx: Any, x: Any) -> Any:
    sig = types.int64(types.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.bswap(args[0])

    return sig, codegen


@intrinsic
def _cttz(typingctx: Any, x: Any) -> Any:
    sig = types.int64(types.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@intrinsic
def _ctpop(typingctx: Any, x: Any) -> Any:
    sig = types.int64(types.int64)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return sig, codegen


@overload(lowest_square)
def _lowest_square_compiled(x: Any) -> Any:
    def impl(x: Any) -> int:
        return _cttz(x)  # type: ignore[call-arg]

    return impl


@overload(popcount)
def _popcount_compiled(x: Any) -> Any:
    def impl(x: Any) -> int:
        return _ctpop(x)  # type: ignore[call-arg]

    return impl


@overload(byte_reverse)
def _byte_reverse_compiled(x: Any) -> Any:
    def impl(x: Any) -> int:
        return _bswap(x)  # type: ignore[call-arg]

    return impl
