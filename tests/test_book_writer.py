"""``python -m nugar.ai.book_writer``: writes the opening book where it is told, never into the
installed package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from nugar.ai.book import FORMAT, opening_positions, position_text
from nugar.ai.book_writer import main

SMALL = "dracala(pits=3,seeds=2)"  # solved in a blink: a whole book in well under a second


def package_files() -> dict[str, tuple[int, int]]:
    """Every file of the installed ``nugar.ai`` package (which holds the shipped book) with
    its size and mtime."""
    root = Path(str(resources.files("nugar.ai")))
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"}


def test_book_is_written_to_the_given_path_only(tmp_path: Path) -> None:
    before = package_files()
    out = tmp_path / "book.json"
    assert main(["--output", str(out), "--rules", SMALL, "--depth", "2", "--memory", "8"]) == 0
    assert package_files() == before  # nothing written into the package
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["depth"] == {SMALL: 2}
    games = opening_positions(SMALL, 2)
    assert [e["position"] for e in data["entries"]] == \
        [position_text(g.params, g.state) for g in games]
    assert {e["rules"] for e in data["entries"]} == {SMALL}
    start = data["entries"][0]
    assert start["result"] in ("win", "draw", "loss") and start["best"]
    assert sum(start["final"]) <= 12


@pytest.mark.parametrize(("args", "message"), [
    ([], "the following arguments are required: --output"),
    (["--output", "{tmp}/b.json", "--rules", "dara"], "'dara' is not a sowing game"),
    (["--output", "{tmp}/b.json", "--rules", "nosuch"], "--rules 'nosuch': unknown preset"),
    (["--output", "{tmp}/missing/b.json"], "must be a file in an existing directory"),
    (["--output", "{tmp}"], "must be a file in an existing directory"),
    (["--output", "{tmp}/b.json", "--depth", "-1"], "--depth must be 0..8, got -1"),
])
def test_bad_arguments_get_one_clear_line(args: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([a.format(tmp=tmp_path) for a in args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "b.json").exists()


def test_module_entry_point_writes_relative_to_the_current_directory(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONWARNINGS": "ignore::RuntimeWarning"}
    run = subprocess.run([sys.executable, "-m", "nugar.ai.book_writer", "-o", "mine.json",
                          "--rules", SMALL, "--depth", "0", "--memory", "8"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "wrote mine.json" in run.stderr
    assert json.loads((tmp_path / "mine.json").read_text(encoding="utf-8"))["depth"] == {SMALL: 0}
