"""The schema's migrations (:mod:`nugar.server.storage.migrations`): a database written by the
release before them (its tables made by ``create_all``, without an ``alembic_version`` table)
opens, keeps its games, which go on being playable, and gains the accounts' tables; on SQLite
and on PostgreSQL (a private server: tests/postgres.py)."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, inspect, text

from nugar.rules import new_game, parse_rules
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.storage.migrations import HEAD, RELEASE_1, current, upgrade
from nugar.server.storage.store import Store, hash_key, metadata
from postgres import postgres, require_binaries

#: the tables of the release before the migrations, as its ``create_all`` made them on
#: SQLite (the clock columns last, as ``_add_clock_columns`` put them)
OLD_SQLITE = """
CREATE TABLE nugar_challenges (
    seq INTEGER NOT NULL, id VARCHAR(16) NOT NULL, rules TEXT NOT NULL,
    game VARCHAR(32) NOT NULL, clock VARCHAR(20), colour VARCHAR(8) NOT NULL,
    public INTEGER NOT NULL, owner VARCHAR(64) NOT NULL, created FLOAT NOT NULL,
    seen FLOAT NOT NULL, taken_at FLOAT NOT NULL, game_id VARCHAR(32), owner_seat INTEGER,
    PRIMARY KEY (seq), UNIQUE (id));
CREATE INDEX ix_nugar_challenges_owner ON nugar_challenges (owner);
CREATE TABLE nugar_events (
    id INTEGER NOT NULL, game_id VARCHAR(32) NOT NULL, version INTEGER NOT NULL,
    type VARCHAR(16) NOT NULL, data TEXT NOT NULL, created INTEGER NOT NULL,
    PRIMARY KEY (id), CONSTRAINT uq_event_version UNIQUE (game_id, version));
CREATE INDEX ix_nugar_events_game_id ON nugar_events (game_id);
CREATE TABLE nugar_games (
    id VARCHAR(32) NOT NULL, rules TEXT NOT NULL, mode VARCHAR(16) NOT NULL,
    ai_level INTEGER, ai_seat INTEGER, key_hash_1 VARCHAR(64), key_hash_2 VARCHAR(64),
    moves TEXT NOT NULL, ending TEXT, offers TEXT NOT NULL, result VARCHAR(8),
    reason VARCHAR(16), version INTEGER NOT NULL, created INTEGER NOT NULL,
    updated INTEGER NOT NULL, clock TEXT, deadline FLOAT, PRIMARY KEY (id));
