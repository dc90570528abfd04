"""The message catalogs are complete and match the code (issue 33).

For every domain of :data:`nugar.i18n.DOMAINS` whose mapping file ``nugar/locale/<domain>.cfg``
exists, the messages ``pybabel extract`` would find now (Babel's own extraction, run here with
that mapping) are exactly the committed template's: a new string marked in the code and not
extracted into the template fails, and so does a template message nothing marks any more.
Every French and Arabic catalog has every message of its template translated, none fuzzy,
with the same placeholders, and compiles (what ``pybabel compile --statistics`` checks).

And the Python side marks what it shows a person: an AST scan of the server, the rules, the
lessons, the notation and the records fails on a refusal (``ApiError``, a refusal writer, a
websocket's ``detail``) or a rules error (``IllegalMoveError``, ``InvalidMoveError``, and the
errors of a rule-set text, a position text and a record: ``RulesError``, ``NugarError``,
``RecordError``, a record's problem) raised with a plain string or an f-string instead of a
:class:`~nugar.i18n.Text`. What stays English on purpose is listed in :data:`ENGLISH` with the
reason.
"""

from __future__ import annotations

import ast
import gettext
import io
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from nugar.i18n import DOMAINS, LANGUAGES, SOURCE, compile_po

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "nugar"
LOCALE = PACKAGE / "locale"
CONFIGURED = [d for d in DOMAINS if (LOCALE / f"{d}.cfg").is_file()]
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
#: a brace placeholder (``{name}``, ``{name!r}``, ``{rate:g}``), not an escaped ``{{``
BRACES = re.compile(r"(?<!\{)\{[^{}]*\}(?!\})")
#: a printf placeholder (``%s``, ``%(name)s``, ``%d``)
PERCENT = re.compile(r"%(?:\([^)]*\))?[sdifr]")


def _key(message_id: Any, context: str | None) -> tuple[str | None, tuple[str, ...]]:
    ids = (message_id,) if isinstance(message_id, str) else tuple(message_id)
    return context, ids


