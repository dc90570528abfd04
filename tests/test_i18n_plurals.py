"""Sentences about a number of things take the plural form their count wants (issue 39).

English has two forms, French three (« 0 graine », « 1 graine », « 2 graines »), Arabic six
(zero, one, two, three to ten, eleven to ninety-nine, a hundred and more), so a count written
into one fixed sentence is wrong in Arabic for 1, 2 and 11 on. The checks:

- an AST scan of every ``Text(...)`` of the rules, the lessons, the records, the notation and
  the server, and of every ``_()`` of ``nugar play``/``nugar rules``: a count formatted into a
  sentence without plural forms fails (what counts as a count: the value ``len(...)``, an
  integer literal, or a field named like one, :data:`COUNT`); the numbers that are not counted
  things (ordinals, ranges, option values, units) are listed in :data:`NOT_COUNTS` with why;
- the same on every template of every catalog, so the web app's scripts (``t()`` against
  ``tn()``) are held to it too;
- every plural entry of every catalog has all its language's forms (six in Arabic), each
  written, under Babel's own ``Plural-Forms`` for the language;
- :meth:`nugar.i18n.Text.plural` picks the form by the count in each language, and survives
  pickling (the server's worker processes send sentences across).
"""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.plurals import get_plural
from babel.messages.pofile import read_po

from nugar import NugarError, from_position
from nugar.i18n import DOMAINS, LANGUAGES, SOURCE, Text, say

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "nugar"
LOCALE = PACKAGE / "locale"
TRANSLATED = [lang for lang in LANGUAGES if lang != SOURCE]
#: the Python files whose sentences a person reads
SCANNED = [*sorted((PACKAGE / "server").rglob("*.py")), *sorted((PACKAGE / "rules").glob("*.py")),
           *sorted((PACKAGE / "lessons").glob("*.py")), PACKAGE / "notation.py",
           PACKAGE / "record.py", PACKAGE / "textboard.py",
           *sorted((PACKAGE / "cli").glob("*.py"))]
#: a placeholder whose name says it counts things
COUNT = re.compile(r"^(n|count|left|captured|total|turns|size|seeds|pieces|hand|most|"
                   r"length|rows|cols|pits|steps|puzzles|games|more|done|days|"
                   r"(min|max|keep)_\w+|\w+_count)$")
