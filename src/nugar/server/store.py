"""Durable storage of online games through SQLAlchemy (SQLite by default, PostgreSQL by URL).

A stored game is its rule-set text plus the list of move texts played, and the ending imposed
on it, which the moves alone do not give (a resignation, an agreed draw, an adjudication, a
loss on time: ``session.ending_of``). Loading replays the moves through the rules engine,
which stays the only judge of legality (``session.restore``). Next to each game row the
``events`` table keeps the numbered journal of everything that happened to it; a reconnecting
client is sent the entries it missed. Every change is one transaction that updates the game
row and appends its event together, so a crash leaves either both or neither.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Column,
    Engine,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.pool import StaticPool

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


class Store:
    """The database of online games. Thread-safe: each call uses its own connection."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_db_url()
        kwargs: dict[str, Any] = {"future": True}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
            if self.url in ("sqlite://", "sqlite:///:memory:"):
                # one shared connection, or every thread would see its own empty database
                kwargs["poolclass"] = StaticPool
        self.engine: Engine = create_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
        metadata.create_all(self.engine)
        _add_clock_columns(self.engine)

    def close(self) -> None:
        self.engine.dispose()

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
                clock=_dump_opt(row.clock), deadline=row.deadline))
            conn.execute(insert(events_table).values(
                game_id=row.id, version=first_event.version, type=first_event.type,
                data=json.dumps(first_event.data), created=now))

    def save(self, row: GameRow, new_event: StoredEvent) -> None:
        """Write the game's new state and append its event, in one transaction.

        The update only applies when the stored version is the one before the event, so two
        writers can never both append the same version (the unique key also forbids it).
        """
        now = int(time.time())
        with self.engine.begin() as conn:
            done = conn.execute(
                update(games_table)
                .where(games_table.c.id == row.id)
                .where(games_table.c.version == new_event.version - 1)
                .values(moves=json.dumps(row.moves), ending=_dump_opt(row.ending),
                        offers=json.dumps(row.offers), result=row.result, reason=row.reason,
                        version=new_event.version, updated=now,
                        clock=_dump_opt(row.clock), deadline=row.deadline))
            if done.rowcount != 1:
                raise VersionConflict(f"game {row.id}: stored version is not "
                                   f"{new_event.version - 1}; refusing to write")
            conn.execute(insert(events_table).values(
                game_id=row.id, version=new_event.version, type=new_event.type,
                data=json.dumps(new_event.data), created=now))

    # --- reading ----------------------------------------------------------------------------
    def load(self, game_id: str) -> GameRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(games_table).where(games_table.c.id == game_id)).first()
        if r is None:
            return None
        m = r._mapping
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
            updated=m["updated"], clock=clock, deadline=m["deadline"])

    def events_since(self, game_id: str, version: int, limit: int) -> list[StoredEvent]:
        """Journal entries after ``version``, oldest first, at most ``limit``."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(events_table.c.version, events_table.c.type, events_table.c.data)
                .where(events_table.c.game_id == game_id)
                .where(events_table.c.version > version)
                .order_by(events_table.c.version)
                .limit(limit)).all()
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


def _add_clock_columns(engine: Engine) -> None:
    """Add the clock columns to a games table stored before clocks existed."""
    have = {c["name"] for c in inspect(engine).get_columns("nugar_games")}
    with engine.begin() as conn:
        for name, sql_type in (("clock", "TEXT"), ("deadline", "FLOAT")):
            if name not in have:
                conn.execute(text(f"ALTER TABLE nugar_games ADD COLUMN {name} {sql_type}"))


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
