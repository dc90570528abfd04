"""Preparing the compiled kernels ahead of use: a background thread with progress.

The kernels are compiled by numba the first time they run, and cached on disk
(``nugar.kernels.jit``). With a warm cache loading them takes a fraction of a second; the
very first run on a machine compiles them, which takes tens of seconds. The front ends
(``nugar engine``, ``nugar play``, ``nugar serve``) therefore start a :class:`Warmup` as soon
as they start: it runs a list of :class:`Step` (each calls one or a few kernels with real
arguments, so numba compiles exactly the versions used later) in a background thread and
reports its :class:`Progress` to whoever subscribes or waits.

While the warm-up runs, a call in another thread to a kernel it has not compiled (or
loaded) yet runs the kernel's Python source instead of waiting for the compiler (see
``nugar.kernels.jit``): the rules answer at once, and a search started then is correct but
searches far fewer positions. The front ends that want full strength wait for the warm-up
first (:meth:`Warmup.wait`), showing its progress on a first run; loading a warm cache
takes well under a second. A first run is told from the others by numba's compile events:
cached code loads without one.

Nothing is imported from numba here at module level: importing this module is cheap.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:
    from .rules.options import RuleSet

ProgressCallback = Callable[["Progress"], None]


@dataclass(frozen=True)
class Step:
    """One unit of warm-up: ``run()`` calls kernels so that numba compiles (or loads) them."""

    name: str
    run: Callable[[], object]


@dataclass(frozen=True)
class Progress:
    """Where a warm-up stands."""

    done: int = 0                 # steps finished
    total: int = 0                # steps queued so far (done included)
    current: str | None = None    # the step running now
    compiling: bool = False       # compiling, not only loading cached code: a first run
    finished: bool = True         # nothing left to do
    seconds: float = 0.0          # time spent so far
    compiled: int = 0             # numba compilations so far (nested functions included)
    errors: tuple[str, ...] = ()  # steps that failed (the kernel then compiles when used)

    def message(self) -> str:
        """One line for a person, e.g. ``Preparing the engine (first run only): compiling
        3/9 kernels (search: move ordering)...``."""
        if self.finished:
            if self.compiling:
                return (f"Engine ready: compiled {self.total} kernels in "
                        f"{self.seconds:.0f} s (first run only).")
            return "Engine ready."
        step = min(self.done + 1, self.total)
        where = f" ({self.current})" if self.current else ""
        if self.compiling:
            return (f"Preparing the engine (first run only): compiling {step}/{self.total} "
                    f"kernels{where}...")
        return f"Loading the engine: {step}/{self.total}{where}..."

    def as_dict(self) -> dict[str, Any]:
        """The JSON form (``GET /api/warmup``)."""
        return {"ready": self.finished, "done": self.done, "total": self.total,
                "current": self.current, "compiling": self.compiling,
                "seconds": round(self.seconds, 1), "compiled": self.compiled,
                "errors": list(self.errors), "message": self.message()}


class Warmup:
    """Runs queued :class:`Step` objects in order in one background thread.

    ``add`` queues steps (a step whose name was queued before is skipped) and starts the
    thread if it is not running; the thread ends when the queue is empty and a later
    ``add`` starts a new one. With ``interpret=True`` (the default), other threads run
    missed kernels interpreted while this warm-up runs (module doc).
    """

    def __init__(self, *, interpret: bool = True) -> None:
        self.interpret = interpret
        self._cond = threading.Condition()
        self._queue: list[Step] = []
        self._names: set[str] = set()
        self._finished_names: set[str] = set()
        self._done = 0
        self._total = 0
        self._current: str | None = None
        self._compiling = False
        self._compiled = 0
        self._errors: list[str] = []
        self._thread: threading.Thread | None = None
        self._started = 0.0
        self._seconds = 0.0
        self._version = 0
        self._listeners: list[ProgressCallback] = []

    # --- reading -------------------------------------------------------------------------
    def progress(self) -> Progress:
        with self._cond:
            return self._snapshot()

    def _snapshot(self) -> Progress:
        running = self._thread is not None
        seconds = self._seconds + (time.perf_counter() - self._started if running else 0.0)
        return Progress(self._done, self._total, self._current, self._compiling,
                        not running, seconds, self._compiled, tuple(self._errors))

    @property
    def finished(self) -> bool:
        return self._thread is None

    def ready(self, steps: Iterable[Step]) -> bool:
        """Whether all of ``steps`` are done (or nothing is left to do)."""
        with self._cond:
            return self._thread is None or {s.name for s in steps} <= self._finished_names

    def interpreting(self) -> bool:
        """Whether a kernel missed in the calling thread should run interpreted: this
        warm-up is running, and the caller is not its own thread."""
        thread = self._thread
        return thread is not None and threading.current_thread() is not thread

    # --- queueing ------------------------------------------------------------------------
    def add(self, steps: Iterable[Step]) -> Progress:
        """Queue the steps not queued before; start the thread if needed."""
        from .kernels import jit

        if not jit.enabled():  # NUMBA_DISABLE_JIT: nothing is ever compiled
            return self.progress()
        with self._cond:
            new = [s for s in steps if s.name not in self._names]
            if not new:
                return self._snapshot()
            self._names.update(s.name for s in new)
            self._queue.extend(new)
            self._total += len(new)
            if self._thread is None:
                self._thread = threading.Thread(target=self._work, name="nugar-warmup",
                                                daemon=True)
                self._started = time.perf_counter()
                if self.interpret:
                    jit.set_interpret_gate(self.interpreting)
                _ACTIVE[self._thread] = self
                self._thread.start()
            self._changed()
            return self._snapshot()

    def subscribe(self, callback: ProgressCallback) -> Callable[[], None]:
        """Call ``callback(progress)`` (from the warm-up's thread) at every change: a step
        starting or ending, the first compilation, the end. Returns the unsubscriber."""
        with self._cond:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._cond:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def wait(self, on_progress: ProgressCallback | None = None,
             timeout: float | None = None, steps: Iterable[Step] | None = None,
             until_compiling: bool = False, poll: float = 0.25) -> Progress:
        """Block until the queued steps are done (only ``steps``, if given), or ``timeout``
        seconds passed, or (``until_compiling``) it shows to be a first run that compiles;
        calling ``on_progress`` in the calling thread at each change (and once at the
        start)."""
        names = None if steps is None else {s.name for s in steps}
        end = None if timeout is None else time.monotonic() + timeout
        seen = -1
        while True:
            with self._cond:
                ready = self._thread is None or (names is not None
                                                 and names <= self._finished_names)
                if self._version == seen and not ready:
                    left = poll if end is None else min(poll, end - time.monotonic())
                    if left > 0:
                        self._cond.wait(left)
                    ready = self._thread is None or (names is not None
                                                     and names <= self._finished_names)
                version = self._version
                snap = self._snapshot()
            if on_progress is not None and version != seen:
                on_progress(snap)
            seen = version
            if (ready or (until_compiling and snap.compiling)
                    or (end is not None and time.monotonic() >= end)):
                return snap

    # --- the thread ----------------------------------------------------------------------
    def _changed(self) -> None:
        """Wake the waiters and tell the listeners; called with the lock held."""
        self._version += 1
        self._cond.notify_all()
        snap = self._snapshot()
        for callback in list(self._listeners):
            try:
                callback(snap)
            except Exception:  # a display that fails must not stop the warm-up
                pass

    def _compiled_one(self) -> None:
        with self._cond:
            self._compiled += 1
            if not self._compiling:
                self._compiling = True
                self._changed()

    def _next(self) -> Step | None:
        """The next step (now current), or ``None`` after ending the thread's run; with
        the lock held, so that a step's end and the next one's start (or the end of all)
        are one change."""
        if self._queue:
            step = self._queue.pop(0)
            self._current = step.name
            self._changed()
            return step
        self._seconds += time.perf_counter() - self._started
        self._current = None
        _ACTIVE.pop(threading.current_thread(), None)
        self._thread = None
        self._changed()
        return None

    def _work(self) -> None:
        from .kernels import jit

        _listen_to_numba()
        with jit.compiling_thread():
            with self._cond:
                step = self._next()
            while step is not None:
                try:
                    step.run()
                except Exception as exc:  # the kernel will compile when it is used
                    with self._cond:
                        self._errors.append(f"{step.name}: {type(exc).__name__}: {exc}")
                with self._cond:
                    self._done += 1
                    self._finished_names.add(step.name)
                    step = self._next()


# --- numba's compile events -----------------------------------------------------------------

_ACTIVE: dict[threading.Thread, Warmup] = {}
_listening = False
_listen_lock = threading.Lock()


def _listen_to_numba() -> None:
    """Count numba's compilations in each warm-up thread (once per process)."""
    global _listening
    with _listen_lock:
        if _listening:
            return
        _listening = True
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: Any) -> None:
            warmup = _ACTIVE.get(threading.current_thread())
            if warmup is not None:
                warmup._compiled_one()

        def on_end(self, ev: Any) -> None:
            pass

    cast(Any, event).register("numba:compile", Listener())


