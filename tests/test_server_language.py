"""The language a request is answered in: cookie first, then Accept-Language, then English."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from nugar.server.http.language import COOKIE, language_of


def _request(headers: dict[str, str]) -> Request:
    raw = [(k.lower().encode(), v.encode()) for k, v in headers.items()]
    return Request({"type": "http", "headers": raw, "method": "GET", "path": "/"})


@pytest.mark.parametrize(("headers", "lang"), [
    ({}, "en"),
    ({"Accept-Language": "fr-NE,fr;q=0.9"}, "fr"),
    ({"Accept-Language": "ar-SD"}, "ar"),
    ({"Accept-Language": "fr", "Cookie": f"{COOKIE}=ar"}, "ar"),
    ({"Accept-Language": "fr", "Cookie": f"{COOKIE}=klingon"}, "fr"),
])
def test_language_of_a_request(headers: dict[str, str], lang: str) -> None:
    assert language_of(_request(headers)) == lang
