"""The rules pages served at /rules: read from the package's resources, links between pages
rewritten to the site's addresses, headings given GitHub-style anchors."""

from __future__ import annotations

from html.parser import HTMLParser
from importlib import resources
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from nugar.server.http import pages


class _Links(HTMLParser):
    """The hrefs, ids and image sources of an HTML page."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.images: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "a" and a.get("href") is not None:
            self.hrefs.append(str(a["href"]))
        if tag == "img":
            self.images.append(str(a.get("src")))


# the fixture ``client`` (the web app on a fresh database) is in conftest.py


def shipped() -> list[str]:
    """The pages the package ships, by name: the contract first, then the games by name."""
    root = resources.files("nugar").joinpath("docs")
    games = sorted(e.name.removesuffix(".md") for e in root.joinpath("games").iterdir()
                   if e.name.endswith(".md"))
    return (["rules"] if root.joinpath("rules.md").is_file() else []) + games


#: the links of every page's header (static/parts/header.html), before a page's own
HEADER_LINKS = (Path(pages.__file__).parents[1] / "static" / "parts" / "header.html"
                ).read_text(encoding="utf-8").count("<a href")


def listed(c: TestClient) -> list[str]:
    r = c.get("/rules")
    assert r.status_code == 200
    return [h for h in _Links(r.text).hrefs if h.startswith("/rules/")]


# --- the shipped pages ----------------------------------------------------------------------
def test_pages_are_read_from_the_package_resources(client: TestClient) -> None:
    root = pages.docs_root()
    assert root == resources.files("nugar").joinpath("docs")
    assert isinstance(root, Path) and root.is_relative_to(Path(pages.__file__).parents[2])
    assert len(shipped()) >= 6 and "dara" in shipped() and "kalah" in shipped()
    assert listed(client) == [f"/rules/{n}" for n in shipped()]


def test_nothing_is_read_from_outside_the_package(client: TestClient, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # an installation whose package has no pages serves none: no fallback to a checkout
    monkeypatch.setattr(pages, "docs_root", lambda: tmp_path)
    assert "No rules pages were found" in client.get("/rules").text
    assert client.get("/rules/dara").status_code == 404
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "dara.md").write_text("# Only here\n", encoding="utf-8")
    # pages change only with a release: the app keeps each one rendered (a new app here)
    client.app.state.services.pages.clear()  # type: ignore[attr-defined]
    assert listed(client) == ["/rules/dara"]
    assert '<h1 id="only-here">Only here</h1>' in client.get("/rules/dara").text


def test_every_page_renders_and_every_link_resolves(client: TestClient) -> None:
    names = shipped()
    seen: dict[str, _Links] = {}
    for name in names:
        r = client.get(f"/rules/{name}")
        assert r.status_code == 200, name
        seen[name] = _Links(r.text)
        # no script but the header's (the Markdown's raw HTML is not passed through) and
        # its catalog, a data block
        assert "<h1 " in r.text
        assert r.text.replace('<script type="module" src="/static/common.js"></script>', "") \
            .replace('<script type="application/json" id="nugar-i18n">', "").count("<script") == 0
    checked = 0
    for name, page in seen.items():
        for href in page.hrefs:
            parts = urlsplit(href)
            # no relative link is left to resolve against /rules/<name> and 404
            assert parts.scheme in ("http", "https", "mailto") or href.startswith(("/", "#")), \
                f"{name}: {href}"
            if href.startswith("#"):
                assert href[1:] in page.ids, f"{name}: {href}"
            if not parts.path.startswith("/rules"):
                continue
            target = parts.path.removeprefix("/rules").strip("/")
            r = client.get(parts.path)
            assert r.status_code == 200, f"{name}: {href}"
            if parts.fragment:
                ids = seen[target].ids if target in seen else _Links(r.text).ids
                assert parts.fragment in ids, f"{name}: {href} has no such anchor"
            checked += 1
        assert not [src for src in page.images if not src.startswith("http")], name
    assert checked > 20  # the game pages link to each other a lot


def test_unknown_names_are_404(client: TestClient) -> None:
    for name in ("chess", "dara.md", "...", "%2e%2e%2fapp", "games", "DARA-X", "a" * 60):
        r = client.get(f"/rules/{name}")
        assert r.status_code == 404, name
    # a browser asked: a page (HTML) that says so, with links on, not JSON
    r = client.get("/rules/chess")
    assert r.headers["content-type"].startswith("text/html")
    assert "No such rules page" in r.text and 'href="/rules"' in r.text
    assert client.get("/rules/DARA").status_code == 200


# --- link rewriting and anchors, on a docs folder of our own ----------------------------------
CONTRACT = """# The rules contract

