"""Alembic's entry point: runs the revisions on the connection
:func:`nugar.server.storage.migrations.upgrade` hands over
(``config.attributes["connection"]``), inside its transaction."""

from __future__ import annotations

from alembic import context


def run_migrations() -> None:
    connection = context.config.attributes["connection"]
    context.configure(connection=connection, target_metadata=None)
    with context.begin_transaction():
        context.run_migrations()


# Alembic loads this file as a module of its own name; imported as part of the package (by
# a doctest collector, say) it runs nothing
if __name__ != "nugar.server.storage.migrations.env":
    run_migrations()
