"""Revision 7: the sign-in limits' buckets (:class:`nugar.server.accounts.AttemptLimiter`),
kept in the database so that every worker process of one server (``--workers``), and every
server on one database, counts the same attempts; a row is the SHA-256 of its key (an
address, or an address and a user name), never the address or the name itself."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision: str | None = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_sign_in_attempts",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("tokens", sa.Float, nullable=False),
        sa.Column("last", sa.Float, nullable=False, index=True),
    )


def downgrade() -> None:
    op.drop_table("nugar_sign_in_attempts")
