"""Revision 8: puzzles. A signed-in player's puzzle rating and streak per rule set, each
puzzle's rating once someone has been rated against it, and each account's first (rated)
attempt at each puzzle."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision: str | None = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_puzzle_players",
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("rules", sa.String(40), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("streak", sa.Integer, nullable=False),
        sa.Column("streak_best", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "nugar_puzzle_ratings",
        sa.Column("puzzle_id", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("solved", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "nugar_puzzle_attempts",
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("puzzle_id", sa.String(16), primary_key=True),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("won", sa.Integer, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=True),
        sa.Column("rating_after", sa.Float, nullable=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_nugar_puzzle_attempts_account_at", "nugar_puzzle_attempts",
                    ["account_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_nugar_puzzle_attempts_account_at", "nugar_puzzle_attempts")
    op.drop_table("nugar_puzzle_attempts")
    op.drop_table("nugar_puzzle_ratings")
    op.drop_table("nugar_puzzle_players")
