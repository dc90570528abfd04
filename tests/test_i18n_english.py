"""No English is left inside a translated page or refusal (issue 39).

Everything a French or Arabic reader gets is rendered here in both languages and searched
for English words:

- every rules page and the rules index (their diagrams' drawn and spoken labels too), the web
  app's static pages, the not-found page;
- ``nugar rules`` (the presets' table and each preset's options: sources, allowed values);
- every refusal: each sentence of the ``engine`` and ``web`` catalogs said with its fields
  filled in, and refusals made by the engine itself (a protected piece, an option's range).

What counts as English: in Arabic, any Latin-script word; in French, a word of
:data:`ENGLISH_ONLY` (common English words that are not French). What is left out first is
data and names, typed or cited the same in every language (:data:`DATA`, :data:`NAMES`):
moves, squares, rule-set and option texts, code, links, isolated runs (LRI/FSI ... PDI, how
the Arabic marks data), quotations of a source (« ... », "..."), the glossary's English term
given once in parentheses or emphasis, game names and source titles.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from nugar import IllegalMoveError, RulesError, from_position, parse_rules
from nugar.i18n import Text, say
from nugar.rules import PRESETS
from nugar.rules.options import option_fields
from nugar.server.http.pages import not_found_page, rules_index, rules_page
from nugar.server.http.static_i18n import render_page

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "nugar"
LANGS = ["fr", "ar"]
PAGES = ["rules", "dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]
STATIC = sorted(p.name for p in (PACKAGE / "server" / "static").glob("*.html"))
#: common English words that are not French words
ENGLISH_ONLY = frozenset("""
the and of in is are to with from by for board boards piece pieces seed seeds hole holes empty
north south white black move moves turn turns player players wins win draw game games rules rule
allowed int integer whole step steps capture captures captured three four line lines row rows
column columns square squares left right first last next previous start see this that it its
you your can cannot may must not no yes only any all each every when where which who what there
here be been has have had was were will would should one two read write written text new play
played plays lesson lessons puzzle puzzles record records replay hint undo resign clock rating
account sign open wait waiting back again shown show sheet rocks hand
""".split())
#: data and what is cited as written, taken out before looking for English: the glossary's
#: English terms given once, hyphenated names (presets, options), moves and squares, option
#: values, words with digits (int64), a record's tag names, code, placeholders, links, paths,
#: identifiers, file names, isolated runs
DATA = re.compile(
    r"\b(?:quiet limit|Herding the Cows|misère|tablebase|bull|ta'na)\b"
    r"|[\u2066\u2067\u2068][^\u2069]*\u2069"
    r"|\b[a-z]+(?:-[a-z]+)+\b|\bx?[a-z]\d+(?:[-x][a-z]\d+)*\b|\b(?:on|off|pass)\b"
    r"|\b\w*\d\w*\b|\b(?:Game|Rules|Result)\b|https?://\S+|\{[^{}]*\}|`[^`]*`|\b\w+=\S*|\S*/\S*|\S*_\S*|\b\w+\.(?:md|py|json)\b")
#: a quotation of a source (glossed by the page), a term in emphasis, a data word quoted
#: ('rules', [Rules "..."])
QUOTED = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"]*\"|'[^'\s]*'|\[[^\]]*\]|\*[^*]+\*")
#: names and words of the protocol, typed or cited the same in every language
NAMES = frozenset(n.lower() for n in """
Dara Dala Kalah Dracala Wikipedia Ludii OpenSpiel Mancala World nugar Niger Sudan numba Python
JSON ASCII XOR Zobrist DeepMind Deutsch Ralf Gering Irving Donkers Uiterwijk ICGA Journal
Solving Home End English Français Herding Cows Basic UTF GET Origin None null true false
sync ping open draw takeback offer accept decline cancel random first second stores opening
Move Preset int64 P X O Z a b c d e f x help moves save FILE RULES NAME RESULT REASON
Authorization Bearer TOKEN POST DELETE PUT API BOT NDJSON Cookie
""".split())


#: the options' names: data, typed the same in every language (a list of them in a refusal,
#: the first column of ``nugar rules``)
OPTIONS = sorted({f.name for preset in PRESETS.values()
                  for f in option_fields(type(preset.options))}, key=len, reverse=True)
_NAMED = "|".join(OPTIONS)
OPTION_LIST = re.compile(rf"\b(?:{_NAMED})(?:, (?:{_NAMED}))+\b")
OPTION_CELL = re.compile(rf"^[│┃] *(?:{_NAMED}) +[│┃]")


def _english(text: str, lang: str) -> list[str]:
    text = OPTION_CELL.sub(" ", OPTION_LIST.sub(" ", text))
    prose = QUOTED.sub(" ", DATA.sub(" ", text))
    words = [w for w in re.findall(r"[^\W\d_]+(?:['’][^\W\d_]+)?", prose)
             if re.fullmatch(r"[A-Za-z'’]+", w) and w.lower() not in NAMES]
    return [w for w in words if w.lower() in ENGLISH_ONLY] if lang == "fr" else words


def _page_texts(page: str) -> list[str]:
    """The text a reader sees or hears: the body and the labels (aria-label, title,
    placeholder, alt), without scripts, styles, code and preformatted blocks."""
    page = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<code[^>]*>.*?</code>"
                  r"|<pre[^>]*>.*?</pre>", " ", page)
    labels = re.findall(r'(?:aria-label|title|placeholder|alt)="([^"]*)"', page)
    return [html.unescape(t) for t in (re.sub(r"<[^>]+>", " ", page), *labels)]


def _pages(lang: str) -> Iterator[tuple[str, str]]:
    yield "rules index", rules_index(lang)
    for name in PAGES:
        page = rules_page(name, lang)
        assert page is not None, name
        yield f"rules page {name}", page
    for name in STATIC:
        yield name, render_page(name, lang)
    yield "not found", not_found_page(say(Text("Rules", domain="web"), lang, "web"),
                                      say(Text("There is no page {path}.", domain="web",
                                               path="/x"), lang, "web"), lang)


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_holds_english(lang: str) -> None:
    found = [f"{where}: {w!r}" for where, page in _pages(lang) for text in _page_texts(page)
             for w in _english(text, lang)]
    assert found == []


def test_the_check_finds_english_in_a_page() -> None:
    """The detector itself: the reviewer's examples are found, data and names are not."""
    assert _english("Blanc en main : 12, White in hand: 12", "fr") == ["White", "in", "hand"]
    assert _english("الأبيض في اليد: 12 (North, int 1..32)", "ar") == ["North", "int"]
    assert _english("dara(protect_threes=on), c3-c4xe5, « the turn is skipped »", "fr") == []


