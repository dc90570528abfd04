"""The repository stands alone: nothing points outside it, every relative Markdown link leads to
a file of the repository, and the rules page (``nugar/docs/rules.md``) documents exactly the
options, values, defaults and presets that the engine defines."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path

import pytest

from nugar.rules.options import (
    PRESETS,
    AlignmentOptions,
    SowingOptions,
    format_value,
    option_fields,
)

ROOT = Path(__file__).resolve().parent.parent
RULES_PAGE = ROOT / "src" / "nugar" / "docs" / "rules.md"
PACKAGE_DOCS = ROOT / "src" / "nugar" / "docs"

# Places whose files must not refer to anything beside the repository.
CHECKED = ("src", "tests", "benchmarks", "docs", ".ci", "README.md", "pyproject.toml")
# Written in pieces so that this file does not trip its own check.
FORBIDDEN = ("../" + "shared", "shared" + "/fixtures", "shared" + "/seeds", "RULES" + ".md")
SKIPPED_DIRS = {"__pycache__", "build", "dist", "node_modules"}
BINARY_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".ico", ".gz", ".zip", ".whl", ".pyc",
                   ".so", ".sqlite", ".db", ".woff", ".woff2"}


def _repository_files() -> list[Path]:
    """Files of the working tree that git keeps (tracked or new, not ignored); without git,
    every file except caches, build output and hidden folders."""
    git = shutil.which("git")
    if git is not None and (ROOT / ".git").exists():
        out = subprocess.run(
            [git, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True).stdout.decode()
        return sorted({ROOT / name for name in out.split("\0") if name
                       and (ROOT / name).is_file()})
    found = []
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if any(p in SKIPPED_DIRS or p.endswith(".egg-info")
               or (p.startswith(".") and p != ".ci") for p in parts[:-1]):
            continue
        if path.is_file():
            found.append(path)
    return sorted(found)


FILES = _repository_files()


def _under(path: Path, places: tuple[str, ...]) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return any(rel == place or rel.startswith(place + "/") for place in places)


def test_the_file_list_covers_the_repository() -> None:
    rels = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert {"README.md", "pyproject.toml", "src/nugar/rules/options.py",
            "tests/test_standalone.py"} <= rels


CHECKED_FILES = [p for p in FILES if _under(p, CHECKED) and p.suffix not in BINARY_SUFFIXES]


def test_no_file_refers_to_material_beside_the_repository() -> None:
    offences = []
    for path in CHECKED_FILES:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            offences += [f"{path.relative_to(ROOT)}:{number}: {word}"
                         for word in FORBIDDEN if word in line]
    assert not offences, "references outside the repository:\n" + "\n".join(offences)


# --- relative links in Markdown ---------------------------------------------------------------

MARKDOWN = [p for p in FILES if p.suffix == ".md"]
FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)["']""")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines outside fenced code blocks, with inline code spans blanked out."""
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
            continue
        if fence is None:
            yield number, CODE_SPAN.sub("", line)


def _destination(line: str, start: int) -> str:
    """The link destination that begins at ``line[start]`` (just after ``](``): either
    ``<...>`` or text with balanced parentheses up to a space or the closing parenthesis."""
    if line.startswith("<", start):
        end = line.find(">", start)
        return line[start + 1:end] if end != -1 else line[start + 1:]
    depth, i = 0, start
    while i < len(line):
        c = line[i]
        if c == "(":
            depth += 1
        elif c == ")":
            if depth == 0:
                break
            depth -= 1
        elif c.isspace():
            break
        i += 1
    return line[start:i]


def markdown_links(text: str) -> list[tuple[int, str]]:
    """Every link destination of a Markdown text, with its line number: inline links and
    images, reference definitions and HTML ``href``/``src`` attributes, outside code."""
    links = []
    for number, line in _prose_lines(text):
        links += [(number, _destination(line, m.end())) for m in re.finditer(r"\]\(", line)]
        m = REFERENCE_DEFINITION.match(line)
        if m:
            links.append((number, m.group(1).strip("<>")))
        links += [(number, m.group(1)) for m in HTML_LINK.finditer(line)]
    return links


def test_link_finder_reads_the_forms_in_use() -> None:
    text = ("See [a](b.md#x), ![img](pics/c.png \"title\") and [w](https://x.org/A_(b)).\n"
            "`[not](a-link.md)`\n```\n[not](either.md)\n```\n[ref]: <d e.md>\n"
            '<a href="f.md">f</a>\n')
    assert [d for _, d in markdown_links(text)] == [
        "b.md#x", "pics/c.png", "https://x.org/A_(b)", "d e.md", "f.md"]


def _relative_links(path: Path) -> list[tuple[int, str]]:
    # a link from the site's root (``/rules/dara/sheet``) is an address the web app serves,
    # not a file (tests/test_printable.py asks the app for the pages these links name)
    return [(n, d) for n, d in markdown_links(path.read_text(encoding="utf-8"))
            if d and not d.startswith("#") and not SCHEME.match(d) and not d.startswith("/")]


def test_the_markdown_files_of_the_repository_are_found() -> None:
    rels = {p.relative_to(ROOT).as_posix() for p in MARKDOWN}
    assert {"README.md", "docs/architecture.md", "src/nugar/docs/rules.md",
            "src/nugar/docs/games/dara.md", "tests/fixtures/README.md"} <= rels


@pytest.mark.parametrize("path", MARKDOWN, ids=[p.relative_to(ROOT).as_posix() for p in MARKDOWN])
def test_relative_links_resolve(path: Path) -> None:
    broken = []
    for number, dest in _relative_links(path):
        target = (path.parent / dest.split("#", 1)[0].split("?", 1)[0]).resolve()
        if not target.exists():
            broken.append(f"{path.relative_to(ROOT)}:{number}: {dest}")
    assert not broken, "links to missing files:\n" + "\n".join(broken)


PATH_SPAN = re.compile(r"`([\w.*-]+(?:/[\w.*-]+)*/[\w*-]+\.[A-Za-z][\w.]*)`")
PATH_BASES = (ROOT, ROOT / "src", ROOT / "src" / "nugar")


def path_mentions(text: str) -> list[tuple[int, str]]:
    """File paths written as code in the prose of a Markdown text (``tests/fixtures/perft.md``,
    ``kernels/sowing.py``): a slash and a file extension, no URL."""
    return [(number, m.group(1)) for number, line in _prose_lines_keeping_code(text)
            for m in PATH_SPAN.finditer(line)]


def _prose_lines_keeping_code(text: str) -> Iterator[tuple[int, str]]:
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
        elif fence is None:
            yield number, line


def test_path_finder_reads_paths_only() -> None:
    text = ("`tests/fixtures/perft.md`, `docs/games/*.md`, `kernels/sowing.py`, `1/2-1/2`,\n"
            "`/rules/dara`, `dara.md`, `https://x.org/a.md`, `c3-c4`\n```\n`no/such.md`\n```\n")
    assert [p for _, p in path_mentions(text)] == [
        "tests/fixtures/perft.md", "docs/games/*.md", "kernels/sowing.py"]


@pytest.mark.parametrize("path", MARKDOWN, ids=[p.relative_to(ROOT).as_posix() for p in MARKDOWN])
def test_file_paths_named_in_the_text_exist(path: Path) -> None:
    """A path written as code names a file of the repository, read from the page's folder,
    the repository root, ``src/`` or ``src/nugar/`` (globs must match something). A path that
    starts with a top-level folder (``docs/``, ``tests/``) is read from the root only, so that
    ``docs/games/dara.md`` is not excused by ``src/nugar/docs/games/dara.md``."""
    missing = []
    for n, name in path_mentions(path.read_text(encoding="utf-8")):
        top = name.split("/", 1)[0]
        bases = (path.parent, ROOT) if (ROOT / top).is_dir() else (path.parent, *PATH_BASES)
        if not any(any(base.glob(name)) if "*" in name else (base / name).exists()
                   for base in bases):
            missing.append(f"{path.relative_to(ROOT)}:{n}: {name}")
    assert not missing, "paths that name no file:\n" + "\n".join(missing)


PACKAGE_MARKDOWN = [p for p in MARKDOWN if PACKAGE_DOCS in p.parents]


@pytest.mark.parametrize("path", PACKAGE_MARKDOWN,
                         ids=[p.relative_to(ROOT).as_posix() for p in PACKAGE_MARKDOWN])
def test_package_pages_link_only_inside_the_package_docs(path: Path) -> None:
    """The pages under ``nugar/docs`` ship in the wheel and are served by the web app, where
    the repository's other files do not exist."""
    outside = [f"{path.relative_to(ROOT)}:{n}: {d}" for n, d in _relative_links(path)
               if PACKAGE_DOCS not in (path.parent / d.split("#", 1)[0]).resolve().parents]
    assert not outside, "links leaving nugar/docs:\n" + "\n".join(outside)