def _extracted(domain: str) -> set[tuple[str | None, tuple[str, ...]]]:
    with (LOCALE / f"{domain}.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f, str(LOCALE / f"{domain}.cfg"))
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(
            str(PACKAGE), method_map, options_map):
        key = _key(message, context)
        if all(key[1]):
            found.add(key)
    return found


def _catalog(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def _messages(catalog: Catalog) -> dict[tuple[str | None, tuple[str, ...]], Any]:
    return {_key(m.id, m.context): m for m in catalog if m.id}


def _placeholders(text: str) -> set[str]:
    return set(BRACES.findall(text)) | set(PERCENT.findall(text))


def test_the_domains_of_this_side_have_their_mapping() -> None:
    assert {"engine", "web"} <= set(CONFIGURED)


@pytest.mark.parametrize("domain", CONFIGURED)
def test_the_template_holds_exactly_what_extraction_finds(domain: str) -> None:
    template = set(_messages(_catalog(LOCALE / f"{domain}.pot")))
    found = _extracted(domain)
    assert found - template == set(), (
        f"marked in the code but not in {domain}.pot: run pybabel extract (docs/server.md, "
        "Languages)")
    assert template - found == set(), f"in {domain}.pot but marked nowhere any more"


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", CONFIGURED)
def test_every_message_is_translated_with_its_placeholders(domain: str, lang: str) -> None:
    path = LOCALE / lang / "LC_MESSAGES" / f"{domain}.po"
    assert path.is_file(), f"no {lang} catalog of {domain}: pybabel init (docs/server.md)"
    template = _messages(_catalog(LOCALE / f"{domain}.pot"))
    translated = _messages(_catalog(path, lang))
    assert set(translated) == set(template), "the catalog is not updated from its template"
    problems = []
    for key, message in translated.items():
        strings = [message.string] if isinstance(message.string, str) else list(message.string)
        wanted = set().union(*(_placeholders(i) for i in key[1]))
        if message.fuzzy:
            problems.append(f"fuzzy: {key[1][0]!r}")
        if not strings or not all(s.strip() for s in strings):
            problems.append(f"untranslated: {key[1][0]!r}")
        for s in strings:
            said = _placeholders(s)
            # a plural form may leave the count out ("one seed"), never add a placeholder
            if said != wanted if len(key[1]) == 1 else not said <= wanted:
                problems.append(f"placeholders {sorted(said)} != {sorted(wanted)}: {s!r}")
    assert problems == []


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", CONFIGURED)
def test_every_catalog_counts_with_its_languages_plural_rule(domain: str, lang: str) -> None:
    """A catalog's ``Plural-Forms`` is Babel's (CLDR's) rule for its language: Hausa two forms
    (one: n = 1; other), French three, Arabic six; a catalog initialized by hand with another
    rule would pick the wrong form for a count."""
    catalog = _catalog(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po", lang)
    rule = get_plural(lang)
    assert (catalog.num_plurals, catalog.plural_expr) == (rule.num_plurals, rule.plural_expr)
    header = dict(catalog.mime_headers)["Plural-Forms"]
    assert header.replace(" ", "").rstrip(";") == rule.plural_forms.replace(" ", "").rstrip(";")


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", CONFIGURED)
def test_every_catalog_compiles_and_reads_back(domain: str, lang: str) -> None:
    """``compile_po`` (the build step's and the checkout's compiler) compiles the catalog, and
    the compiled catalog gives each message's translation."""
    source = (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").read_bytes()
    compiled = gettext.GNUTranslations(io.BytesIO(compile_po(source, lang)))
    for key, message in _messages(_catalog(LOCALE / lang / "LC_MESSAGES" / f"{domain}.po",
                                           lang)).items():
        if key[0] is None and len(key[1]) == 1:
            assert compiled.gettext(key[1][0]) == message.string


# --- the Python side marks what it says ------------------------------------------------------

#: the modules whose sentences reach a person: the server, the rules, the lessons' checks,
#: the notation's parse errors and the records' (relative to src/nugar)
SCANNED = [*sorted((PACKAGE / "server").rglob("*.py")), *sorted((PACKAGE / "rules").glob("*.py")),
           *sorted((PACKAGE / "lessons").glob("*.py")), PACKAGE / "notation.py",
           PACKAGE / "record.py"]
#: the rules errors whose message a refusal passes on to a person: a move refused or not
#: understood, a rule-set text, a position text or a record that cannot be read (``problem``:
#: a record reader's problem, gathered into one RecordError)
RULES_ERRORS = {"IllegalMoveError", "InvalidMoveError", "RulesError", "NugarError",
                "RecordError", "problem"}
#: refusals deliberately in English, ``"file.py:source of the detail"`` -> why
ENGLISH = {
    "middleware.py:'; '.join(parts)": "a malformed body's field errors are pydantic's own "
    "words about the JSON fields, for the programs that send them",
    "options.py:str(exc)": "cannot happen (the option names are checked just before): "
    "Python's own words about a keyword argument",
}
#: a refusal's detail that passes on a sentence already marked elsewhere (a Text, or an
#: error's Text through :func:`nugar.server.errors.reason`), ``"file.py:source"`` -> why
PASSED_ON = {
    "rooms.py:exc.detail": "a stale_room refusal's Text, raised again as stale_version",
    "session.py:unmoved": "the caller's Text (who has not moved yet)",
    "clients.py:detail": "TooMuchWork's detail, a Text made where it is raised",
    "crosssite.py:detail": "error_parts of an ApiError made with a Text",
    "middleware.py:detail": "refusal() and error_parts() pass the error's detail on",
    "routes_ws.py:exc.detail": "an ApiError's detail (a Text)",
    "base.py:refusal": "one of the Text refusals of Game._check_legal",
    "codec.py:self.no_move(int(action))": "each family's no_move gives a Text",
    "record.py:reason": "a record reader's problem (_Reader.problem): each caller's Text",
    "record.py:_said(exc)": "a rule-set error's Text, raised by parse_rules",
    "record.py:problem": "_settle_result's Text (a stated result the game does not fit)",
}


def _is_text(node: ast.expr) -> bool:
    """A ``Text(...)`` (or ``i18n.Text(...)``) call, or an error's sentence passed on with
    ``reason(exc)``, or a choice between such."""
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) and _is_text(node.orelse)
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""
    return name in ("Text", "plural", "reason", "_http_detail", "say")


def _plain(node: ast.expr) -> bool:
    """A sentence written in place: a string, an f-string, or strings joined with ``+``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _plain(node.left) or _plain(node.right)
    return False


def _details(tree: ast.AST) -> list[tuple[int, str, ast.expr]]:
    """``(line, what, detail)`` of every sentence a refusal or a rules error is given."""
    found: list[tuple[int, str, ast.expr]] = []
    api_classes = {"ApiError"} | {
        n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)
        and any(isinstance(b, ast.Name) and b.id in ("ApiError", "TooManyAttempts") for b in
                n.bases)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(
                func, ast.Attribute) else ""
            is_super = (name == "__init__" and isinstance(func, ast.Attribute)
                        and isinstance(func.value, ast.Call)
                        and isinstance(func.value.func, ast.Name)
                        and func.value.func.id == "super")
            if (name in api_classes or is_super) and len(node.args) >= 2:
                found.append((node.lineno, name, node.args[1]))
            elif name == "refusal" and len(node.args) >= 3:
                found.append((node.lineno, name, node.args[2]))
            elif name in ("_error", "TooMuchWork") and len(node.args) >= 2:
                found.append((node.lineno, name, node.args[1]))
            elif name in RULES_ERRORS and node.args:
                found.append((node.lineno, name, node.args[0]))
        elif isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if isinstance(k, ast.Constant) and k.value == "detail":
                    found.append((node.lineno, "detail", v))
    return found


def test_every_sentence_a_refusal_or_a_rules_error_carries_is_marked() -> None:
    unmarked = []
    for path in SCANNED:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, what, detail in _details(tree):
            source = f"{path.name}:{ast.unparse(detail)}"
            if _is_text(detail) or source in ENGLISH or source in PASSED_ON:
                continue
            if _plain(detail) or not isinstance(detail, ast.Name | ast.Attribute):
                unmarked.append(f"{path.name}:{line}: {what}({ast.unparse(detail)[:70]})")
            else:
                unmarked.append(f"{path.name}:{line}: {what} passes {ast.unparse(detail)!r} "
                                "on: list it in PASSED_ON with where its Text is made")
    assert unmarked == [], "write these sentences as Text(...) (nugar.i18n)"


def test_the_exceptions_lists_name_what_is_still_there() -> None:
    """An entry of :data:`ENGLISH` or :data:`PASSED_ON` whose code is gone is dropped."""
    seen = set()
    for path in SCANNED:
        for _line, _what, detail in _details(ast.parse(path.read_text(encoding="utf-8"))):
            seen.add(f"{path.name}:{ast.unparse(detail)}")
    assert (set(ENGLISH) | set(PASSED_ON)) - seen == set()


def _text_calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
        (isinstance(n.func, ast.Name) and n.func.id == "Text")
        or (isinstance(n.func, ast.Attribute) and n.func.attr in ("Text", "plural")))]


def _domain(call: ast.Call) -> str:
    for kw in call.keywords:
        if kw.arg == "domain":
            assert isinstance(kw.value, ast.Constant)
            return str(kw.value.value)
    return "engine"


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_text_is_in_the_catalog_its_folder_is_extracted_into(path: Path) -> None:
    """The mapping files pick the files of a domain: the server's sentences are ``web``, the
    rules', the lessons' and the notation's ``engine``; a template is a literal string (what
    extraction can read)."""
    wanted = "web" if PACKAGE / "server" in path.parents else "engine"
    for call in _text_calls(path):
        assert _domain(call) == wanted, f"{path.name}:{call.lineno}"
        templates = call.args[:2] if getattr(call.func, "attr", "") == "plural" else call.args[:1]
        assert templates and all(isinstance(t, ast.Constant) and isinstance(t.value, str)
                                 for t in templates), (
            f"{path.name}:{call.lineno}: a Text's template is a literal")
