"""The test groups of ``conftest.py`` (``browser``, ``postgres``, ``slow``) name real tests."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SLOW

TESTS = Path(__file__).resolve().parent


def test_every_slow_test_named_exists() -> None:
    missing = []
    for entry in sorted(SLOW):
        module, function = entry.split("::")
        tree = ast.parse((TESTS / module).read_text(encoding="utf-8"))
        names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        if function not in names:
            missing.append(entry)
    assert missing == []
