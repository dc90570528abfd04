"""Where the test fixtures live: ``tests/fixtures/`` inside the repository (see its README)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def fixture(*parts: str) -> Path:
    """Path of a fixture file; fails with a clear message when the fixtures are missing."""
    path = FIXTURES.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"fixture {path} not found: tests/fixtures/ is part of the "
                                "repository; restore it from version control")
    return path


def ludii_games(name: str) -> list[dict[str, Any]]:
    """The games of ``ludii/<name>.jsonl.gz``, one dict per game (see its README)."""
    with gzip.open(fixture("ludii", f"{name}.jsonl.gz"), "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
