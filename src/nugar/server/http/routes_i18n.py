"""``GET /i18n/{lang}.json``: the web app's ``webjs`` catalog in a language, ``{msgid:
msgstr}`` (plural messages: the list of forms; :func:`.static_i18n.catalog`), for a script
that reads it itself (the pages embed the same catalog). It changes only with the package:
cached a day. An unknown language is a 404 ``unknown_language`` that lists the languages."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ... import i18n
from ...i18n import Text
from .language import language_of
from .middleware import refusal
from .static_i18n import catalog_json

router = APIRouter(include_in_schema=False)

#: how long a browser or a proxy may keep a catalog (seconds)
MAX_AGE = 86400


@router.get("/i18n/{lang}.json")
async def webjs_catalog(lang: str, request: Request) -> Response:
    if lang not in i18n.LANGUAGES:
        return refusal(404, "unknown_language",
                       Text("unknown language {language}: nugar is written in {languages}",
                            domain="web", language=repr(lang[:20]),
                            languages=", ".join(i18n.LANGUAGES)),
                       lang=language_of(request))
    return Response(catalog_json(lang), media_type="application/json",
                    headers={"cache-control": f"public, max-age={MAX_AGE}",
                             "content-language": lang})
