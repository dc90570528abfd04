"""nugar.i18n's language choice and :class:`~nugar.i18n.Text`, independent of any catalog."""

from __future__ import annotations

import pickle

import pytest

from nugar import i18n
from nugar.i18n import Text, say


@pytest.mark.parametrize(("tag", "lang"), [
    ("fr", "fr"), ("fr-NE", "fr"), ("FR_fr.UTF-8", "fr"), ("ar_SD.UTF-8", "ar"),
    ("en-GB", "en"), ("de", None), ("C", None), ("", None), (None, None),
])
def test_normalize_reads_tags_of_every_shape(tag: str | None, lang: str | None) -> None:
    assert i18n.normalize(tag) == lang


@pytest.mark.parametrize(("header", "chosen", "lang"), [
    ("fr-FR,fr;q=0.9,en;q=0.8", None, "fr"),
    ("de-DE,de;q=0.9,ar;q=0.5,fr;q=0.4", None, "ar"),
    ("en;q=0.2,fr;q=0.9", None, "fr"),
    ("de, it", None, "en"),
    (None, None, "en"),
    ("fr;q=0,ar", None, "ar"),
    ("fr;q=abc,ar;q=0.1", None, "ar"),
    (";;;,,,q=", None, "en"),
    ("fr", "ar", "ar"),
    ("fr", "xx", "fr"),
    ("ha-NG,ha;q=0.9,en;q=0.5", None, "ha"),
    ("en;q=0.5,ha-NE", None, "ha"),
    ("ar", "ha", "ha"),
])
def test_negotiate_follows_the_choice_then_the_header(header: str | None, chosen: str | None,
                                                       lang: str) -> None:
    assert i18n.negotiate(header, chosen) == lang


def test_the_terminal_language_is_read_as_gettext_reads_it() -> None:
    assert i18n.from_environment({"LANG": "fr_FR.UTF-8"}) == "fr"
    assert i18n.from_environment({"LANGUAGE": "de:ar", "LANG": "fr_FR.UTF-8"}) == "ar"
    assert i18n.from_environment({"LC_ALL": "C", "LANG": "fr_FR.UTF-8"}) == "en"
    assert i18n.from_environment({}) == "en"
    assert i18n.from_environment({"LANG": "ha_NG.UTF-8"}) == "ha"


def test_unknown_languages_are_refused_with_the_list() -> None:
    with pytest.raises(i18n.LanguageError, match="en, fr, ar, ha"):
        i18n.check_language("de")
    with pytest.raises(i18n.LanguageError, match="domain"):
        i18n.translations("fr", "nope")


def test_direction() -> None:
    assert [i18n.direction(lang) for lang in i18n.LANGUAGES] == ["ltr", "ltr", "rtl", "ltr"]


def test_a_text_is_its_english_string_and_keeps_its_template() -> None:
    inner = Text("a {colour} piece", colour="Black")
    text = Text("{square} is occupied (by {what})", square="c3", what=inner)
    assert text == "c3 is occupied (by a Black piece)"
    assert isinstance(text, str) and text.template == "{square} is occupied (by {what})"
    assert i18n.say(text, "en") == text
    assert i18n.say(ValueError(text), "en") == text
    copy = pickle.loads(pickle.dumps(text))
    assert copy == text and copy.template == text.template and copy.fields["what"] == inner


def test_say_falls_back_to_english_without_a_translation() -> None:
    text = Text("a sentence no catalog has {n}", n=3)
    assert i18n.say(text, "fr") == "a sentence no catalog has 3"
    assert i18n.say("a plain sentence no catalog has", "ar") == "a plain sentence no catalog has"


def test_compile_po_makes_a_catalog_gettext_reads() -> None:
    po = (b'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
          b'msgid "Resign"\nmsgstr "Abandonner"\n\n'
          b'#, fuzzy\nmsgid "Draw"\nmsgstr "Nulle"\n')
    import gettext
    import io
    tr = gettext.GNUTranslations(io.BytesIO(i18n.compile_po(po, "fr")))
    assert tr.gettext("Resign") == "Abandonner"
    assert tr.gettext("Draw") == "Draw"  # fuzzy entries are left out, as pybabel leaves them


def test_joined_sentences_are_each_said_in_the_language() -> None:
    """``i18n.join`` is ``separator.join`` whose parts are still translated (a record's
    problems, one a line); the separator, braces included, stays as written."""
    from nugar.i18n import join

    parts = [Text("first player"), "c3", Text("line {line}", line=2)]
    joined = join("\n {} ", parts)
    assert joined == "first player\n {} c3\n {} line 2"
    assert say(joined, "fr") == "premier joueur\n {} c3\n {} ligne 2"
    assert join(", ", []) == "" and say(join(", ", []), "fr") == ""  # not the catalog's header
    assert say(Text(""), "ar") == ""
