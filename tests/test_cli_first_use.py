"""What a new player tripped over on the command line: ``nugar serve`` on a port in use or a
database that cannot be opened (one line each), long solves that said nothing (progress, the
time left, the databases that would help) and Dracala's solve that did not say the smaller
store wins."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import nugar.cli.solve as solve_cli
from cli_running import run_cli


def serve_error(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "nugar", "serve", *args],
                          capture_output=True, text=True, timeout=120)


def test_serve_on_a_port_in_use_says_so_in_one_line() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        proc = serve_error("--port", str(port), "--db", "sqlite:///:memory:")
    assert proc.returncode == 2
    assert proc.stderr == (f"nugar serve: port {port} on 127.0.0.1 is in use (another nugar "
                           "serve?): stop it or choose another with --port\n")


def test_a_database_that_cannot_be_opened_is_one_line_without_a_link(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/no/such/folder/games.db"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = serve_error("--port", str(port), "--db", url)
    assert proc.returncode == 1
    lines = [line for line in proc.stderr.splitlines() if "cannot open the database" in line]
    assert len(lines) == 1 and lines[0].startswith("nugar serve: cannot open the database")
    assert "unable to open database file" in lines[0]
    assert "sqlalche.me" not in proc.stderr and "Background on this error" not in proc.stderr


def test_a_long_steps_solve_shows_progress_time_left_and_the_databases(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(solve_cli, "PROGRESS_AFTER", 0.0)  # every solve counts as long here
    monkeypatch.setattr(solve_cli, "PROGRESS_EVERY", 3600.0)  # a line per step solved
    code, out, err = run_cli(["solve", "kalah(pits=3,seeds=3)", "--steps", "--no-book",
                              "--no-disk-db"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and "hole 1" in out
    lines = err.splitlines()
    for done in (1, 2, 3):
        assert any(f"{done} of 3 steps solved" in line for line in lines), err
    assert any(re.search(r"1 of 3 steps solved, .* so far; about \d+ s left", line)
               for line in lines), err
    assert sum("--build-db" in line for line in lines) == 1  # the databases, said once
    # --quiet: nothing on stderr
    code, _, err = run_cli(["solve", "kalah(pits=3,seeds=3)", "--steps", "--no-book",
                            "--no-disk-db", "--quiet"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and err == ""


def test_dracala_solve_says_the_smaller_store_wins(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    for extra in ([], ["--steps", "--no-book"]):
        code, out, _ = run_cli(["solve", "dracala(pits=3,seeds=2)", *extra, "--quiet"],
                               monkeypatch=monkeypatch, capsys=capsys)
        assert code == 0 and "the smaller store wins" in out, out
    code, out, _ = run_cli(["solve", "kalah(pits=3,seeds=2)", "--quiet"],
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and "smaller store" not in out


@pytest.mark.parametrize("workers", [1, 2])
def test_step_values_reports_each_step_solved(workers: int) -> None:
    from nugar.rules import new_game
    from nugar.solver.core import Solver

    solver = Solver("kalah(pits=3,seeds=2)", disk_db=False)
    state = new_game("kalah(pits=3,seeds=2)").state.copy()
    calls: list[tuple[int, int]] = []
    values = solver.step_values(state, workers=workers,
                                step_done=lambda done, total: calls.append((done, total)))
    assert calls == [(i, len(values)) for i in range(1, len(values) + 1)]
    alone = Solver("kalah(pits=3,seeds=2)", disk_db=False).step_values(state)
    assert [v[:2] for v in values] == [v[:2] for v in alone]  # nodes differ by table
