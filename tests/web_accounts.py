"""What the accounts' tests share: the server's own origin and a foreign one, Argon2id made
cheap, a settable clock, and signing up. The web app they use is the ``app`` fixture
(``conftest.py``)."""

from __future__ import annotations

from typing import Any

from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from nugar.server.players.accounts import Accounts

#: the server's own origin (the default public URL's)
SAME = {"Origin": "http://127.0.0.1:8000"}
EVIL = {"Origin": "https://evil.example"}
#: Argon2id made cheap for the tests that are not about its parameters
FAST = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


class Clock:
    """A settable clock (seconds since the epoch)."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def accounts(c: TestClient) -> Accounts:
    found: Accounts = c.app.state.accounts  # type: ignore[attr-defined]
    return found


def sign_up(c: TestClient, name: str = "alice", password: str = "correct horse") -> Any:
    r = c.post("/api/accounts", json={"username": name, "password": password}, headers=SAME)
    assert r.status_code == 201, r.text
    return r


def other_client(c: TestClient) -> TestClient:
    """A second browser on the same server (its own cookies)."""
    return TestClient(c.app)
