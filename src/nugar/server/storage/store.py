"""Durable storage of online games through SQLAlchemy (SQLite by default, PostgreSQL by URL).

A stored game is its rule-set text plus the list of move texts played, and the ending imposed
on it, which the moves alone do not give (a resignation, an agreed draw, an adjudication, a
loss on time: ``session.ending_of``). Loading replays the moves through the rules engine,
which stays the only judge of legality (``session.restore``). Next to each game row the
``events`` table keeps the numbered journal of everything that happened to it; a reconnecting
client is sent the entries it missed. Every change is one transaction that updates the game
row and appends its event together, so a crash leaves either both or neither.

A change is written only if the stored version is still the one it was decided on (a
compare-and-set on ``version``): the database, not a process's memory, orders the changes of
one game, so several server processes may share one PostgreSQL database. Changes waiting to
be written are committed together by one writer thread (group commit: one disk sync for many
moves); on PostgreSQL each change also sends ``NOTIFY nugar_events, '<game id> <version>
<type> <data>'`` in its transaction, which the other processes listen to (:mod:`.listen`).

The change that ends a rated game also updates both players' ratings in the writer's
transaction (:meth:`GroupCommit._rate`), so the end and the ratings are stored together or not at
all. The tables of players' accounts, sessions and ratings are here too; the schema is made
and changed by the migrations of :mod:`.migrations`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
import queue
import secrets
import sqlite3
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
)
from sqlalchemy.exc import DatabaseError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import StaticPool

from ... import i18n
from ..errors import ApiError
from ..ratings import START_DEVIATION, START_RATING, START_VOLATILITY, Rating, rate_game
from .migrations import upgrade

log = logging.getLogger("nugar.server")

#: the PostgreSQL channel on which every stored change is announced as "<game id> <version>"
CHANNEL = "nugar_events"
#: the payload announcing on :data:`CHANNEL` that the lobby's challenges changed
LOBBY_NOTE = "lobby"
#: most changes committed in one transaction by the writer thread
MAX_BATCH = 64
#: the first player's score in a game of each stored result (an aborted game, ``*``, and a
#: running one are not rated)
SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}

metadata = MetaData()

games_table = Table(
    "nugar_games", metadata,
    Column("id", String(32), primary_key=True),
    Column("rules", Text, nullable=False),
    Column("mode", String(16), nullable=False),         # ai, friend, hotseat
    Column("ai_level", Integer, nullable=True),
    Column("ai_seat", Integer, nullable=True),          # 1 or 2 when mode == "ai"
    Column("key_hash_1", String(64), nullable=True),    # sha256 of seat 1's secret
    Column("key_hash_2", String(64), nullable=True),
    Column("moves", Text, nullable=False, default="[]"),  # JSON list of move texts
    Column("ending", Text, nullable=True),               # JSON: the imposed ending, if any
    Column("offers", Text, nullable=False, default="{}"),  # JSON: pending draw/takeback offers
    Column("result", String(8), nullable=True),
    Column("reason", String(16), nullable=True),
    Column("version", Integer, nullable=False),
    Column("created", Integer, nullable=False),
    Column("updated", Integer, nullable=False),
    Column("clock", Text, nullable=True),                # JSON: the clocks (clocks.Clock)
    Column("deadline", Float, nullable=True, index=True),  # when the running clock runs out
    Column("account_1", Integer, nullable=True),         # the account holding seat 1, if any
    Column("account_2", Integer, nullable=True),
    Column("rated", Integer, nullable=True),             # 1: a rated game (between accounts)
)

events_table = Table(
    "nugar_events", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", String(32), nullable=False, index=True),
    Column("version", Integer, nullable=False),
    Column("type", String(16), nullable=False),
    Column("data", Text, nullable=False),
    Column("created", Integer, nullable=False),
    UniqueConstraint("game_id", "version", name="uq_event_version"),
)

#: the lobby's challenges (:mod:`.lobby`), shared by every process like the games
challenges_table = Table(
    "nugar_challenges", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),  # the order of posting
    Column("id", String(16), nullable=False, unique=True),
    Column("rules", Text, nullable=False),
    Column("game", String(32), nullable=False),
    Column("clock", String(20), nullable=True),        # the time control's text
    Column("colour", String(8), nullable=False),
    Column("public", Integer, nullable=False),
    Column("owner", String(64), nullable=False, index=True),  # hash of the creator's key
    Column("created", Float, nullable=False),
    Column("seen", Float, nullable=False),             # the creator was last present
    Column("taken_at", Float, nullable=False),         # when accepted; 0: open
    Column("game_id", String(32), nullable=True),      # the game made for it
    Column("owner_seat", Integer, nullable=True),      # the creator's seat in that game
    Column("account", Integer, nullable=True),         # the creator's account, if signed in
    Column("rated", Integer, nullable=True),           # 1: the game made will be rated
    Column("target", Integer, nullable=True),          # the bot account it is made to, if any
)

#: players' accounts (:mod:`.accounts`); a deleted one keeps its row, without name or
#: password, so the games that name its id show "deleted player"
accounts_table = Table(
    "nugar_accounts", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(20), nullable=True),     # as written; NULL once deleted
    Column("name_key", String(20), nullable=True, unique=True),  # lower case: unique
    Column("password_hash", Text, nullable=True),      # Argon2id (PHC string)
    Column("created", Float, nullable=False),
    Column("deleted", Float, nullable=True),
    Column("language", String(8), nullable=True),      # nugar.i18n.LANGUAGES; NULL: none
    Column("bot", Integer, nullable=True),             # 1: a bot account (:mod:`.bots`)
)

#: one Glicko-2 rating per account and preset (:mod:`.ratings`)
ratings_table = Table(
    "nugar_ratings", metadata,
    Column("account_id", Integer, primary_key=True),
    Column("preset", String(32), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    Index("ix_nugar_ratings_preset_rating", "preset", "rating"),
)

#: what each rated game did to each of its players' ratings, written with its last move
rating_changes_table = Table(
    "nugar_rating_changes", metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, nullable=False, index=True),
    Column("preset", String(32), nullable=False),
    Column("score", Float, nullable=False),             # the player's: 1, 0.5 or 0
    Column("rating_before", Float, nullable=False),
    Column("deviation_before", Float, nullable=False),
    Column("rating_after", Float, nullable=False),
    Column("deviation_after", Float, nullable=False),
    Column("volatility_after", Float, nullable=False),
    Column("ended", Float, nullable=False),
)

#: signed-in sessions: only the SHA-256 of each cookie's token is kept
sessions_table = Table(
    "nugar_sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, nullable=False, index=True),
    Column("created", Float, nullable=False),
    Column("last_used", Float, nullable=False),
)

#: bots' API tokens (:mod:`.bots`): only the SHA-256 of each token is kept
bot_tokens_table = Table(
    "nugar_bot_tokens", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("id", String(16), nullable=False, unique=True),  # names it (to list, revoke)
    Column("account_id", Integer, nullable=False, index=True),
    Column("label", String(40), nullable=False),
    Column("created", Float, nullable=False),
)

#: the computer analyses of finished games (:mod:`.analyses`), one row per game: claimed by
#: the process computing it (``done`` 0, its ``progress`` and ``updated`` kept fresh), then
#: the finished turns (``done`` 1), shown to everyone who opens the game
analyses_table = Table(
    "nugar_analyses", metadata,
    Column("game_id", String(32), primary_key=True),
    Column("done", Integer, nullable=False),           # 0 running, 1 finished
    Column("progress", Float, nullable=False),         # positions done / positions, 0..1
    Column("nodes", Integer, nullable=False),          # the search's nodes per decision
    Column("plies", Text, nullable=False),             # JSON: the analysed turns
    Column("created", Integer, nullable=False),
    Column("updated", Integer, nullable=False),        # the last sign of the computing process
)

#: a signed-in player's progress in each lesson (:mod:`.lesson_progress`)
lesson_progress_table = Table(
    "nugar_lesson_progress", metadata,
    Column("account_id", Integer, primary_key=True),
    Column("lesson", String(40), primary_key=True),    # the lesson's name
    Column("done", Text, nullable=False),              # JSON: the indices of the steps done
    Column("at", Integer, nullable=True),              # the step last shown
    Column("updated", Float, nullable=False),
)


#: the sign-in limits' token buckets (:class:`~.accounts.AttemptLimiter`), shared by every
#: process on the database: a row per key, stored as its SHA-256
sign_in_attempts_table = Table(
    "nugar_sign_in_attempts", metadata,
    Column("key", String(64), primary_key=True),       # sha256 of the limit's kind and key
    Column("kind", String(16), nullable=False),         # address, pair
    Column("tokens", Float, nullable=False),            # attempts left when last counted
    Column("last", Float, nullable=False, index=True),  # when last counted (epoch s)
)


#: the random bytes of a seat's secret (a lobby challenge's key too): 24 URL-safe characters
SEAT_KEY_BYTES = 18


def new_key() -> str:
    """A new seat secret (:data:`SEAT_KEY_BYTES` random bytes, URL-safe text)."""
    return secrets.token_urlsafe(SEAT_KEY_BYTES)


#: a signed-in player's puzzle rating per rule set, and his streak (:mod:`.puzzle_ratings`)
puzzle_players_table = Table(
    "nugar_puzzle_players", metadata,
    Column("account_id", Integer, primary_key=True),
    Column("rules", String(40), primary_key=True),     # the puzzles' rule set (its text)
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),       # rated attempts
    Column("solved", Integer, nullable=False),         # of them right
    Column("streak", Integer, nullable=False),         # puzzles right in a row, streak mode
    Column("streak_best", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)

#: a puzzle's rating once someone has been rated against it (before: its shipped rating)
puzzle_ratings_table = Table(
    "nugar_puzzle_ratings", metadata,
    Column("puzzle_id", String(16), primary_key=True),
    Column("rating", Float, nullable=False),
    Column("deviation", Float, nullable=False),
    Column("volatility", Float, nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("solved", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)

#: each account's first attempt at each puzzle (the rated one)
puzzle_attempts_table = Table(
    "nugar_puzzle_attempts", metadata,
    Column("account_id", Integer, primary_key=True),
    Column("puzzle_id", String(16), primary_key=True),
    Column("rules", String(40), nullable=False),
    Column("won", Integer, nullable=False),            # 1 solved, 0 failed
    Column("rating_before", Float, nullable=True),     # NULL: not rated (streak mode)
    Column("rating_after", Float, nullable=True),
    Column("at", Float, nullable=False),
    Index("ix_nugar_puzzle_attempts_account_at", "account_id", "at"),
)


def hash_key(key: str) -> str:
    """The stored form of a seat secret: only its SHA-256 is kept, never the secret itself."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def default_db_url() -> str:
    """A SQLite file in the user's data directory (created when missing)."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    folder = base / "nugar"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'games.sqlite3'}"


#: what a change's waiter is given: a thread-safe future, or an event loop's own
_Done = Future[None] | asyncio.Future[None]


def _settle_one(done: _Done, result: BaseException | None) -> None:
    """Give a change's waiter its outcome (in the future's own thread for a loop's)."""
    if done.done():  # its waiter was cancelled (the write happened all the same)
        return
    if result is None:
        done.set_result(None)
    else:
        done.set_exception(result)


