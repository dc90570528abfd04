"""Where the shared test fixtures live: ``../shared/fixtures`` beside the repository root.

CI clones the repository with ``shared/`` next to it, as the working machines have it.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[2] / "shared" / "fixtures"


def fixture(*parts: str) -> Path:
    """Path of a fixture file; fails with a clear message when the fixtures are missing."""
    path = FIXTURES.joinpath(*parts)
    if not path.exists():
        raise FileNotFoundError(f"fixture {path} not found: the shared fixtures must be checked "
                                "out as ../shared beside the repository root")
    return path


def ludii_games(name: str) -> list[dict[str, Any]]:
    """The games of ``ludii/<name>.jsonl.gz``, one dict per game (see its README)."""
    with gzip.open(fixture("ludii", f"{name}.jsonl.gz"), "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
