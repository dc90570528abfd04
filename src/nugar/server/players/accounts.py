"""Players' accounts: names, passwords, sessions, and the limits on signing in.

An account is a user name (3-20 letters, digits, ``_`` or ``-``; unique without regard to
case, :data:`USERNAME_RE`) and a password of at least :data:`MIN_PASSWORD` characters,
kept only as its Argon2id hash with ``argon2-cffi``'s recommended parameters (RFC 9106's
low-memory profile; a hash made with older parameters is redone at the next sign-in).
Neither the password nor its hash ever leaves this module in an answer or a log line.

Signing in makes a session: a random 32-byte token, sent to the browser in the
:data:`COOKIE` cookie and stored only as its SHA-256 (a stolen database opens no session).
A session ends when it has not been used for :data:`SESSION_DAYS` days, when its holder
signs out, and (all of the account's) when the password changes or the account is deleted.

A sign-in with an unknown name and one with a wrong password get the same refusal
(``bad_credentials``) after the same work: an unknown name is checked against a dummy hash
made with the same parameters. Attempts are limited per client address (its /64 for IPv6)
and per pair of address and user name by :class:`AttemptLimiter`, whose buckets are rows of
the database shared by every process (the hourly sweep deletes those full again). The
limit is never per name alone: one address guessing a name's password does not keep its
owner out from another address. The checks themselves run in :mod:`.passwords`' own
bounded threads.

The fairness bounds (:mod:`.clients`) key a signed-in request by its account:
:meth:`Accounts.account_id` names the account of a cookie's token from a bounded cache
(:data:`KEY_CACHE` tokens, each trusted for :data:`KEY_SECONDS`; signing out, a new password
and deleting the account forget their tokens at once), and :func:`client_key` is what the
size and rate guard calls for each request. The language an account chose
(:meth:`Accounts.set_language`) is remembered the same way, per account, for
:func:`~.language.language_of`.

A bot account (:attr:`Account.bot`; made so at sign-up, or by :meth:`BotTokens.make_bot`
while it has played no game) plays through the API with tokens
(:class:`BotTokens`, ``Accounts.bots``): :meth:`BotTokens.new_token`
makes one (at most :data:`MAX_TOKENS` per account), shown once and stored only as its
SHA-256, :meth:`BotTokens.revoke_token` ends it, and a request sending it as
``Authorization: Bearer TOKEN`` is the bot's (:func:`current_account`; an unknown or revoked
token is 401 ``bad_token``, never a silent anonymous request).

A deleted account keeps its row without name or password, so the games that name its id
say "deleted player" (:data:`DELETED_NAME`) and the name is free again.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection

from ...i18n import Text
from ..clients import account_key, address_group
from ..errors import ApiError
from ..storage.store import (
    Store,
    accounts_table,
    bot_tokens_table,
    games_table,
    log_failure,
    sessions_table,
    sign_in_attempts_table,
)
from . import puzzle_ratings
from .lesson_progress import forget_account

log = logging.getLogger("nugar.server")

#: what a user name is made of
USERNAME_RE = re.compile(r"[A-Za-z0-9_-]{3,20}")
#: the shortest password accepted
MIN_PASSWORD = 8
#: the longest password read (a bound on the work one request can ask of the hash)
MAX_PASSWORD = 1024
#: the session cookie's name
COOKIE = "nugar_session"
#: what a session token is made of (``secrets.token_urlsafe``'s alphabet)
TOKEN_RE = re.compile(rb"[A-Za-z0-9_-]{1,100}")
#: days a session lasts without being used
SESSION_DAYS = 30
#: a session's last use is written at most this often (seconds), not at every request
TOUCH_EVERY = 3600.0
#: the session tokens whose account the fairness key remembers (the least recently used
#: are forgotten first), and for how many seconds one answer is trusted
KEY_CACHE = 10_000
KEY_SECONDS = 60.0
#: how the games of a deleted account name its seat
DELETED_NAME = "deleted player"
#: the most API tokens one bot account holds at once
MAX_TOKENS = 10
#: the longest token label kept
MAX_TOKEN_LABEL = 40


@dataclass(frozen=True)
class Account:
    """A signed-in player: the account's id and user name, and whether it is a bot."""

    id: int
    username: str
    bot: bool = False


