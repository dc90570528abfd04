"""The web app's static pages and scripts in the reader's language (the ``webjs`` catalog).

The pages (``static/*.html``) are written in English and marked for translation:

- an element with a ``data-i18n`` attribute: its content (text, maybe with inline markup such
  as a link) is one message, its whitespace collapsed; its translation replaces it;
- the attributes ``title``, ``placeholder``, ``aria-label`` and ``alt`` of any element are
  always text a person reads (or hears): each value is a message.

:func:`render_page` answers a page in a language: the marked texts translated, ``<html
lang=".." dir="..">`` set, and the catalog the scripts read (:func:`catalog`) embedded as a
JSON data block (``<script type="application/json" id="nugar-i18n">``: not a script the
Content-Security-Policy would refuse), so the first paint is already in that language and
``static/i18n.js`` (``t("...")``) needs no request of its own; the block also says the
language's plural categories and lists the site's languages (:data:`nugar.i18n.LANGUAGES`,
each in its own name), so the scripts name no language themselves. The same catalog is
served as ``GET /i18n/{lang}.json`` (:mod:`.routes_i18n`).

What every page shares is written once, in ``static/parts/``: ``head.html`` (the lines of
``<head>`` every page has: the style sheets and ``common.js``, the header's script) and
``header.html`` (the header: the links and the account menu's place). A page puts them in
with ``<!--#head-->`` and ``<!--#header-->`` (:func:`page_source`); the rules pages, which
the server writes itself, take the same parts in their language (:func:`render_part`).

:func:`extract_html` is the ``pybabel extract`` method for the marked pages (referenced by
``nugar/locale/webjs.cfg``); :func:`unmarked_texts` lists the texts of a page outside marked
elements (tests/test_i18n_static.py fails on any that is not on its allow-list).
"""

from __future__ import annotations

import functools
import html
import json
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import IO, Any, NamedTuple

from ... import i18n

#: the folder of the static pages and scripts
STATIC = Path(__file__).parent.parent / "static"
#: the parts every page shares (``<!--#name-->`` in a page: ``static/parts/name.html``)
PARTS = STATIC / "parts"
_INCLUDE = re.compile(r"<!--#(\w+)-->")
#: the attribute that marks an element whose content is one message
MARK = "data-i18n"
#: attributes whose values are always text a person reads or hears
TEXT_ATTRS = ("title", "placeholder", "aria-label", "alt")
#: elements whose content is never text on the page
_RAW = frozenset({"script", "style"})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_ATTR = re.compile(r"""\s([a-zA-Z-]+)\s*=\s*("([^"]*)"|'([^']*)')""")


def collapse(text: str) -> str:
    """``text`` with its runs of whitespace made one space and its ends trimmed: a message
    as the catalog holds it, however the page's source is indented."""
    return " ".join(text.split())


class Span(NamedTuple):
    """A piece of a page's source: ``start`` to ``end`` (offsets), what it is and its
    message (``kind``: ``"text"``, the content of a marked element, kept as markup;
    ``"attr"``, an attribute's value, unescaped; ``"html"``, the ``<html>`` start tag)."""

    start: int
    end: int
    kind: str
    msgid: str
    line: int


class _Scan(HTMLParser):
    """Finds the marked texts, the text attributes and the texts left unmarked of a page."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.source = source
        self.lines = [0]
        for m in re.finditer("\n", source):
            self.lines.append(m.end())
        self.spans: list[Span] = []
        self.unmarked: list[tuple[int, str]] = []
        self.marked: tuple[str, int, int, int] | None = None  # tag, depth, content start, line
        self.depth = 0  # open elements named as the marked one, inside it
        self.raw = 0

    def at(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        start = self.at()
        text = self.get_starttag_text() or ""
        end = start + len(text)
        line = self.getpos()[0]
        if tag == "html":
            self.spans.append(Span(start, end, "html", "", line))
        for m in _ATTR.finditer(text):
            name = m.group(1).lower()
            value = m.group(3) if m.group(3) is not None else m.group(4)
            if name in TEXT_ATTRS and value.strip():
                at = start + m.start(3 if m.group(3) is not None else 4)
                self.spans.append(Span(at, at + len(value), "attr",
                                       collapse(html.unescape(value)), line))
        if tag in _RAW:
            self.raw += 1
        if self.marked is not None:
            if tag == self.marked[0] and tag not in _VOID:
                self.depth += 1
            if any(name == MARK for name, _ in attrs):
                raise ValueError(f"line {line}: a {MARK} element inside another")
        elif any(name == MARK for name, _ in attrs):
            if tag in _VOID:
                raise ValueError(f"line {line}: {MARK} on <{tag}>, which has no content")
            self.marked = (tag, 0, end, line)
            self.depth = 0

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _RAW:
            self.raw -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _RAW:
            self.raw -= 1
        if self.marked is None or tag != self.marked[0]:
            return
        if self.depth:
            self.depth -= 1
            return
        _, _, begin, line = self.marked
        end = self.at()
        msgid = collapse(self.source[begin:end])
        if not msgid:
            raise ValueError(f"line {line}: an empty {MARK} element")
        self.spans.append(Span(begin, end, "text", msgid, line))
        self.marked = None

    def _text(self, text: str) -> None:
        if self.marked is None and not self.raw and text.strip():
            self.unmarked.append((self.getpos()[0], collapse(text)))

    def handle_data(self, data: str) -> None:
        self._text(data)

    def handle_entityref(self, name: str) -> None:
        self._text(f"&{name};")

    def handle_charref(self, name: str) -> None:
        self._text(f"&#{name};")


def scan(source: str) -> _Scan:
    """The marked texts, text attributes and unmarked texts of a page's source."""
    found = _Scan(source)
    found.feed(source)
    found.close()
    if found.marked is not None:
        raise ValueError(f"line {found.marked[3]}: a {MARK} element that is never closed")
    return found