def _settle(settled: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    """In an event loop's thread: the outcome of each of its changes a batch wrote."""
    for done, result in settled:
        _settle_one(done, result)


@dataclass
class GameRow:
    """One stored game, as read from the database."""

    id: str
    rules: str
    mode: str
    ai_level: int | None
    ai_seat: int | None
    key_hash_1: str | None
    key_hash_2: str | None
    moves: list[str]
    ending: dict[str, Any] | None
    offers: dict[str, Any]
    result: str | None
    reason: str | None
    version: int
    created: int = 0
    updated: int = 0
    clock: dict[str, Any] | None = None  # the clocks as stored (``clocks.Clock.to_json``)
    deadline: float | None = None         # when the running clock reaches zero
    account_1: int | None = None          # the accounts holding the seats (signed-in players)
    account_2: int | None = None
    rated: bool = False                   # rated: its end updates both accounts' ratings


@dataclass
class StoredEvent:
    """One journal entry: its version, type and data."""

    version: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)


class VersionConflict(RuntimeError):
    """The stored game is not at the version a write expected: another writer got there."""


class CorruptRow(ValueError):
    """A stored game row whose fields cannot be read (broken JSON, wrong types)."""


def failure_text(exc: BaseException) -> str:
    """A database failure in one line: its kind and the first line of what the driver said
    (SQLAlchemy's message adds the statement and its parameters: long, and not for a log)."""
    said = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return f"{type(exc).__name__}: {said[0] if said else ''}"[:300]


