"""The language of a request (or a websocket's handshake), in this order:

1. the language cookie (:data:`COOKIE`), set by the page's language switch: the person's latest
   choice, in this browser;
2. the signed-in account's language (``PUT /api/account/language``, which the switch also
   calls), so a choice follows the player to another browser;
3. the browser's ``Accept-Language`` (:func:`nugar.i18n.negotiate`);
4. English.

The account's language is read from the accounts' cache (:meth:`~.accounts.Accounts.
cached_language`, the way the fairness key reads a session) by :func:`language_of`, which
never blocks; :func:`request_language` also looks it up in the database when the cache does
not know it (in a worker thread). Every writer of an answer a person reads (the refusals'
``detail``, the rules pages, the lessons) says it in this language; codes and data stay as
they are.
"""

from __future__ import annotations

import asyncio
import contextlib

from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import HTTPConnection

from ... import i18n
from ..players.accounts import COOKIE as SESSION_COOKIE
from ..players.accounts import Accounts

#: the cookie that keeps the language a person chose with the page's language switch
COOKIE = "nugar_lang"


def language_of(conn: HTTPConnection) -> str:
    """The language to answer ``conn`` (a request or a websocket) in, without waiting: the
    account's language counts when the accounts' cache knows it."""
    chosen = conn.cookies.get(COOKIE)
    if i18n.normalize(chosen) is None:
        chosen = _account_language(conn)
    return i18n.negotiate(conn.headers.get("accept-language"), chosen)


async def request_language(conn: HTTPConnection) -> str:
    """:func:`language_of`, looking the signed-in account's language up in the database
    (once per :data:`~.accounts.KEY_SECONDS`) when the cache does not know it."""
    if i18n.normalize(conn.cookies.get(COOKIE)) is None and conn.cookies.get(SESSION_COOKIE):
        accounts = _accounts(conn)
        token = conn.cookies.get(SESSION_COOKIE, "")
        if accounts is not None and 0 < len(token) <= 100:
            known, _ = accounts.cached_language(token)
            if not known:
                # a database that fails here must not fail the answer (often itself the
                # refusal of a failed database): the header decides instead
                with contextlib.suppress(SQLAlchemyError):
                    await asyncio.to_thread(accounts.language, token)
    return language_of(conn)


def _accounts(conn: HTTPConnection) -> Accounts | None:
    """The accounts of the app serving ``conn`` (``None`` for a connection outside one)."""
    parts = getattr(getattr(conn.scope.get("app"), "state", None), "services", None)
    accounts = getattr(parts, "accounts", None)  # the app's typed Services (.services)
    return accounts if isinstance(accounts, Accounts) else None


def _account_language(conn: HTTPConnection) -> str | None:
    """The signed-in account's language when the accounts' cache knows it (never blocks)."""
    token = conn.cookies.get(SESSION_COOKIE)
    accounts = _accounts(conn)
    if not token or len(token) > 100 or accounts is None:
        return None
    known, found = accounts.cached_language(token)
    return found if known else None