def _refusal_texts() -> Iterator[tuple[str, Text]]:
    """Each sentence of the engine and web catalogs, its fields filled with data."""
    for domain in ("engine", "web"):
        with (PACKAGE / "locale" / f"{domain}.pot").open("rb") as f:
            for message in read_po(f):
                if not message.id:
                    continue
                singular = message.id if isinstance(message.id, str) else message.id[0]
                names = set(re.findall(r"\{(\w+)", singular))
                fields = {n: 7 for n in names}
                if isinstance(message.id, str):
                    yield singular, Text(singular, domain=domain, **fields)
                else:
                    for count in (1, 2, 11):
                        yield singular, Text.plural(singular, message.id[1], count,
                                                    domain=domain, **fields)


@pytest.mark.parametrize("lang", LANGS)
def test_no_refusal_holds_english(lang: str) -> None:
    found = [f"{msgid[:60]!r}: {w!r}" for msgid, text in _refusal_texts()
             for w in _english(say(text, lang), lang)]
    assert found == []


def _engine_refusals() -> Iterator[BaseException]:
    """Refusals the engine makes itself, with the parts it puts together at run time."""
    for text in ("dara(repetition=1)", "kalah(pits=99)", "dara(quiet_limit=x)", "dara(x=1)"):
        try:
            parse_rules(text)
        except RulesError as exc:
            yield exc
    game = from_position("dara www..w/....../bb.b../....../...... b")
    for move in ("a2", "pass", "d3-c3xb5"):
        try:
            game.play(move)
        except IllegalMoveError as exc:
            yield exc


@pytest.mark.parametrize("lang", LANGS)
def test_the_engine_s_own_refusals_hold_no_english(lang: str) -> None:
    said = [say(exc, lang) for exc in _engine_refusals()]
    assert len(said) >= 6
    found = [f"{s[:70]!r}: {w!r}" for s in said for w in _english(s, lang)]
    assert found == []


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("args", [["rules"], ["rules", "dara"], ["rules", "kalah"],
                                  ["rules", "dala"], ["rules", "dracala"]])
def test_nugar_rules_holds_no_english(args: list[str], lang: str,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    from nugar.cli import main

    assert main([*args, "--lang", lang]) == 0
    out = capsys.readouterr().out
    # a table cell holding one option value (forbidden, take_any) is data
    values = "|".join(sorted({v for preset in PRESETS.values()
                              for f in option_fields(type(preset.options))
                              for v in f.metadata.get("values", ())}, key=len, reverse=True))
    out = re.sub(rf"(?<=[│┃]) *(?:{values}) *(?=[│┃])", " ", out)
    found = [w for line in out.splitlines() for w in _english(line, lang)]
    assert found == [], out
