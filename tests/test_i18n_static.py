"""The web app's static pages and scripts in English, French and Arabic (the ``webjs``
catalog): every text a person reads is marked, the pages are served in the request's
language, and the scripts' catalog is served and embedded."""

from __future__ import annotations

import io
import json
import re

import pytest
from babel.messages.extract import extract_javascript
from fastapi.testclient import TestClient

from nugar import i18n
from nugar.server.http import static_i18n
from nugar.server.http.static_i18n import (
    PARTS,
    STATIC,
    catalog,
    page_source,
    render_page,
    scan,
    unmarked_texts,
)

PAGES = sorted(p.name for p in STATIC.glob("*.html"))
#: the parts every page shares (static/parts/: the head's lines, the header)
SHARED = sorted(p.name for p in PARTS.glob("*.html"))
SCRIPTS = sorted(p.name for p in STATIC.glob("*.js"))

# Texts of the pages that are not for translating: symbols and data. Each entry says why.
HTML_ALLOWED = {
    "&laquo;", "&lsaquo;", "&rsaquo;", "&raquo;",  # the move list's navigation arrows
    "&middot;",  # a separator between two links
    "#",  # the leaderboard's rank column
    "nugar",  # the program's name
    # preset names in the leaderboard's choice: rule-set texts, never translated
    "dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala",
}

# Literals of the scripts that reach the screen without t(): data, never translated. Each
# entry says why.
JS_ALLOWED = {
    "c3, c3-c4, xe5",  # examples of moves in the move box: move texts
    "nugar",  # the program's name
    "${name} - nugar",  # a player's page's title: the player's name and the program's
}

# Where a literal in a script is shown to a person: assigned to a text property, passed to
# a function that shows it, or given as an element's text.
SINKS = [
    r"\.(?:textContent|innerText|innerHTML|title|placeholder)\s*\+?=\s*",
    r"\b(?:alert|confirm|setError|refuse|refuseByEngine|why)\(\s*",
    r"\bsay\(\s*\"\w*\"\s*,\s*",
    r"\btext:\s*",
    r"setAttribute\(\s*\"(?:aria-label|title|placeholder|alt)\"\s*,\s*",
    r"\"aria-label\":\s*",
    r"\blink\([^,()]+,\s*",
    r"\.append\((?:[^()]*?,\s*)?",
    r"\breturn\s+",
    r"\s[?:]\s+",  # a branch of a choice
    r"\bnotes\.push\(",
    r"\bparts\.push\(",
]
_LITERAL = re.compile("(?:" + "|".join(SINKS) + r")([\"'`])((?:\\.|(?!\1).)*)\1")


def _words(literal: str) -> str:
    """A literal's own words: a template's ``${...}`` (nested braces too) and escapes left
    out."""
    out, depth, i = [], 0, 0
    while i < len(literal):
        if literal.startswith("${", i):
            depth += 1
            i += 2
            continue
        c = literal[i]
        if depth and c == "{":
            depth += 1
        elif depth and c == "}":
            depth -= 1
        elif not depth:
            out.append(c)
        i += 1
    return re.sub(r"\\u[0-9a-fA-F]{4}|\\.", "", "".join(out))


def unmarked_literals(source: str) -> list[tuple[int, str]]:
    """Literals with words that a script shows without ``t(``: ``(line, literal)``."""
    found = []
    source = re.sub(r"^(\s*)//.*$", r"\1", source, flags=re.M)  # comments quote texts
    for m in _LITERAL.finditer(source):
        text = m.group(2)
        words = _words(text)
        if not re.search(r"[A-Za-z\u0600-\u06ff]{2}", words) or text in JS_ALLOWED:
            continue
        # ids, classes, paths, selectors, events, methods and codes: one token, lower case
        # or all capitals; markup (the board's SVG) has its texts filled in from t()
        token = words.strip()
        if (" " not in token and (token.islower() or token.isupper())) or "<" in token:
            continue
        found.append((source.count("\n", 0, m.start()) + 1, text))
    return found


@pytest.mark.parametrize("name", PAGES + [f"parts/{n}" for n in SHARED])
def test_every_text_of_a_page_is_marked(name: str) -> None:
    left = [(line, text) for line, text in unmarked_texts((STATIC / name).read_text())
            if text not in HTML_ALLOWED]
    assert not left, f"{name}: texts not marked data-i18n: {left}"


