"""Revision 5: a signed-in player's progress in the lessons, one row per account and lesson
(the steps done and the step last shown), so it follows the player from browser to browser."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision: str | None = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_lesson_progress",
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("lesson", sa.String(40), primary_key=True),
        sa.Column("done", sa.Text, nullable=False),
        sa.Column("at", sa.Integer, nullable=True),
        sa.Column("updated", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nugar_lesson_progress")