#: ``(template, field)``: a number in a sentence that is not a count of things, and why
NOT_COUNTS = {
    ("expected at most {n} game in the record, found {more} or more: game {more} starts "
     "here (the text from here on is not read)", "more"): "the ordinal of the game found; "
    "'{more} or more' is said without a noun",
    ("{player} has {count} piece on the board and {hand} in hand, more than pieces={pieces}",
     "hand"): "the pieces in hand as a value (« في يده 3 »), the counted noun comes before",
    ("{player} has {count} piece on the board and {hand} in hand, more than pieces={pieces}",
     "pieces"): "an option's value, pieces=12",
    ("the diagram has {count} row; {rules} has {rows} (one line per row, highest row first)",
     "rows"): "said as a value (« عدد صفوف dara هو 5 »)",
    ("the board has {count} row; {rules} has {rows} (rows joined by '/', the highest row "
     "first)", "rows"): "said as a value",
    ("diagram row {number} {row!r} has {count} square; {rules} has {cols} columns", "cols"):
    "said as a value",
    ("board row {number} {row!r} has {count} square; {rules} has {cols} columns", "cols"):
    "said as a value",
    ("{name} must list {pits} hole (pits={pits}), got {count}", "count"): "said as a value "
    "after « pas » / « لا »",
    ("{player} has {count} hole; {rules} has {pits} (pits={pits})", "pits"): "said as a value",
    ("a rule-set text is at most {most} character, not {length}: {start!r}...", "length"):
    "said as a value after « pas » / « لا »",
    ("the quiet counter is at most {most} while a capture is owed (quiet_limit={limit}), not "
     "{quiet}", "most"): "a counter's value",
    ("the quiet counter is at most {most} (quiet_limit={limit}), not {quiet}", "most"):
    "a counter's value",
    ("square {square} is off the {rows}x{cols} board of {rules}; squares are a1..{last}",
     "rows"): "the board's size written 5x6",
    ("square {square} is off the {rows}x{cols} board of {rules}; squares are a1..{last}",
     "cols"): "the board's size written 5x6",
    ("the seeds add up to {total}; {rules} has {in_play} in play (2 x {pits} holes x {seeds} "
     "seeds)", "total"): "a sum's value",
    ("the seeds add up to {total}; {rules} has {in_play} in play (2 x {pits} holes x {seeds} "
     "seeds)", "pits"): "a product written as a formula, the option pits",
    ("the seeds add up to {total}; {rules} has {in_play} in play (2 x {pits} holes x {seeds} "
     "seeds)", "seeds"): "a product written as a formula, the option seeds",
    ("hole {hole} would capture {seeds} while hole {other} captures {best}, and a step must "
     "capture as many seeds as possible", "seeds"): "numbers compared, said without a noun",
    ("hole {hole} would capture {seeds} while hole {other} captures {best}, and a step must "
     "capture as many seeds as possible", "best"): "numbers compared, said without a noun",
    ("hole {hole} would capture {seeds} while holes {others} capture {best}, and a step must "
     "capture as many seeds as possible", "seeds"): "numbers compared, said without a noun",
    ("hole {hole} would capture {seeds} while holes {others} capture {best}, and a step must "
     "capture as many seeds as possible", "best"): "numbers compared, said without a noun",
    ("hole {other} captures as many seeds ({best}) and gives a bonus step, and among the steps "
     "capturing the most the rightmost one giving a bonus step must be taken", "best"):
    "a number in parentheses after the noun",
    ("turn {number} {turn!r}: {reason}", "number"): "the turn's ordinal",
    ("Streak: {n}", "n"): "a score after its label, said without a noun",
    ("these two players have reached the limit of rated games between them in 24 hours "
     "({count}); play this one unrated, or later", "count"): "the limit said in parentheses, "
    "after the noun",
    ("a new account (younger than {days} day) has reached its limit of rated games an hour "
     "({count}); play this one unrated, or later", "count"): "the limit said in parentheses, "
    "after the noun",
    ("Level 8 has the endgame databases to {have} seed; larger ones: {command} ({size} GB, "
     "about {minutes} min).", "size"): "a unit symbol (GB) that no language inflects",
    ("Level 8 has no endgame databases yet; build them with {command} ({size} GB, about "
     "{minutes} min).", "size"): "a unit symbol (GB)",
    ("Level 8 and the perfect player have no endgame databases yet; build them with {command} "
     "({size} GB, about {minutes} min).", "size"): "a unit symbol (GB)",
    ("Level 8 and the perfect player have the endgame databases to {have} seed; larger ones: "
     "{command} ({size} GB, about {minutes} min).", "size"): "a unit symbol (GB)",
    ("a line of {length}", "length"): "the field is a word: four, five, six",
    ("pieces={pieces} must be greater than loss_at={loss_at}: otherwise the game would be lost "
     "before it starts", "pieces"): "an option's value",
    ("{move} is not a sowing move; {game} moves are hole numbers 1..{pits}, and a turn joins "
     "them with '-', e.g. '1-6'", "pits"): "a range, 1..6",
    ("there is no hole {hole} in {rules}; holes are 1..{pits}", "pits"): "a range, 1..6",
    ("capture annotation {annotation} only belongs in {games} games", "games"): "the games' "
    "names",
    ("tag Game: unknown game {game!r}; known: {games} (or give a [Rules \"...\"] tag)", "games"):
    "the games' names",
    ("The piece on {square} has no step here; pieces that can step: {pieces}.", "pieces"):
    "a list of squares",
    ("turn must be between 0 and {count} for this record, not {turn}", "count"): "a range",
    ("ply must be between 0 and {count}, not {ply}", "count"): "a range",
    ("the lesson {name} has steps 0 to {steps}, not {index}", "steps"): "a range",
    ("the lesson {name} has steps 0 to {steps}, not {wrong}", "steps"): "a range",
    ("the game has {turns} turn; an analysis covers at most {max_analysis_turns}",
     "max_analysis_turns"): "said as a value (« الحد الأقصى ... هو 400 »)",
    ("no analysis {key!r} here (analyses of records are kept for {replay_seconds} day, the "
     "newest {keep_replays}): post the record again", "keep_replays"): "said as a value",
    ("{glyph} {label}: {hand} in hand, {board} on the board", "hand"): "a counter's value "
    "(the board's status line: « en main : 12 »)",
    ("{name} in hand: {count}", "count"): "a counter's value after a colon",
    ("{name} {count} in hand", "count"): "a counter's value (« الأبيض: في اليد 12 »)",
    ("{game} board, {rows} by {cols}; {hands}", "rows"): "the board's size, 5 by 6",
    ("{game} board, {rows} by {cols}; {hands}", "cols"): "the board's size, 5 by 6",
    ("{done} of {steps} done ({what})", "done"): "a fraction, 3 of 7",
    ("{done} of {steps} done ({what})", "steps"): "a fraction, 3 of 7",
    ("Step {i} of {n}", "n"): "a fraction: step 3 of 7",
    ("Step {i} of {n}: a puzzle", "n"): "a fraction: step 3 of 7",
    ("{steps}, {puzzles}", "steps"): "each field is itself a tn() plural (learn.js)",
    ("{steps}, {puzzles}", "puzzles"): "each field is itself a tn() plural (learn.js)",
    ("Replay: the start, turn 0 of {total}", "total"): "a fraction: turn 3 of 40",
    ("Replay: after turn {index} of {total}", "total"): "a fraction",
    ("Viewing the start, turn 0 of {total}", "total"): "a fraction",
    ("Viewing after turn {index} of {total}", "total"): "a fraction",
    ("{name}'s store {seeds}", "seeds"): "the field is a tn() plural ({n} seed)",
    ("{name} hole {hole}, {seeds}", "seeds"): "the field is a tn() plural ({n} seed)",
    ("{name}'s store, {seeds}", "seeds"): "the field is a tn() plural ({n} seed)",
    ("tablebase: {winner} wins in {turns} (next capture in {capture})", "turns"):
    "the field is a tn() plural ({n} turn)",
}
def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(
        func, ast.Attribute) else ""


