"""A private PostgreSQL server for the tests that need one: Debian's packages (``apt-get
install postgresql``, which .ci/run does), started in a temporary folder on a free loopback
port and stopped at the end. PostgreSQL refuses to run as root, so as root (CI, containers)
it runs as the ``postgres`` user the package creates, in a folder that user owns."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from serving import free_port


def binaries() -> Path | None:
    """The folder of Debian's PostgreSQL programs (the newest version), if installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return Path(found[-1]).parent if found else None


def _as_owner(argv: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *argv]
    return argv


def require_binaries() -> Path:
    """The programs, or a skip where PostgreSQL is not installed (never in CI, which installs
    it: there its absence fails)."""
    found = binaries()
    if found is None:
        if os.environ.get("CI"):
            raise AssertionError("PostgreSQL is not installed: .ci/run installs Debian's "
                                 "postgresql package")
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    return found


@contextmanager
def postgres() -> Iterator[str]:
    """Start a PostgreSQL server; yield its SQLAlchemy URL (psycopg, user ``postgres``,
    database ``postgres``, no password: it trusts local connections)."""
    bin_dir = require_binaries()
    root = Path(tempfile.mkdtemp(prefix="nugar-pg-"))
    data = root / "data"
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    os.chmod(root, 0o700)
    port = free_port()
    log = root / "log"
    try:
        subprocess.run(_as_owner([str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres",
                                  "-A", "trust", "--no-sync", "-E", "UTF8"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        # fsync off: the tests kill server processes, not the machine
        subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(log),
                                  "-w", "-t", "60", "-o",
                                  f"-p {port} -k {root} -c listen_addresses=127.0.0.1 "
                                  "-c fsync=off -c max_connections=200", "start"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(_as_owner([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate",
                                      "-w", "stop"]),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(root, ignore_errors=True)