# --- what to warm up ------------------------------------------------------------------------


def _play_some(game: Any, plies: int) -> None:
    """Play ``plies`` decisions (the first legal one each time), copy and undo one."""
    for _ in range(plies):
        if game.is_over:
            break
        game.play(game.legal_moves()[0])
    game.copy()
    if game.move_stack:
        game.undo()


def rules_steps(rules: RuleSet) -> list[Step]:
    """The rules kernels of ``rules``'s family, through the rules API (``nugar.rules``)."""
    from .rules import new_game

    family = rules.family
    holder: dict[str, Any] = {}

    def start() -> None:
        holder["game"] = new_game(rules)

    def legal() -> None:
        holder.setdefault("game", new_game(rules)).legal_moves()

    def play() -> None:
        _play_some(new_game(rules), 12)

    return [Step(f"{family} rules: start position", start),
            Step(f"{family} rules: legal moves", legal),
            Step(f"{family} rules: playing moves", play)]


def search_steps(*, mcts: bool = False) -> list[Step]:
    """The compiled search (``alphabeta`` and the levels), and the MCTS kernel if asked.

    One compiled search serves both families (the family is an argument), so these steps
    are the same for every game. Its parts are warmed one by one, smallest first, for a
    steadier progress count; each is called with the argument types the search passes, so
    the search finds them compiled (``tests/test_warmup.py`` checks that every search kernel
    ends with one compiled version). A part this version of the kernels lacks is left out.
    """
    import numpy as np

    from .ai.search_setup import SearchBuffers, kernels_for
    from .kernels import dispatch, search_core
    from .rules import new_game

    holder: dict[str, Any] = {}

    def setup() -> tuple[Any, Any, Any]:
        if "buf" not in holder:
            game = new_game("dara")
            fam = kernels_for(game)
            state = game.state
            buf = SearchBuffers(state.shape[0], fam.n_actions, 0.01)
            buf.new_search([], None)
            buf.tables.stack[0] = state
            holder.update(game=game, fam=fam, buf=buf)
        return holder["game"], holder["fam"], holder["buf"]

    legal_k, apply_k = dispatch.fam_legal, dispatch.fam_apply
    leaf_k, scratch_k, order_k = search_core._leaf, search_core._scratch, search_core._order_moves

    def legal() -> int:
        _, fam, buf = setup()
        return int(legal_k(fam.fam, fam.params, buf.tables.stack[0], buf.tables.moves[0]))

    def apply() -> None:
        _, fam, buf = setup()
        n = legal()
        stack = buf.tables.stack
        stack[1] = stack[0]
        if n > 0:
            apply_k(fam.fam, fam.params, stack[1], buf.tables.moves[0][0])

    def leaf() -> None:
        _, fam, buf = setup()
        scratch = scratch_k(fam.fam, fam.params)
        leaf_k(fam, buf.tables.stack[0], scratch, buf.tables.ctx)

    def order() -> None:
        _, fam, buf = setup()
        n = legal()
        t = buf.tables
        order_k(fam.fam, fam.params, t.stack[0], t.stack[1], t.moves[0], t.order[0], n,
                t.stack[0][0], 2, -1, t.killers[0, 0], t.killers[0, 1], t.history)

    def search() -> None:
        _, fam, buf = setup()
        search_core.search_root(fam, buf.tables, 2)

    def pv() -> None:
        _, fam, buf = setup()
        search_core.principal_variation(fam, buf.tables, buf.tables.stack[0], -1)

    def monte_carlo() -> None:
        _, fam, buf = setup()
        tree = search_core.UctTree(np.zeros((8, search_core.ND_FIELDS), dtype=np.int64),
                                   np.zeros(8, dtype=np.float64), buf.tables.ctx,
                                   buf.tables.stop)
        search_core.mcts(fam, buf.tables.stack[0], tree,
                         search_core.UctSettings(1, 1.0, 0, 100.0, 1))

    steps = [Step("search: move generation", legal), Step("search: playing moves", apply),
             Step("search: evaluation", leaf), Step("search: move ordering", order),
             Step("search: alpha-beta", search), Step("search: principal variation", pv)]
    if mcts:
        steps.append(Step("search: Monte Carlo", monte_carlo))
    return steps