CREATE INDEX ix_nugar_games_deadline ON nugar_games (deadline);
"""
#: the same on PostgreSQL (``SERIAL`` keys)
OLD_POSTGRES = OLD_SQLITE.replace("seq INTEGER NOT NULL", "seq SERIAL NOT NULL") \
    .replace("id INTEGER NOT NULL, game_id", "id SERIAL NOT NULL, game_id")
#: a games table from before the clocks (that release added the columns at start)
BEFORE_CLOCKS = OLD_SQLITE.replace(", clock TEXT, deadline FLOAT, PRIMARY KEY (id));",
                                   ", PRIMARY KEY (id));") \
    .replace("CREATE INDEX ix_nugar_games_deadline ON nugar_games (deadline);", "")

NEW_TABLES = {"nugar_accounts", "nugar_sessions", "alembic_version"}


def old_database(url: str, ddl: str) -> tuple[str, str, list[str]]:
    """A database of the old release holding one game by link with two moves played (an
    hour ago); returns its id, the secret of the seat to move and the moves."""
    game = new_game(parse_rules("dara"))
    moves = []
    for _ in range(2):
        move = str(game.legal_moves()[0])
        game.play(move)
        moves.append(move)
    gid = secrets.token_hex(8)
    keys = {1: secrets.token_urlsafe(18), 2: secrets.token_urlsafe(18)}
    when = int(time.time()) - 3600
    engine = create_engine(url)
    with engine.begin() as conn:
        for statement in ddl.split(";"):
            if statement.strip():
                conn.execute(text(statement))
        conn.execute(text(
            "INSERT INTO nugar_games (id, rules, mode, key_hash_1, key_hash_2, moves, offers, "
            "version, created, updated) VALUES (:id, 'dara', 'friend', :h1, :h2, :moves, '{}',"
            " 3, :t, :t)"),
            {"id": gid, "h1": hash_key(keys[1]), "h2": hash_key(keys[2]),
             "moves": json.dumps(moves), "t": when})
        for version, etype, data in ((1, "created", {"rules": "dara", "mode": "friend"}),
                                     (2, "move", {"move": moves[0]}),
                                     (3, "move", {"move": moves[1]})):
            conn.execute(text("INSERT INTO nugar_events (game_id, version, type, data, "
                              "created) VALUES (:g, :v, :t, :d, :w)"),
                         {"g": gid, "v": version, "t": etype, "d": json.dumps(data),
                          "w": when})
    engine.dispose()
    return gid, keys[game.to_move], moves


def check_upgraded(url: str, gid: str, key: str, moves: list[str]) -> None:
    """Open the old database as ``nugar serve`` does: the game is there, playable, and the
    new tables exist."""
    app = create_app(ServerConfig(url, ai_time=0.05, rate=None))
    with TestClient(app) as c:
        state = c.get(f"/api/games/{gid}").json()
        assert state["moves"] == moves
        game = new_game(parse_rules("dara"))
        for m in moves:
            game.play(m)
        reply = str(game.legal_moves()[0])
        r = c.post(f"/api/games/{gid}/move", json={"key": key, "move": reply})
        assert r.status_code == 200, r.text
        assert c.get(f"/api/games/{gid}").json()["moves"] == [*moves, reply]
        assert c.get(f"/api/games/{gid}/players").json() == {
            "players": {"1": None, "2": None}, "bots": {"1": False, "2": False},
            "rated": False}
        r = c.post("/api/accounts", json={"username": "old_timer", "password": "12345678"})
        assert r.status_code == 201
    engine = create_engine(url)
    try:
        assert NEW_TABLES <= set(inspect(engine).get_table_names())
        with engine.connect() as conn:
            assert current(conn) == HEAD
    finally:
        engine.dispose()


def test_a_database_of_the_previous_release_is_upgraded_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.db'}"
    gid, key, moves = old_database(url, OLD_SQLITE)
    check_upgraded(url, gid, key, moves)
    # opened again: nothing more to do, nothing lost
    check_upgraded_again = Store(url)
    assert check_upgraded_again.load(gid) is not None
    check_upgraded_again.close()


def test_a_games_table_from_before_the_clocks_is_adopted(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'older.db'}"
    gid, key, moves = old_database(url, BEFORE_CLOCKS)
    check_upgraded(url, gid, key, moves)


def test_a_new_database_gets_the_schema_the_store_reads(tmp_path: Path) -> None:
    """The migration chain and the store's tables (:data:`nugar.server.storage.store.metadata`)
    agree: every table and column the store names exists after upgrading, and no other."""
    url = f"sqlite:///{tmp_path / 'new.db'}"
    Store(url).close()
    engine = create_engine(url)
    found = inspect(engine)
    tables = set(found.get_table_names()) - {"alembic_version"}
    assert tables == set(metadata.tables)
    for name, table in metadata.tables.items():
        assert {c["name"] for c in found.get_columns(name)} == set(table.columns.keys()), name
    engine.dispose()


def test_revision_1_is_the_previous_release_s_schema(tmp_path: Path) -> None:
    """Upgrading a new database to revision 1 makes the tables the old DDL makes."""
    def columns(url: str) -> dict[str, list[tuple[str, bool]]]:
        engine = create_engine(url)
        found = inspect(engine)
        out = {t: [(c["name"], bool(c["nullable"])) for c in found.get_columns(t)]
               for t in found.get_table_names() if t != "alembic_version"}
        engine.dispose()
        return out

    migrated = f"sqlite:///{tmp_path / 'r1.db'}"
    engine = create_engine(migrated)
    upgrade(engine, RELEASE_1)
    engine.dispose()
    old = f"sqlite:///{tmp_path / 'old.db'}"
    old_database(old, OLD_SQLITE)
    assert columns(migrated) == columns(old)


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    require_binaries()
    with postgres() as url:
        yield url


def test_a_database_of_the_previous_release_is_upgraded_on_postgresql(pg_url: str) -> None:
    gid, key, moves = old_database(pg_url, OLD_POSTGRES)
    check_upgraded(pg_url, gid, key, moves)
    # two more starts (as several processes would): nothing more to do, nothing lost
    for _ in range(2):
        Store(pg_url).close()
    engine = create_engine(pg_url)
    with engine.connect() as conn:
        assert current(conn) == HEAD
        assert conn.execute(text("SELECT count(*) FROM nugar_games")).scalar() == 1
    engine.dispose()


def test_a_new_postgresql_database_is_migrated_from_nothing(pg_url: str) -> None:
    admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE nugar_fresh"))
    admin.dispose()
    url = pg_url.rsplit("/", 1)[0] + "/nugar_fresh"
    Store(url).close()
    engine = create_engine(url)
    found = inspect(engine)
    assert set(found.get_table_names()) - {"alembic_version"} == set(metadata.tables)
    for name, table in metadata.tables.items():
        assert {c["name"] for c in found.get_columns(name)} == set(table.columns.keys()), name
    engine.dispose()
