"""Revision 4: the computer's analyses of finished games, one row per game (its progress
while it is computed, then the analysed turns as JSON), so everyone who opens the game
afterwards sees the same analysis and processes sharing a database compute it once."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision: str | None = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_analyses",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("done", sa.Integer, nullable=False),
        sa.Column("progress", sa.Float, nullable=False),
        sa.Column("nodes", sa.Integer, nullable=False),
        sa.Column("plies", sa.Text, nullable=False),
        sa.Column("created", sa.Integer, nullable=False),
        sa.Column("updated", sa.Integer, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("nugar_analyses")