Every game: [Dara](games/dara.md), [its notation](games/dara.md#notation),
[Kalah](./games/kalah.md). Not shipped: [the AI](../../../docs/ai.md),
[a picture](../screenshots/x.png), [nothing]().
Outside: [Wikipedia](https://en.wikipedia.org/wiki/Dara_(game)), [top](#the-rules-contract).
<b>raw</b>
"""
DARA = """# Dara (`dara`)

See [the contract](../rules.md#the-rules-contract) and [Kalah's notation](kalah.md#notation).
The [AI](../../../../docs/ai.md) plays too. ![board](../../screenshots/dara.png)

## Notation

## Notation

## Who wins? The *first* player, or_not
"""
KALAH = "# Kalah\n\n## Notation\n\nBack to [dara](dara.md).\n"


@pytest.fixture()
def own_docs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "docs"
    (root / "games").mkdir(parents=True)
    (root / "rules.md").write_text(CONTRACT, encoding="utf-8")
    (root / "games" / "dara.md").write_text(DARA, encoding="utf-8")
    (root / "games" / "kalah.md").write_text(KALAH, encoding="utf-8")
    monkeypatch.setattr(pages, "docs_root", lambda: root)
    return root


def test_contract_is_listed_first_then_the_games(client: TestClient, own_docs: Path) -> None:
    html = client.get("/rules").text
    assert listed(client) == ["/rules/rules", "/rules/dara", "/rules/kalah"]
    assert '<a href="/rules/rules">Rules of all games</a>' in html
    assert '<a href="/rules/dara">Dara (dara)</a>' in html


def test_links_between_pages_become_site_addresses(client: TestClient, own_docs: Path) -> None:
    contract = client.get("/rules/rules").text
    links = _Links(contract)
    assert links.hrefs[HEADER_LINKS:] == ["/rules/dara", "/rules/dara#notation", "/rules/kalah",
                               "https://en.wikipedia.org/wiki/Dara_(game)",
                               "#the-rules-contract"]
    # links to what is not shipped keep their text and lose their target
    assert "the AI" in contract and "ai.md" not in contract and "x.png" not in contract
    assert "a picture" in contract and "nothing" in contract
    assert "&lt;b&gt;raw&lt;/b&gt;" in contract and "<b>" not in contract  # raw HTML off

    dara = client.get("/rules/dara").text
    links = _Links(dara)
    # after the header, the pages to print (nugar.server.http.printable), then the page's own
    assert links.hrefs[HEADER_LINKS:] == ["/rules/dara/sheet", "/rules/dara/board",
                                          "/rules/dara/history", "/rules/rules#the-rules-contract",
                                          "/rules/kalah#notation"]
    assert "The AI plays too." in dara and "ai.md" not in dara
    assert links.images == [] and "board" in dara  # the unshipped image: its alt text only
    assert links.ids - {"account-menu", "nugar-i18n"} == {  # the header's and its catalog's
        "dara-dara", "notation", "notation-1", "who-wins-the-first-player-or_not"}
    assert "<title>Dara (dara) - nugar</title>" in dara
    assert _Links(client.get("/rules/kalah").text).hrefs[HEADER_LINKS + 3:] == ["/rules/dara"]


def test_a_preset_without_a_page_shows_its_games_page(client: TestClient,
                                                      own_docs: Path) -> None:
    # the same page, its links to the pages to print naming the preset asked for
    niger = client.get("/rules/dara-niger").text
    assert '<a href="/rules/dara-niger/board">' in niger
    assert niger.replace("/rules/dara-niger/", "/rules/dara/") == client.get("/rules/dara").text
    assert client.get("/rules/dala").status_code == 404  # its game has no page here


@pytest.mark.parametrize(("heading", "anchor"), [
    ("Options and presets", "options-and-presets"),
    ("Dara (dara)", "dara-dara"),
    ("Differences from Ludii and OpenSpiel", "differences-from-ludii-and-openspiel"),
    ("Step 2: sow -- then capture!", "step-2-sow----then-capture"),
    ("Règles du jeu", "règles-du-jeu"),
    ("snake_case  twice", "snake_case--twice"),
])
def test_slug_follows_github(heading: str, anchor: str) -> None:
    assert pages.slug(heading) == anchor


def test_slug_numbers_repeats() -> None:
    taken: dict[str, int] = {}
    assert [pages.slug(h, taken) for h in ("Notes", "Notes", "notes", "Notes-1")] == \
        ["notes", "notes-1", "notes-2", "notes-1-1"]