@pytest.mark.parametrize("name", PAGES)
def test_every_page_has_the_one_head_and_header(name: str) -> None:
    # written once (static/parts/), put into every page by the server: the same header,
    # its account menu included, on every page
    source = (STATIC / name).read_text()
    assert source.count("<!--#head-->") == 1 and source.count("<!--#header-->") == 1
    assert "<header" not in source and "<meta" not in source
    page = page_source(name)
    assert page.count('<header class="top">') == 1 and 'id="account-menu"' in page
    assert page.index("</head>") < page.index('<header class="top">')
    assert '<script type="module" src="/static/common.js"></script>' in page


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_text_a_script_shows_is_said_with_t(name: str) -> None:
    left = unmarked_literals((STATIC / name).read_text())
    assert not left, f"{name}: texts shown without t(): {left}"


def test_the_check_of_scripts_finds_an_unmarked_text() -> None:
    # the checker itself: a text shown without t() is found, one with t() and data are not
    source = ('el.textContent = "Game over";\nel.textContent = t("Game over");\n'
              'refuse(`it is not your turn: ${name}`, cell);\nbox.className = "info";\n'
              'x.title = "c3, c3-c4, xe5";\n')
    assert unmarked_literals(source) == [(1, "Game over"), (3, "it is not your turn: ${name}")]


def test_the_check_of_pages_finds_an_unmarked_text() -> None:
    page = ("<html><head><title data-i18n>T</title></head><body><p data-i18n>Yes <a>it</a>"
            "</p><p>Not marked</p><button title=\"Says\">&laquo;</button></body></html>")
    assert unmarked_texts(page) == [(1, "Not marked"), (1, "&laquo;")]
    assert [s.msgid for s in scan(page).spans if s.kind != "html"] == ["T", "Yes <a>it</a>",
                                                                         "Says"]


@pytest.mark.parametrize("name", SCRIPTS)
def test_pybabel_reads_every_message_of_a_script(name: str) -> None:
    # pybabel's script reader can lose its way (in some regular expressions) and then
    # silently misses the messages after it: every t("...") the file holds is extracted
    source = (STATIC / name).read_text()
    got = [m[2] if isinstance(m[2], str) else m[2][0] or "" for m in extract_javascript(
        io.BytesIO(source.encode()), {"t": None, "tn": (1, 2), "tx": None}, [],
        {"parse_template_string": True})]
    code = re.sub(r"^\s*//.*$", "", source, flags=re.M)  # comments show examples
    for literal in re.findall(r"\b(?:t|tn|tx)\(\s*\"((?:[^\"\\]|\\.)*)\"", code):
        assert any(msgid and msgid.startswith(literal) for msgid in got), (name, literal)


@pytest.mark.parametrize("lang", ["fr", "ar", "ha"])
@pytest.mark.parametrize("name", PAGES)
def test_a_page_is_written_in_the_language(name: str, lang: str) -> None:
    source = page_source(name)
    page = render_page(name, lang)
    assert f'<html lang="{lang}" dir="{i18n.direction(lang)}">' in page
    _ = i18n.gettext_for(lang, "webjs")
    marked = [s for s in scan(source).spans if s.kind == "text"]
    assert marked
    found = scan(page)
    texts = {s.msgid for s in found.spans if s.kind == "text"}
    for span in marked:  # every marked text is its translation, never the English one
        assert static_i18n.collapse(_(span.msgid)) in texts
        assert span.msgid in catalog(lang), span.msgid
    # the scripts' catalog is embedded, as a data block the scripts read
    block = re.search(r'<script type="application/json" id="nugar-i18n">(.*?)</script>',
                      page, re.S)
    assert block is not None
    data = json.loads(block.group(1))
    assert data["lang"] == lang and data["dir"] == i18n.direction(lang)
    assert data["messages"] == catalog(lang)
    assert data["languages"] == [[code, i18n.NATIVE_NAMES[code]] for code in i18n.LANGUAGES]
    assert page.index('id="nugar-i18n"') < page.index("</head>")


def test_an_english_page_keeps_its_texts() -> None:
    page = render_page("index.html", "en")
    assert '<html lang="en" dir="ltr">' in page
    assert ">Resign</button>" in page and '"messages": {}' in page


