"""The revisions of the schema, oldest first: ``rev0001_release`` (the tables of the release
before the migrations), ``rev0002_accounts`` (accounts and their sessions),
``rev0003_ratings`` (ratings, and the change each rated game made)."""
