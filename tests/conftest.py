"""Fixtures shared by the test files.

Plain helpers live in importable modules beside this one: ``rule_sets.py`` (the one list of
rule sets), ``random_play.py`` (seeded random games) and ``fixtures_path.py`` (the files under
``tests/fixtures/``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the web app is imported by the fixture, only by the tests that use it
    from fastapi.testclient import TestClient


#: the groups a contributor may choose or leave out (``-m "not browser and not postgres"``),
#: given by what a test needs, so no test module has to say it: ``browser`` a test driving
#: Chromium (the ``browser`` fixture, or a ``test_browser*`` module), ``postgres`` one
#: starting a private PostgreSQL server (the ``pg_url`` fixture), ``slow`` one of the slowest
#: tests of the default run (marked in its module: README, "Tests")
GROUPS = ("browser", "postgres", "slow")


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


@pytest.fixture()
def db_url(tmp_path: Path) -> str:
    """A fresh SQLite file, or the database named by ``$NUGAR_TEST_DB_URL`` (e.g. PostgreSQL:
    the same tests then run against it)."""
    return os.environ.get("NUGAR_TEST_DB_URL") or f"sqlite:///{tmp_path / 'games.db'}"


@pytest.fixture()
def client(db_url: str) -> Iterator[TestClient]:
    """The web app on ``db_url``, through Starlette's test client: the computer thinks for
    0.05 s a move, and requests are neither rate-limited nor priced by their work (a replay
    that compiles the kernels first would spend the budget of the tests after it)."""
    from fastapi.testclient import TestClient

    from nugar.server import create_app
    from nugar.server.config import ServerConfig

    app = create_app(ServerConfig(db_url, ai_time=0.05, rate=None, work_rate=None))
    with TestClient(app) as c:
        yield c
