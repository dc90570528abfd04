"""The rules pages: the package's Markdown pages rendered to HTML.

The pages ship inside the ``nugar`` package and are read with :mod:`importlib.resources`, so an
installed wheel serves the same pages as a checkout and nothing is looked up outside the
package:

- ``docs/rules.md``, the rules contract that all games follow, served as ``/rules/rules`` and
  listed first on ``/rules`` as "Rules of all games";
- ``docs/games/<name>.md``, one page per game or preset, served as ``/rules/<name>``.

Markdown is rendered with markdown-it-py (which ``rich`` already depends on); raw HTML inside
the Markdown is not passed through. The pages link to each other with relative links, as they
would on a code host; when rendering, those links are rewritten:

- a relative link to a shipped page (``kalah.md``, ``kalah.md#notation``, ``../rules.md``,
  ``games/dara.md``) becomes ``/rules/<name>`` with its ``#fragment`` kept;
- a relative link or image to anything else (a page of the repository's ``docs/``, a
  screenshot) is not shipped, so it is not made into a dead link: the link's text (an image's
  alternative text) is rendered as plain text;
- links with a scheme (``https:``) or starting with ``/`` or ``#`` are left as written.

Two things are drawn for a player's screen:

- a fenced block whose info string is ``position`` holds a position text (``docs/records.md``,
  "Positions") on its first line and, optionally, a caption on the lines after: it becomes a
  diagram, the same SVG picture the game page draws (:func:`nugar.server.play.render.svg`), with
  its caption (on a code host the block shows as the position text itself);
- every table is put in a box that scrolls sideways on its own, so a wide table never makes
  the page wider than a phone's screen.

Every heading gets an ``id`` made the way GitHub makes its anchors (lower case, punctuation
dropped, spaces to hyphens, ``-1``, ``-2`` ... appended to repeats), so the ``#fragments``
written for the code host land on the same headings here.

Each page is served in the request's language (:mod:`.language`): ``docs/<lang>/rules.md`` and
``docs/<lang>/games/<name>.md`` where that translation exists, else the English page (a page
is translated whole, by the same name; its links name the English files, which lead to the
translated page where there is one). The page says its language and direction
(``<html lang dir>``); in a right-to-left page the diagrams, the code (move and position
texts) and the tables without words of the page's script (tables of moves) stay left to
right. The page's own words (its header, the index, the not-found page) come from the
``web`` catalog.
"""

from __future__ import annotations

import posixpath
import re
from collections import OrderedDict
from collections.abc import Sequence
from html import escape
from importlib import resources
from importlib.resources.abc import Traversable
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from ...i18n import LANGUAGES, SOURCE, Text, direction, say
from .static_i18n import i18n_block, render_part

if TYPE_CHECKING:
    from markdown_it.token import Token

#: the rules contract page, relative to the package's ``docs`` folder, and its name and title
CONTRACT = "rules.md"
CONTRACT_NAME = "rules"
CONTRACT_TITLE = Text("Rules of all games", domain="web")
#: the folder of the game pages, relative to the package's ``docs`` folder
GAMES = "games"

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")
#: what a GitHub anchor drops from a heading: all but letters, digits, ``_``, ``-`` and space
_SLUG_DROP = re.compile(r"[^\w\- ]")
#: letters of a script written right to left (a table holding none is kept left to right)
_RTL_LETTERS = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def docs_root() -> Traversable:
    """The package's ``docs`` folder (a directory of an installed wheel, a checkout's
    ``src/nugar/docs``, or a folder inside a zip file)."""
    return resources.files("nugar").joinpath("docs")


def _sources() -> dict[str, str]:
    """Every shipped page: its name -> its path relative to :func:`docs_root` (``rules.md``,
    ``games/dara.md``), the contract first, then the games in name order."""
    root = docs_root()
    found: dict[str, str] = {}
    if root.joinpath(CONTRACT).is_file():
        found[CONTRACT_NAME] = CONTRACT
    games = root.joinpath(GAMES)
    if games.is_dir():
        named = {entry.name.removesuffix(".md").lower(): entry for entry in games.iterdir()
                 if entry.name.endswith(".md") and entry.is_file()}
        for stem in sorted(named):
            if _NAME_RE.match(stem):
                found.setdefault(stem, f"{GAMES}/{named[stem].name}")
    return found


def _node(rel: str) -> Traversable:
    node = docs_root()
    for part in rel.split("/"):
        node = node.joinpath(part)
    return node


def _read(rel: str, lang: str = SOURCE) -> str:
    """The text of page ``rel`` (its English path) in ``lang``: the translation
    ``docs/<lang>/<rel>`` when there is one, else the English page."""
    return _node(_localized(rel, lang)).read_text(encoding="utf-8")


