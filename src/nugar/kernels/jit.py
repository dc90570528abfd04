"""The one place that decides how kernels are compiled, where the compiled code is cached, and
what happens to a call that would have to wait for the compiler.

Every kernel is a :class:`KernelDispatcher`, numba's CPU dispatcher with three changes:

* **Cache in the user's cache directory.** Compiled code is kept on disk so the next process
  loads it in milliseconds instead of compiling it again, but never next to the sources (an
  installed package may be read-only, and a cache there is shared by every user):
  ``$NUGAR_CACHE_DIR``, else ``$NUMBA_CACHE_DIR`` if the user set one, else the platform's
  cache directory (``$XDG_CACHE_HOME/nugar/numba`` or ``~/.cache/nugar/numba`` on Linux).
  The directory is chosen by a cache *locator* given to these dispatchers only, so numba's
  behaviour for other code in the same process is unchanged. Inside it, each version of
  the kernel sources gets its own folder (see :func:`_subdir`). If that directory cannot be
  written, kernels are compiled in memory only, after one :class:`CacheWarning`.
* **One compilation per argument type, not per constant.** Inside compiled code numba
  types a constant argument (``_run(..., 1, -1)``) as a literal and compiles the callee
  again for each distinct constant; these dispatchers type such arguments by their plain
  type, so each kernel is compiled once. LLVM still inlines and folds the constants where
  it pays, so the compiled code is as fast; compiling the search takes about a quarter less
  (``docs/benchmarks.md``, "Cold start").
* **Interpreted while a warm-up runs.** While a background warm-up (``nugar.warmup``) runs,
  a call from another thread to a kernel that is not compiled (or loaded) yet runs the
  kernel's Python source instead of waiting for the compiler: the same code and results,
  only slower. :func:`interpreted_calls` counts such calls.

Setting the environment variable ``NUMBA_DISABLE_JIT=1`` runs every kernel as plain Python,
which the tests use to check that both paths agree.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar, cast

import numba
from numba.core import types
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    _CacheLocator,
    _SourceFileBackedLocatorMixin,
)
from numba.core.dispatcher import OmittedArg
from numba.core.registry import CPUDispatcher

F = TypeVar("F", bound=Callable[..., Any])

#: environment variable naming the directory of compiled kernels
CACHE_ENV = "NUGAR_CACHE_DIR"


class CacheWarning(UserWarning):
    """The compiled-kernel cache cannot be used; kernels are compiled in every process."""


# --- where the compiled code goes ---------------------------------------------------------


def default_cache_dir() -> Path:
    """The platform's per-user cache directory for nugar's compiled kernels."""
    home = Path.home()
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(home / "AppData" / "Local")
        return Path(base) / "nugar" / "Cache" / "numba"
    if sys.platform == "darwin":
        return home / "Library" / "Caches" / "nugar" / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or str(home / ".cache")
    return Path(base) / "nugar" / "numba"


def cache_dir() -> Path:
    """The directory compiled kernels are cached in: ``$NUGAR_CACHE_DIR``, else numba's
    ``NUMBA_CACHE_DIR`` if the user set one, else :func:`default_cache_dir`."""
    ours = os.environ.get(CACHE_ENV)
    if ours:
        return Path(ours).expanduser()
    numbas = getattr(numba.config, "CACHE_DIR", "")
    if numbas:
        return Path(numbas).expanduser()
    return default_cache_dir()


def writable_reason(path: Path) -> str | None:
    """``None`` if files can be created in ``path`` (made if missing), else why not."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=path).close()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


_cache_lock = threading.Lock()
_cache_root: Path | None = None
_cache_checked = False
_warned = False


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(message, CacheWarning, stacklevel=3)


def _usable_cache_root() -> Path | None:
    """The cache directory if it can be written (checked once per process), else ``None``
    after a warning."""
    global _cache_root, _cache_checked
    with _cache_lock:
        if not _cache_checked:
            _cache_checked = True
            path = cache_dir()
            reason = writable_reason(path)
            if reason is None:
                _cache_root = path
            else:
                _warn_once(f"nugar: cannot write compiled kernels to {path} ({reason}); they "
                           f"will be compiled again in every run. Set {CACHE_ENV} to a "
                           f"writable directory.")
        return _cache_root


def reset_cache_choice() -> None:
    """Forget the directory chosen (tests change the environment between kernels)."""
    global _cache_root, _cache_checked, _warned
    with _cache_lock:
        _cache_root, _cache_checked, _warned = None, False, False
        _subdirs.clear()


#: how old a cache folder of other kernel sources must be before it is removed
STALE_SECONDS = 7 * 24 * 3600

_subdirs: dict[tuple[Path, str], Path] = {}


