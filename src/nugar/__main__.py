"""``python -m nugar``: the same program as the ``nugar`` command."""

from __future__ import annotations

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