def is_database_failure(exc: BaseException) -> bool:
    """Whether ``exc`` is the database's failure (a full disk, a database gone, damaged
    data): SQLAlchemy's, or the driver's own (PEP 249's ``Error`` of sqlite3 or psycopg),
    which the writer thread's plain statements raise."""
    if isinstance(exc, (SQLAlchemyError, sqlite3.Error)):
        return True
    psycopg = sys.modules.get("psycopg")
    return psycopg is not None and isinstance(exc, psycopg.Error)


def log_failure(what: str, exc: BaseException) -> None:
    """Log that ``what`` failed (a background task: the computer's turn, a sweep, an
    analysis) in one line when the cause is known: a database failure (a full disk, a
    database gone: what the driver said) or a refusal (whose storage failure, if any, was
    logged where it happened); anything else, a fault, with its traceback."""
    if is_database_failure(exc):
        log.error("%s failed: %s", what, failure_text(exc))
    elif isinstance(exc, ApiError):
        log.warning("%s failed: %s (%s)", what, exc.code, str(exc.detail)[:200])
    else:
        log.error("%s failed", what, exc_info=exc)


def storage_refusal(exc: SQLAlchemyError, what: str) -> ApiError:
    """The refusal answering a database failure while doing ``what`` (e.g. ``"reading game
    X"``), logged in one line: ``corrupt_game`` (409) when the database says its data is
    damaged (a malformed SQLite page), else ``storage_failed`` (503: a full disk, a database
    that went away; the same request may succeed later)."""
    line = failure_text(exc)
    if isinstance(exc, DatabaseError) and not isinstance(exc, OperationalError):
        log.error("the stored data is damaged while %s: %s", what, line)
        return ApiError("corrupt_game", i18n.Text(
            "the stored data cannot be read while {what}: the database is damaged",
            domain="web", what=what))
    log.error("the database failed while %s: %s", what, line)
    return ApiError("storage_failed", i18n.Text(
        "the database failed while {what}; nothing was changed, try again later",
        domain="web", what=what))


