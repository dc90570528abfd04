"""Revision 1: the schema of the release before the migrations, exactly (its games, their
journal and the lobby's challenges, the clock columns included).

The tables are written out here, not taken from :mod:`nugar.server.storage.store`: a revision is a
fixed point of history, and the store's tables go on changing in later revisions.
"""

from __future__ import annotations

from alembic import op
from sqlalchemy import (
    Column,
    Connection,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    inspect,
    text,
)

revision = "0001"
down_revision: str | None = None
branch_labels = None
depends_on = None

GAMES = "nugar_games"


def tables() -> MetaData:
    """The release's three tables."""
    md = MetaData()
    Table(
        GAMES, md,
        Column("id", String(32), primary_key=True),
        Column("rules", Text, nullable=False),
        Column("mode", String(16), nullable=False),
        Column("ai_level", Integer, nullable=True),
        Column("ai_seat", Integer, nullable=True),
        Column("key_hash_1", String(64), nullable=True),
        Column("key_hash_2", String(64), nullable=True),
        Column("moves", Text, nullable=False),
        Column("ending", Text, nullable=True),
        Column("offers", Text, nullable=False),
        Column("result", String(8), nullable=True),
        Column("reason", String(16), nullable=True),
        Column("version", Integer, nullable=False),
        Column("created", Integer, nullable=False),
        Column("updated", Integer, nullable=False),
        Column("clock", Text, nullable=True),
        Column("deadline", Float, nullable=True, index=True),
    )
    Table(
        "nugar_events", md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("game_id", String(32), nullable=False, index=True),
        Column("version", Integer, nullable=False),
        Column("type", String(16), nullable=False),
        Column("data", Text, nullable=False),
        Column("created", Integer, nullable=False),
        UniqueConstraint("game_id", "version", name="uq_event_version"),
    )
    Table(
        "nugar_challenges", md,
        Column("seq", Integer, primary_key=True, autoincrement=True),
        Column("id", String(16), nullable=False, unique=True),
        Column("rules", Text, nullable=False),
        Column("game", String(32), nullable=False),
        Column("clock", String(20), nullable=True),
        Column("colour", String(8), nullable=False),
        Column("public", Integer, nullable=False),
        Column("owner", String(64), nullable=False, index=True),
        Column("created", Float, nullable=False),
        Column("seen", Float, nullable=False),
        Column("taken_at", Float, nullable=False),
        Column("game_id", String(32), nullable=True),
        Column("owner_seat", Integer, nullable=True),
    )
    return md


def adopt(conn: Connection) -> None:
    """Bring a database made before the migrations to this revision's schema: the tables it
    lacks are created, and a games table from before the clocks gains their columns (what
    that release did at every start)."""
    tables().create_all(conn, checkfirst=True)
    have = {c["name"] for c in inspect(conn).get_columns(GAMES)}
    for name, sql_type in (("clock", "TEXT"), ("deadline", "FLOAT")):
        if name not in have:
            conn.execute(text(f"ALTER TABLE {GAMES} ADD COLUMN {name} {sql_type}"))


def upgrade() -> None:
    tables().create_all(op.get_bind())


def downgrade() -> None:
    tables().drop_all(op.get_bind())
