"""The language of a request: what the person chose (the language cookie, set by the page's
language switch; an account's setting where one is signed in), else the browser's
``Accept-Language``, else English (:func:`nugar.i18n.negotiate`)."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from .. import i18n

#: the cookie that keeps the language a person chose with the page's language switch
COOKIE = "nugar_lang"


def language_of(conn: HTTPConnection) -> str:
    """The language to answer ``conn`` (a request or a websocket) in."""
    chosen = conn.cookies.get(COOKIE)
    return i18n.negotiate(conn.headers.get("accept-language"), chosen)
