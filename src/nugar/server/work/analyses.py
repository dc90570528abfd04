"""The computer analysis of finished games and of pasted records, computed in the AI pool.

An analysis (:class:`~nugar.ai.analysis.GameAnalyser`) evaluates one position at a time; each
position is one job of the server's :class:`~.ai_pool.AiPool`, so the computer's moves in
running games take their turns between them. Bounds: at most one analysis per game at a time
(asking again answers the one under way), at most :attr:`Analyses.running` analyses computed
at once and :attr:`Analyses.queue` waiting, at most :attr:`Analyses.per_client` of one client
(an address, or a signed-in account), refused beyond with ``429 analysis_busy``; the waiting
ones are computed in turn per client (:class:`~..clients.FairQueue`), so one client's
analyses wait behind the others' rather than ahead of them; a game
of more than :data:`MAX_ANALYSIS_TURNS` turns is refused (``409 too_long``).

A game's analysis is stored with it (``store.analyses_table``): its row is claimed when the
analysis starts, so that processes sharing a database compute it once, kept fresh with the
progress while it runs, and holds the analysed turns when it is done, shown to everyone who
opens the game afterwards (and written into its record as comments). A claim whose process
gave no sign for :data:`STALE_SECONDS` (it stopped) is taken over by the next request.

The analysis of a pasted record is stored the same way, in the same table, keyed by its id:
``r`` and 24 hex digits of the SHA-256 of its rules and turns (:func:`replay_key`), which no
game id (16 hex digits) can be, so every process sharing the database answers it. They are
bounded: the newest :data:`KEEP_REPLAYS` are kept, none older than :data:`REPLAY_SECONDS`
(pruned whenever one finishes).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import re
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ...ai.analysis import ANALYSIS_NODES, EXACT_NODES, GameAnalyser, PlyAnalysis, record_comments
from ...i18n import Text
from ...rules import Game
from ..clients import CLIENT, FairQueue, named
from ..config import DEFAULTS
from ..errors import ApiError
from ..storage.store import Store, analyses_table, log_failure
from .ai_pool import AiPool

log = logging.getLogger("nugar.server")

#: the most turns an analysed game may have
MAX_ANALYSIS_TURNS = 1000
#: analyses computed at once by one process (each position still waits for an AI worker)
RUNNING = 1
#: analyses that may wait for their turn (more: ``429 analysis_busy``)
ANALYSIS_QUEUE = DEFAULTS.analysis_queue
#: analyses one client (an address, or a signed-in account) may have running or waiting
#: (``analysis_per_client``): one computed and one in line; the lines are served in turn
ANALYSIS_PER_CLIENT = DEFAULTS.analysis_per_client
#: seconds after which a claimed analysis with no sign of its process is taken over
STALE_SECONDS = 120.0
#: seconds between two writes of a running analysis' progress
PROGRESS_EVERY = 1.0
#: analyses of pasted records kept in the database (the newest; older ones are deleted)
KEEP_REPLAYS = 256
#: seconds an analysis of a pasted record is kept after its last change (7 days)
REPLAY_SECONDS = 7 * 86400
#: what the id of a pasted record's analysis looks like (:func:`replay_key`)
REPLAY_ID = re.compile(r"r[0-9a-f]{24}")


class AnalysisBusy(ApiError):
    """Every analysis place is taken: ``429 analysis_busy`` with ``Retry-After``."""

    def __init__(self, retry_after: int = 30) -> None:
        super().__init__("analysis_busy", Text(
            "the computer is analysing other games; try again in {retry_after} s",
            domain="web", retry_after=retry_after))
        self.retry_after = retry_after


class AnalysisShare(AnalysisBusy):
    """The client has its share of the analyses running or waiting: ``429 analysis_busy``
    too, saying so."""

    def __init__(self, who: str, count: int) -> None:
        ApiError.__init__(self, "analysis_busy", Text.plural(
            "{who} already has {count} analysis running or waiting; ask again once it is done",
            "{who} already has {count} analyses running or waiting; ask again once one is "
            "done", count, domain="web", who=who, count=count))
        self.retry_after = 30


def replay_key(game: Game) -> str:
    """The id of the analysis of a pasted record's game: the same game pasted again (on any
    process) gets the same one; never a game's id (those are 16 hex digits)."""
    text = game.rules.text + "\n" + "\n".join(game.turns())
    return "r" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


