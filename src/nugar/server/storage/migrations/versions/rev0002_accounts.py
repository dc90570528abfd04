"""Revision 2: accounts and their sessions; a game's seats and a lobby challenge may name
the account that holds them (nullable: anonymous play stays as it was)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision: str | None = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "nugar_accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        # the name as its owner wrote it, and in lower case (unique: names differ by more
        # than case); both NULL once the account is deleted, which frees the name
        sa.Column("username", sa.String(20), nullable=True),
        sa.Column("name_key", sa.String(20), nullable=True, unique=True),
        sa.Column("password_hash", sa.Text, nullable=True),  # Argon2id, PHC string
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("deleted", sa.Float, nullable=True),
    )
    op.create_table(
        "nugar_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),  # sha256 of the cookie
        sa.Column("account_id", sa.Integer, nullable=False, index=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=False),
    )
    op.add_column("nugar_games", sa.Column("account_1", sa.Integer, nullable=True))
    op.add_column("nugar_games", sa.Column("account_2", sa.Integer, nullable=True))
    op.add_column("nugar_challenges", sa.Column("account", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("nugar_challenges") as batch:
        batch.drop_column("account")
    with op.batch_alter_table("nugar_games") as batch:
        batch.drop_column("account_2")
        batch.drop_column("account_1")
    op.drop_table("nugar_sessions")
    op.drop_table("nugar_accounts")
