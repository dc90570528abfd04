"""Alembic's entry point: runs the revisions on the connection :func:`nugar.server.migrations.
upgrade` hands over (``config.attributes["connection"]``), inside its transaction."""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
