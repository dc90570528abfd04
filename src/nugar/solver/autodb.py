"""The small Kalah endgame databases, built in the background on first use.

Level 8 of Kalah plays exactly wherever the endgame databases on disk reach (``egdb.py``;
docs/solving.md, "Kalah endgame databases on disk"), but the databases to 26 seeds take
35 minutes or more and 2.5 GB. The small levels cost little: levels ``0..AUTO_SEEDS``
(18 seeds, 86.5 M positions, 83 MB) build in under a minute of one core of a quiet machine
(docs/solving.md, "Built on first use", has each level's size and time). So the faces that
play games against the computer (``nugar play``, the web app) call :func:`start` for the
rule set of a game: the first call of a process starts one daemon thread for the rule
set's database folder, which builds what is missing up to the reach with
:func:`egdb.build` on one core, at a lower scheduling priority (Linux: ``nice`` 10 for the
thread alone), compiling its kernel in that thread (never run interpreted beside a warm-up);
later calls only say how far it is (:class:`AutoStatus`). On a first run it starts once the
face's warm-up has compiled what the game needs (``start(..., after=)``).

What :func:`egdb.build` guarantees holds here too: a level is written under a temporary name
and renamed once complete and checksummed, so a reader never maps a partial file, and an
interrupted build goes on from the first level missing; the folder's build lock lets one
build at a time write it, whatever the processes (several server workers, a ``nugar play``
beside a ``nugar solve --build-db``): the others wait (``waiting``) and then keep what it
built. The disk used is that of the levels, at most :func:`reach_bytes` (83 MB for 6
holes); a build that would leave less than :data:`FREE_MARGIN` bytes free does not start.

The readers pick up each level as it is finished: the search's probing
(``ai/endgame.py``) and the solver (``core.Solver``) compare the folder's stamp
(:func:`egdb.directory_stamp`) before each decision and map the new levels.

``NUGAR_AUTO_DB`` chooses: ``0`` (or ``off``) never builds, ``N`` builds to ``N`` seeds
(1..:data:`MAX_AUTO_SEEDS`); unset, :data:`AUTO_SEEDS`. ``nugar match`` and the engine
protocol never build on their own, so that a benchmark plays with the databases it was
given (``nugar solve RULES --build-db N`` builds them there).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..rules.options import RuleSet
from . import egdb
from .db import supported

#: the environment variable that turns the automatic build off (``0``) or sets its reach
AUTO_ENV = "NUGAR_AUTO_DB"

#: the seeds on the board the automatic build reaches when ``NUGAR_AUTO_DB`` is not set
AUTO_SEEDS = 18

#: the largest reach ``NUGAR_AUTO_DB`` may ask for (the recommended databases, 2.5 GB)
MAX_AUTO_SEEDS = 26

#: bytes a background build leaves free on the disk at least
FREE_MARGIN = 256 * 2**20

#: the niceness of the build thread (Linux schedules each thread on its own)
NICE = 10


def auto_seeds(environ: Mapping[str, str] | None = None) -> int:
    """The reach of the automatic build (0: off), read from ``NUGAR_AUTO_DB``; a value that
    is neither ``0``/``off`` nor a number ``1..MAX_AUTO_SEEDS`` is a ``ValueError`` saying
    so."""
    raw = (os.environ if environ is None else environ).get(AUTO_ENV)
    if raw is None or not raw.strip():
        return AUTO_SEEDS
    text = raw.strip().lower()
    if text in ("0", "off"):
        return 0
    if text.isdigit() and 1 <= int(text) <= MAX_AUTO_SEEDS:
        return int(text)
    raise ValueError(f"{AUTO_ENV}={raw!r} is not allowed: give 0 (or off) to build no "
                     f"endgame database automatically, or the seeds to build them to, "
                     f"1..{MAX_AUTO_SEEDS} (default {AUTO_SEEDS})")


def target_of(rules: RuleSet, seeds: int) -> int:
    """The reach worth building for ``rules``: ``seeds``, or fewer where the board never
    holds that many."""
    o = rules.sowing_options
    return min(seeds, 2 * o.pits * o.seeds)


def reach_bytes(pits: int, seeds: int) -> int:
    """Bytes on disk of levels ``0..seeds`` of a ``pits``-hole board."""
    return sum(egdb.HEADER_BYTES + egdb.level_count(pits, n) for n in range(seeds + 1))


@dataclass(frozen=True)
class AutoStatus:
    """Where the automatic build of one rule set's databases stands.

    ``state``: ``none`` (no database for these rules), ``off`` (``NUGAR_AUTO_DB=0``),
    ``idle`` (not started in this process), ``waiting`` (another build holds the folder's
    lock), ``building``, ``ready`` (levels ``0..target`` on disk) or ``failed``
    (``error`` says why). ``have``: levels ``0..have`` are on disk and sound (-1: none);
    ``level``: the level being built (-1: none); ``share``: the part of the target's
    positions on disk, 0 to 1; ``bytes``: the target's size on disk."""

    state: str
    have: int = -1
    target: int = 0
    level: int = -1
    share: float = 0.0
    bytes: int = 0
    error: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Build:
    """The build thread of one database folder in this process, and what it reports."""

    def __init__(self, rules: RuleSet, target: int, root: Path | None,
                 after: Callable[[], object] | None) -> None:
        self.rules = rules
        self.target = target
        self.root = root
        self.after = after
        self.pits = rules.sowing_options.pits
        self.lock = threading.Lock()
        self.state = "building"
        self.have = -1
        self.level = -1
        self.error = ""
        self.thread = threading.Thread(target=self._run, name="nugar-egdb-auto", daemon=True)

    def _positions(self, top: int) -> int:
        return sum(egdb.level_count(self.pits, n) for n in range(top + 1))

    def status(self) -> AutoStatus:
        with self.lock:
            share = self._positions(self.have) / self._positions(self.target)
            return AutoStatus(self.state, self.have, self.target, self.level,
                              share if self.have >= 0 else 0.0,
                              reach_bytes(self.pits, self.target), self.error)

    def _set(self, **fields: Any) -> None:
        with self.lock:
            for name, value in fields.items():
                setattr(self, name, value)

    def _run(self) -> None:
        from ..kernels import jit

        if sys.platform.startswith("linux"):  # elsewhere the id is no process's: left as is
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
            except OSError:
                pass  # kept at the process's priority
        try:
            if self.after is not None:
                self.after()  # the face's warm-up first: the compiler is the game's first
            directory = egdb.db_directory(self.rules, self.root)
            directory.mkdir(parents=True, exist_ok=True)
            have = egdb.levels_on_disk(self.rules, self.root)
            need = sum(egdb.HEADER_BYTES + egdb.level_count(self.pits, n)
                       for n in range(have + 1, self.target + 1))
            free = shutil.disk_usage(directory).free
            if need + FREE_MARGIN > free:
                raise egdb.EGDBError(f"not enough disk space in {directory} ({need / 2**20:,.0f} "
                                     f"MB needed and {FREE_MARGIN // 2**20} MB left free; "
                                     f"{free / 2**20:,.0f} MB free)")

            def level_done(report: egdb.LevelReport) -> None:
                last = report.level >= self.target
                self._set(state="building", have=report.level,
                          level=-1 if last else report.level + 1)

            with jit.compiling_thread():  # compile the build's kernel here, never interpret it
                egdb.build(self.rules, self.target, root=self.root, workers=1,
                           level_done=level_done, on_wait=lambda: self._set(state="waiting"))
            self._set(state="ready", level=-1, have=max(self.have, self.target))
        except Exception as exc:  # reported by status(); the game goes on without them
            self._set(state="failed", level=-1, error=f"{type(exc).__name__}: {exc}"
                      if not isinstance(exc, egdb.EGDBError | OSError) else str(exc))


