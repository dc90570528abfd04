"""The revisions of the schema, oldest first: ``rev0001_release`` (the tables of the release
before the migrations), ``rev0002_accounts`` (accounts and their sessions)."""
