"""``nugar serve``'s options are made from the fields of ``ServerConfig`` and ``ServeOptions``
(issue 38, item 3): each setting written once, with its help, default and bounds; the
command's flags, their checks and the options table of docs/server.md follow from them."""

from __future__ import annotations

import argparse
import dataclasses
import re
import subprocess
import sys
from pathlib import Path

import pytest

from nugar.server.config import (
    DEFAULTS,
    ServeOptions,
    ServerConfig,
    flag_of,
    from_arguments,
    serve_default,
    settings,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "server.md"


def _parser() -> argparse.ArgumentParser:
    from nugar.cli.serve import register

    parser = argparse.ArgumentParser()
    return register(parser.add_subparsers())


def _flags() -> dict[str, tuple[type, str, object]]:
    """flag -> (class, field name, nugar serve's default) of every offered setting."""
    found = {}
    for cls in (ServeOptions, ServerConfig):
        for f, s in settings(cls):
            flag = flag_of(f, s)
            if flag and s.shown and f.name not in {name for _c, name, _d in found.values()}:
                found[flag] = (cls, f.name, serve_default(f, s))
    return found


def test_every_field_has_a_setting_and_the_defaults_are_the_library_s() -> None:
    for cls in (ServeOptions, ServerConfig):
        for f in dataclasses.fields(cls):
            assert "setting" in f.metadata, f"{cls.__name__}.{f.name} has no Setting"
    assert DEFAULTS == ServerConfig()
    # the modules whose bounds these are read them from the one place
    from nugar.server.clients import CLIENT_SOCKETS, WORK_RATE
    from nugar.server.play.lobby_caps import CHALLENGES_PER_CLIENT
    from nugar.server.play.rooms import EXPIRE_DAYS
    from nugar.server.work.ai_pool import AI_PER_CLIENT

    assert (CLIENT_SOCKETS, WORK_RATE, CHALLENGES_PER_CLIENT, EXPIRE_DAYS, AI_PER_CLIENT) == (
        DEFAULTS.client_sockets, DEFAULTS.work_rate, DEFAULTS.challenges_per_client,
        DEFAULTS.expire_days, DEFAULTS.ai_per_client)


def test_the_command_s_flags_are_made_from_the_fields() -> None:
    parser = _parser()
    offered = {a for action in parser._actions for a in action.option_strings}
    assert set(_flags()) <= offered
    args = parser.parse_args([])
    config = from_arguments(ServerConfig, args)
    opts = from_arguments(ServeOptions, args)
    # what only nugar serve turns on, and the rest as the library's defaults
    assert (config.warm_up, config.tune_gc, config.work_processes) == (True, True, 1)
    assert dataclasses.replace(config, warm_up=False, tune_gc=False, work_processes=0) == \
        ServerConfig()
    assert opts == ServeOptions()
    # 0 on the command line is None ("no bound", "never") in the object
    args = parser.parse_args(["--rate", "0", "--client-sockets", "0", "--expire-days", "0",
                              "--client-connections", "0", "--no-fast-lane"])
    config = from_arguments(ServerConfig, args)
    assert (config.rate, config.client_sockets, config.expire_days, config.fast_lane) == (
        None, None, None, False)
    assert from_arguments(ServeOptions, args).client_connections is None


@pytest.mark.parametrize("argv, said", [
    (["--port", "0"], "--port must be 1..65535, not 0"),
    (["--ai-time", "-1"], "--ai-time must be positive, not -1"),
    (["--expire-days", "-1"], "--expire-days must be 0..36500 (0: never), not -1"),
    (["--ai-workers", "65"], "--ai-workers must be 1..64, not 65"),
    (["--rate", "-2"], "--rate must be 0 or more (0: no limit), not -2"),
    (["--client-sockets", "100001"], "--client-sockets must be 0..100000 (0: no bound)"),
    (["--limit-concurrency", "0"], "--limit-concurrency must be 1 or more, not 0"),
])
def test_a_value_out_of_bounds_is_refused_saying_what_is_allowed(argv: list[str],
                                                                 said: str) -> None:
    args = _parser().parse_args(argv)
    with pytest.raises(ValueError, match=re.escape(said)):
        from_arguments(ServeOptions, args)
        from_arguments(ServerConfig, args)


def test_the_docs_table_lists_every_flag_with_its_default() -> None:
    """docs/server.md's options table: one row per flag the fields make, its default as the
    command uses it (the table's text may say more than the help)."""
    rows = {}
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `(--[a-z-]+)(?: [A-Z]+)?` \| (.*?) \|", line)
        if m:
            rows.setdefault(m.group(1), m.group(2))
    flags = _flags()
    assert set(flags) == set(rows), "docs/server.md's options table and the fields differ"
    for flag, (_cls, _name, default) in flags.items():
        shown = rows[flag]
        if isinstance(default, bool):
            assert shown == ("on" if default else "off"), flag
        elif isinstance(default, int | float):
            assert float(shown.strip("`")) == default, flag
        elif default is not None:
            assert shown.strip("`") == default, flag


def test_serve_help_needs_no_web_extras_and_names_each_setting() -> None:
    """``nugar serve --help`` imports no database or web library (the settings module
    imports nothing of the server)."""
    code = ("import sys; from nugar.cli.main import main\n"
            "try:\n    main(['serve', '--help'])\nexcept SystemExit:\n    pass\n"
            "print('LOADED', [m for m in ('sqlalchemy', 'fastapi', 'uvicorn', 'numba') "
            "if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    assert "LOADED []" in done.stdout
    for flag in _flags():
        assert flag in done.stdout