def token_hash(token: str) -> str:
    """The stored form of a session token (SHA-256, hex)."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def session_token(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The session token of a request's headers (an ASGI scope's), read as a browser sends
    it: one ``Cookie`` header whose ``; ``-separated pairs hold ``nugar_session=TOKEN``
    once, exactly (``None``: no session cookie). Anything that a lenient parser could read
    as the session too (a second ``Cookie`` header, the cookie twice, spaces around its
    ``=``, a quoted or odd value) is refused, 400 ``bad_cookie``: every reader of the cookie
    (the cross-site check, the routes, the fairness key) then sees the same session."""
    found: list[bytes] = [v for k, v in headers if k == b"cookie"]
    if not found:
        return None
    if len(found) > 1:
        raise _bad_cookie()
    header = found[0]
    name = COOKIE.encode()
    if name not in header:
        return None
    token: bytes | None = None
    for part in header.split(b";"):
        key, eq, value = part.lstrip(b" ").partition(b"=")
        if key.strip(b" \t") != name:
            continue
        if token is not None or key != name or not eq or not TOKEN_RE.fullmatch(value):
            raise _bad_cookie()
        token = value
    return None if token is None else token.decode("ascii")


def _bad_cookie() -> ApiError:
    return ApiError("bad_cookie", Text(
        "the session cookie must be sent once, in one Cookie header, as {cookie}=TOKEN",
        domain="web", cookie=COOKIE))


def check_username(name: str) -> str:
    """``name`` if it is a valid user name, else 422 ``bad_username`` saying what is."""
    if not USERNAME_RE.fullmatch(name):
        raise ApiError("bad_username", Text(
            "a user name is 3 to 20 characters, each a letter (a-z, A-Z), a digit, _ or -",
            domain="web"))
    return name


def check_password(password: str) -> str:
    """``password`` if it is long enough (and not absurdly long), else 422 ``bad_password``."""
    if len(password) < MIN_PASSWORD:
        raise ApiError("bad_password", Text.plural(
            "a password has at least {min_password} character",
            "a password has at least {min_password} characters", MIN_PASSWORD,
            domain="web", min_password=MIN_PASSWORD))
    if len(password) > MAX_PASSWORD:
        raise ApiError("bad_password", Text.plural(
            "a password has at most {max_password} character",
            "a password has at most {max_password} characters", MAX_PASSWORD,
            domain="web", max_password=MAX_PASSWORD))
    return password


class AttemptLimiter:
    """Token buckets kept in the database (``nugar_sign_in_attempts``), one per key (an
    address, an address and a user name): ``burst`` attempts at once, then one per
    ``every`` seconds. Every process on the database counts in the same rows (so
    ``--workers`` does not multiply the limits), each taken in one transaction (the row
    locked on PostgreSQL; SQLite writes one transaction at a time). A row holds the
    SHA-256 of ``kind`` and its key, never an address or a name; a row whose bucket is full
    again says nothing and is deleted by :meth:`sweep` (the hourly sweep of the sessions).
    Blocking: called in a worker thread. ``clock`` gives seconds since the epoch, shared by
    the processes (a test passes its own)."""

    def __init__(self, store: Store, kind: str, burst: int, every: float,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.kind = kind
        self.burst = burst
        self.every = every
        self.clock = clock

    def _row(self, key: str) -> str:
        return token_hash(f"{self.kind}\n{key}")

    def take(self, key: str) -> float | None:
        """Spend one attempt of ``key``: ``None`` when allowed, else the seconds to wait."""
        t = sign_in_attempts_table
        row_key = self._row(key)
        now = self.clock()
        with self.store.engine.begin() as conn:
            conn.execute(_insert_new(conn, {"key": row_key, "kind": self.kind,
                                            "tokens": float(self.burst), "last": now}))
            row = conn.execute(select(t.c.tokens, t.c.last).where(t.c.key == row_key)
                               .with_for_update()).one()
            tokens = min(float(self.burst),
                         row.tokens + max(0.0, now - row.last) / self.every)
            allowed = tokens >= 1.0
            conn.execute(update(t).where(t.c.key == row_key).values(
                tokens=tokens - 1.0 if allowed else tokens, last=now))
        return None if allowed else (1.0 - tokens) * self.every

    def forget(self, key: str) -> None:
        """Drop ``key``'s bucket (its holder proved who he is: his attempts start afresh)."""
        t = sign_in_attempts_table
        with self.store.engine.begin() as conn:
            conn.execute(delete(t).where(t.c.key == self._row(key)))

    def sweep(self) -> int:
        """Delete this limit's rows whose bucket is full again; returns how many."""
        t = sign_in_attempts_table
        with self.store.engine.begin() as conn:
            gone = conn.execute(delete(t).where(t.c.kind == self.kind).where(
                t.c.last < self.clock() - self.burst * self.every)).rowcount
        return int(gone or 0)

    def __len__(self) -> int:
        """The rows this limit keeps now."""
        t = sign_in_attempts_table
        with self.store.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(t)
                                    .where(t.c.kind == self.kind)).scalar() or 0)