@contextlib.contextmanager
def refusing(what: str) -> Iterator[None]:
    """Turn a database failure in the block into its refusal (:func:`storage_refusal`)."""
    try:
        yield
    except SQLAlchemyError as exc:
        raise storage_refusal(exc, what) from None


class GroupCommit:
    """The store's writer thread: the changes handed to it (:meth:`Store.submit`) are
    committed together, up to :data:`MAX_BATCH` in one transaction (group commit: one disk
    sync for many moves), each only if the stored version is still the one before it; a
    rated game's last change updates the ratings in the same transaction (:meth:`_rate`)."""

    engine: Engine
    #: whether other processes share the database (:attr:`Store.shared`)
    shared: bool

    def _start_commits(self) -> None:
        self._queue: queue.SimpleQueue[tuple[GameRow, StoredEvent, _Done] | None] = \
            queue.SimpleQueue()
        self._sql = _WriterSql(self.engine.dialect.paramstyle)
        self._writer: threading.Thread | None = None
        self._writer_lock = threading.Lock()

    def _enqueue(self, row: GameRow, new_event: StoredEvent, done: _Done) -> None:
        if self._writer is None:
            with self._writer_lock:
                if self._writer is None:
                    self._writer = threading.Thread(target=self._write_forever, daemon=True,
                                                    name="nugar-store-writer")
                    self._writer.start()
        self._queue.put((row, new_event, done))

    def _write_forever(self) -> None:
        """The writer thread: takes every change waiting (up to :data:`MAX_BATCH`) and
        commits them in one transaction, so one disk sync serves them all."""
        while True:
            item = self._queue.get()
            if item is None:
                return
            batch = [item]
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._write_batch(batch)
            if stop:
                return

    def _write_batch(self, batch: list[tuple[GameRow, StoredEvent, _Done]]) -> None:
        # games in id order: two processes' batches lock their rows in the same order
        batch.sort(key=lambda item: item[0].id)
        results: list[BaseException | None] = []
        try:
            results = self._transaction([(row, ev) for row, ev, _ in batch])
        except Exception as exc:  # the whole transaction failed: try each change alone
            if len(batch) > 1:
                for item in batch:
                    self._write_batch([item])
                return
            results = [exc]
        on_loops: dict[asyncio.AbstractEventLoop,
                       list[tuple[asyncio.Future[None], BaseException | None]]] = {}
        for (_row, _ev, done), result in zip(batch, results, strict=True):
            if isinstance(done, asyncio.Future):  # settled in its loop's thread, below
                on_loops.setdefault(done.get_loop(), []).append((done, result))
            else:
                _settle_one(done, result)
        for loop, settled in on_loops.items():
            with contextlib.suppress(RuntimeError):  # a loop closed meanwhile: no one waits
                loop.call_soon_threadsafe(_settle, settled)

    def _transaction(self, changes: list[tuple[GameRow, StoredEvent]]
                     ) -> list[BaseException | None]:
        """:meth:`_write_all` in one transaction on a pooled connection of the database's
        own driver (the DBAPI: the writer's statements are fixed, and SQLAlchemy's layers
        cost more CPU than the database spends on them); committed, or rolled back and the
        error raised."""
        conn = self.engine.raw_connection()
        try:
            cursor = conn.cursor()
            try:
                results = self._write_all(cursor, changes)
            finally:
                cursor.close()
            conn.commit()
            return results
        except BaseException:
            with contextlib.suppress(Exception):  # a lost connection cannot roll back
                conn.rollback()
            raise
        finally:
            conn.close()  # back to the pool

    def _write_all(self, cursor: Any, changes: list[tuple[GameRow, StoredEvent]]
                   ) -> list[BaseException | None]:
        """The changes inside the writer's transaction: for each, ``None`` when written, the
        :class:`VersionConflict` (nothing written) when the stored version moved. Each game
        row is updated only if its stored version is the one before the change; the journal
        entries of the written ones are inserted together. On PostgreSQL, where every
        statement is a round trip to the server, the rows are updated in one statement, the
        entries inserted in another and announced in a third."""
        now = int(time.time())
        sql = self._sql
        params = [(json.dumps(row.moves), _dump_opt(row.ending), json.dumps(row.offers),
                   row.result, row.reason, ev.version, now, _dump_opt(row.clock),
                   row.deadline, row.id, ev.version - 1) for row, ev in changes]
        written: list[bool] = []
        if self.shared and len({row.id for row, _ev in changes}) == len(changes) > 1:
            cursor.execute(sql.update_many, (json.dumps([dict(zip(_UPDATE_FIELDS, values,
                                                                  strict=True))
                                                         for values in params]),))
            done = {r[0] for r in cursor.fetchall()}
            written = [row.id in done for row, _ev in changes]
        else:
            for values in params:
                cursor.execute(sql.update, values)
                written.append(cursor.rowcount == 1)
        results: list[BaseException | None] = []
        events: list[tuple[str, int, str, str, int]] = []
        for (row, new_event), ok in zip(changes, written, strict=True):
            if not ok:
                results.append(VersionConflict(f"game {row.id}: stored version is not "
                                               f"{new_event.version - 1}; refusing to write"))
                continue
            results.append(None)
            events.append((row.id, new_event.version, new_event.type,
                           json.dumps(new_event.data), now))
        for (row, _ev), error in zip(changes, results, strict=True):
            if error is None and row.rated and row.result in SCORES:
                self._rate(cursor, row, now)
        if events:
            if self.shared:
                cursor.execute(sql.insert_events, (json.dumps([
                    dict(zip(_EVENT_FIELDS, e, strict=True)) for e in events]),))
                cursor.execute(sql.notify, (CHANNEL, json.dumps([_payload(*e[:4])
                                                                 for e in events])))
            else:
                cursor.executemany(sql.insert_event, events)
        return results

    def _rate(self, cursor: Any, row: GameRow, now: float) -> None:
        """Inside the writer's transaction of a rated game's last change: both accounts'
        ratings for the game's preset updated (:func:`.ratings.rate_game`, the game a rating
        period of its own) and the change recorded for each seat, unless this game's change
        is recorded already. The same transaction as the move: a crash loses both or
        neither, and a repeated write cannot rate twice."""
        sql = self._sql
        if row.account_1 is None or row.account_2 is None:
            return
        accounts = (row.account_1, row.account_2)
        cursor.execute(sql.rated_done, (row.id,))
        if cursor.fetchone() is not None:
            return
        before: dict[int, Rating] = {}
        for account in sorted(set(accounts)):  # in id order: two games lock in one order
            cursor.execute(sql.rating_ensure, (account, row.rules, START_RATING,
                                               START_DEVIATION, START_VOLATILITY, now))
            cursor.execute(sql.rating_get, (account, row.rules))
            rating, deviation, volatility = cursor.fetchone()
            before[account] = Rating(rating, deviation, volatility)
        score = SCORES[row.result or ""]
        first, second = before[accounts[0]], before[accounts[1]]
        after = rate_game(first, second, score)
        for seat, account, old, new, mine in ((1, accounts[0], first, after[0], score),
                                              (2, accounts[1], second, after[1], 1 - score)):
            cursor.execute(sql.rating_set, (new.rating, new.deviation, new.volatility, now,
                                            account, row.rules))
            cursor.execute(sql.change_insert, (row.id, seat, account, row.rules, mine,
                                               old.rating, old.deviation, new.rating,
                                               new.deviation, new.volatility, now))


