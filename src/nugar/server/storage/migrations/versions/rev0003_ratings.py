"""Revision 3: ratings. One Glicko-2 rating per account and preset, the change each rated
game made to each of its players (written in the transaction of the game's last move), and
whether a game and a lobby challenge are rated."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision: str | None = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_ratings",
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("preset", sa.String(32), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("ix_nugar_ratings_preset_rating", "nugar_ratings", ["preset", "rating"])
    op.create_table(
        "nugar_rating_changes",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, nullable=False, index=True),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("score", sa.Float, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("deviation_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("deviation_after", sa.Float, nullable=False),
        sa.Column("volatility_after", sa.Float, nullable=False),
        sa.Column("ended", sa.Float, nullable=False),
    )
    op.add_column("nugar_games", sa.Column("rated", sa.Integer, nullable=True))
    op.add_column("nugar_challenges", sa.Column("rated", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nugar_challenges") as batch:
        batch.drop_column("rated")
    with op.batch_alter_table("nugar_games") as batch:
        batch.drop_column("rated")
    op.drop_table("nugar_rating_changes")
    op.drop_index("ix_nugar_ratings_preset_rating", "nugar_ratings")
    op.drop_table("nugar_ratings")
