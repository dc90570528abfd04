"""Revision 6: the language an account chose (``en``, ``fr``, ``ar``; NULL: none chosen, the
browser's ``Accept-Language`` decides), so the pages follow the player from browser to
browser (:mod:`nugar.server.http.language`)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision: str | None = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nugar_accounts", sa.Column("language", sa.String(8), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nugar_accounts") as batch:
        batch.drop_column("language")