_builds: dict[str, _Build] = {}
_builds_lock = threading.Lock()


def _key(rules: RuleSet, root: Path | None) -> str:
    return str(egdb.db_directory(rules, root).absolute())


def status(rules: RuleSet, root: Path | None = None,
           environ: Mapping[str, str] | None = None) -> AutoStatus:
    """Where the automatic build of ``rules``' databases stands in this process (nothing is
    started; ``ValueError`` for a bad ``NUGAR_AUTO_DB``)."""
    if not supported(rules):
        return AutoStatus("none")
    seeds = auto_seeds(environ)
    with _builds_lock:
        build = _builds.get(_key(rules, root))
    return build.status() if build is not None else _on_disk(rules, root, seeds)


def _on_disk(rules: RuleSet, root: Path | None, seeds: int) -> AutoStatus:
    """The status of a folder no build of this process works on."""
    pits = rules.sowing_options.pits
    have = egdb.levels_on_disk(rules, root)
    if seeds == 0:
        return AutoStatus("off", have)
    target = target_of(rules, seeds)
    positions = sum(egdb.level_count(pits, n) for n in range(target + 1))
    built = sum(egdb.level_count(pits, n) for n in range(min(have, target) + 1))
    return AutoStatus("ready" if have >= target else "idle", have, target, -1,
                      built / positions, reach_bytes(pits, target))


def start(rules: RuleSet, root: Path | None = None,
          environ: Mapping[str, str] | None = None, *,
          after: Callable[[], object] | None = None) -> AutoStatus:
    """Start building ``rules``' small databases in the background if they are missing,
    are wanted (``NUGAR_AUTO_DB``) and no build of this process runs for their folder; say
    where it stands. Cheap after the first call (a look-up); ``ValueError`` for a bad
    ``NUGAR_AUTO_DB``. ``after``: called first in the build's thread, and waited for (the
    faces pass their warm-up's ``wait``: on a first run the game's own kernels compile
    first, the compiler being one lock for the whole process)."""
    if not supported(rules):
        return AutoStatus("none")
    seeds = auto_seeds(environ)
    key = _key(rules, root)
    with _builds_lock:
        build = _builds.get(key)
        if build is None:
            current = _on_disk(rules, root, seeds)
            if current.state != "idle":  # off, or nothing to build
                return current
            build = _builds[key] = _Build(rules, target_of(rules, seeds), root, after)
            build.have, build.level = current.have, current.have + 1
            build.thread.start()
    return build.status()


def wait(rules: RuleSet, root: Path | None = None, timeout: float | None = None) -> AutoStatus:
    """Block until this process's build of ``rules``' databases ends (or ``timeout``
    seconds pass); its status."""
    with _builds_lock:
        build = _builds.get(_key(rules, root))
    if build is not None:
        build.thread.join(timeout)
        return build.status()
    return status(rules, root)


def forget(rules: RuleSet, root: Path | None = None) -> None:
    """Forget this process's finished build of ``rules``' folder, so that the next
    :func:`start` looks at the disk again (a test, or the folder removed). A running build
    is kept."""
    with _builds_lock:
        key = _key(rules, root)
        build = _builds.get(key)
        if build is not None and not build.thread.is_alive():
            del _builds[key]
