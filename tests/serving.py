"""A real ``nugar serve`` in a subprocess on a free loopback port, for the tests that need
one (HTTP timeouts, forwarded headers, memory, the browser)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


@contextmanager
def serving(db: Path, *extra: str, ready: str = "/favicon.ico", timeout: float = 60
            ) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start ``nugar serve`` on a SQLite file ``db`` with the options ``extra``; yield the
    process and its base address once ``ready`` answers (a ``ready`` path answering JSON with
    ``"ready": false`` is asked again), and stop it at the end."""
    port = free_port()
    log = db.with_suffix(".log")  # a file, not a pipe: nobody reads it while the server runs
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nugar", "serve", "--port", str(port), "--db",
             f"sqlite:///{db}", *extra], stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    try:
        end = time.monotonic() + timeout
        while True:
            try:
                r = httpx.get(base + ready, timeout=1)
                json_body = r.headers.get("content-type", "").startswith("application/json")
                answer = r.json() if json_body else None
                if r.status_code < 500 and not (isinstance(answer, dict)
                                                and answer.get("ready") is False):
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > end:
                proc.kill()
                said = log.read_text(errors="replace")[-2000:]
                raise AssertionError(f"nugar serve did not start: {said}")
            time.sleep(0.1)
        yield proc, base
    finally:
        proc.terminate()
        proc.wait(10)


def worker_pids(parent: int) -> list[int]:
    """The worker processes uvicorn's supervisor started (not its resource tracker)."""
    found = []
    for pid in Path(f"/proc/{parent}/task/{parent}/children").read_text().split():
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        if b"spawn_main" in cmd:
            found.append(int(pid))
    return found


def serve_workers(url: str, log: Path, workers: int = 2) -> tuple[subprocess.Popen[bytes], str]:
    """``nugar serve --workers N`` on the database ``url`` (PostgreSQL), stderr to ``log``: the
    process and its base address once every worker has started."""
    port = free_port()
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "nugar", "serve", "--port", str(port), "--db", url,
             "--workers", str(workers), "--rate", "0"],
            stdout=subprocess.DEVNULL, stderr=err)
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 120
    while True:
        try:
            if httpx.get(base + "/api/levels", timeout=1).status_code == 200 \
                    and len(worker_pids(proc.pid)) == workers:
                return proc, base
        except (httpx.HTTPError, OSError):
            pass
        if proc.poll() is not None or time.monotonic() > end:
            proc.kill()
            raise AssertionError(f"nugar serve --workers did not start: "
                                 f"{log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.2)
