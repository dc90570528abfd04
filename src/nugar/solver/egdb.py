"""Kalah endgame databases on disk: one memory-mapped file per seed count.

The values are those of the in-memory database (``db.py``): for every hole vector with
``n`` seeds on the board (mover's holes 1..P, then the opponent's) the part ``W`` of the
mover's final margin that the stores do not already give, one signed byte. Here each level
``n`` is a file of its own, ``level-NNN.egdb`` in :func:`db_directory`:

* a 4096-byte header: the magic ``NUGAREDB``, a 4-byte length and a JSON object with the
  format version, the board (holes per player), the rule options the values depend on, the
  level, the number of positions and the CRC-32 of the data;
* the data: ``C(n + 2P - 1, 2P - 1)`` bytes, position ``k`` of the level being the ``k``-th
  composition of ``n`` seeds into ``2P`` holes in lexicographic order (the combinatorial
  ranking of ``db.db_index``, less the positions of lower levels).

A file is used only when its header matches the rule set and its data has the size and the
checksum the header gives; anything else (a truncated, corrupted or foreign file) is left out
of the reach and rebuilt by :func:`build`. A level is written to ``level-NNN.egdb.part``
and renamed when it is complete, so an interrupted build resumes at the first level missing.
One build at a time writes a database folder: :func:`build` holds the folder's lock file
(``build.lock``, an advisory ``flock`` the system drops when its process ends, however it
ends) for its whole length, and a second build, in this process or another, waits for it and
then keeps what the first one finished.

Building a level needs only the lower levels (the seeds on the board never increase) and
splits into independent index ranges (:func:`build_range`): a range's memoised search may
compute positions of its own level outside the range, which another worker may compute too;
both write the same value, a single byte, so the workers share the level's file mapping
without locks. :func:`build` runs ``workers`` forked processes over interleaved ranges.

All levels are mapped into one reserved stretch of address space, each at a page-aligned
``base[n]`` (``mmap`` with ``MAP_FIXED``), so the compiled search reads them as one array:
the value of a position with ``n`` seeds is ``table[base[n] + local index]``. The pages
come from the operating system's file cache and are shared by every process that maps them.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..kernels import sowing
from ..kernels.endgames import local_index
from ..rules.options import RuleSet
from .db import (
    MAX_DB_SEEDS,
    UNKNOWN,
    binomials,
    fill_range,
    rules_key,
    supported,
)

IntArray = npt.NDArray[np.int64]
ByteArray = npt.NDArray[np.int8]

FORMAT_VERSION = 1
MAGIC = b"NUGAREDB"
HEADER_BYTES = 4096
DATA_ENV = "NUGAR_DATA_DIR"
_PAGE = mmap.PAGESIZE
_MAP_FIXED = 0x10        # the same value on Linux and the BSDs / macOS
_CHUNK = 1 << 26         # bytes per checksum step


class EGDBError(Exception):
    """The database cannot be built or mapped here (no space, not a POSIX system)."""


def data_dir() -> Path:
    """Where nugar keeps data it builds: ``$NUGAR_DATA_DIR``, else ``$XDG_DATA_HOME/nugar``,
    else ``~/.local/share/nugar``."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "nugar"


def db_directory(rules: RuleSet, root: Path | None = None) -> Path:
    """The folder of ``rules``' database: one per board and option set (``seeds`` per hole
    plays no part)."""
    return (root if root is not None else data_dir()) / "egdb" / rules_key(rules)


def level_count(pits: int, n: int) -> int:
    """Positions with exactly ``n`` seeds in ``2 * pits`` holes: ``C(n + 2P - 1, 2P - 1)``."""
    m = 2 * pits
    out = 1
    for i in range(1, m):
        out = out * (n + i) // i
    return out


def level_path(directory: Path, n: int) -> Path:
    return directory / f"level-{n:03d}.egdb"


LOCK_NAME = "build.lock"


