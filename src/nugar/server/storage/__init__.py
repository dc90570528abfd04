"""Storage: the durable state of the server.

The games, their event journal and the tables of the lobby, the analyses, the accounts, the
ratings and the lessons' progress, through SQLAlchemy (``store.py``), and the schema's Alembic
migration chain (``migrations/``).
"""
