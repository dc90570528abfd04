"""The one place that decides how kernels are compiled.

Kernels are compiled with ``numba.njit(cache=True)`` so the compiled code is reused across
processes. Setting the environment variable ``NUMBA_DISABLE_JIT=1`` runs the same functions as
plain Python, which the tests use to check that both paths agree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numba

F = TypeVar("F", bound=Callable[..., Any])


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode with an on-disk cache."""
    return numba.njit(cache=True, nogil=True)(func)  # type: ignore[no-any-return]
