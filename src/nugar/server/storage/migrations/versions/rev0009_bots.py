"""Revision 9: bots. An account may be a bot (``bot`` 1), which plays through the API with
tokens (``nugar_bot_tokens``, each kept only as its SHA-256), and a challenge may be made to
one bot (``target``: its account), which only that bot may accept or decline
(:mod:`nugar.server.players.bots`)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision: str | None = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("nugar_accounts", sa.Column("bot", sa.Integer(), nullable=True))
    op.add_column("nugar_challenges", sa.Column("target", sa.Integer(), nullable=True))
    op.create_table(
        "nugar_bot_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("id", sa.String(16), nullable=False, unique=True),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(40), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
    )
    op.create_index("ix_nugar_bot_tokens_account_id", "nugar_bot_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("ix_nugar_bot_tokens_account_id", "nugar_bot_tokens")
    op.drop_table("nugar_bot_tokens")
    with op.batch_alter_table("nugar_challenges") as batch:
        batch.drop_column("target")
    with op.batch_alter_table("nugar_accounts") as batch:
        batch.drop_column("bot")