@pytest.mark.parametrize("lang", ["fr", "ar", "ha"])
def test_the_catalog_has_the_language_s_plural_forms(lang: str) -> None:
    forms = catalog(lang)["{n} seed"]
    assert isinstance(forms, list)
    assert len(forms) == {"fr": 3, "ar": 6, "ha": 2}[lang]  # Babel's (CLDR's) plural rules
    # the categories the page picks a form by: one for each form, in the forms' order
    assert len(static_i18n.plural_order(lang)) == len(forms)
    assert static_i18n.plural_order(lang)[-1] == "other"
    assert all("{n}" in f for f in forms)


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_page_is_told_the_languages_and_the_plural_order(lang: str) -> None:
    # static/i18n.js names no language: the switch's list and the plural categories come
    # from the server (a new language in nugar.i18n needs no change in the scripts)
    block = re.search(r'id="nugar-i18n">(.*?)</script>', render_page("learn.html", lang), re.S)
    assert block is not None
    data = json.loads(block.group(1))
    assert [code for code, _ in data["languages"]] == list(i18n.LANGUAGES)
    assert data["plurals"] == static_i18n.plural_order(lang)
    for name in SCRIPTS:
        source = (STATIC / name).read_text()
        assert "Français" not in source and '"fr"' not in source and "fr:" not in source, name


def test_the_catalog_is_served_as_json(client: TestClient) -> None:
    for lang in i18n.LANGUAGES:
        r = client.get(f"/i18n/{lang}.json")
        assert r.status_code == 200
        assert r.json() == catalog(lang)
        assert "max-age" in r.headers["cache-control"]
    assert client.get("/i18n/fr.json").json()["Resign"] == "Abandonner"
    r = client.get("/i18n/de.json")
    assert r.status_code == 404 and r.json()["error"] == "unknown_language"
    assert "fr" in r.json()["detail"]


@pytest.mark.parametrize("path", ["/", "/replay", "/signin", "/signup", "/leaderboard",
                                  "/players/someone", "/learn"])
def test_the_pages_answer_in_the_request_s_language(client: TestClient, path: str) -> None:
    r = client.get(path, headers={"accept-language": "fr-NE,fr;q=0.9,en;q=0.5"})
    assert r.status_code == 200 and '<html lang="fr" dir="ltr">' in r.text
    assert r.headers["content-language"] == "fr"
    client.cookies.set("nugar_lang", "ar")
    try:
        r = client.get(path, headers={"accept-language": "fr"})
    finally:
        client.cookies.clear()
    assert '<html lang="ar" dir="rtl">' in r.text
    r = client.get(path)
    assert '<html lang="en" dir="ltr">' in r.text


def test_the_template_is_what_pybabel_extracts_and_the_catalogs_are_complete() -> None:
    # the webjs.cfg mapping read as `pybabel extract -F` reads it (its own keywords, the page
    # extractor): the messages found are the template's, and French and Arabic translate
    # every one with the same placeholders, none fuzzy
    from pathlib import Path

    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg
    from babel.messages.pofile import read_po

    locale = Path(static_i18n.__file__).parents[2] / "locale"
    with open(locale / "webjs.cfg") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)
    found = {m[2] if isinstance(m[2], str) else m[2][0]
             for m in extract_from_dir(str(locale.parents[1]), method_map, options_map)}
    with open(locale / "webjs.pot", "rb") as f:
        template = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f) if m.id}
    assert found == template
    for lang in ("fr", "ar", "ha"):
        with open(locale / lang / "LC_MESSAGES" / "webjs.po", "rb") as f:
            po = read_po(f, locale=lang)
        assert {m.id if isinstance(m.id, str) else m.id[0] for m in po if m.id} == template
        for m in po:
            if not m.id:
                continue
            assert not m.fuzzy, m.id
            ids = [m.id] if isinstance(m.id, str) else list(m.id)
            strs = [m.string] if isinstance(m.string, str) else list(m.string)
            assert all(strs), (lang, m.id)
            want = set(re.findall(r"\{\w+\}", ids[-1]))
            # a plural form may leave the count out (« حفرتان »: two holes), never add one
            assert all(set(re.findall(r"\{\w+\}", s)) == want if len(ids) == 1
                       else set(re.findall(r"\{\w+\}", s)) <= want for s in strs), (lang, m.id)
