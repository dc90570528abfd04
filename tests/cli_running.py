"""``nugar`` run in the test's process: its exit status and what it printed."""

from __future__ import annotations

import io
import sys

import pytest

from nugar.cli import main


def run_cli(args: list[str], stdin: str = "", *,
            monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err
