"""The database's schema changes, as an Alembic migration chain shipped inside the package.

:func:`upgrade` brings a database to the newest schema (:data:`HEAD`); the
:class:`~nugar.server.storage.store.Store` calls it when it creates tables (``nugar serve``, once
before its workers start with ``--workers``; ``create_app`` in a test). Alembic is
configured here in code, so no ``alembic.ini`` is needed at run time; ``env.py`` runs the
revisions in ``versions/`` on the connection handed to it.

A database written by a release from before the migrations (its tables made by
``create_all``, without an ``alembic_version`` table) is *adopted*: whatever of revision 1
it lacks is added (the clock columns of an even older games table), it is stamped as
revision 1, and upgraded from there like any other. Every game it holds is kept.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, Engine, inspect, text

#: the newest revision (the schema this code reads and writes)
HEAD = "0009"
#: the revision of the schema the release before the migrations made
RELEASE_1 = "0001"
#: the table in which Alembic keeps a database's revision
VERSION_TABLE = "alembic_version"
#: the PostgreSQL advisory lock held while migrating, so two processes starting at once
#: do not both apply a revision (any fixed number; this one spells "nugar")
PG_LOCK = 0x6E75676172


def _config(conn: Connection) -> object:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent))
    cfg.attributes["connection"] = conn
    return cfg


def current(conn: Connection) -> str | None:
    """The database's revision (``None``: not under migrations yet)."""
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, to: str = HEAD) -> None:
    """Bring the database to revision ``to`` (default: :data:`HEAD`), adopting a database
    of the release before the migrations first; one transaction."""
    from alembic import command
    from alembic.config import Config

    from .versions import rev0001_release

    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": PG_LOCK})
        cfg = _config(conn)
        assert isinstance(cfg, Config)
        tables = set(inspect(conn).get_table_names())
        if VERSION_TABLE not in tables and rev0001_release.GAMES in tables:
            rev0001_release.adopt(conn)
            command.stamp(cfg, RELEASE_1)
        command.upgrade(cfg, to)