def _insert_new(conn: Any, values: dict[str, Any]) -> Any:
    """An insert of a bucket's row that does nothing where the row exists (two processes
    may count a new key at once)."""
    dialect = conn.dialect.name
    if dialect == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        return pg_insert(sign_in_attempts_table).values(**values).on_conflict_do_nothing()
    if dialect == "sqlite":
        from sqlalchemy.dialects.sqlite import insert as sqlite_insert

        return sqlite_insert(sign_in_attempts_table).values(**values).on_conflict_do_nothing()
    raise NotImplementedError(f"the sign-in limits run on SQLite and PostgreSQL, not {dialect}")


class TooManyAttempts(ApiError):
    """429 ``too_many_attempts``, with the whole seconds to wait (sent as ``Retry-After``)."""

    def __init__(self, wait: float) -> None:
        self.retry_after = max(1, math.ceil(wait))
        super().__init__("too_many_attempts", Text(
            "too many sign-in attempts; retry in {retry_after} s",
            domain="web", retry_after=self.retry_after))


class Accounts:
    """The accounts and sessions of one :class:`~.store.Store`. Every method is blocking
    (database and Argon2 work): the routes call them in a worker thread. ``clock`` gives
    the time in seconds since the epoch (a test passes its own to age sessions);
    ``hasher``: Argon2id with its recommended parameters unless a test passes another."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time,
                 hasher: PasswordHasher | None = None) -> None:
        self.store = store
        self.clock = clock
        self.hasher = hasher or PasswordHasher()
        #: attempts per client address (its /64 for IPv6), sign-ups included: 20 at once,
        #: then one every 6 s
        self.by_address = AttemptLimiter(store, "address", 20, 6.0, clock)
        #: attempts per client address and user name (lower case): 5 at once, then one a
        #: minute; the right password clears it. Keyed by the pair, never by the name alone,
        #: so one address's wrong guesses never keep the name's owner out elsewhere
        self.by_pair = AttemptLimiter(store, "pair", 5, 60.0, clock)
        self._dummy: str | None = None
        #: the bots' tokens (:class:`BotTokens`)
        self.bots = BotTokens(store, clock)
        #: token hash -> (its account's id or None, when it was looked up: monotonic s)
        self._keys: OrderedDict[str, tuple[int | None, float]] = OrderedDict()
        self._keys_lock = threading.Lock()
        #: account id -> (its language or None, when it was looked up: monotonic s)
        self._languages: OrderedDict[int, tuple[str | None, float]] = OrderedDict()

    # --- limits -----------------------------------------------------------------------------
    def limit(self, address: str, username: str | None = None) -> None:
        """Spend an attempt of the client's address (its /64 for IPv6), and of the address
        with the user name if given; 429 ``too_many_attempts`` when either has none left
        (blocking: the counts are in the database)."""
        group = address_group(address)
        wait = self.by_address.take(group)
        if wait is None and username is not None:
            wait = self.by_pair.take(f"{group} {username.lower()}")
        if wait is not None:
            raise TooManyAttempts(wait)

    def succeeded(self, address: str, username: str) -> None:
        """The right password was given for ``username`` from ``address``: the pair's
        attempts start afresh (the address's do not)."""
        self.by_pair.forget(f"{address_group(address)} {username.lower()}")

    # --- accounts ---------------------------------------------------------------------------
    def sign_up(self, username: str, password: str, bot: bool = False
                ) -> tuple[Account, str]:
        """Make an account (a bot's with ``bot``) and a session for it; returns the account
        and the session's token. 422 ``bad_username``/``bad_password``, 409
        ``name_taken``."""
        check_username(username)
        check_password(password)
        hashed = self.hasher.hash(password)
        now = self.clock()
        try:
            with self.store.engine.begin() as conn:
                made = conn.execute(insert(accounts_table).values(
                    username=username, name_key=username.lower(), password_hash=hashed,
                    created=now, bot=1 if bot else None)).inserted_primary_key
                assert made is not None
                account_id = made[0]
        except IntegrityError:
            raise ApiError("name_taken", Text(
                "the user name {username!r} is taken (names differ by more than upper and lower "
                "case)",
                domain="web", username=username)) from None
        account = Account(int(account_id), username, bot)
        return account, self._new_session(account.id)

    def sign_in(self, username: str, password: str) -> tuple[Account, str]:
        """A new session for the account with that name and password; 401
        ``bad_credentials`` for an unknown name and a wrong password alike."""
        with self.store.engine.connect() as conn:
            row = conn.execute(select(accounts_table.c.id, accounts_table.c.username,
                                      accounts_table.c.password_hash, accounts_table.c.bot)
                               .where(accounts_table.c.name_key == username.lower())).first()
        if row is None or row.password_hash is None:
            self._verify(self._dummy_hash(), password)  # the same work as a real check
            raise _bad_credentials()
        if not self._verify(row.password_hash, password):
            raise _bad_credentials()
        if self.hasher.check_needs_rehash(row.password_hash):
            self._set_hash(row.id, self.hasher.hash(password))
        return Account(row.id, row.username, bool(row.bot)), self._new_session(row.id)

    def change_password(self, account: Account, old: str, new: str) -> str:
        """Set a new password after checking the old one (403 ``wrong_password``); every
        session of the account ends, and the token of a new one is returned."""
        check_password(new)
        self._check(account, old)
        self._set_hash(account.id, self.hasher.hash(new))
        self.revoke_all(account.id)
        return self._new_session(account.id)

    def delete(self, account: Account, password: str) -> None:
        """Delete the account after checking its password (403 ``wrong_password``): its
        name and password go, its sessions, its lessons' progress and its puzzle ratings
        end; its games keep its id (shown as :data:`DELETED_NAME`)."""
        self._check(account, password)
        with self.store.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account.id)
                         .values(username=None, name_key=None, password_hash=None,
                                 deleted=self.clock()))
            conn.execute(delete(sessions_table)
                         .where(sessions_table.c.account_id == account.id))
            conn.execute(delete(bot_tokens_table)
                         .where(bot_tokens_table.c.account_id == account.id))
            forget_account(conn, account.id)
            puzzle_ratings.forget_account(conn, account.id)
        self._forget_keys(account.id)

    def names(self, ids: Iterable[int]) -> dict[int, str]:
        """The user names of accounts by id (:data:`DELETED_NAME` for a deleted one)."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        with self.store.engine.connect() as conn:
            rows = conn.execute(select(accounts_table.c.id, accounts_table.c.username)
                                .where(accounts_table.c.id.in_(wanted))).all()
        found = {r.id: r.username or DELETED_NAME for r in rows}
        return {i: found.get(i, DELETED_NAME) for i in wanted}

    # --- sessions ---------------------------------------------------------------------------
    def session(self, token: str) -> Account | None:
        """The account signed in with this cookie's token, or ``None`` (unknown, expired:
        an expired session is deleted). Its last use is brought up to date at most every
        :data:`TOUCH_EVERY` seconds."""
        if not token or len(token) > 100:
            return None
        key = token_hash(token)
        now = self.clock()
        with self.store.engine.connect() as conn:
            row = conn.execute(
                select(sessions_table.c.last_used, accounts_table.c.id,
                       accounts_table.c.username, accounts_table.c.bot)
                .join(accounts_table, accounts_table.c.id == sessions_table.c.account_id)
                .where(sessions_table.c.token_hash == key)).first()
        if row is None or row.username is None:
            return None
        if now - row.last_used > SESSION_DAYS * 86400:
            self.sign_out(token)
            return None
        if now - row.last_used > TOUCH_EVERY:
            with self.store.engine.begin() as conn:
                conn.execute(update(sessions_table).where(sessions_table.c.token_hash == key)
                             .values(last_used=now))
        return Account(row.id, row.username, bool(row.bot))

    def sign_out(self, token: str) -> None:
        """End the session of this token (nothing if there is none)."""
        with self.store.engine.begin() as conn:
            conn.execute(delete(sessions_table)
                         .where(sessions_table.c.token_hash == token_hash(token)))
        with self._keys_lock:
            self._keys.pop(token_hash(token), None)

    def revoke_all(self, account_id: int) -> None:
        """End every session of the account."""
        with self.store.engine.begin() as conn:
            conn.execute(delete(sessions_table)
                         .where(sessions_table.c.account_id == account_id))
        self._forget_keys(account_id)

    def _forget_keys(self, account_id: int) -> None:
        """The cached tokens of the account name no account any more (its sessions ended)."""
        with self._keys_lock:
            for key in [k for k, (i, _t) in self._keys.items() if i == account_id]:
                del self._keys[key]

    def cached_account_id(self, token: str) -> tuple[bool, int | None]:
        """``(True, id)`` when the cache knows the account of this token (``None``: no
        session) within :data:`KEY_SECONDS`, else ``(False, None)``; never blocks."""
        key = token_hash(token)
        with self._keys_lock:
            found = self._keys.get(key)
            if found is None or time.monotonic() - found[1] > KEY_SECONDS:
                return False, None
            self._keys.move_to_end(key)
            return True, found[0]

    def account_id(self, token: str) -> int | None:
        """The id of the account signed in with this token, or ``None``: from the cache
        when it knows, else from the database (blocking), remembered for
        :data:`KEY_SECONDS`."""
        known, found = self.cached_account_id(token)
        if known:
            return found
        account = self.session(token)
        found = None if account is None else account.id
        with self._keys_lock:
            self._keys[token_hash(token)] = (found, time.monotonic())
            self._keys.move_to_end(token_hash(token))
            while len(self._keys) > KEY_CACHE:
                self._keys.popitem(last=False)
        return found

    # --- language -----------------------------------------------------------------------------
    def set_language(self, account_id: int, language: str | None) -> None:
        """Keep ``language`` (one of :data:`nugar.i18n.LANGUAGES`, checked by the caller;
        ``None``: none chosen) as the account's language."""
        with self.store.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account_id)
                         .values(language=language))
        self._remember_language(account_id, language)

    def account_language(self, account_id: int) -> str | None:
        """The language the account chose, or ``None``: from the cache when it knows (within
        :data:`KEY_SECONDS`), else from the database (blocking), then remembered."""
        known, found = self._cached_language(account_id)
        if known:
            return found
        with self.store.engine.connect() as conn:
            found = conn.execute(select(accounts_table.c.language)
                                 .where(accounts_table.c.id == account_id)).scalar()
        self._remember_language(account_id, found)
        return found

    def cached_language(self, token: str) -> tuple[bool, str | None]:
        """``(True, language)`` when the caches know the account of this session token and
        its language (``None``: no session, or no language chosen), else ``(False, None)``;
        never blocks."""
        known, account_id = self.cached_account_id(token)
        if not known or account_id is None:
            return known, None
        return self._cached_language(account_id)

    def language(self, token: str) -> str | None:
        """The language of the account signed in with this token, or ``None`` (blocking
        when the caches do not know)."""
        account_id = self.account_id(token)
        return None if account_id is None else self.account_language(account_id)

    def _cached_language(self, account_id: int) -> tuple[bool, str | None]:
        with self._keys_lock:
            found = self._languages.get(account_id)
            if found is None or time.monotonic() - found[1] > KEY_SECONDS:
                return False, None
            self._languages.move_to_end(account_id)
            return True, found[0]

    def _remember_language(self, account_id: int, language: str | None) -> None:
        with self._keys_lock:
            self._languages[account_id] = (language, time.monotonic())
            self._languages.move_to_end(account_id)
            while len(self._languages) > KEY_CACHE:
                self._languages.popitem(last=False)

    def expire(self) -> int:
        """Delete the sessions unused for :data:`SESSION_DAYS` days (returns how many) and
        the sign-in limits' buckets that are full again."""
        with self.store.engine.begin() as conn:
            gone = conn.execute(delete(sessions_table).where(
                sessions_table.c.last_used < self.clock() - SESSION_DAYS * 86400)).rowcount
        self.by_address.sweep()
        self.by_pair.sweep()
        return int(gone or 0)

    # --- inside -----------------------------------------------------------------------------
    def _new_session(self, account_id: int) -> str:
        token = secrets.token_urlsafe(32)
        now = self.clock()
        with self.store.engine.begin() as conn:
            conn.execute(insert(sessions_table).values(
                token_hash=token_hash(token), account_id=account_id, created=now,
                last_used=now))
        return token

    def _verify(self, hashed: str, password: str) -> bool:
        try:
            return bool(self.hasher.verify(hashed, password))
        except (VerificationError, InvalidHashError):
            return False

    def _dummy_hash(self) -> str:
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        return self._dummy

    def _check(self, account: Account, password: str) -> None:
        with self.store.engine.connect() as conn:
            hashed = conn.execute(select(accounts_table.c.password_hash)
                                  .where(accounts_table.c.id == account.id)).scalar()
        if hashed is None or not self._verify(hashed, password):
            raise ApiError("wrong_password", Text(
                "the password is not this account's",
                domain="web"))

    def _set_hash(self, account_id: int, hashed: str) -> None:
        with self.store.engine.begin() as conn:
            conn.execute(update(accounts_table).where(accounts_table.c.id == account_id)
                         .values(password_hash=hashed))


