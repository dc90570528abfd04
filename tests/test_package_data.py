"""Every file the package reads at run time ships in the wheel: each tracked file under
``src/nugar`` that is not Python matches a ``package-data`` pattern of pyproject.toml (a new
kind of file, such as the pages' shared parts, is added there too)."""

from __future__ import annotations

import fnmatch
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _unshipped(files: list[str], patterns: list[str]) -> list[str]:
    """The files (relative to ``src/nugar``) no pattern takes; a pattern's ``*`` stays inside
    one folder, as setuptools reads it."""
    return [f for f in files if not f.endswith(".py") and not any(
        fnmatch.fnmatch(f, p) and f.count("/") == p.count("/") for p in patterns)]


def test_every_data_file_of_the_package_is_package_data() -> None:
    listed = subprocess.run(["git", "ls-files", "src/nugar"], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout: the tracked files cannot be listed")
    files = [Path(f).relative_to("src/nugar").as_posix() for f in listed.stdout.split()]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["nugar"]
    assert _unshipped(files, patterns) == []


def test_the_check_sees_a_file_no_pattern_takes() -> None:
    assert _unshipped(["server/static/a.js", "server/static/parts/head.html", "x.py"],
                      ["server/static/*"]) == ["server/static/parts/head.html"]