def _sources_digest(folder: Path) -> str:
    """A digest of the kernel sources a cached kernel of ``folder`` may have compiled in:
    the modules of ``folder`` and of this one's (every kernel calls into ``kernels/``)."""
    digest = hashlib.sha256(numba.__version__.encode())
    for directory in sorted({folder, Path(__file__).resolve().parent}):
        for path in sorted(directory.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _subdir(root: Path, prefix: str, folder: Path) -> Path:
    """``root/prefix-DIGEST``: compiled code is kept per version of the kernel sources.

    numba checks that a cached function's own file is unchanged, not the files of the
    kernels it calls and compiled into itself; a folder per version of all of them never
    serves code built from other sources (after an upgrade, or an edit of a kernel). The
    folders of other versions are removed once unused for :data:`STALE_SECONDS`.
    """
    key = (root, prefix)
    with _cache_lock:
        found = _subdirs.get(key)
        if found is None:
            found = root / f"{prefix}-{_sources_digest(folder)}"
            _subdirs[key] = found
            _remove_stale(root, prefix, found)
    return found


def _remove_stale(root: Path, prefix: str, keep: Path) -> None:
    now = time.time()
    for other in root.glob(f"{prefix}-*"):
        try:
            if other != keep and other.is_dir() and now - other.stat().st_mtime > STALE_SECONDS:
                shutil.rmtree(other, ignore_errors=True)
        except OSError:
            continue


class _UserCacheLocator(_SourceFileBackedLocatorMixin, _CacheLocator):
    """numba cache locator: a subdirectory of :func:`cache_dir` per source directory and
    version of the kernel sources (see :func:`_subdir`)."""

    root: Path | None = None  # set by the subclass made for each kernel

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        assert self.root is not None
        prefix = cast(Any, self).get_suitable_cache_subpath(py_file)
        self._cache_path = str(_subdir(self.root, prefix, Path(py_file).resolve().parent))

    def get_cache_path(self) -> str:
        return self._cache_path


class _UserFunctionCache(FunctionCache):
    """numba's function cache in the user's cache directory; a failed write or read makes the
    kernel compile as if nothing were cached (one warning), never an error."""

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        try:
            return cast(Any, super()).load_overload(sig, target_context)
        except Exception as exc:  # a damaged cache file: compile as if it were not there
            _warn_once(f"nugar: cannot read a compiled kernel from {self.cache_path} "
                       f"({exc}); compiling it again.")
            return None

    def save_overload(self, sig: Any, data: Any) -> None:
        try:
            cast(Any, super()).save_overload(sig, data)
        except OSError as exc:
            cast(Any, self).disable()
            _warn_once(f"nugar: cannot write compiled kernels to {self.cache_path} "
                       f"({exc.strerror or exc}); they will be compiled again in every run. "
                       f"Set {CACHE_ENV} to a writable directory.")


_cache_classes: dict[Path, type[_UserFunctionCache]] = {}


def _cache_class(root: Path) -> type[_UserFunctionCache]:
    """The function-cache class that stores under ``root`` (one per directory)."""
    cls = _cache_classes.get(root)
    if cls is None:
        locator = type("UserCacheLocator", (_UserCacheLocator,), {"root": root})
        impl = type("UserCacheImpl", (CompileResultCacheImpl,), {"_locator_classes": [locator]})
        cls = type("UserFunctionCache", (_UserFunctionCache,), {"_impl_class": impl})
        _cache_classes[root] = cls
    return cls


def _enable_cache(disp: CPUDispatcher) -> None:
    root = _usable_cache_root()
    if root is None:
        return
    try:
        cast(Any, disp)._cache = _cache_class(root)(disp.py_func)
    except (OSError, RuntimeError) as exc:  # the source file's subdirectory cannot be made
        _warn_once(f"nugar: cannot cache compiled kernels under {root} ({exc}); they will "
                   f"be compiled again in every run. Set {CACHE_ENV} to a writable "
                   f"directory.")


def is_cached(disp: Any) -> bool:
    """Whether the disk cache holds compiled code of the kernel ``disp`` for its current
    source (any argument types). A cheap look at the cache's index, no compiling."""
    cache = getattr(disp, "_cache", None)
    if not isinstance(cache, _UserFunctionCache):
        return False
    try:
        return bool(cast(Any, cache)._cache_file._load_index())
    except Exception:  # an unreadable index: numba compiles again, so does the warm-up
        return False


# --- interpreting while a warm-up compiles ------------------------------------------------


class _Gate:
    """Whether a call that misses compiled code should run interpreted (see module doc)."""

    def __init__(self) -> None:
        self.active: Callable[[], bool] | None = None  # set by a warm-up (nugar.warmup)
        self.local = threading.local()
        self.calls = 0
        self.lock = threading.Lock()

    def depth(self) -> int:
        return getattr(self.local, "depth", 0)

    def compiles_here(self) -> bool:
        return getattr(self.local, "compile", False)

    def interpret(self) -> bool:
        if self.depth() > 0:
            return True  # inside an interpreted kernel: never stop to compile a callee
        if self.compiles_here():
            return False
        active = self.active
        return active is not None and active()


_gate = _Gate()


def set_interpret_gate(active: Callable[[], bool] | None) -> None:
    """Install the test a missed call makes to run interpreted (``None``: always compile).
    ``nugar.warmup`` sets it when its thread starts."""
    _gate.active = active


@contextmanager
def compiling_thread() -> Iterator[None]:
    """Kernels called in this block, in this thread, are always compiled (the warm-up)."""
    before = _gate.compiles_here()
    _gate.local.compile = True
    try:
        yield
    finally:
        _gate.local.compile = before


def interpreted_calls() -> int:
    """How many calls, in all threads, started running a kernel interpreted (the outermost
    call only: what it calls in turn is not counted)."""
    return _gate.calls


def _run_interpreted(func: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any) -> Any:
        # numba hands defaults the caller left out as placeholders
        args = tuple(a.value if isinstance(a, OmittedArg) else a for a in args)
        local = _gate.local
        depth = getattr(local, "depth", 0)
        if depth == 0:
            with _gate.lock:
                _gate.calls += 1
        local.depth = depth + 1
        try:
            return func(*args)
        finally:
            local.depth = depth

    return run


# --- the dispatcher -----------------------------------------------------------------------


class KernelDispatcher(CPUDispatcher):
    """numba's CPU dispatcher with the changes of the module doc."""

    def get_call_template(self, args: Any, kws: Any) -> Any:
        """Type a call from compiled code by its plain argument types (no literals)."""
        plain = cast(Any, types).unliteral
        args = tuple(plain(a) for a in args)
        kws = {k: plain(v) for k, v in kws.items()}
        return super().get_call_template(args, kws)

    def _compile_for_args(self, *args: Any, **kws: Any) -> Any:
        """Called by numba for a call no compiled version matches: compile one, or, while a
        warm-up runs in another thread, return the Python function to run instead."""
        if not kws and _gate.interpret():
            return _run_interpreted(self.py_func)
        return cast(Any, super())._compile_for_args(*args, **kws)


#: every kernel made by this module, in definition order
KERNELS: list[KernelDispatcher] = []


def enabled() -> bool:
    """Whether kernels are compiled at all (not with ``NUMBA_DISABLE_JIT=1``)."""
    return not getattr(numba.config, "DISABLE_JIT", False)


def _make(func: F, options: dict[str, Any]) -> F:
    if not enabled():
        return func
    disp = KernelDispatcher(py_func=func, locals={}, targetoptions=options)
    _enable_cache(disp)
    KERNELS.append(disp)
    return cast(F, disp)


def kernel(func: F) -> F:
    """Compile ``func`` in nopython mode, cached on disk (see the module doc)."""
    return _make(func, {"nopython": True, "nogil": True})


def kernel_noalloc(func: F) -> F:
    """Like :func:`kernel`, for kernels that create no arrays.

    These are compiled without numba's reference counting (the ``_nrt=False`` option), which
    otherwise increments and decrements every array argument on each call with atomic
    operations: several times slower for the tiny move-generation kernels. The option is
    not part of numba's documented interface; the test suite exercises every such kernel, so
    a numba release that changes it is caught at once.
    """
    return _make(func, {"nopython": True, "nogil": True, "_nrt": False})


def kernel_held(func: F) -> F:
    """Like :func:`kernel_noalloc`, but keeping the GIL: for the quick kernels the game API
    calls once per move (move generation, a move's application). Every other kernel lets
    the GIL go while it runs, so that searches run beside other threads; for a kernel of a
    microsecond, letting it go and taking it back costs more than the kernel whenever another
    thread wants it (a server's database writer), as both threads are woken and switched
    each time. Such a kernel is a thin twin of the releasing one (its own function, so the
    two are cached apart), which the search and the simulators keep calling."""
    return _make(func, {"nopython": True, "nogil": False, "_nrt": False})


def kernel_inline(func: F) -> F:
    """Like :func:`kernel_noalloc`, and inlined into its callers by numba itself (its
    ``inline="always"`` option), for a small kernel called in the innermost loop of
    another whose call LLVM would not inline."""
    return _make(func, {"nopython": True, "nogil": True, "_nrt": False, "inline": "always"})