@contextmanager
def build_lock(directory: Path, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold ``directory``'s build lock (module doc) for the block; when another build holds
    it, call ``on_wait()`` once and wait for it. The lock is an advisory ``flock`` on the
    file ``build.lock``: the system releases it when its holder's process ends, even
    killed, so a crashed build never blocks the next one."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: the databases cannot be mapped there either
        raise EGDBError("building endgame databases needs a POSIX system") from None
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def directory_stamp(rules: RuleSet, root: Path | None = None) -> int | None:
    """A number that changes whenever a level file appears in (or leaves) ``rules``'
    database folder: its modification time (a finished level is renamed into it). ``None``
    while there is no folder. A reader that mapped the levels once compares it, a ``stat``,
    to see whether a build (in any process) has finished a level since."""
    try:
        return db_directory(rules, root).stat().st_mtime_ns
    except OSError:
        return None


def _header_fields(rules: RuleSet, n: int) -> dict[str, Any]:
    o = rules.sowing_options
    pits = o.pits
    return {"format": FORMAT_VERSION, "board": {"pits": pits, "holes": 2 * pits},
            "rules": rules_key(rules),
            "options": {name: str(getattr(o, name))
                        for name in ("skip_origin", "empty_capture", "end", "leftovers")},
            "level": n, "count": level_count(pits, n)}


def _write_header(fh: Any, fields: dict[str, Any]) -> None:
    text = json.dumps(fields, sort_keys=True).encode()
    block = MAGIC + len(text).to_bytes(4, "little") + text
    if len(block) > HEADER_BYTES:
        raise EGDBError("database header too long")
    fh.seek(0)
    fh.write(block + bytes(HEADER_BYTES - len(block)))


def _read_header(path: Path) -> dict[str, Any] | str:
    try:
        with open(path, "rb") as fh:
            head = fh.read(HEADER_BYTES)
    except OSError as exc:
        return f"cannot be read ({exc.strerror})"
    if len(head) < HEADER_BYTES or head[:8] != MAGIC:
        return "has no database header"
    length = int.from_bytes(head[8:12], "little")
    try:
        fields = json.loads(head[12:12 + length])
    except ValueError:
        return "has a corrupted header"
    if not isinstance(fields, dict):
        return "has a corrupted header"
    return fields


def _crc(data: Any) -> str:
    crc = 0
    view = memoryview(data).cast("B")
    for i in range(0, len(view), _CHUNK):
        crc = zlib.crc32(view[i:i + _CHUNK], crc)
    return f"{crc:08x}"


def _file_crc(path: Path, count: int) -> str:
    with open(path, "rb") as fh:
        if count == 0:
            return _crc(b"")
        with mmap.mmap(fh.fileno(), HEADER_BYTES + count, access=mmap.ACCESS_READ) as mm:
            return _crc(memoryview(mm)[HEADER_BYTES:HEADER_BYTES + count])


_VERIFIED: dict[tuple[str, int, int], bool] = {}


def check_level(rules: RuleSet, directory: Path, n: int) -> str | None:
    """``None`` if level ``n``'s file is complete and sound for ``rules``, else why not
    (``"missing"``, or what is wrong with it). The checksum of a file is computed once per
    process (per size and modification time)."""
    path = level_path(directory, n)
    try:
        st = path.stat()
    except OSError:
        return "missing"
    fields = _read_header(path)
    if isinstance(fields, str):
        return fields
    want = _header_fields(rules, n)
    for key, value in want.items():
        if fields.get(key) != value:
            return f"was written for other settings ({key} {fields.get(key)!r}, not {value!r})"
    count = int(want["count"])
    if st.st_size != HEADER_BYTES + count:
        return (f"is truncated or too long ({st.st_size:,} bytes, not "
                f"{HEADER_BYTES + count:,})")
    stamp = (str(path), st.st_size, st.st_mtime_ns)
    if stamp not in _VERIFIED:
        _VERIFIED[stamp] = _file_crc(path, count) == fields.get("checksum")
    if not _VERIFIED[stamp]:
        return "is corrupted (checksum mismatch)"
    return None


# --- one stretch of address space for all levels -------------------------------------------

def _libc() -> Any:
    if sys.platform == "win32":
        raise EGDBError("memory-mapped endgame databases need a POSIX system")
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.msync.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    return libc


def _round_up(x: int) -> int:
    return (x + _PAGE - 1) // _PAGE * _PAGE


class Reserved:
    """One reserved stretch of ``size`` bytes of address space, in which files are mapped
    at page-aligned offsets (``map_file``) and which compiled code reads as one array
    (``view``). Pages nothing is mapped on stay inaccessible."""

    def __init__(self, size: int) -> None:
        self._libc = _libc()
        self.size = max(_round_up(size), _PAGE)
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_NORESERVE", 0)
        addr = self._libc.mmap(None, self.size, 0, flags, -1, 0)  # PROT_NONE: reserved only
        if addr in (None, ctypes.c_void_p(-1).value):
            raise EGDBError(f"cannot reserve {self.size:,} bytes of address space")
        self.addr: int = addr
        self.closed = False

    def view(self, ctype: Any) -> npt.NDArray[Any]:
        """The whole stretch as an array of ``ctype`` (e.g. ``ctypes.c_int8``); the array
        keeps this object, and so the mapping, alive."""
        raw = (ctype * (self.size // ctypes.sizeof(ctype))).from_address(self.addr)
        raw._owner = self
        return np.ctypeslib.as_array(raw)

    def map_file(self, path: Path, at: int, count: int, offset: int = 0,
                 writable: bool = False) -> None:
        """Map ``count`` bytes of ``path`` from byte ``offset`` (page-aligned) at byte ``at``
        (page-aligned) of the stretch."""
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if writable else 0)
        fd = os.open(path, os.O_RDWR if writable else os.O_RDONLY)
        try:
            got = self._libc.mmap(self.addr + at, count, prot, mmap.MAP_SHARED | _MAP_FIXED,
                                  fd, offset)
        finally:
            os.close(fd)
        if got != self.addr + at:
            raise EGDBError(f"cannot map {path} (errno {ctypes.get_errno()})")

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._libc.munmap(self.addr, self.size)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


class Region(Reserved):
    """Levels ``0..top`` of one database mapped at page-aligned offsets ``base[n]`` of one
    reserved stretch of address space, seen as one ``int8`` array (``table``)."""

    def __init__(self, pits: int, top: int) -> None:
        self.pits = pits
        self.top = top
        base = np.zeros(max(top, 0) + 2, dtype=np.int64)
        offset = 0
        for n in range(top + 1):
            base[n] = offset
            offset += _round_up(level_count(pits, n))
        base[top + 1] = offset
        self.base: IntArray = base
        super().__init__(offset)
        self.table: ByteArray = self.view(ctypes.c_int8)

    def map_level(self, path: Path, n: int, writable: bool = False) -> None:
        self.map_file(path, int(self.base[n]), level_count(self.pits, n), HEADER_BYTES,
                      writable)

    def level(self, n: int) -> ByteArray:
        start = int(self.base[n])
        return self.table[start:start + level_count(self.pits, n)]

    def sync(self, n: int) -> None:
        self._libc.msync(self.addr + int(self.base[n]),
                         _round_up(level_count(self.pits, n)), 4)  # MS_SYNC


# --- the compiled build ---------------------------------------------------------------------

# --- building -------------------------------------------------------------------------------

@dataclass
class LevelReport:
    """What building (or checking) one level did."""

    level: int
    positions: int
    bytes: int
    seconds: float
    cpu_seconds: float
    steps: int
    status: str        # "built", "kept" (already sound) or "rebuilt: <why the old was bad>"

    @property
    def rate(self) -> float:
        return self.positions / self.seconds if self.seconds > 0 else 0.0


ProgressFn = Callable[[int, int, int, float], None]   # level, done, count, seconds


def _params_of(rules: RuleSet) -> IntArray:
    from ..rules.sowing import SowingGame

    return SowingGame(rules).params


def _check_rules(rules: RuleSet, seeds: int) -> None:
    if not supported(rules):
        raise ValueError(f"no endgame database for {rules.text} (Kalah with leftovers "
                         f"owner or last_mover only)")
    if not 0 <= seeds <= MAX_DB_SEEDS:
        raise ValueError(f"database seeds must be 0..{MAX_DB_SEEDS}, not {seeds}")


def _open_for_level(rules: RuleSet, directory: Path, n: int, part: Path) -> Region:
    pits = rules.sowing_options.pits
    region = Region(pits, n)
    for lower in range(n):
        region.map_level(level_path(directory, lower), lower)
    region.map_level(part, n, writable=True)
    return region


def build_range(rules: RuleSet, n: int, start: int, stop: int, *,
                root: Path | None = None) -> int:
    """Compute the positions ``start..stop-1`` of level ``n`` into that level's unfinished
    file (``level-NNN.egdb.part``, made by :func:`prepare_level`), with levels ``0..n-1``
    complete. Independent of every other range of the level: the unit of work to farm out
    (each worker maps the same files; see the module docstring). Returns steps played."""
    directory = db_directory(rules, root)
    params = _params_of(rules)
    pits = int(params[sowing.P_PITS])
    binom = binomials(pits, max(n, 1))
    region = _open_for_level(rules, directory, n, _part(directory, n))
    try:
        stats = np.zeros(1, dtype=np.int64)
        if fill_range(params, binom, region.base, region.table, n, start, stop, stats) < 0:
            raise EGDBError(f"level {n}: a cycle inside the level")
        region.sync(n)
        return int(stats[0])
    finally:
        region.close()


def _part(directory: Path, n: int) -> Path:
    return directory / f"level-{n:03d}.egdb.part"


def prepare_level(rules: RuleSet, n: int, *, root: Path | None = None) -> Path:
    """Create level ``n``'s unfinished file, every entry unknown; return its path."""
    directory = db_directory(rules, root)
    directory.mkdir(parents=True, exist_ok=True)
    pits = rules.sowing_options.pits
    count = level_count(pits, n)
    part = _part(directory, n)
    fields = dict(_header_fields(rules, n), checksum="", complete=False)
    with open(part, "wb") as fh:
        _write_header(fh, fields)
        fh.truncate(HEADER_BYTES + count)
    with open(part, "r+b") as fh:
        if count:
            with mmap.mmap(fh.fileno(), HEADER_BYTES + count) as mm:
                arr = np.frombuffer(mm, dtype=np.int8, count=count, offset=HEADER_BYTES)
                arr.fill(UNKNOWN)
                del arr
                mm.flush()
    return part


def finish_level(rules: RuleSet, n: int, *, root: Path | None = None) -> None:
    """Check that every entry of level ``n``'s unfinished file is known, write its checksum
    into the header and give the file its final name."""
    directory = db_directory(rules, root)
    pits = rules.sowing_options.pits
    count = level_count(pits, n)
    part = _part(directory, n)
    with open(part, "r+b") as fh:
        if count:
            with mmap.mmap(fh.fileno(), HEADER_BYTES + count) as mm:
                data = np.frombuffer(mm, dtype=np.int8, count=count, offset=HEADER_BYTES)
                left = int(np.count_nonzero(data == UNKNOWN))
                del data
                if left:
                    raise EGDBError(f"level {n}: {left:,} positions not computed")
        checksum = _file_crc(part, count)
        _write_header(fh, dict(_header_fields(rules, n), checksum=checksum, complete=True))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(part, level_path(directory, n))


def _ranges(count: int, workers: int) -> list[tuple[int, int]]:
    step = max(1 << 14, min(1 << 22, count // (workers * 32) + 1))
    return [(a, min(a + step, count)) for a in range(0, count, step)]


def _build_level(rules: RuleSet, directory: Path, n: int, workers: int,
                 progress: ProgressFn | None, root: Path | None) -> tuple[int, float]:
    """Build level ``n`` with ``workers`` forked processes; return (steps, child CPU s)."""
    import multiprocessing

    params = _params_of(rules)
    pits = int(params[sowing.P_PITS])
    count = level_count(pits, n)
    binom = binomials(pits, max(n, 1))
    prepare_level(rules, n, root=root)
    region = _open_for_level(rules, directory, n, _part(directory, n))
    counters = mmap.mmap(-1, _PAGE)       # shared with the forked workers
    shared = np.frombuffer(counters, dtype=np.int64, count=3 * max(workers, 1))
    shared[:] = 0
    ranges = _ranges(count, workers)
    stats = np.zeros(1, dtype=np.int64)
    fill_range(params, binom, region.base, region.table, n, 0, 0, stats)  # compile first

    def work(w: int, stride: int) -> None:
        t0 = time.process_time()
        st = np.zeros(1, dtype=np.int64)
        for a, b in ranges[w::stride]:
            if fill_range(params, binom, region.base, region.table, n, a, b, st) < 0:
                os._exit(3)
            shared[3 * w] += b - a
            shared[3 * w + 1] = st[0]
            shared[3 * w + 2] = int((time.process_time() - t0) * 1e6)
        region.sync(n)

    start = time.monotonic()
    try:
        forked = not (workers <= 1 or count < 1 << 16)
        if not forked:
            work(0, 1)
            workers_used = 1
        else:
            ctx = multiprocessing.get_context("fork")
            procs = [ctx.Process(target=work, args=(w, workers), daemon=True)
                     for w in range(workers)]
            for p in procs:
                p.start()
            try:
                while any(p.is_alive() for p in procs):
                    for p in procs:
                        p.join(0.5 / workers)
                    if progress is not None:
                        progress(n, int(sum(shared[0::3])), count, time.monotonic() - start)
            except BaseException:
                for p in procs:
                    if p.is_alive():
                        p.terminate()
                for p in procs:
                    p.join()
                raise
            bad = [p.exitcode for p in procs if p.exitcode != 0]
            if bad:
                raise EGDBError(f"level {n}: a build worker failed (exit code {bad[0]})")
            workers_used = workers
        steps = int(sum(shared[1:3 * workers_used:3]))
        # the workers' CPU time, when they were processes of their own (run here, it is
        # this process's, which the caller counts)
        cpu = float(sum(shared[2:3 * workers_used:3])) / 1e6 if forked else 0.0
    finally:
        region.close()
    if progress is not None:
        progress(n, count, count, time.monotonic() - start)
    finish_level(rules, n, root=root)
    return steps, cpu


def build(rules: RuleSet, seeds: int, *, root: Path | None = None, workers: int = 2,
          progress: ProgressFn | None = None,
          level_done: Callable[[LevelReport], None] | None = None,
          on_wait: Callable[[], None] | None = None) -> list[LevelReport]:
    """Make sure levels ``0..seeds`` of ``rules``' database are on disk and sound: keep the
    sound files, (re)build the missing, truncated or corrupted ones, lowest first. An
    interrupted build leaves the levels it finished; the next call goes on from there.
    Holds the folder's build lock (:func:`build_lock`; ``on_wait()`` is called if another
    build holds it, which this one then waits for)."""
    _check_rules(rules, seeds)
    if workers < 1:
        raise ValueError(f"workers must be >= 1, not {workers}")
    directory = db_directory(rules, root)
    with build_lock(directory, on_wait):
        return _build_locked(rules, seeds, directory, root, workers, progress, level_done)


def _build_locked(rules: RuleSet, seeds: int, directory: Path, root: Path | None,
                  workers: int, progress: ProgressFn | None,
                  level_done: Callable[[LevelReport], None] | None) -> list[LevelReport]:
    pits = rules.sowing_options.pits
    reports: list[LevelReport] = []
    for n in range(seeds + 1):
        count = level_count(pits, n)
        why = check_level(rules, directory, n)
        if why is None:
            report = LevelReport(n, count, HEADER_BYTES + count, 0.0, 0.0, 0, "kept")
        else:
            path = level_path(directory, n)
            if why != "missing":
                path.unlink(missing_ok=True)
            t0 = time.monotonic()
            c0 = time.thread_time()  # this thread's: others of the process (a game) apart
            steps, child_cpu = _build_level(rules, directory, n, workers, progress, root)
            report = LevelReport(n, count, HEADER_BYTES + count, time.monotonic() - t0,
                                 time.thread_time() - c0 + child_cpu, steps,
                                 "built" if why == "missing" else f"rebuilt: it {why}")
        reports.append(report)
        if level_done is not None:
            level_done(report)
    return reports


# --- reading --------------------------------------------------------------------------------

def check_levels(rules: RuleSet, directory: Path, upto: int = MAX_DB_SEEDS) -> None:
    """Check every level file of ``directory`` up to ``upto`` seeds at once, the biggest
    first, in as many threads as there are cores (at most 4): zlib's checksum runs outside
    Python's lock, so the threads check files side by side (the measurement is in
    ``docs/solving.md``, "Checks"). The answers are remembered (:func:`check_level` then
    returns at once)."""
    from concurrent.futures import ThreadPoolExecutor

    sizes = []
    for n in range(upto + 1):
        try:
            sizes.append((level_path(directory, n).stat().st_size, n))
        except OSError:
            continue
    workers = min(4, os.cpu_count() or 1, len(sizes))
    if workers < 2:
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="nugar-egdb") as pool:
        list(pool.map(lambda n: check_level(rules, directory, n),
                      [n for _, n in sorted(sizes, reverse=True)]))


class DiskDB:
    """The sound levels ``0..levels`` of ``rules``' database on disk, mapped for the search
    (``table``, ``base``, ``binom``). Levels above the first missing or unsound one are
    not used; ``problems`` lists ``(level, why)`` for the files found unsound."""

    def __init__(self, rules: RuleSet, *, root: Path | None = None,
                 upto: int = MAX_DB_SEEDS) -> None:
        _check_rules(rules, 0)
        self.rules = rules
        self.directory = db_directory(rules, root)
        self.pits = rules.sowing_options.pits
        self.problems: list[tuple[int, str]] = []
        start = time.perf_counter()
        check_levels(rules, self.directory, upto)
        top = -1
        for n in range(upto + 1):
            why = check_level(rules, self.directory, n)
            if why is not None:
                if why != "missing":
                    self.problems.append((n, why))
                break
            top = n
        self.levels = top
        self.region = Region(self.pits, max(top, 0))
        for n in range(top + 1):
            self.region.map_level(level_path(self.directory, n), n)
        self.table: ByteArray = self.region.table
        self.base: IntArray = self.region.base
        self.binom: IntArray = binomials(self.pits, max(top, 1))
        self.params = _params_of(rules)
        self.open_seconds = time.perf_counter() - start

    @property
    def nbytes(self) -> int:
        return sum(HEADER_BYTES + level_count(self.pits, n) for n in range(self.levels + 1))

    def value(self, state: np.ndarray[Any, Any]) -> int:
        """``W`` of a running position with at most ``levels`` seeds on the board."""
        on = int(sowing.seeds_on_board(self.pits, state))
        if on > self.levels:
            raise ValueError(f"{on} seeds on the board; the database covers {self.levels}")
        return int(self.table[int(self.base[on])
                              + local_index(self.params, self.binom, state, on)])

    def close(self) -> None:
        self.region.close()


def levels_on_disk(rules: RuleSet, root: Path | None = None) -> int:
    """The highest level ``n`` such that levels ``0..n`` of ``rules``' database are on disk
    and sound (checksums included); -1 if none, or no database for these rules."""
    if not supported(rules):
        return -1
    directory = db_directory(rules, root)
    check_levels(rules, directory)
    top = -1
    while top < MAX_DB_SEEDS and check_level(rules, directory, top + 1) is None:
        top += 1
    return top
