"""The hostile-input suite: generated requests against the web API, and a memory bound.

``test_api_answers_hostile_input_within_its_schema`` lets schemathesis generate requests
from the server's own OpenAPI schema (valid and invalid bodies, odd path and query values)
for every HTTP operation, sends them to the app in-process, and checks that no answer is a
5xx and that each answer's status and body conform to the schema. Half the cases aimed at a
game are pointed at a real game (and, half of those, with its real seat key), so the moves,
offers and undos are tried on live games and not only refused as unknown.

``test_server_memory_stays_bounded_under_hostile_burst`` sends a burst of the costliest
requests (long rule texts, long replay records, many new games) to a real ``nugar serve``
process and checks its resident memory (``VmRSS``) stays under a stated bound.
docs/server.md ("Hostile input") gives the figures.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.config import SchemathesisConfig
from schemathesis.generation.case import Case

from nugar.server import create_app
from nugar.server.config import ServerConfig
from serving import serving

#: generated cases per API operation (14 operations: about 350 requests, a few seconds)
EXAMPLES = 25
#: the most the server's resident memory may grow during the burst, in bytes
RSS_GROWTH_BOUND = 150 * 2**20


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, list[Any]]]:
    """The app on a fresh SQLite file, with one game of each mode to aim cases at."""
    db = tmp_path_factory.mktemp("hostile") / "games.db"
    app = create_app(ServerConfig(f"sqlite:///{db}", ai_time=0.05, rate=None))
    with TestClient(app, raise_server_exceptions=False) as client:
        games = []
        for body in ({"rules": "dara", "mode": "ai", "level": 1, "seat": 1},
                     {"rules": "dala", "mode": "friend"},
                     {"rules": "kalah", "mode": "hotseat"}):
            made = client.post("/api/games", json=body)
            assert made.status_code == 201, made.text
            games.append(made.json())
        yield client, games


def _openapi() -> dict[str, Any]:
    """The server's schema, from an app on a throwaway in-memory database."""
    spec: dict[str, Any] = create_app(ServerConfig("sqlite://", rate=None)).openapi()
    return spec


#: the answers that count as refusing a request the schema forbids: schemathesis's list with
#: 413 (a body over the server's limit) added and 5xx taken out
REFUSALS = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]
schema = schemathesis.openapi.from_dict(_openapi(), config=SchemathesisConfig.from_dict(
    {"checks": {"negative_data_rejection": {"expected-statuses": REFUSALS}}}))


def _pick(text: str, n: int) -> int:
    """A stable choice in ``range(n)`` from a generated value (so a run repeats itself)."""
    return hashlib.sha256(text.encode()).digest()[0] % n


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
def test_api_answers_hostile_input_within_its_schema(
        case: Case, live: tuple[TestClient, list[Any]]) -> None:
    client, games = live
    path_params = case.path_parameters or {}
    if "game_id" in path_params:
        choice = _pick(str(path_params["game_id"]), 2 * len(games))
        if choice < len(games):  # half the time: a real game
            game = games[choice]
            path_params["game_id"] = game["id"]
            body = case.body
            if isinstance(body, dict) and "key" in body and _pick(repr(body), 2):
                body["key"] = next(iter(game["keys"].values()))
    kwargs = case.as_transport_kwargs(base_url="http://testserver")
    cookies = kwargs.pop("cookies", None) or {}
    if cookies:  # sent as a header: the test client keeps no per-request cookies
        kwargs["headers"] = {**(kwargs.get("headers") or {}),
                             "cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    if isinstance(kwargs.get("data"), bytes | str):  # a raw body (not a form)
        kwargs["content"] = kwargs.pop("data")
    response = client.request(**kwargs)
    assert response.status_code < 500, (response.status_code, kwargs, response.text)
    # positive_data_acceptance is left out: a request the schema allows may still be refused
    # on its meaning (an unknown rule set, seat 0, a ply past the game's end, an empty record)
    case.validate_response(response, excluded_checks=[positive_data_acceptance])


def test_refusals_are_documented_and_405_names_allowed_methods(client: TestClient) -> None:
    # found by the suite above: the schema described FastAPI's own 422 body, not the
    # {error, detail} the server writes, and a 405 lost its Allow header
    spec = client.get("/openapi.json").json()
    refused = spec["paths"]["/api/games"]["post"]["responses"]["4XX"]
    assert refused["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorBody")
    assert "422" not in spec["paths"]["/api/games"]["post"]["responses"]
    record = spec["paths"]["/api/games/{game_id}/record"]["get"]["responses"]["4XX"]
    assert list(record["content"]) == ["application/json"]
    r = client.request("TRACE", "/api/presets")
    assert r.status_code == 405 and r.headers["allow"] == "GET"
    assert r.json()["error"] == "method_not_allowed"


# --- memory under a burst --------------------------------------------------------------------
def _rss(pid: int) -> int:
    """The resident memory of process ``pid`` in bytes (Linux)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def _hostile_requests(n: int) -> Iterator[tuple[str, str, Any]]:
    """``n`` of the costliest requests, cycling through the kinds."""
    record = "[Rules \"dara\"]\n\n" + " ".join(["c3 d4"] * 20_000)  # ~120 KB, mostly illegal
    huge_rules = "dala(" + ",".join(f"rows={9 ** 9}" for _ in range(30)) + ")"
    kinds: list[tuple[str, str, Any]] = [
        ("POST", "/api/games", {"rules": "dala(rows=" + "9" * 150 + ")", "mode": "friend"}),
        ("GET", "/api/rules?text=" + "x" * 60_000, None),  # httpx refuses 64 KB URLs
        ("GET", "/api/rules?text=" + huge_rules, None),
        ("POST", "/api/replay", {"record": record}),
        ("POST", "/api/replay", {"record": "x" * 300_000}),  # over the limit
        ("POST", "/api/games", {"rules": "dracala", "mode": "hotseat"}),
        ("POST", "/api/games", {"rules": "dala", "mode": "ai", "level": 1}),
        ("POST", "/api/games/" + "g" * 5000 + "/move", {"key": "k" * 199, "move": "c3"}),
    ]
    for i in range(n):
        yield kinds[i % len(kinds)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux only)")
def test_server_memory_stays_bounded_under_hostile_burst(tmp_path: Path) -> None:
    with serving(tmp_path / "g.db", "--ai-time", "0.05", "--rate", "0",
                 ready="/api/warmup") as (proc, base), \
            httpx.Client(base_url=base, timeout=30) as c:
        baseline = peak = _rss(proc.pid)
        codes: dict[int, int] = {}
        for method, url, body in _hostile_requests(300):
            r = c.request(method, url, json=body)
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            peak = max(peak, _rss(proc.pid))
    assert not [code for code in codes if code >= 500], codes
    assert peak - baseline < RSS_GROWTH_BOUND, (
        f"RSS grew from {baseline / 2**20:.0f} MB to {peak / 2**20:.0f} MB")


@pytest.mark.parametrize("body", [{"seat": True}, {"level": True}, {"level": "4"},
                                  {"seat": 1.5}, {"rules": 3}])
def test_request_fields_are_read_strictly(client: TestClient, body: dict[str, object]) -> None:
    """Found by the schema run: JSON ``true`` was taken as seat 1 (pydantic's lax mode)."""
    r = client.post("/api/games", json={"mode": "ai", **body})
    assert r.status_code == 422 and r.json()["error"]
