"""Accounts over the API (issue 29, item 1): signing up, in and out, the session cookie and
its expiry, password changes and deletion, the check against cross-site requests, the
limits on sign-in attempts, and the names a game shows."""

from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from argon2.profiles import RFC_9106_LOW_MEMORY
from fastapi.testclient import TestClient
from sqlalchemy import select
from starlette.websockets import WebSocketDisconnect

from nugar.rules import new_game, parse_rules
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.server.players.accounts import (
    COOKIE,
    DELETED_NAME,
    SESSION_DAYS,
    AttemptLimiter,
    token_hash,
)
from nugar.server.storage.store import (
    Store,
    accounts_table,
    sessions_table,
    sign_in_attempts_table,
)
from web_accounts import EVIL, FAST, SAME, Clock, accounts, other_client, sign_up


# --- signing up, in and out ---------------------------------------------------------------------
def test_sign_up_signs_in_with_a_cookie_that_scripts_and_other_sites_do_not_get(
        client: TestClient) -> None:
    r = sign_up(client, "Alice_1")
    assert r.json() == {"username": "Alice_1", "bot": False, "ratings": {}, "language": None}
    cookie = r.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=")
    flags = [f.strip().lower() for f in cookie.split(";")[1:]]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert f"max-age={SESSION_DAYS * 86400}" in flags
    assert "secure" not in flags  # the public URL is http
    assert client.get("/api/me").json() == {"username": "Alice_1", "bot": False, "ratings": {},
                                            "language": None}


def test_the_cookie_is_secure_when_the_public_url_is_https(db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None, public_url="https://games.example.org"))
    app.state.services.accounts.hasher = FAST
    with TestClient(app, base_url="https://games.example.org") as c:
        r = c.post("/api/accounts", json={"username": "bob", "password": "12345678"})
        assert r.status_code == 201
        assert "secure" in [f.strip().lower() for f in r.headers["set-cookie"].split(";")]


def test_the_password_is_stored_as_argon2id_and_never_answered(client: TestClient) -> None:
    password = "s3cret-words"
    r = sign_up(client, "carol", password)
    assert password not in r.text and "argon" not in r.text
    with accounts(client).store.engine.connect() as conn:
        stored = conn.execute(select(accounts_table.c.password_hash)).scalar()
        tokens = conn.execute(select(sessions_table.c.token_hash)).scalars().all()
    assert stored.startswith("$argon2id$") and password not in stored
    # the session is stored as the SHA-256 of the cookie's token, never the token
    assert tokens == [token_hash(client.cookies[COOKIE])]


def test_the_hasher_has_argon2_cffi_s_recommended_parameters(db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None))
    hasher = app.state.services.accounts.hasher
    assert isinstance(hasher, PasswordHasher)
    assert (hasher.time_cost, hasher.memory_cost, hasher.parallelism, hasher.hash_len,
            hasher.salt_len) == (RFC_9106_LOW_MEMORY.time_cost,
                                 RFC_9106_LOW_MEMORY.memory_cost,
                                 RFC_9106_LOW_MEMORY.parallelism,
                                 RFC_9106_LOW_MEMORY.hash_len, RFC_9106_LOW_MEMORY.salt_len)
    assert hasher.hash("12345678").startswith("$argon2id$")


def test_names_are_unique_without_regard_to_case(client: TestClient) -> None:
    sign_up(client, "Dave")
    r = other_client(client).post("/api/accounts", json={"username": "dAVE",
                                                         "password": "password9"})
    assert r.status_code == 409 and r.json()["error"] == "name_taken"
    # signing in ignores the case of the name too
    r = other_client(client).post("/api/session", json={"username": "DAVE",
                                                        "password": "correct horse"})
    assert r.status_code == 200 and r.json()["username"] == "Dave"


@pytest.mark.parametrize("name", ["ab", "x" * 21, "two words", "émile", "a/b", "", "dot.ted"])
def test_bad_user_names_are_refused_saying_what_a_name_is(client: TestClient,
                                                          name: str) -> None:
    r = client.post("/api/accounts", json={"username": name, "password": "password9"})
    assert r.status_code == 422 and r.json()["error"] == "bad_username"
    assert "3 to 20" in r.json()["detail"]
    assert COOKIE not in r.headers.get("set-cookie", "")