def solver_steps(rules: RuleSet) -> list[Step]:
    """The exact solver of sowing games (the ``perfect`` agent, Dracala's level 8), on a
    tiny board of the same rules; with the endgame database's kernel for Kalah."""
    def solve() -> None:
        from .solver import Solver

        Solver(rules.with_options(pits=2, seeds=1), max_memory_mb=1).solve()

    return [Step(f"solver: {rules.game}", solve)]


def agent_names(rules: RuleSet, specs: Iterable[str]) -> set[str]:
    """The agent kinds (``alphabeta``, ``mcts``, ``perfect``, ...) that ``specs`` play
    ``rules`` with, levels resolved for the game."""
    from .ai.agents import level_spec
    from .ai.base import parse_spec

    kinds: set[str] = set()
    for spec in specs:
        try:
            name, positional, _ = parse_spec(spec)
            if name == "level" and positional is not None:
                inner = level_spec(int(positional), rules)
                name = parse_spec(inner)[0]
                if name == "perfect":
                    kinds.add("alphabeta")  # what the level falls back on when out of time
        except (ValueError, KeyError):
            continue  # an agent that cannot be built is reported where it is built
        kinds.add(name)
    return kinds


def steps_for(rules: RuleSet, specs: Iterable[str] = ()) -> list[Step]:
    """Everything playing ``rules`` with the agents ``specs`` needs, in the order needed."""
    from .rules.family import family_of

    kinds = agent_names(rules, specs)
    steps = rules_steps(rules)
    if kinds & {"alphabeta", "mcts"}:
        steps += search_steps(mcts="mcts" in kinds)
    if "perfect" in kinds and family_of(rules).solvable:
        steps += solver_steps(rules)
    return steps


def server_steps() -> list[Step]:
    """What the web app's levels need, every game: both families' rules, the search and
    the solver of Dracala's level 8."""
    from .rules import parse_rules

    dara = parse_rules("dara")
    dracala = parse_rules("dracala")
    return [*rules_steps(dara), *search_steps(), *rules_steps(parse_rules("kalah")),
            *solver_steps(dracala)]


#: the warm-up of this process (numba's compiled code is per process)
WARMUP = Warmup()


def line_reporter(prefix: str, stream: TextIO | None = None) -> ProgressCallback:
    """A progress callback writing each new message as a line on ``stream`` (default
    stderr), for a first run only (compiling): a warm cache loads silently."""
    last: list[str] = []

    def report(progress: Progress) -> None:
        if not progress.compiling or (progress.current is None and not progress.finished):
            return
        text = progress.message()
        if last and last[-1] == text:
            return
        last.append(text)
        print(f"{prefix}{text}", file=sys.stderr if stream is None else stream, flush=True)

    return report


__all__ = ["WARMUP", "Progress", "Step", "Warmup", "agent_names", "line_reporter",
           "rules_steps", "search_steps", "server_steps", "solver_steps", "steps_for"]
