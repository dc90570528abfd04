"""Fixtures shared by the test files.

Plain helpers live in importable modules beside this one, never in a test module (a test module
imports no other): ``rule_sets.py`` (the one list of rule sets), ``random_play.py`` (seeded
random games), ``fixtures_path.py`` (the files under ``tests/fixtures/``), ``browsing.py``
(the browser tests' pages and waits), ``serving.py`` (a server in a subprocess),
``web_accounts.py`` (the accounts' tests' web app and clients).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the web app is imported by the fixture, only by the tests that use it
    from fastapi import FastAPI
    from fastapi.testclient import TestClient
    from playwright.sync_api import Browser


#: the groups a contributor may choose or leave out (``-m "not browser and not postgres"``),
#: given by what a test needs, so no test module has to say it: ``browser`` a test driving
#: Chromium (the ``browser`` fixture, or a ``test_browser*`` module), ``postgres`` one
#: starting a private PostgreSQL server (the ``pg_url`` fixture), ``slow`` one of :data:`SLOW`
GROUPS = ("browser", "postgres", "slow")

#: the slowest tests of the default run that are neither browser nor PostgreSQL tests (8 s
#: and more each, measured with ``--durations`` on the 2-core machine, 2026-12-08), by
#: module and function (every parameter of it)
SLOW = frozenset({
    "test_jax_faces.py::test_bench_jax_writes_one_table",
    "test_ai.py::test_agents_only_return_legal_moves",
    "test_alignment_properties.py::test_compiled_playouts_end",
    "test_alignment_properties.py::test_compiled_kernels_agree_with_plain_python",
    "test_scale.py::test_tablebases_built_on_ray_equal_the_local_build",
    "test_history.py::test_jax_history_matches_the_encoder",
})


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives Debian's Chromium through playwright")
    config.addinivalue_line("markers", "postgres: starts a private PostgreSQL server")
    config.addinivalue_line("markers", "slow: among the slowest tests of the default run")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "browser" in names or item.path.name.startswith("test_browser"):
            item.add_marker(pytest.mark.browser)
        if "pg_url" in names:
            item.add_marker(pytest.mark.postgres)
        if f"{item.path.name}::{getattr(item, 'originalname', item.name)}" in SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True, scope="session")
def _english_terminal() -> Iterator[None]:
    """``nugar play`` and ``nugar rules`` speak the terminal's language: the tests read
    English whatever the locale of the machine running them (a test of another language
    sets it itself)."""
    patch = pytest.MonkeyPatch()
    patch.setenv("LANGUAGE", "en")
    yield
    patch.undo()


@pytest.fixture(autouse=True, scope="session")
def _own_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The solver uses the Kalah endgame databases it finds in the user's data directory:
    the tests see only those they build themselves."""
    patch = pytest.MonkeyPatch()
    patch.setenv("NUGAR_DATA_DIR", str(tmp_path_factory.mktemp("nugar-data")))
    # nor do the games they play build any in the background (a test of it turns it on)
    patch.setenv("NUGAR_AUTO_DB", "0")
    yield
    patch.undo()


# --- the browser tests' server, browser and screenshot folder (helpers: browsing.py) -------------
@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``nugar serve`` in a subprocess on a free loopback port with its own SQLite file, one
    per test module; every test of a module is one client address to it, with many pages open
    at once: none of the per-address bounds applies (rate, work budget, connections,
    sockets)."""
    from serving import serving

    db = tmp_path_factory.mktemp("server") / "games.db"
    with serving(db, "--ai-time", "0.05", "--rate", "0", "--work-rate", "0",
                 "--client-connections", "0", "--client-sockets", "0",
                 ready="/api/presets", timeout=30) as (_proc, base):
        yield base


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's headless Chromium (``playwright install`` is never used)."""
    from playwright.sync_api import sync_playwright

    from browsing import ARGS, CHROMIUM

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def shots(tmp_path: Path) -> Path:
    """Where screenshots go: ``$NUGAR_SCREENSHOTS`` when set (``docs/screenshots`` is made
    that way), else a temporary folder."""
    folder = Path(os.environ.get("NUGAR_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    """A fresh SQLite file, or the database named by ``$NUGAR_TEST_DB_URL`` (e.g. PostgreSQL:
    the same tests then run against it)."""
    return os.environ.get("NUGAR_TEST_DB_URL") or f"sqlite:///{tmp_path / 'games.db'}"


@pytest.fixture()
def app(db_url: str) -> FastAPI:
    """The web app on ``db_url``: the computer thinks for 0.05 s a move, requests are neither
    rate-limited nor priced by their work (a replay that compiles the kernels first would
    spend the budget of the tests after it), and Argon2id is made cheap
    (``web_accounts.FAST``) for the tests that are not about its parameters."""
    from nugar.server import create_app
    from nugar.server.config import ServerConfig
    from web_accounts import FAST

    made = create_app(ServerConfig(db_url, ai_time=0.05, rate=None, work_rate=None))
    made.state.services.accounts.hasher = FAST
    return made


@pytest.fixture()
def client(app: FastAPI) -> Iterator[TestClient]:
    """The web app (the ``app`` fixture) through Starlette's test client."""
    from fastapi.testclient import TestClient

    with TestClient(app) as c:
        yield c