def _looks_like_count(name: str, value: ast.expr) -> bool:
    if isinstance(value, ast.Call) and _name(value.func) in ("len", "sum"):
        return True
    if isinstance(value, ast.Constant) and type(value.value) is int:
        return True
    return bool(COUNT.match(name))


def _placeholders(template: str) -> list[str]:
    return re.findall(r"(?<!\{)\{(\w+)[^{}]*\}(?!\})", template)


def _singular_sentences(tree: ast.AST) -> list[tuple[int, str, dict[str, ast.expr]]]:
    """``(line, template, fields)`` of each sentence written without plural forms: a
    ``Text("...", field=...)`` or a ``_("...").format(field=...)``."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name == "Text" and node.args and isinstance(node.args[0], ast.Constant):
            fields = {k.arg: k.value for k in node.keywords if k.arg and k.arg != "domain"}
            found.append((node.lineno, str(node.args[0].value), fields))
        elif (name == "format" and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Call) and _name(node.func.value.func) == "_"
              and node.func.value.args and isinstance(node.func.value.args[0], ast.Constant)):
            fields = {k.arg: k.value for k in node.keywords if k.arg}
            found.append((node.lineno, str(node.func.value.args[0].value), fields))
    return found


def test_no_count_is_formatted_into_a_sentence_without_plural_forms() -> None:
    wrong = []
    for path in SCANNED:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, template, fields in _singular_sentences(tree):
            for field in _placeholders(template):
                value = fields.get(field)
                if value is None or (template, field) in NOT_COUNTS:
                    continue
                if _looks_like_count(field, value):
                    wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {{{field}}} in "
                                 f"{template[:60]!r}")
    assert wrong == [], ("a count in a sentence without plural forms: write it with "
                         "Text.plural(singular, plural, count, ...) (or _n/tn), or list the "
                         "number in NOT_COUNTS with why it is not a count")


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_catalog_template_formats_a_count_without_plural_forms(domain: str) -> None:
    """The same, on the templates extraction made: this holds the scripts (``t()``) too."""
    with (LOCALE / f"{domain}.pot").open("rb") as f:
        template = read_po(f)
    wrong = []
    for message in template:
        if not message.id or not isinstance(message.id, str):
            continue
        for field in _placeholders(message.id):
            if COUNT.match(field) and (message.id, field) not in NOT_COUNTS:
                wrong.append(f"{{{field}}} in {message.id[:70]!r}")
    assert wrong == []


def test_the_exceptions_name_sentences_that_still_exist() -> None:
    """An entry of :data:`NOT_COUNTS` whose sentence is gone is dropped."""
    templates = set()
    for domain in DOMAINS:
        with (LOCALE / f"{domain}.pot").open("rb") as f:
            templates |= {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(f)}
    assert {t for t, _field in NOT_COUNTS} - templates == set()


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("domain", DOMAINS)
def test_every_plural_entry_has_all_its_languages_forms(domain: str, lang: str) -> None:
    with (LOCALE / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    wanted = get_plural(Locale.parse(lang))
    assert (catalog.num_plurals, catalog.plural_expr) == (wanted.num_plurals,
                                                          wanted.plural_expr)
    for message in catalog:
        if message.id and not isinstance(message.id, str):
            forms = list(message.string)
            assert len(forms) == wanted.num_plurals, message.id[0]
            assert all(form.strip() for form in forms), f"a form left empty: {message.id[0]!r}"


def test_the_engine_and_the_server_write_counts_in_plural_entries() -> None:
    """The reviewer's examples are plural entries: the rows of a diagram, a record's
    problems, the seeds."""
    with (LOCALE / "engine.pot").open("rb") as f:
        plurals = {m.id[0] for m in read_po(f) if m.id and not isinstance(m.id, str)}
    assert {"{count} seed", "{count} problem in the record:\n  {problems}",
            "the diagram has {count} row; {rules} has {rows} (one line per row, highest row "
            "first)"} <= plurals


@pytest.mark.parametrize(("count", "arabic"), [
    (0, "لا بذور"), (1, "بذرة واحدة"), (2, "بذرتان"), (3, "3 بذور"), (10, "10 بذور"),
    (11, "11 بذرةً"), (99, "99 بذرةً"), (100, "100 بذرة"), (102, "102 بذرة")])
def test_arabic_takes_the_form_of_each_count(count: int, arabic: str) -> None:
    seeds = Text.plural("{count} seed", "{count} seeds", count, count=count)
    assert say(seeds, "ar") == arabic


@pytest.mark.parametrize(("count", "english", "french"), [
    (0, "0 seeds", "0 graine"), (1, "1 seed", "1 graine"), (2, "2 seeds", "2 graines")])
def test_english_and_french_take_their_forms(count: int, english: str, french: str) -> None:
    seeds = Text.plural("{count} seed", "{count} seeds", count, count=count)
    assert seeds == english
    assert say(seeds, "fr") == french


def test_a_plural_sentence_survives_pickling_and_nesting() -> None:
    seeds = Text.plural("{count} seed", "{count} seeds", 2, count=2)
    again = pickle.loads(pickle.dumps(seeds))
    assert (again, again.plural_template, again.plural_count) == ("2 seeds", "{count} seeds", 2)
    assert say(again, "ar") == "بذرتان"
    problems = Text.plural("{count} problem in the record:\n  {problems}",
                           "{count} problems in the record:\n  {problems}", 1, count=1,
                           problems=Text("line {line}", line=3))
    assert say(problems, "fr").startswith("1 problème dans la partie notée")


def test_a_refusal_with_a_count_reads_right_in_arabic() -> None:
    """The reviewer's « 12 صفوف »: a position text with 12 rows."""
    with pytest.raises(NugarError) as info:
        from_position("dara " + "/".join(["......"] * 12) + " b")
    assert "في الرقعة 12 صفًّا؛" in say(info.value, "ar")
    assert "le plateau a 12 rangées\u00a0;" in say(info.value, "fr")