class BotTokens:
    """The bot accounts and their API tokens of one :class:`~.store.Store` (blocking
    methods, as :class:`Accounts`'s; ``clock`` as there)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock
        #: token hash -> (its bot's id or None, when it was looked up: monotonic s)
        self._keys: OrderedDict[str, tuple[int | None, float]] = OrderedDict()
        self._keys_lock = threading.Lock()

    def make_bot(self, account: Account) -> Account:
        """Make ``account`` a bot's (for good); 409 ``has_games`` once it has played a game
        (its games and rating were a person's)."""
        with self.store.engine.begin() as conn:
            played = conn.execute(select(games_table.c.id).where(
                (games_table.c.account_1 == account.id)
                | (games_table.c.account_2 == account.id)).limit(1)).first()
            if played is not None:
                raise ApiError("has_games", Text(
                    "only an account that has played no game can become a bot; make a new "
                    "account for the bot", domain="web"))
            conn.execute(update(accounts_table).where(accounts_table.c.id == account.id)
                         .values(bot=1))
        return Account(account.id, account.username, True)

    def new_token(self, account: Account, label: str) -> dict[str, Any]:
        """A new API token of the bot ``account`` (403 ``not_a_bot``; 429
        ``too_many_tokens`` beyond :data:`MAX_TOKENS`): ``{id, label, created, token}``,
        the token itself only in this answer."""
        if not account.bot:
            raise _not_a_bot()
        token = secrets.token_urlsafe(32)
        now = self.clock()
        made: dict[str, Any] = {"id": secrets.token_hex(6), "label": label[:MAX_TOKEN_LABEL],
                                "created": now}
        with self.store.engine.begin() as conn:
            held = conn.execute(select(func.count()).select_from(bot_tokens_table).where(
                bot_tokens_table.c.account_id == account.id)).scalar_one()
            if held >= MAX_TOKENS:
                raise ApiError("too_many_tokens", Text.plural(
                    "a bot holds at most {max_tokens} token; revoke one first",
                    "a bot holds at most {max_tokens} tokens; revoke one first", MAX_TOKENS,
                    domain="web", max_tokens=MAX_TOKENS))
            conn.execute(insert(bot_tokens_table).values(
                token_hash=token_hash(token), account_id=account.id, **made))
        return {**made, "created": round(now), "token": token}

    def tokens(self, account: Account) -> list[dict[str, Any]]:
        """The account's tokens, oldest first, without their secrets."""
        with self.store.engine.connect() as conn:
            rows = conn.execute(select(bot_tokens_table.c.id, bot_tokens_table.c.label,
                                       bot_tokens_table.c.created)
                                .where(bot_tokens_table.c.account_id == account.id)
                                .order_by(bot_tokens_table.c.created)).all()
        return [{"id": r.id, "label": r.label, "created": round(r.created)} for r in rows]

    def revoke_token(self, account: Account, token_id: str) -> bool:
        """End the account's token ``token_id``; whether there was one. Requests with it
        are refused at once (on this process; other processes within
        :data:`KEY_SECONDS` for the fairness key, at once for the routes)."""
        with self.store.engine.begin() as conn:
            gone = conn.execute(delete(bot_tokens_table).where(
                bot_tokens_table.c.account_id == account.id)
                .where(bot_tokens_table.c.id == token_id[:16])).rowcount
        with self._keys_lock:  # its requests are refused now, not when the cache forgets
            for key in [k for k, (i, _t) in self._keys.items() if i == account.id]:
                del self._keys[key]
        return bool(gone)

    def bearer(self, token: str) -> Account | None:
        """The bot account a token belongs to, or ``None`` (unknown, revoked, too long)."""
        if not token or len(token) > 100:
            return None
        with self.store.engine.connect() as conn:
            row = conn.execute(
                select(accounts_table.c.id, accounts_table.c.username, accounts_table.c.bot)
                .join(bot_tokens_table, bot_tokens_table.c.account_id == accounts_table.c.id)
                .where(bot_tokens_table.c.token_hash == token_hash(token))).first()
        if row is None or row.username is None or not row.bot:
            return None
        return Account(row.id, row.username, True)

    def bearer_id(self, token: str) -> int | None:
        """:meth:`bearer`'s account id, from a bounded cache (:data:`KEY_CACHE` tokens,
        each trusted for :data:`KEY_SECONDS`) as :meth:`Accounts.account_id`'s."""
        key = token_hash(token)
        with self._keys_lock:
            found = self._keys.get(key)
            if found is not None and time.monotonic() - found[1] <= KEY_SECONDS:
                return found[0]
        account = self.bearer(token)
        with self._keys_lock:
            self._keys[key] = (None if account is None else account.id, time.monotonic())
            while len(self._keys) > KEY_CACHE:
                self._keys.popitem(last=False)
        return None if account is None else account.id


def _not_a_bot() -> ApiError:
    return ApiError("not_a_bot", Text(
        "only a bot account has API tokens; make the account a bot first (POST "
        "/api/account/bot)", domain="web"))


def _bad_credentials() -> ApiError:
    return ApiError("bad_credentials", Text(
        "no account has this user name and password",
        domain="web"))


async def expire_forever(accounts: Accounts, every: float = 3600.0) -> None:
    """Delete the expired sessions now and every ``every`` seconds (a background task of
    the app; a failed sweep is logged and the next one runs)."""
    while True:
        try:
            await asyncio.to_thread(accounts.expire)
        except Exception as exc:
            log_failure("deleting expired sessions", exc)
        await asyncio.sleep(every)


# --- for the routes -------------------------------------------------------------------------
def accounts_of(conn: HTTPConnection) -> Accounts:
    """The accounts of the application serving this request (its ``Services``, which the
    routes' layer defines)."""
    accounts: Accounts = conn.app.state.services.accounts
    return accounts


def bearer_token(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, else ``None``."""
    if not header:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip() or None


async def current_account(conn: HTTPConnection) -> Account | None:
    """The bot whose token the request's ``Authorization: Bearer`` header holds (401
    ``bad_token`` for a token that is no bot's), else the account signed in with the
    request's session cookie, or ``None`` (no cookie, or one that opens no session). A
    route's dependency."""
    bearer = bearer_token(conn.headers.get("authorization"))
    if bearer is not None:
        account = await asyncio.to_thread(accounts_of(conn).bots.bearer, bearer)
        if account is None:
            raise ApiError("bad_token", Text(
                "this API token opens no bot account: it is unknown or was revoked",
                domain="web"))
        return account
    try:
        token = session_token(conn.scope.get("headers") or ())
    except ApiError:
        return None  # refused before any route (:mod:`.crosssite`)
    if not token:
        return None
    return await asyncio.to_thread(accounts_of(conn).session, token)


def client_key(accounts: Accounts) -> Callable[[MutableMapping[str, Any]],
                                                 Awaitable[str | None]]:
    """For the size and rate guard: the client key (:func:`~.clients.account_key`) of a
    request (an ASGI scope) whose session cookie opens a session, else ``None`` (the guard
    keeps the address). A cached token costs a dict look-up; an unknown one a database
    look-up in a worker thread."""
    marker = COOKIE.encode()

    async def key(scope: MutableMapping[str, Any]) -> str | None:
        headers = scope.get("headers") or ()
        auth = next((v for k, v in headers if k == b"authorization"), None)
        bearer = bearer_token(auth.decode("latin-1")) if auth is not None else None
        if bearer is not None and len(bearer) <= 100:
            found = await asyncio.to_thread(accounts.bots.bearer_id, bearer)
            return None if found is None else account_key(found)
        if not any(k == b"cookie" and marker in v for k, v in headers):
            return None
        try:
            token = session_token(headers)
        except ApiError:
            return None  # the cross-site check refuses it next
        if token is None:
            return None
        known, found = accounts.cached_account_id(token)
        if not known:
            found = await asyncio.to_thread(accounts.account_id, token)
        return None if found is None else account_key(found)

    return key