def _localized(rel: str, lang: str) -> str:
    """The path of page ``rel`` in ``lang`` (the English path where it is not translated)."""
    if lang != SOURCE and _node(f"{lang}/{rel}").is_file():
        return f"{lang}/{rel}"
    return rel


def slug(text: str, taken: dict[str, int] | None = None) -> str:
    """The anchor GitHub gives a heading with this text; ``taken`` counts the slugs already
    used on the page (it is updated), so a repeat gets ``-1``, ``-2`` ...

    >>> slug("Differences from Ludii and OpenSpiel")
    'differences-from-ludii-and-openspiel'
    >>> slug("Dara (dara)"), slug("Over: who wins?")
    ('dara-dara', 'over-who-wins')
    """
    base = _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")
    if taken is None:
        return base
    result = base
    while result in taken:
        taken[base] += 1
        result = f"{base}-{taken[base]}"
    taken[result] = 0
    return result


def _target(href: str, here: str, pages: dict[str, str]) -> str | None:
    """Where a link written in page ``here`` (a path relative to the docs folder) goes on this
    site: ``href`` itself when it is absolute, ``/rules/<name>[#fragment]`` for a shipped page,
    ``None`` for a relative link to something not shipped."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or href.startswith(("/", "#")):
        return href
    rel = posixpath.normpath(posixpath.join(posixpath.dirname(here), unquote(parts.path)))
    first, _, rest = rel.partition("/")
    if first in LANGUAGES and rest:  # a translated page's link names the page, not its language
        rel = rest
    by_path = {path: name for name, path in pages.items()}
    name = by_path.get(rel)
    if name is None:
        return None
    return f"/rules/{name}" + (f"#{parts.fragment}" if parts.fragment else "")


def _plain(children: Sequence[Token] | None) -> str:
    """The text of an inline token's children, without markup (as a heading's anchor uses)."""
    out = []
    for child in children or ():
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "image":
            out.append(_plain(child.children))
        elif child.type in ("softbreak", "hardbreak"):
            out.append(" ")
    return "".join(out)


def _fix_inline(children: list[Token], here: str, pages: dict[str, str]) -> list[Token]:
    """Rewrite the links and images of one inline run (see the module's docstring)."""
    from markdown_it.token import Token

    out: list[Token] = []
    dropping = False  # inside a link whose target is not shipped: keep its text only
    for tok in children:
        if tok.type == "link_open":
            href = _target(str(tok.attrGet("href") or ""), here, pages)
            if href is None:
                dropping = True
                continue
            tok.attrSet("href", href)
        elif tok.type == "link_close" and dropping:
            dropping = False
            continue
        elif tok.type == "image":
            src = _target(str(tok.attrGet("src") or ""), here, pages)
            if src is None or src.startswith("/rules/"):  # no image is shipped with the pages
                out.append(Token("text", "", 0, content=_plain(tok.children)))
                continue
        out.append(tok)
    return out


def diagram(source: str, rtl: bool = False, lang: str = SOURCE) -> str:
    """The HTML of a ``position`` block: a figure with the position's board (the game page's
    SVG, its labels in ``lang``) and the caption written under the position text, if any
    (``rtl``: the picture laid out left to right in a right-to-left page). A position text that
    cannot
    be read raises its :class:`~nugar.errors.NugarError`: a page must not ship a broken
    diagram."""
    from ...rules import from_position
    from ..play.render import svg

    first, _, rest = source.strip().partition("\n")
    game = from_position(first.strip())
    caption = " ".join(rest.split())
    said = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    # the board keeps its geometry in every language (a1 at the bottom left): in a right-to-left
    # page its picture is laid out left to right
    picture = svg(game, lang=lang)
    picture = f'<div dir="ltr">{picture}</div>' if rtl else picture
    return f'<figure class="diagram">{picture}{said}</figure>\n'


def _html_token(content: str) -> Token:
    from markdown_it.token import Token

    tok = Token("html_block", "", 0)
    tok.content = content
    return tok


def render(text: str, here: str, pages: dict[str, str] | None = None,
           rtl: bool = False, lang: str = SOURCE) -> tuple[str, str]:
    """The HTML of a page's Markdown ``text`` written at ``here`` (a path relative to the docs
    folder, e.g. ``games/dara.md``), and its first heading's text (empty if none). In a page
    written right to left (``rtl``) the diagrams, code and tables of moves stay left to
    right; the diagrams' labels are said in ``lang``."""
    from markdown_it import MarkdownIt

    pages = _sources() if pages is None else pages
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = md.parse(text)
    taken: dict[str, int] = {}
    title = ""
    out: list[Token] = []
    for i, tok in enumerate(tokens):
        if tok.type == "inline" and tok.children is not None:
            tok.children = _fix_inline(tok.children, here, pages)
            for child in tok.children:
                if rtl and child.type == "code_inline":  # a move or position text: ltr
                    child.attrSet("dir", "ltr")
        if rtl and tok.type in ("fence", "code_block"):
            tok.attrSet("dir", "ltr")
        if tok.type == "heading_open" and i + 1 < len(tokens):
            words = _plain(tokens[i + 1].children)
            tok.attrSet("id", slug(words, taken))
            if not title and tok.tag == "h1":
                title = words.strip()
        if tok.type == "fence" and tok.info.strip() == "position":
            out.append(_html_token(diagram(tok.content, rtl, lang)))
            continue
        if tok.type == "table_open":
            ltr = ' dir="ltr"' if rtl and not _rtl_table(tokens, i) else ""
            out.append(_html_token(f'<div class="table-scroll"{ltr}>\n'))
        out.append(tok)
        if tok.type == "table_close":
            out.append(_html_token("</div>\n"))
    return md.renderer.render(out, md.options, {}), title


def _rtl_table(tokens: Sequence[Token], start: int) -> bool:
    """Whether the table opening at ``tokens[start]`` holds words of a right-to-left script
    (a table of moves, numbers and names holds none and is kept left to right)."""
    for tok in tokens[start:]:
        if tok.type == "table_close":
            return False
        if tok.type == "inline" and _RTL_LETTERS.search(tok.content):
            return True
    return False


def wrap_page(title: str, body: str, lang: str = SOURCE, content: str | None = None,
              kind: str = "doc") -> str:
    """A whole page around ``body`` in ``lang`` (its ``lang`` and ``dir``), the body written
    in ``content`` (an untranslated page: English inside a French or Arabic page); its head's
    common lines and its header are every page's (``static/parts/``, in ``lang``), and the
    scripts' catalog is embedded for the header's language switch and account menu
    (``static/common.js``). ``kind`` is the page's class (``doc``; ``sheet``, ``print-board``
    and ``history`` for the pages to print, :mod:`.printable`), which ``static/print.css``
    lays out on A4 paper; on a page to print, a ``data-print`` button prints the page
    (``static/print.js``)."""
    main = ""
    if content is not None and content != lang:
        main = f' lang="{content}" dir="{direction(content)}"'
    # a page to print has a Print button, which a script gives its action
    printing = "" if kind == "doc" else "<script src=\"/static/print.js\"></script>"
    kind = "doc" if kind == "doc" else f"doc {kind}"
    return (f"<!doctype html><html lang=\"{lang}\" dir=\"{direction(lang)}\"><head>"
            f"{render_part('head', lang)}"
            "<link rel=\"stylesheet\" href=\"/static/print.css\">"
            f"<title>{escape(title)} - nugar</title>{i18n_block(lang)}</head>"
            f"<body class=\"{kind}\">{render_part('header', lang)}"
            f"<main class=\"{kind}\"{main}>{body}</main>{printing}</body></html>")


def _say(words: str, lang: str) -> str:
    """Page words of the ``web`` catalog in ``lang``."""
    return say(words, lang, "web")


#: the page words of this module, for the ``web`` catalog's extraction (:func:`_say` looks
#: them up by their English text)
_WORDS = (Text("Start a new game", domain="web"),
          Text("Replay a record", domain="web"), Text("Rules of the games", domain="web"),
          Text("Rules", domain="web"),
          Text("No rules pages were found in this installation of nugar.", domain="web"))


#: the links of a game's pages for teachers, in the order they are shown
_LINKS = (("sheet", Text("Rule sheet to print", domain="web")),
          ("board", Text("Board to print", domain="web")),
          ("history", Text("People and history", domain="web")))
_RULES_PAGE = Text("Rules page", domain="web")
_PRINT = Text("Print", domain="web")


def teaching_links(name: str, lang: str, here: str = "", print_button: bool = False) -> str:
    """The links from game ``name``'s pages to its rule sheet, board and history (the one
    being shown, ``here``, is not a link), and to its rules page from the others; with a
    Print button on the pages to print."""
    key = name.lower()
    parts = [f'<a href="/rules/{escape(key)}/{what}">{escape(say(words, lang))}</a>'
             for what, words in _LINKS if what != here]
    if here:
        parts.append(f'<a href="/rules/{escape(key)}">{escape(say(_RULES_PAGE, lang))}</a>')
    button = (f' <button type="button" data-print>{escape(say(_PRINT, lang))}</button>'
              if print_button else "")
    return f'<p class="teach">{" &middot; ".join(parts)}{button}</p>'


def not_found_page(title: str, text: str, lang: str = SOURCE) -> str:
    """A page for a browser that asked for something this site does not have (served with
    HTTP 404) in ``lang``: ``text`` says what was missing (both already in ``lang``), and
    links lead on to a new game and the rules."""
    body = (f"<h1>{escape(title)}</h1><p class=\"error\">{escape(text)}</p>"
            f"<p><a href=\"/\">{escape(_say('Start a new game', lang))}</a> &middot; "
            f"<a href=\"/replay\">{escape(_say('Replay a record', lang))}</a> &middot; "
            f"<a href=\"/rules\">{escape(_say('Rules of the games', lang))}</a></p>")
    return wrap_page(title, body, lang)


def _title(name: str, rel: str, lang: str = SOURCE) -> str:
    if name == CONTRACT_NAME:
        return say(CONTRACT_TITLE, lang)
    for line in _read(rel, lang).splitlines():
        if line.startswith("# "):
            return line[2:].replace("`", "").strip() or name.title()
    return name.title()


def rules_index(lang: str = SOURCE) -> str:
    """A page listing every shipped rules page, the rules contract first, with their titles
    in ``lang``."""
    pages = _sources()
    if not pages:
        none = _say("No rules pages were found in this installation of nugar.", lang)
        items = f"<p>{escape(none)}</p>"
    else:
        items = "<ul>" + "".join(
            f'<li><a href="/rules/{escape(name)}">{escape(_title(name, rel, lang))}</a></li>'
            for name, rel in pages.items()) + "</ul>"
    heading = escape(_say("Rules of the games", lang))
    return wrap_page(_say("Rules", lang), f"<h1>{heading}</h1>{items}", lang)


def _page_source(key: str, pages: dict[str, str]) -> str | None:
    """The path of the page shown as ``/rules/<key>`` (a preset without its own page shows
    its game's: dara-niger -> dara), or ``None``."""
    rel = pages.get(key)
    if rel is None:
        from ...rules import PRESETS

        preset = PRESETS.get(key)
        rel = pages.get(preset.game.lower()) if preset is not None else None
    return rel


def page_name(name: str) -> str | None:
    """The name under which ``/rules/<name>`` is rendered and kept (its lower case), or
    ``None`` if there is no page by that name (so what is kept is bounded by the pages)."""
    key = name.lower()
    if not _NAME_RE.match(key) or _page_source(key, _sources()) is None:
        return None
    return key


def rules_page(name: str, lang: str = SOURCE) -> str | None:
    """The rendered page ``name`` (a game, a preset, or ``rules`` for the contract) in
    ``lang`` (the English page where it is not translated), or ``None`` if there is none by
    that name."""
    key = name.lower()
    if not _NAME_RE.match(key):
        return None
    pages = _sources()
    rel = _page_source(key, pages)
    if rel is None:
        return None
    here = _localized(rel, lang)
    content = lang if here != rel else SOURCE
    body, title = render(_read(rel, lang), here, pages, direction(content) == "rtl", content)
    if rel != CONTRACT:  # a game's page leads to the pages teachers print (.printable)
        end = body.find("</h1>")
        body = (body[:end + 5] + teaching_links(key, lang) + body[end + 5:] if end >= 0
                else teaching_links(key, lang) + body)
    return wrap_page(title or key.title(), body, lang, content)


def localized_text(rel: str, lang: str) -> tuple[str, str, str]:
    """Page ``rel`` (its English path under the docs folder) in ``lang``: its Markdown text,
    the path it was read from (``rel`` itself where it is not translated) and the language
    it is written in."""
    here = _localized(rel, lang)
    return _node(here).read_text(encoding="utf-8"), here, lang if here != rel else SOURCE


def page_of(name: str) -> str | None:
    """The path of the game page that ``name`` shows (a game or a preset with its own page;
    a preset without its own page shows its game's page, dara-niger -> dara), ``None`` for
    the rules contract and unknown names."""
    key = name.lower()
    if not _NAME_RE.match(key) or key == CONTRACT_NAME:
        return None
    return _page_source(key, _sources())


def shipped() -> dict[str, str]:
    """Every shipped page: its name -> its path under the docs folder."""
    return _sources()


def node(rel: str) -> Traversable:
    """The file of page ``rel`` (a path under the docs folder)."""
    return _node(rel)


class RenderedPages:
    """The rules pages and their index as rendered, per page name and language, for one
    application: they change only with a release, so each is rendered once (about 30 ms
    of CPU for the longest) and then answered from here. At most ``size`` are kept (the
    least recently used go first); the names are only those of pages that exist
    (:func:`page_name`), so the real bound is the pages times the languages."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[str, str], str] = OrderedDict()

    def get(self, name: str, lang: str) -> str | None:
        """The page kept for ``name`` (``""``: the index) in ``lang``, or ``None``."""
        found = self._kept.get((name, lang))
        if found is not None:
            self._kept.move_to_end((name, lang))
        return found

    def clear(self) -> None:
        """Forget every kept page (a test that changes the pages under a running app)."""
        self._kept.clear()

    def keep(self, name: str, lang: str, page: str) -> None:
        self._kept[(name, lang)] = page
        self._kept.move_to_end((name, lang))
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