def unmarked_texts(source: str) -> list[tuple[int, str]]:
    """The texts of a page outside marked elements (scripts and styles aside), with their
    lines: each is either not for reading (a symbol) or a text to mark."""
    return scan(source).unmarked


def extract_html(fileobj: IO[bytes], keywords: Any, comment_tags: Any,
                 options: Any) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """``pybabel extract``'s method for the marked pages: each marked element's content and
    each text attribute's value, with its line."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    for span in scan(source).spans:
        if span.kind != "html":
            yield span.line, None, span.msgid, []


def catalog(lang: str) -> dict[str, str | list[str]]:
    """The ``webjs`` catalog in ``lang`` as the browser reads it: ``{msgid: msgstr}``, and for a
    message with plural forms ``{singular: [form, ...]}`` in the order of the language's
    plural rule (static/i18n.js picks one with ``Intl.PluralRules``). Empty for English."""
    return dict(_catalog(i18n.check_language(lang)))


@functools.cache
def _catalog(lang: str) -> tuple[tuple[str, str | list[str]], ...]:
    found = getattr(i18n.translations(lang, "webjs"), "_catalog", {})
    out: dict[str, str | list[str]] = {}
    plural: dict[str, dict[int, str]] = {}
    for key, value in found.items():
        if isinstance(key, tuple):
            plural.setdefault(str(key[0]), {})[int(key[1])] = str(value)
        elif key and value:
            out[str(key)] = str(value)
    for msgid, forms in plural.items():
        out[msgid] = [forms[i] for i in sorted(forms)]
    return tuple(sorted(out.items()))


def catalog_json(lang: str) -> str:
    """:func:`catalog` as JSON text that may stand inside a ``<script>`` element."""
    return json.dumps(catalog(lang), ensure_ascii=False, sort_keys=True).replace("</", "<\\/")


def plural_order(lang: str) -> list[str]:
    """The plural categories of ``lang`` in the order of its catalogs' plural forms: CLDR's
    categories in the order Babel writes a gettext ``Plural-Forms`` from them (zero, one,
    two, few, many, other), which ``static/i18n.js`` needs to pick a form with the browser's
    ``Intl.PluralRules``."""
    from babel import Locale

    tags = Locale.parse(i18n.check_language(lang)).plural_form.tags
    return [tag for tag in ("zero", "one", "two", "few", "many") if tag in tags] + ["other"]


def i18n_block(lang: str) -> str:
    """The JSON data block the scripts read (``#nugar-i18n``): the language, its direction,
    the catalog, its plural categories and the site's languages, each in its own name."""
    languages = json.dumps([[code, i18n.NATIVE_NAMES.get(code, code)]
                            for code in i18n.LANGUAGES], ensure_ascii=False).replace("</", "<\\/")
    return (f'<script type="application/json" id="nugar-i18n">{{"lang": "{lang}", '
            f'"dir": "{i18n.direction(lang)}", "plurals": {json.dumps(plural_order(lang))}, '
            f'"languages": {languages}, '
            f'"messages": {catalog_json(lang)}}}</script>\n')


def page_source(name: str) -> str:
    """The source of the static page ``name`` with the shared parts put in: each
    ``<!--#part-->`` replaced by ``static/parts/part.html``."""
    source = (STATIC / name).read_text(encoding="utf-8")
    return _INCLUDE.sub(lambda m: _part(m.group(1)), source)


def _part(name: str) -> str:
    return (PARTS / f"{name}.html").read_text(encoding="utf-8").rstrip("\n")


def _translated(source: str, lang: str) -> str:
    """``source`` with its marked texts and text attributes in ``lang``, and its ``<html>``
    tag saying the language and direction."""
    _ = i18n.gettext_for(lang, "webjs")
    out = source
    for span in sorted(scan(source).spans, reverse=True):
        if span.kind == "html":
            new = f'<html lang="{lang}" dir="{i18n.direction(lang)}">'
        elif span.kind == "attr":
            new = html.escape(_(span.msgid), quote=True)
        else:
            new = _(span.msgid)
        out = out[:span.start] + new + out[span.end:]
    return out


@functools.cache
def render_part(name: str, lang: str) -> str:
    """The shared part ``name`` (``"head"``, ``"header"``) in ``lang``, for a page the server
    writes itself (the rules pages)."""
    return _translated(_part(name), i18n.check_language(lang))


@functools.cache
def render_page(name: str, lang: str) -> str:
    """The static page ``name`` (``index.html``) in ``lang``: the shared parts put in, its
    marked texts translated, ``<html lang dir>`` set and the scripts' catalog embedded (made
    once per page and language: the files never change while the server runs)."""
    out = _translated(page_source(name), lang)
    return out.replace("</head>", i18n_block(lang) + "</head>", 1)