class Store(GroupCommit):
    """The database of online games. Thread-safe: each call uses its own connection, and
    :meth:`submit` hands changes to the one writer thread."""

    def __init__(self, url: str | None = None, *, create: bool = True) -> None:
        self.url = url or default_db_url()
        kwargs: dict[str, Any] = {"future": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                # one shared connection, or every thread would see its own empty database
                kwargs["poolclass"] = StaticPool
        else:
            kwargs["pool_size"] = 8
            kwargs["max_overflow"] = 8
            kwargs["pool_pre_ping"] = True  # a connection the database dropped is replaced
        self.engine: Engine = create_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        #: whether other processes may write the same games (PostgreSQL): the caches of the
        #: server then follow the changes announced on :data:`CHANNEL`
        self.shared = self.engine.dialect.name == "postgresql"
        if create:  # the newest schema, by the migration chain (:mod:`.migrations`)
            upgrade(self.engine)
        self._start_commits()

    def rated_in_play(self, rules: str, moves: list[str]) -> bool:
        """Whether ``moves`` (one or more, of the rule set whose text is ``rules``) are those
        of a rated game not yet over, or their beginning: analysing them, or a hint after
        them, would be the engine's help to a player of that game (blocking).

        Every process's games are found, here in the database: the rated games still running
        (few: one per pair of players at the table) whose stored moves begin with these,
        matched on the JSON text of the moves (they are stored with :func:`json.dumps`, so
        the text of a list's first moves is the beginning of the list's text), then on the
        rules. A game reaching the same position by other moves is not found; a record
        starts from the rules' own start, so its moves are its positions."""
        if not moves:
            return False  # the starting position helps nobody
        from ...rules import parse_rules

        prefix = json.dumps(moves)[:-1]  # '["a1", "b2"' begins '["a1", "b2"]', '["a1", "b2", ..'
        t = games_table
        with self.engine.connect() as conn:
            found = conn.execute(select(t.c.rules).where(t.c.rated == 1)
                                 .where(t.c.result.is_(None))
                                 .where(t.c.moves.startswith(prefix, autoescape=True))
                                 .limit(100)).scalars().all()
        for written in found:
            try:
                if parse_rules(written).text == rules:
                    return True
            except ValueError:
                continue
        return False

    def refuse_in_play(self, rules: str, moves: list[str]) -> None:
        """``409 game_in_play`` when :meth:`rated_in_play` (blocking)."""
        if self.rated_in_play(rules, moves):
            raise ApiError("game_in_play", i18n.Text(
                "these moves are those of a rated game still being played; the computer "
                "helps with them once that game has ended", domain="web"))

    def close(self) -> None:
        if self._writer is not None:
            self._queue.put(None)
            self._writer.join(30)
            self._writer = None
        self.engine.dispose()

    def listen_url(self) -> str:
        """The libpq address of the database (for a LISTEN connection of :mod:`psycopg`)."""
        return self.engine.url.set(drivername="postgresql").render_as_string(
            hide_password=False)

    # --- writing ----------------------------------------------------------------------------
    def create(self, row: GameRow, first_event: StoredEvent) -> None:
        now = int(time.time())
        with self.engine.begin() as conn:
            conn.execute(insert(games_table).values(
                id=row.id, rules=row.rules, mode=row.mode, ai_level=row.ai_level,
                ai_seat=row.ai_seat, key_hash_1=row.key_hash_1, key_hash_2=row.key_hash_2,
                moves=json.dumps(row.moves), ending=_dump_opt(row.ending),
                offers=json.dumps(row.offers), result=row.result, reason=row.reason,
                version=row.version, created=now, updated=now,
                clock=_dump_opt(row.clock), deadline=row.deadline,
                account_1=row.account_1, account_2=row.account_2,
                rated=1 if row.rated else None))
            conn.execute(insert(events_table).values(
                game_id=row.id, version=first_event.version, type=first_event.type,
                data=json.dumps(first_event.data), created=now))

    def save(self, row: GameRow, new_event: StoredEvent) -> None:
        """Write the game's new state and append its event, in one transaction; waits until
        it is committed (:meth:`submit` does not wait).

        The update only applies when the stored version is the one before the event, so two
        writers can never both append the same version (the unique key also forbids it):
        otherwise :class:`VersionConflict`.
        """
        self.submit(row, new_event).result()

    def submit(self, row: GameRow, new_event: StoredEvent) -> Future[None]:
        """Hand the change to the writer thread; the future is done once it is committed
        (its exception: :class:`VersionConflict`, or what the database said). ``row`` must
        not be changed until then."""
        done: Future[None] = Future()
        self._enqueue(row, new_event, done)
        return done

    def write(self, row: GameRow, new_event: StoredEvent) -> asyncio.Future[None]:
        """:meth:`submit` for a caller on an event loop: the loop's own future, which the
        writer settles with one call into the loop for all of a batch's changes made on it
        (rather than a thread-safe future and its bridge for each). Cancelling it does not
        stop the write."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._enqueue(row, new_event, done)
        return done

    def claim_seat(self, game_id: str, seat: int, account_id: int) -> bool:
        """Name the account holding a seat of a game, unless one already holds it; whether
        it was named. The writer's updates leave these columns alone."""
        column = games_table.c.account_1 if seat == 1 else games_table.c.account_2
        with self.engine.begin() as conn:
            done = conn.execute(games_table.update().where(games_table.c.id == game_id)
                                .where(column.is_(None)).values({column: account_id}))
        return bool(done.rowcount)

    # --- reading ----------------------------------------------------------------------------
    def load(self, game_id: str) -> GameRow | None:
        """The stored game ``game_id`` (``None``: no such game); :class:`CorruptRow` when its
        row does not read, or when its journal is not continuous up to the row's version
        (entries 1 to ``version``, each once: a row ahead of its journal was changed behind
        the server's back, or lost its journal's end; :func:`_journal_problem`)."""
        # the row and its journal's extent in one statement: one snapshot of the database,
        # so a change another process commits meanwhile is seen in both or in neither
        ev = events_table.c
        mine = ev.game_id == game_id
        extent = [select(agg).where(mine).scalar_subquery().label(name) for name, agg in (
            ("j_count", func.count()), ("j_min", func.min(ev.version)),
            ("j_max", func.max(ev.version)))]
        with self.engine.connect() as conn:
            r = conn.execute(select(games_table, *extent)
                             .where(games_table.c.id == game_id)).first()
        if r is None:
            return None
        m = r._mapping
        problem = _journal_problem(int(m["version"]), int(m["j_count"]), m["j_min"],
                                   m["j_max"])
        if problem:
            raise CorruptRow(f"stored game {game_id}: {problem}")
        try:
            moves = json.loads(m["moves"])
            ending = _load_opt(m["ending"])
            offers = json.loads(m["offers"])
            clock = _load_opt(m["clock"])
            if not (isinstance(moves, list) and all(isinstance(t, str) for t in moves)):
                raise ValueError("the moves are not a list of texts")
            if not isinstance(offers, dict):
                raise ValueError("the offers are not an object")
        except (ValueError, TypeError) as exc:
            raise CorruptRow(f"stored game {game_id} cannot be read: {exc}") from None
        return GameRow(
            id=m["id"], rules=m["rules"], mode=m["mode"], ai_level=m["ai_level"],
            ai_seat=m["ai_seat"], key_hash_1=m["key_hash_1"], key_hash_2=m["key_hash_2"],
            moves=moves, ending=ending, offers=offers, result=m["result"],
            reason=m["reason"], version=m["version"], created=m["created"],
            updated=m["updated"], clock=clock, deadline=m["deadline"],
            account_1=m["account_1"], account_2=m["account_2"], rated=bool(m["rated"]))

    def check(self) -> list[str]:
        """What is wrong with the database, one line each (none: all is well): SQLite's
        ``integrity_check`` (the file's pages and indexes), then every game's journal against
        its row (:func:`_journal_problem`). ``nugar serve --check-db`` runs it at start."""
        problems: list[str] = []
        try:
            with self.engine.connect() as conn:
                if self.engine.dialect.name == "sqlite":
                    said = [str(x) for x in conn.execute(text("PRAGMA integrity_check"))
                            .scalars()]
                    if said != ["ok"]:
                        problems += [f"integrity_check: {line}" for line in said[:20]]
                journals = {gid: (n, lo, hi) for gid, n, lo, hi in conn.execute(
                    select(events_table.c.game_id, func.count(), func.min(events_table.c.version),
                           func.max(events_table.c.version))
                    .group_by(events_table.c.game_id))}
                for gid, version in conn.execute(select(games_table.c.id,
                                                        games_table.c.version)):
                    problem = _journal_problem(int(version), *journals.get(gid, (0, None, None)))
                    if problem and self._still_broken(gid):
                        problems.append(f"game {gid}: {problem}")
        except SQLAlchemyError as exc:
            problems.append(f"the database cannot be read: {failure_text(exc)}")
        return problems

    def _still_broken(self, game_id: str) -> bool:
        """Whether the game's row and journal disagree read in one statement (:meth:`load`):
        :meth:`check` reads them in two, and another process may write between them."""
        try:
            self.load(game_id)
        except CorruptRow:
            return True
        return False

    def version(self, game_id: str) -> int | None:
        """The stored version of a game (``None``: no such game)."""
        with self.engine.connect() as conn:
            v = conn.execute(select(games_table.c.version)
                             .where(games_table.c.id == game_id)).scalar()
        return None if v is None else int(v)

    def events_since(self, game_id: str, version: int, limit: int,
                     until: int | None = None) -> list[StoredEvent]:
        """Journal entries after ``version`` (and up to ``until``: the version a reader holds,
        while another process may be writing newer ones), oldest first, at most ``limit``."""
        query = (select(events_table.c.version, events_table.c.type, events_table.c.data)
                 .where(events_table.c.game_id == game_id)
                 .where(events_table.c.version > version))
        if until is not None:
            query = query.where(events_table.c.version <= until)
        with self.engine.connect() as conn:
            rows = conn.execute(query.order_by(events_table.c.version).limit(limit)).all()
        return [StoredEvent(v, t, json.loads(d)) for v, t, d in rows]

    def idle_games(self, before: float) -> list[tuple[str, int]]:
        """Unfinished games last changed before the time ``before`` (seconds since the
        epoch), as ``(id, version)`` pairs, oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games_table.c.id, games_table.c.version)
                .where(games_table.c.result.is_(None))
                .where(games_table.c.updated < int(before))
                .order_by(games_table.c.updated)).all()
        return [(r[0], r[1]) for r in rows]

    def due_clocks(self, now: float, limit: int) -> list[str]:
        """Ids of unfinished games whose running clock ran out before ``now`` (seconds since
        the epoch), most overdue first, at most ``limit``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games_table.c.id)
                .where(games_table.c.deadline.is_not(None))
                .where(games_table.c.deadline <= now)
                .where(games_table.c.result.is_(None))
                .order_by(games_table.c.deadline)
                .limit(limit)).all()
        return [r[0] for r in rows]

    def unfinished_ai_games(self) -> list[str]:
        """Ids of running games against the AI (the AI may be the one to move)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(games_table.c.id)
                .where(games_table.c.mode == "ai")
                .where(games_table.c.result.is_(None))).all()
        return [r[0] for r in rows]


#: the writer's values of a game row's update, and of a journal entry, in order
_UPDATE_FIELDS = ("moves", "ending", "offers", "result", "reason", "version", "updated",
                  "clock", "deadline", "id", "before")
_EVENT_FIELDS = ("game_id", "version", "type", "data", "created")


class _WriterSql:
    """The writer thread's statements in the driver's parameter style (``?`` for SQLite's,
    ``%s`` for psycopg)."""

    def __init__(self, paramstyle: str) -> None:
        mark = "?" if paramstyle == "qmark" else "%s"

        def sql(text: str) -> str:
            return text.replace("?", mark)

        self.update = sql(
            "UPDATE nugar_games SET moves = ?, ending = ?, offers = ?, result = ?, "
            "reason = ?, version = ?, updated = ?, clock = ?, deadline = ? "
            "WHERE id = ? AND version = ?")
        self.insert_event = sql(
            "INSERT INTO nugar_events (game_id, version, type, data, created) "
            "VALUES (?, ?, ?, ?, ?)")
        # PostgreSQL only: a whole transaction's rows, entries and announcements in one
        # statement each, their values in one JSON text (which the server parses faster
        # than the driver writes arrays); the rows are locked in id order first, as the
        # one-by-one updates do, so two processes' transactions never wait in a circle
        self.update_many = sql(
            "WITH v AS (SELECT * FROM json_to_recordset(?::json) AS v(moves text, "
            "ending text, offers text, result text, reason text, version int, updated int, "
            "clock text, deadline float8, id text, before int)), "
            "locked AS (SELECT g.id FROM nugar_games AS g JOIN v ON g.id = v.id "
            "ORDER BY g.id FOR UPDATE OF g) "
            "UPDATE nugar_games AS g SET moves = v.moves, ending = v.ending, "
            "offers = v.offers, result = v.result, reason = v.reason, version = v.version, "
            "updated = v.updated, clock = v.clock, deadline = v.deadline "
            "FROM v JOIN locked ON locked.id = v.id "
            "WHERE g.id = v.id AND g.version = v.before RETURNING g.id")
        self.insert_events = sql(
            "INSERT INTO nugar_events (game_id, version, type, data, created) "
            "SELECT * FROM json_to_recordset(?::json) AS v(game_id text, version int, "
            "type text, data text, created int)")
        self.notify = sql("SELECT pg_notify(?, p) FROM json_array_elements_text(?::json) AS p")
        # a rated game's end (:meth:`Store._rate`); on PostgreSQL the rating rows are
        # locked until the transaction ends, so two games ending at once update in turn
        lock = " FOR UPDATE" if paramstyle != "qmark" else ""
        self.rated_done = sql("SELECT 1 FROM nugar_rating_changes WHERE game_id = ?")
        self.rating_ensure = sql(
            "INSERT INTO nugar_ratings (account_id, preset, rating, deviation, volatility, "
            "games, updated) VALUES (?, ?, ?, ?, ?, 0, ?) ON CONFLICT DO NOTHING")
        self.rating_get = sql("SELECT rating, deviation, volatility FROM nugar_ratings "
                              "WHERE account_id = ? AND preset = ?" + lock)
        self.rating_set = sql(
            "UPDATE nugar_ratings SET rating = ?, deviation = ?, volatility = ?, "
            "games = games + 1, updated = ? WHERE account_id = ? AND preset = ?")
        self.change_insert = sql(
            "INSERT INTO nugar_rating_changes (game_id, seat, account_id, preset, score, "
            "rating_before, deviation_before, rating_after, deviation_after, "
            "volatility_after, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")


#: the longest announcement payload sent with its event (PostgreSQL allows 8000 bytes)
MAX_PAYLOAD = 7000


def _payload(game_id: str, version: int, etype: str, data: str) -> str:
    """``"<game id> <version> <type> <data as JSON>"``, or only ``"<game id> <version>"``
    when that is too long: a listener that gets the event needs not read it back."""
    short = f"{game_id} {version}"
    full = f"{short} {etype} {data}"
    return full if len(full) <= MAX_PAYLOAD // 4 or len(full.encode("utf-8")) <= MAX_PAYLOAD \
        else short


def _journal_problem(version: int, entries: int, first: int | None, last: int | None
                     ) -> str | None:
    """What is wrong with a game at ``version`` whose journal holds ``entries`` entries from
    version ``first`` to ``last`` (``None``: nothing wrong). The versions are unique, so a
    journal of ``version`` entries from 1 to ``version`` is continuous. A game with no journal
    at all (a row made by hand, or by a tool that writes no journal) is left alone: there
    is nothing of it to serve wrongly."""
    if entries == 0 or (entries, first, last) == (version, 1, version):
        return None
    return (f"its journal holds {entries} entries (versions {first} to {last}), not the "
            f"{version} of its row: the journal is not continuous with the stored game")


def _dump_opt(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value)


def _load_opt(text: str | None) -> dict[str, Any] | None:
    return None if text is None else dict(json.loads(text))


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    # WAL lets readers go on while a move is written; a busy database waits instead of failing.
    # FULL syncs the log at every commit, so a move the server acknowledged survives a power
    # loss (NORMAL could lose the last ones); a move is one small transaction, so it is cheap.
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=30000")
    cur.close()
