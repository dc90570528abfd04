"""What the tests of the translated pages share (``test_translated_content.py``,
``test_printable.py``): the package's docs folder, reading a page from it, and a page's
outline, what a translation keeps of the English page (heading levels, fenced blocks, code
spans, links)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from markdown_it import MarkdownIt
from markdown_it.token import Token

DOCS = resources.files("nugar").joinpath("docs")


def read(root: Any, rel: str) -> str:
    node = root
    for part in rel.split("/"):
        node = node.joinpath(part)
    text: str = node.read_text(encoding="utf-8")
    return text


def exists(root: Any, rel: str) -> bool:
    node = root
    for part in rel.split("/"):
        node = node.joinpath(part)
    return bool(node.is_file())


MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def walk(tokens: list[Token]) -> Iterator[Token]:
    for tok in tokens:
        yield tok
        if tok.children:
            yield from walk(tok.children)


def outline(text: str) -> dict[str, Any]:
    """What a translation of a page keeps: heading levels, fenced blocks, code spans, links."""
    tokens = list(walk(MD.parse(text)))
    fences = [(t.info.strip(), t.content.split("\n")[0] if t.info.strip() == "position"
               else t.content) for t in tokens if t.type == "fence"]
    links = [str(t.attrGet("href")) for t in tokens if t.type == "link_open"]
    return {
        "headings": [t.tag for t in tokens if t.type == "heading_open"],
        "fences": fences,
        "captions": [t.content.split("\n", 1)[1].strip() for t in tokens
                     if t.type == "fence" and t.info.strip() == "position"],
        "code": Counter(t.content for t in tokens if t.type == "code_inline"),
        "external": Counter(h for h in links if urlsplit(h).scheme),
        "relative": [h for h in links if not urlsplit(h).scheme and not h.startswith("/")],
    }
