"""The one place that decides how kernels are compiled.

Kernels are compiled with ``numba.njit(cache=True)`` so the compiled code is reused across
processes. Setting the environment variable ``NUMBA_DISABLE_JIT=1`` runs the same functions as
plain Python, which the tests use to check that both paths agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

import numba

F = TypeVar("F", bound=Callable[..., Any])


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode with an on-disk cache."""
    return cast(F, numba.njit(cache=True, nogil=True)(func))


def kernel_noalloc(func: F) -> F:
    """Like :func:`kernel`, for kernels that create no arrays.

    These are compiled without numba's reference counting (the ``_nrt=False`` option), which
    otherwise increments and decrements every array argument on each call with atomic
    operations: several times slower for the tiny move-generation kernels. The option is
    not part of numba's documented interface; the test suite exercises every such kernel, so
    a numba release that changes it is caught at once.
    """
    options: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}
    return cast(F, numba.njit(**options)(func))