class Job:
    """One analysis under way in this process (a game's or a pasted record's: its row's
    key)."""

    def __init__(self, key: str, analyser: GameAnalyser, client: str = "") -> None:
        self.key = key
        self.analyser = analyser
        self.client = client  # who asked for it (:data:`~..clients.CLIENT`)
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
                 running: int = RUNNING, per_client: int = ANALYSIS_PER_CLIENT,
                 clock: Callable[[], float] = time.time) -> None:
        if running < 1 or queue < 0 or per_client < 1:
            raise ValueError(f"analyses need 1 or more running, a queue of 0 or more and 1 "
                             f"or more per client, not {running}, {queue} and {per_client}")
        self.store = store
        self.pool = pool
        self.nodes = nodes
        self.exact_nodes = exact_nodes
        self.queue = queue
        self.running = running
        self.per_client = per_client
        self.clock = clock
        self.jobs: dict[str, Job] = {}
        #: the places to compute: ``running`` at once, the others waiting in a line per
        #: client, served in turn (every job here holds or waits for one, so the bounds
        #: checked on :attr:`jobs` are the gate's too)
        self.gate = FairQueue(running, queue, per_client, AnalysisBusy)

    # --- games -----------------------------------------------------------------------------
    async def start_game(self, game_id: str, game: Game) -> dict[str, Any]:
        """Start analysing a finished game (or answer the analysis already there)."""
        job = self.jobs.get(game_id)
        if job is not None:
            return job.status()
        if not game.is_over:
            raise ApiError("game_running", Text(
                "only a finished game can be analysed",
                domain="web"))
        await self._refuse_in_play(game)  # a finished game that copies a rated one's moves
        return await self._start_stored(game_id, game)

    async def _start_stored(self, key: str, game: Game) -> dict[str, Any]:
        """Answer the stored analysis ``key`` (done, or under way in a live process), or
        claim its row and start computing it here."""
        row = await asyncio.to_thread(self._load, key)
        now = self.clock()
        if row is not None and (row["done"] or now - row["updated"] < STALE_SECONDS):
            return row_status(key, row)
        self._check_size(game)
        client = CLIENT.get()
        self._check_room(client)
        if not await asyncio.to_thread(self._claim, key, row is not None, now):
            row = await asyncio.to_thread(self._load, key)  # another got there first
            return not_started(key) if row is None else row_status(key, row)
        try:
            analyser = await asyncio.to_thread(self._analyser, game)
            self._check_room(client)  # others may have come meanwhile
        except BaseException:
            await asyncio.to_thread(self._release, key)
            raise
        job = Job(key, analyser, client)
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
        under way or kept, by any process); ``409 game_in_play`` while it is a rated game
        being played (:meth:`rated_in_play`)."""
        await self._refuse_in_play(game)
        key = replay_key(game)
        job = self.jobs.get(key)
        if job is not None:
            return job.status()
        return await self._start_stored(key, game)

    async def replay_status(self, key: str) -> dict[str, Any]:
        """The analysis of a pasted record so far (``404 unknown_analysis`` when there is
        none, or no longer)."""
        job = self.jobs.get(key)
        if job is not None:
            return job.status()
        row = await asyncio.to_thread(self._load, key) if REPLAY_ID.fullmatch(key) else None
        if row is None:
            days = REPLAY_SECONDS // 86400
            raise ApiError("unknown_analysis", Text.plural(
                "no analysis {key!r} here (analyses of records are kept for {replay_seconds} "
                "day, the newest {keep_replays}): post the record again",
                "no analysis {key!r} here (analyses of records are kept for {replay_seconds} "
                "days, the newest {keep_replays}): post the record again", days,
                domain="web", key=key[:40], replay_seconds=days, keep_replays=KEEP_REPLAYS))
        return row_status(key, row)

    async def _refuse_in_play(self, game: Game) -> None:
        """``409 game_in_play`` for the moves of a rated game being played."""
        await asyncio.to_thread(self.store.refuse_in_play, game.rules.text,
                                [str(m) for m in game.move_stack])

    # --- computing -------------------------------------------------------------------------
    def _analyser(self, game: Game) -> GameAnalyser:
        """A game's analyser (in a worker thread: the first one imports the solver)."""
        return GameAnalyser(game, nodes=self.nodes, exact_nodes=self.exact_nodes)

    @staticmethod
    def _check_size(game: Game) -> None:
        turns = len(game.turn_list())
        if turns > MAX_ANALYSIS_TURNS:
            raise ApiError("too_long", Text.plural(
                "the game has {turns} turn; an analysis covers at most {max_analysis_turns}",
                "the game has {turns} turns; an analysis covers at most {max_analysis_turns}",
                turns, domain="web", turns=turns, max_analysis_turns=MAX_ANALYSIS_TURNS))

    def _check_room(self, client: str) -> None:
        if len(self.jobs) >= self.running + self.queue:
            raise AnalysisBusy(retry_after=30)
        if sum(1 for j in self.jobs.values() if j.client == client) >= self.per_client:
            raise AnalysisShare(named(client), self.per_client)

    def _start(self, job: Job) -> None:
        self.jobs[job.key] = job
        job.task = asyncio.create_task(self._run(job))

    async def _run(self, job: Job) -> None:
        analyser = job.analyser
        try:
            async with self.gate.slot(job.client):
                last = self.clock()
                while not analyser.done:
                    await self.pool.run_task(analyser.step, must=True)
                    if self.clock() - last >= PROGRESS_EVERY:
                        last = self.clock()
                        await asyncio.to_thread(self._touch, job.key, job.progress, last)
                job.plies = [p.to_json() for p in analyser.plies()]
                await asyncio.to_thread(self._finish, job.key, job.plies, analyser.nodes)
                job.done = True
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the analysis fails alone; the server goes on
            log_failure(f"the analysis {job.key}", exc)
            job.error = f"the analysis failed: {exc}"
            with contextlib.suppress(Exception):
                await asyncio.to_thread(self._release, job.key)
        finally:
            self.jobs.pop(job.key, None)

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
        now = int(self.clock())
        with self.store.engine.begin() as conn:
            conn.execute(update(t).where(t.c.game_id == game_id)
                         .values(done=1, progress=1.0, nodes=nodes, plies=json.dumps(plies),
                                 updated=now))
            if REPLAY_ID.fullmatch(game_id):
                self._prune_replays(conn, now)

    @staticmethod
    def _prune_replays(conn: Any, now: int) -> None:
        """Delete the analyses of pasted records beyond the bounds: older than
        :data:`REPLAY_SECONDS`, or finished and not among the newest :data:`KEEP_REPLAYS`."""
        t = analyses_table
        rows = conn.execute(select(t.c.game_id, t.c.done, t.c.updated)
                            .where(t.c.game_id.like("r%"))).all()
        finished = sorted((r for r in rows if r.done), key=lambda r: (-r.updated, r.game_id))
        gone = ({r.game_id for r in rows if r.updated < now - REPLAY_SECONDS}
                | {r.game_id for r in finished[KEEP_REPLAYS:]})
        if gone:
            conn.execute(delete(t).where(t.c.game_id.in_(gone)))

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