# --- the rules page against the engine --------------------------------------------------------


def _rules_page() -> str:
    return RULES_PAGE.read_text(encoding="utf-8")


def _code_names(text: str) -> set[str]:
    return set(re.findall(r"`([^`\n]+)`", text))


def test_rules_page_names_every_option_value_and_preset() -> None:
    names = _code_names(_rules_page())
    for options_type in (AlignmentOptions, SowingOptions):
        for f in option_fields(options_type):
            assert f.name in names, f"option {f.name} is not on the rules page"
            for value in f.metadata.get("values", ()):
                assert value in names, f"value {value} of option {f.name} is not on the page"
    for preset in PRESETS:
        assert preset in names, f"preset {preset} is not on the rules page"


def _tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of a text, each a list of rows of cells (separator rows dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        if line.strip().startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(re.fullmatch(r":?-+:?", c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _option_tables() -> list[tuple[list[str], list[list[str]]]]:
    """The page's option tables: a header ``option | values | `preset` ... | meaning``."""
    found = []
    for table in _tables(_rules_page()):
        header = table[0]
        if header[:2] == ["option", "values"]:
            found.append(([c.strip("`") for c in header], table[1:]))
    return found


def test_rules_page_option_tables_match_the_presets() -> None:
    tables = _option_tables()
    assert len(tables) == 2, "expected one option table per family"
    seen: dict[str, set[str]] = {}
    for header, rows in tables:
        columns = {name: i for i, name in enumerate(header) if name in PRESETS}
        assert columns, f"option table without preset columns: {header}"
        families = {PRESETS[name].family for name in columns}
        assert len(families) == 1, f"presets of two families in one table: {header}"
        family = families.pop()
        options_type = type(PRESETS[next(iter(columns))].options)
        by_name = {f.name: f for f in fields(options_type)}
        for row in rows:
            options = re.findall(r"`([^`]+)`", row[0])
            assert options and all(o in by_name for o in options), f"bad row {row}"
            field_values = by_name[options[0]].metadata.get("values")
            if field_values:
                assert set(re.findall(r"`([^`]+)`", row[1])) == set(field_values), row
            elif by_name[options[0]].metadata["kind"] == "switch":
                assert row[1] == "on/off", row
            elif by_name[options[0]].metadata["off_ok"]:
                assert "off" in row[1], row
            for preset, i in columns.items():
                shown = [v.strip().strip("`") for v in row[i].split(",")]
                wanted = [format_value(getattr(PRESETS[preset].options, o)) for o in options]
                assert shown == wanted, f"{preset} {options}: page {shown}, engine {wanted}"
            seen.setdefault(family, set()).update(options)
    assert seen == {"alignment": {f.name for f in fields(AlignmentOptions)},
                    "sowing": {f.name for f in fields(SowingOptions)}}
    all_columns = {name for header, _ in tables for name in header if name in PRESETS}
    assert all_columns == set(PRESETS)


def test_rules_page_cites_its_sources() -> None:
    page = _rules_page()
    for link in ("https://en.wikipedia.org/wiki/Dara_(game)",
                 "https://en.wikipedia.org/wiki/Dala_(game)",
                 "https://mancala.fandom.com/wiki/Dracala", "https://ludii.games"):
        assert link in page