@pytest.mark.parametrize("name", ["abc", "x" * 20, "A-b_9"])
def test_good_user_names_are_accepted(client: TestClient, name: str) -> None:
    sign_up(client, name)


def test_short_passwords_are_refused(client: TestClient) -> None:
    r = client.post("/api/accounts", json={"username": "erin", "password": "1234567"})
    assert r.status_code == 422 and r.json()["error"] == "bad_password"
    assert "at least 8" in r.json()["detail"]


def test_sign_out_ends_the_session_for_good(client: TestClient) -> None:
    sign_up(client)
    token = client.cookies[COOKIE]
    r = client.delete("/api/session", headers=SAME)
    assert r.status_code == 200
    assert client.get("/api/me").status_code == 401
    # the old token, sent again, opens nothing
    again = other_client(client)
    again.cookies.set(COOKIE, token)
    r = again.get("/api/me")
    assert r.status_code == 401 and r.json()["error"] == "signed_out"


def test_sign_in_and_the_same_refusal_for_a_wrong_name_and_a_wrong_password(
        client: TestClient) -> None:
    sign_up(client, "frank", "password-1")
    c = other_client(client)
    verified: list[str] = []
    real_verify = FAST.verify

    class Spy(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            verified.append(str(hash))
            return real_verify(hash, password)

    accounts(client).hasher = Spy(time_cost=1, memory_cost=1024, parallelism=1)
    wrong_password = c.post("/api/session", json={"username": "frank", "password": "nope-nope"})
    wrong_name = c.post("/api/session", json={"username": "frankie", "password": "password-1"})
    assert wrong_password.status_code == wrong_name.status_code == 401
    assert wrong_password.json() == wrong_name.json()
    assert wrong_name.json()["error"] == "bad_credentials"
    # both checked a password against an Argon2id hash of the same parameters (a dummy one
    # for the unknown name): the same work, so about the same time
    assert len(verified) == 2
    assert verified[0].split("$")[:4] == verified[1].split("$")[:4]
    r = c.post("/api/session", json={"username": "frank", "password": "password-1"})
    assert r.status_code == 200 and c.get("/api/me").json()["username"] == "frank"


# --- sessions over time -------------------------------------------------------------------------
def test_a_session_expires_after_30_days_unused_and_using_it_keeps_it(
        client: TestClient) -> None:
    clock = Clock()
    accounts(client).clock = clock
    sign_up(client)
    clock.now += 29 * 86400
    assert client.get("/api/me").status_code == 200  # used: its 30 days start again
    clock.now += 29 * 86400
    assert client.get("/api/me").status_code == 200
    clock.now += SESSION_DAYS * 86400 + 60
    assert client.get("/api/me").status_code == 401
    with accounts(client).store.engine.connect() as conn:
        assert conn.execute(select(sessions_table)).all() == []  # deleted when found stale


def test_expired_sessions_are_swept(client: TestClient) -> None:
    clock = Clock()
    accounts(client).clock = clock
    sign_up(client)
    clock.now += SESSION_DAYS * 86400 + 1
    assert accounts(client).expire() == 1


def test_a_password_change_ends_every_other_session(client: TestClient) -> None:
    sign_up(client, "grace", "old password")
    laptop = other_client(client)
    assert laptop.post("/api/session", json={"username": "grace",
                                             "password": "old password"}).status_code == 200
    r = client.post("/api/me/password", json={"old": "wrong one!", "new": "new password"},
                    headers=SAME)
    assert r.status_code == 403 and r.json()["error"] == "wrong_password"
    r = client.post("/api/me/password", json={"old": "old password", "new": "short"},
                    headers=SAME)
    assert r.status_code == 422 and r.json()["error"] == "bad_password"
    r = client.post("/api/me/password", json={"old": "old password", "new": "new password"},
                    headers=SAME)
    assert r.status_code == 200
    assert client.get("/api/me").status_code == 200   # this client got a new session
    assert laptop.get("/api/me").status_code == 401   # the other one is revoked
    c = other_client(client)
    assert c.post("/api/session", json={"username": "grace",
                                        "password": "old password"}).status_code == 401
    assert c.post("/api/session", json={"username": "grace",
                                        "password": "new password"}).status_code == 200


# --- cross-site requests ------------------------------------------------------------------------
def test_a_cross_site_request_with_the_cookie_is_refused(client: TestClient) -> None:
    sign_up(client)
    body = {"mode": "hotseat"}
    r = client.post("/api/games", json=body, headers=EVIL)
    assert r.status_code == 403 and r.json()["error"] == "cross_site"
    r = client.post("/api/games", json=body,
                    headers={"Origin": "http://127.0.0.1:8000.evil.example"})
    assert r.status_code == 403
    r = client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 403
    r = client.post("/api/games", json=body, headers={"Sec-Fetch-Site": "same-site"})
    assert r.status_code == 403
    r = client.post("/api/games", json=body)  # neither header: refused too
    assert r.status_code == 403
    r = client.delete("/api/me", headers=EVIL)
    assert r.status_code == 403
    assert client.get("/api/me").status_code == 200  # reading is not changing


def test_a_same_site_request_with_the_cookie_is_accepted(client: TestClient) -> None:
    sign_up(client)
    r = client.post("/api/games", json={"mode": "hotseat"}, headers=SAME)
    assert r.status_code == 201
    r = client.post("/api/games", json={"mode": "hotseat"},
                    headers={"Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 201


def test_the_origin_is_the_public_url_s_whatever_its_path_and_default_port(
        db_url: str) -> None:
    app = create_app(ServerConfig(db_url, rate=None,
                                  public_url="https://Games.example.org:443/nugar"))
    app.state.services.accounts.hasher = FAST
    with TestClient(app, base_url="https://games.example.org") as c:
        assert c.post("/api/accounts", json={"username": "kim", "password": "12345678"}
                      ).status_code == 201
        ok = c.post("/api/games", json={"mode": "hotseat"},
                    headers={"Origin": "https://games.example.org"})
        assert ok.status_code == 201
        plain = c.post("/api/games", json={"mode": "hotseat"},
                       headers={"Origin": "http://games.example.org"})
        assert plain.status_code == 403


def test_requests_without_the_cookie_are_unaffected(client: TestClient) -> None:
    r = client.post("/api/games", json={"mode": "hotseat"}, headers=EVIL)
    assert r.status_code == 201
    game = r.json()
    key = game["keys"]["0"]
    move = str(new_game(parse_rules("dara")).legal_moves()[0])
    r = client.post(f"/api/games/{game['id']}/move", json={"key": key, "move": move},
                    headers=EVIL)
    assert r.status_code == 200


def test_the_fast_lane_s_moves_are_checked_too(client: TestClient) -> None:
    sign_up(client)
    game = client.post("/api/games", json={"mode": "hotseat"}, headers=SAME).json()
    move = str(new_game(parse_rules("dara")).legal_moves()[0])
    url = f"/api/games/{game['id']}/move"
    r = client.post(url, json={"key": game["keys"]["0"], "move": move}, headers=EVIL)
    assert r.status_code == 403 and r.json()["error"] == "cross_site"
    r = client.post(url, json={"key": game["keys"]["0"], "move": move}, headers=SAME)
    assert r.status_code == 200


def test_a_websocket_opened_with_the_cookie_from_another_site_is_closed(
        client: TestClient) -> None:
    sign_up(client)
    gid = client.post("/api/games", json={"mode": "hotseat"}, headers=SAME).json()["id"]
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(f"/ws/games/{gid}", headers=EVIL) as ws:
            ws.receive_json()
    with client.websocket_connect(f"/ws/games/{gid}", headers=SAME) as ws:
        assert ws.receive_json()["type"] == "sync"
    # without the cookie another site's page may watch, as before
    with other_client(client).websocket_connect(f"/ws/games/{gid}", headers=EVIL) as ws:
        assert ws.receive_json()["type"] == "sync"


# --- limits -------------------------------------------------------------------------------------
def test_sign_in_attempts_are_limited_per_address_and_user_name(client: TestClient) -> None:
    sign_up(client, "heidi", "password-1")
    c = other_client(client)
    limiter = accounts(client).by_pair
    for _ in range(limiter.burst):
        r = c.post("/api/session", json={"username": "Heidi", "password": "guess-guess"})
        assert r.status_code == 401
    r = c.post("/api/session", json={"username": "heidi", "password": "password-1"})
    assert r.status_code == 429 and r.json()["error"] == "too_many_attempts"
    assert int(r.headers["retry-after"]) >= 1
    # another name from the same address is not held back by this one's attempts
    r = c.post("/api/session", json={"username": "ivan", "password": "password-1"})
    assert r.status_code == 401


def test_sign_in_attempts_are_limited_per_address(client: TestClient) -> None:
    c = other_client(client)
    limiter = accounts(client).by_address
    for i in range(limiter.burst):
        r = c.post("/api/session", json={"username": f"user{i}", "password": "guess-guess"})
        assert r.status_code == 401
    r = c.post("/api/session", json={"username": "someone", "password": "guess-guess"})
    assert r.status_code == 429
    r = c.post("/api/accounts", json={"username": "newbie", "password": "password-1"})
    assert r.status_code == 429  # sign-ups count too: each costs a hash


def test_the_attempt_limiter_refills_and_its_rows_are_swept(db_url: str) -> None:
    clock = Clock(0.0)
    store = Store(db_url)
    try:
        limiter = AttemptLimiter(store, "test", 2, 10.0, clock=clock)
        assert limiter.take("a") is None and limiter.take("a") is None
        wait = limiter.take("a")
        assert wait is not None and 0 < wait <= 10.0
        clock.now += 10.0
        assert limiter.take("a") is None
        for i in range(50):
            limiter.take(f"address {i}")
        assert len(limiter) == 51
        clock.now += 10.0
        limiter.take("a")
        clock.now += 15.0  # the 50 are full again, "a" not yet
        assert limiter.sweep() == 50 and len(limiter) == 1
        with store.engine.connect() as conn:  # neither addresses nor names are stored
            keys = conn.execute(select(sign_in_attempts_table.c.key)).scalars().all()
        assert keys and all(len(k) == 64 and "address" not in k for k in keys)
    finally:
        store.close()


# --- games and deleted accounts -----------------------------------------------------------------
def test_a_signed_in_player_s_seat_shows_his_name_and_a_deleted_player_afterwards(
        client: TestClient) -> None:
    sign_up(client, "judy", "password-1")
    game = client.post("/api/games", json={"mode": "friend"}, headers=SAME).json()
    gid = game["id"]
    assert client.get(f"/api/games/{gid}/players").json() == {
        "players": {"1": None, "2": None}, "bots": {"1": False, "2": False}, "rated": False}
    r = client.post(f"/api/games/{gid}/open", json={"key": game["keys"]["1"]}, headers=SAME)
    assert r.status_code == 200
    friend = other_client(client)
    assert friend.post(f"/api/games/{gid}/open", json={"key": game["keys"]["2"]}).status_code \
        == 200  # not signed in: seat 2 stays anonymous
    assert client.get(f"/api/games/{gid}/players").json()["players"] == {"1": "judy",
                                                                         "2": None}
    move = str(new_game(parse_rules("dara")).legal_moves()[0])
    r = client.post(f"/api/games/{gid}/move", json={"key": game["keys"]["1"], "move": move},
                    headers=SAME)
    assert r.status_code == 200
    r = client.request("DELETE", "/api/me", json={"password": "wrong password"},
                       headers=SAME)
    assert r.status_code == 403 and r.json()["error"] == "wrong_password"
    r = client.request("DELETE", "/api/me", json={"password": "password-1"}, headers=SAME)
    assert r.status_code == 200
    assert client.get("/api/me").status_code == 401
    # the game stays, played by "deleted player", and goes on
    assert client.get(f"/api/games/{gid}/players").json()["players"] == {
        "1": DELETED_NAME, "2": None}
    state = client.get(f"/api/games/{gid}").json()
    assert state["moves"] == [move]
    game_now = new_game(parse_rules("dara"))
    game_now.play(move)
    reply = str(game_now.legal_moves()[0])
    r = friend.post(f"/api/games/{gid}/move", json={"key": game["keys"]["2"], "move": reply})
    assert r.status_code == 200
    # the name is free again, and a new "judy" is not the deleted one
    sign_up(other_client(client), "Judy", "password-2")
    assert client.get(f"/api/games/{gid}/players").json()["players"]["1"] == DELETED_NAME


def test_players_of_an_unknown_game(client: TestClient) -> None:
    r = client.get("/api/games/nosuchgame/players")
    assert r.status_code == 404 and r.json()["error"] == "unknown_game"


def test_the_sign_up_and_sign_in_pages_and_the_menu_on_every_page(client: TestClient) -> None:
    for path in ("/signup", "/signin", "/", "/rules", "/rules/dara"):
        r = client.get(path)
        assert r.status_code == 200
        assert "/static/common.js" in r.text and 'id="account-menu"' in r.text, path
