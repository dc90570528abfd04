"""The computer analysis of finished games and of pasted records, computed in the AI pool.

An analysis (:class:`~nugar.ai.analysis.GameAnalyser`) evaluates one position at a time; each
position is one job of the server's :class:`~.ai_pool.AiPool`, so the computer's moves in
running games take their turns between them. Bounds: at most one analysis per game at a time
(asking again answers the one under way), at most :attr:`Analyses.running` analyses computed
at once and :attr:`Analyses.queue` waiting, refused beyond with ``429 analysis_busy``; a game
of more than :data:`MAX_ANALYSIS_TURNS` turns is refused (``409 too_long``).

A game's analysis is stored with it (``store.analyses_table``): its row is claimed when the
analysis starts, so that processes sharing a database compute it once, kept fresh with the
progress while it runs, and holds the analysed turns when it is done, shown to everyone who
opens the game afterwards (and written into its record as comments). A claim whose process
gave no sign for :data:`STALE_SECONDS` (it stopped) is taken over by the next request. The
analyses of pasted records are kept in memory only, the last :data:`KEEP_REPLAYS` of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..ai.analysis import ANALYSIS_NODES, EXACT_NODES, GameAnalyser, PlyAnalysis, record_comments
from ..rules import Game
from .ai_pool import AiPool
from .errors import ApiError
from .store import Store, analyses_table

log = logging.getLogger("nugar.server")

#: the most turns an analysed game may have
MAX_ANALYSIS_TURNS = 1000
#: analyses computed at once by one process (each position still waits for an AI worker)
RUNNING = 1
#: analyses that may wait for their turn (more: ``429 analysis_busy``)
ANALYSIS_QUEUE = 4
#: seconds after which a claimed analysis with no sign of its process is taken over
STALE_SECONDS = 120.0
#: seconds between two writes of a running analysis' progress
PROGRESS_EVERY = 1.0
#: finished analyses of pasted records kept for their readers
KEEP_REPLAYS = 32


class AnalysisBusy(ApiError):
    """Every analysis place is taken: ``429 analysis_busy`` with ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__("analysis_busy", "the computer is analysing other games; try again "
                         f"in {retry_after} s")
        self.retry_after = retry_after


class Job:
    """One analysis under way (or, for a pasted record, kept once done)."""

    def __init__(self, key: str, analyser: GameAnalyser, game_id: str | None) -> None:
        self.key = key
        self.analyser = analyser
        self.game_id = game_id
        self.done = False
        self.error: str | None = None
        self.plies: list[dict[str, Any]] = []
        self.task: asyncio.Task[None] | None = None

    @property
    def progress(self) -> float:
        a = self.analyser
        return round(len(a.evals) / a.total, 4)

    def status(self) -> dict[str, Any]:
        plies = self.plies if self.done else [p.to_json() for p in self.analyser.plies()]
        out: dict[str, Any] = {"id": self.key, "started": True, "done": self.done,
                               "progress": 1.0 if self.done else self.progress,
                               "nodes": self.analyser.nodes, "plies": plies}
        if self.error is not None:
            out["error"] = self.error
        return out


def not_started(key: str) -> dict[str, Any]:
    """The answer about a game nobody asked to analyse yet."""
    return {"id": key, "started": False, "done": False, "progress": 0.0, "plies": []}


