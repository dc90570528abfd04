"""The rules pages: each ``docs/games/<name>.md`` rendered to HTML.

The pages are read from the package (``nugar/docs/games``, when shipped there) or else from
the source checkout's ``docs/games``. Markdown is rendered with markdown-it-py, which ``rich``
already depends on; raw HTML inside the Markdown is not passed through.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

_HERE = Path(__file__).resolve().parent
DOC_DIRS = (_HERE.parent / "docs" / "games", _HERE.parents[2] / "docs" / "games")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")


def _docs() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in DOC_DIRS:
        if folder.is_dir():
            for path in sorted(folder.glob("*.md")):
                found.setdefault(path.stem.lower(), path)
    return found


def _page(title: str, body: str) -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{escape(title)} - nugar</title>"
            "<link rel=\"stylesheet\" href=\"/static/style.css\"></head>"
            "<body class=\"doc\"><header class=\"top\"><a href=\"/\">nugar</a> "
            "<a href=\"/rules\">rules</a></header>"
            f"<main class=\"doc\">{body}</main></body></html>")


def rules_index() -> str:
    """A page listing every rules page found."""
    docs = _docs()
    if not docs:
        items = "<p>No rules pages were found (they live in <code>docs/games/</code>).</p>"
    else:
        items = "<ul>" + "".join(f'<li><a href="/rules/{escape(n)}">{escape(n.title())}</a></li>'
                                 for n in docs) + "</ul>"
    return _page("Rules", f"<h1>Rules of the games</h1>{items}")


def rules_page(name: str) -> str | None:
    """The rendered page of one game, or ``None`` if there is none by that name."""
    key = name.lower()
    if not _NAME_RE.match(key):
        return None
    docs = _docs()
    path = docs.get(key)
    if path is None:
        # a preset without its own page shows its game's page (dara-niger -> dara)
        from ..rules import PRESETS

        preset = PRESETS.get(key)
        path = docs.get(preset.game.lower()) if preset is not None else None
    if path is None:
        return None
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    body = md.render(path.read_text(encoding="utf-8"))
    return _page(key.title(), body)