class Analyses:
    """The analyses of one server process (see the module's text)."""

    def __init__(self, store: Store, pool: AiPool, *, nodes: int = ANALYSIS_NODES,
                 exact_nodes: int = EXACT_NODES, queue: int = ANALYSIS_QUEUE,
                 running: int = RUNNING, clock: Callable[[], float] = time.time) -> None:
        if running < 1 or queue < 0:
            raise ValueError(f"analyses need 1 or more running and a queue of 0 or more, "
                             f"not {running} and {queue}")
        self.store = store
        self.pool = pool
        self.nodes = nodes
        self.exact_nodes = exact_nodes
        self.queue = queue
        self.running = running
        self.clock = clock
        self.jobs: dict[str, Job] = {}
        self.replays: OrderedDict[str, Job] = OrderedDict()
        self._slots: asyncio.Semaphore | None = None

    # --- games -----------------------------------------------------------------------------
    async def start_game(self, game_id: str, game: Game) -> dict[str, Any]:
        """Start analysing a finished game (or answer the analysis already there)."""
        job = self.jobs.get(game_id)
        if job is not None:
            return job.status()
        if not game.is_over:
            raise ApiError("game_running", "only a finished game can be analysed")
        row = await asyncio.to_thread(self._load, game_id)
        now = self.clock()
        if row is not None and (row["done"] or now - row["updated"] < STALE_SECONDS):
            return row_status(game_id, row)
        self._check_size(game)
        self._check_room()
        if not await asyncio.to_thread(self._claim, game_id, row is not None, now):
            row = await asyncio.to_thread(self._load, game_id)  # another got there first
            return not_started(game_id) if row is None else row_status(game_id, row)
        try:
            analyser = await asyncio.to_thread(self._analyser, game)
            self._check_room()  # others may have come meanwhile
        except BaseException:
            await asyncio.to_thread(self._release, game_id)
            raise
        job = Job(game_id, analyser, game_id)
        self._start(job)
        return job.status()

    async def game_status(self, game_id: str) -> dict[str, Any]:
        job = self.jobs.get(game_id)
        if job is not None:
            return job.status()
        row = await asyncio.to_thread(self._load, game_id)
        return not_started(game_id) if row is None else row_status(game_id, row)

    async def record_comments(self, game_id: str) -> dict[int, list[str]]:
        """The comments a finished analysis adds to the game's record (none: ``{}``)."""
        row = await asyncio.to_thread(self._load, game_id)
        if row is None or not row["done"]:
            return {}
        return record_comments([PlyAnalysis(**p) for p in json.loads(row["plies"])])

    # --- pasted records --------------------------------------------------------------------
    async def start_replay(self, game: Game) -> dict[str, Any]:
        """Start analysing the game of a pasted record (or answer the one of the same game
        under way or kept)."""
        text = game.rules.text + "\n" + "\n".join(game.turns())
        key = "r" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]
        job = self.jobs.get(key) or self.replays.get(key)
        if job is not None:
            return job.status()
        self._check_size(game)
        self._check_room()
        analyser = await asyncio.to_thread(self._analyser, game)
        job = self.jobs.get(key) or self.replays.get(key)
        if job is not None:  # the same record, posted again meanwhile
            return job.status()
        self._check_room()  # others may have come meanwhile
        job = Job(key, analyser, None)
        self._start(job)
        return job.status()

    def replay_status(self, key: str) -> dict[str, Any]:
        job = self.jobs.get(key) or self.replays.get(key)
        if job is None:
            raise ApiError("unknown_analysis", f"no analysis {key!r} here (analyses of "
                           f"records are kept for the last {KEEP_REPLAYS} only): post the "
                           "record again")
        return job.status()

    # --- computing -------------------------------------------------------------------------
    def _analyser(self, game: Game) -> GameAnalyser:
        """A game's analyser (in a worker thread: the first one imports the solver)."""
        return GameAnalyser(game, nodes=self.nodes, exact_nodes=self.exact_nodes)

    @staticmethod
    def _check_size(game: Game) -> None:
        turns = len(game.turn_list())
        if turns > MAX_ANALYSIS_TURNS:
            raise ApiError("too_long", f"the game has {turns} turns; an analysis covers at "
                           f"most {MAX_ANALYSIS_TURNS}")

    def _check_room(self) -> None:
        if len(self.jobs) >= self.running + self.queue:
            raise AnalysisBusy(retry_after=30)

    def _start(self, job: Job) -> None:
        self.jobs[job.key] = job
        job.task = asyncio.create_task(self._run(job))

    async def _run(self, job: Job) -> None:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.running)
        analyser = job.analyser
        try:
            async with self._slots:
                last = self.clock()
                while not analyser.done:
                    await self.pool.run_task(analyser.step, must=True)
                    if job.game_id is not None and self.clock() - last >= PROGRESS_EVERY:
                        last = self.clock()
                        await asyncio.to_thread(self._touch, job.game_id, job.progress, last)
                job.plies = [p.to_json() for p in analyser.plies()]
                if job.game_id is not None:
                    await asyncio.to_thread(self._finish, job.game_id, job.plies,
                                            analyser.nodes)
                job.done = True
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the analysis fails alone; the server goes on
            log.exception("the analysis %s failed", job.key)
            job.error = f"the analysis failed: {exc}"
            if job.game_id is not None:
                with contextlib.suppress(Exception):
                    await asyncio.to_thread(self._release, job.game_id)
        finally:
            self.jobs.pop(job.key, None)
            if job.game_id is None and job.done:
                self.replays[job.key] = job
                while len(self.replays) > KEEP_REPLAYS:
                    self.replays.popitem(last=False)

    async def close(self) -> None:
        """Stop the analyses under way (the server is stopping; their claims go stale)."""
        tasks = [j.task for j in self.jobs.values() if j.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- storage (in worker threads) -------------------------------------------------------
    def _load(self, game_id: str) -> dict[str, Any] | None:
        with self.store.engine.connect() as conn:
            r = conn.execute(select(analyses_table)
                             .where(analyses_table.c.game_id == game_id)).first()
        return None if r is None else dict(r._mapping)

    def _claim(self, game_id: str, stale: bool, now: float) -> bool:
        """Claim the game's analysis: a new row, or a stale one taken over."""
        t = analyses_table
        with self.store.engine.begin() as conn:
            if stale:
                taken = conn.execute(
                    update(t).where(t.c.game_id == game_id).where(t.c.done == 0)
                    .where(t.c.updated < int(now - STALE_SECONDS))
                    .values(progress=0.0, nodes=self.nodes, plies="[]", updated=int(now)))
                return bool(taken.rowcount == 1)
            try:
                conn.execute(insert(t).values(game_id=game_id, done=0, progress=0.0,
                                              nodes=self.nodes, plies="[]",
                                              created=int(now), updated=int(now)))
            except IntegrityError:
                return False
        return True

    def _touch(self, game_id: str, progress: float, now: float) -> None:
        t = analyses_table
        with self.store.engine.begin() as conn:
            conn.execute(update(t).where(t.c.game_id == game_id).where(t.c.done == 0)
                         .values(progress=progress, updated=int(now)))

    def _finish(self, game_id: str, plies: list[dict[str, Any]], nodes: int) -> None:
        t = analyses_table
        with self.store.engine.begin() as conn:
            conn.execute(update(t).where(t.c.game_id == game_id)
                         .values(done=1, progress=1.0, nodes=nodes, plies=json.dumps(plies),
                                 updated=int(self.clock())))

    def _release(self, game_id: str) -> None:
        t = analyses_table
        with self.store.engine.begin() as conn:
            conn.execute(delete(t).where(t.c.game_id == game_id).where(t.c.done == 0))


def row_status(game_id: str, row: dict[str, Any]) -> dict[str, Any]:
    """The answer about a stored analysis (finished, or under way in some process)."""
    done = bool(row["done"])
    return {"id": game_id, "started": True, "done": done,
            "progress": 1.0 if done else float(row["progress"]), "nodes": int(row["nodes"]),
            "plies": json.loads(row["plies"]) if done else []}
