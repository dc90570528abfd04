"""``nugar play`` and ``nugar rules`` in the terminal's language (``LANG``) or ``--lang``;
the rest of the command line, its data and the engine protocol stay English."""

from __future__ import annotations

import io
import json
import sys

import pytest

from nugar.cli import main
from nugar.i18n import LANGUAGES, SOURCE, gettext_for
from nugar.rules.texts import rule_texts


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "200")
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)


def run(args: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_rules_follow_lang_and_the_flag(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    _, english, _ = run(["rules", "dara"], "", monkeypatch, capsys)
    assert "meaning" in english and "board rows" in english
    monkeypatch.setenv("LANG", "fr_NE.UTF-8")
    _, french, _ = run(["rules", "dara"], "", monkeypatch, capsys)
    assert "signification" in french and "rangées du plateau" in french
    assert "drop_limit" in french and "no_four" in french  # names and values stay as typed
    _, arabic, _ = run(["rules", "dara", "--lang", "ar"], "", monkeypatch, capsys)
    assert "المعنى" in arabic and "صفوف الرقعة" in arabic and "quiet_limit" in arabic
    _, presets, _ = run(["rules"], "", monkeypatch, capsys)
    assert "Règles prédéfinies" in presets and "dara-niger" in presets


def test_rules_json_is_data_in_every_language(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    _, english, _ = run(["rules", "kalah", "--json"], "", monkeypatch, capsys)
    _, french, _ = run(["rules", "kalah", "--json", "--lang", "fr"], "", monkeypatch, capsys)
    assert json.loads(english) == json.loads(french)


def test_an_unknown_language_is_refused_with_the_list(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    code, _, err = run(["rules", "--lang", "de"], "", monkeypatch, capsys)
    assert code == 2
    assert "unknown language 'de': nugar is written in en, fr, ar" in err
    # a locale nugar is not written in gives English, not an error
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    _, out, _ = run(["rules", "dara"], "", monkeypatch, capsys)
    assert "meaning" in out


@pytest.mark.parametrize(("lang", "words"), [
    ("fr", ["Tapez un coup", "Coups permis\u00a0: 1 2 3 4 5 6", "trous de Nord",
            "Tour 1\u00a0: Sud joue", "Résultat\u00a0:", "Partie notée\u00a0:"]),
    ("ar", ["اكتب حركة", "الحركات المشروعة: 1 2 3 4 5 6", "حفر الشمال",
            "الدور 1: على الجنوب أن يلعب", "النتيجة:", "سجل المباراة:"]),
    ("ha", ["Rubuta motsi", "Halattattu: 1 2 3 4 5 6", "Ramukan Arewa",
            "Juyi na 1: Kudu ne zai motsa", "Sakamako:", "Rikodin wasa:"]),
])
def test_play_speaks_the_language_to_the_end(lang: str, words: list[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from random_play import random_game

    turns = random_game("kalah", 3).turns()
    lines = ["help", "moves", *turns]
    code, out, _ = run(["play", "kalah", "--first", "human", "--second", "human", "--lang",
                        lang], "\n".join(lines) + "\n", monkeypatch, capsys)
    assert code == 0
    for word in words:
        assert word in out, word
    assert "[Rules \"kalah\"]" in out  # the record is data: English tags


def test_every_rule_text_has_its_translation() -> None:
    for lang in LANGUAGES:
        if lang == SOURCE:
            continue
        _ = gettext_for(lang, "cli")
        untranslated = [t for t in rule_texts() if _(t) == t and t not in ("option", "source")]
        assert untranslated == [], (lang, untranslated)


def test_a_refused_move_is_explained_in_the_language(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["play", "dara", "--first", "human", "--second", "human", "--lang", "fr"],
                    "c3\nc3\nquit\n", monkeypatch, capsys)
    assert ("Coup refusé\u00a0: c3 n'est pas légal ici\u00a0: c3 est occupée (par un pion de "
            "Noir)") in out
    _, out, _ = run(["play", "dara", "--first", "human", "--second", "human"],
                    "c3\nc3\nquit\n", monkeypatch, capsys)
    assert "Not played: c3 is not legal here: c3 is occupied (by a Black piece)" in out
    _, out, _ = run(["play", "dara", "--first", "human", "--second", "human", "--lang", "ha"],
                    "c3\nc3\nquit\n", monkeypatch, capsys)
    assert "Ba a buga ba: c3 bai halatta a nan ba: akwai ƙwaya a c3 (ƙwayar Baƙi)" in out


@pytest.mark.parametrize(("command", "lang", "words"), [
    (["play", "dara(rows=99)"], "en", "rows must be 1..26, not 99"),
    (["play", "dara(rows=99)"], "fr", "rows doit valoir 1..26, pas 99"),
    (["play", "dara(rows=99)"], "ar", "يجب أن يكون \u2066rows\u2069 1..26"),
    (["rules", "chess"], "fr", "variante prédéfinie inconnue 'chess'"),
    (["rules", "kalah(pits=x)"], "ar", "الخيار \u2066pits\u2069: قيمة غير صالحة"),
    (["play", "dara(rows=99)"], "ha", "rows dole ya zama 1..26, ba 99 ba"),
    (["rules", "chess"], "ha", "ba a san tsarin da aka shirya 'chess' ba"),
])
def test_a_bad_rule_set_is_refused_in_the_command_s_language(
        command: list[str], lang: str, words: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``play`` and ``rules`` say why a rule-set text does not read in their language (the
    flag, else ``LANG``), on the one line and with the exit code of any usage error."""
    prog = f"nugar {command[0]}"
    for args, env in (([*command, "--lang", lang], None), (command, f"{lang}.UTF-8")):
        if env is not None:
            monkeypatch.setenv("LANG", env)
        code, out, err = run(args, "", monkeypatch, capsys)
        assert (code, out) == (2, "")
        # the line argparse would write, its words in the language too
        template = gettext_for(lang, "cli")("argument RULES: {reason} (see '{command} --help')")
        before, after = template.split("{reason}")
        assert err.startswith(f"{prog}: {before}{words}"), err
        assert err.endswith(after.format(command=prog) + "\n") and err.count("\n") == 1


def test_the_other_commands_refuse_a_rule_set_in_english(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LANG", "fr_FR.UTF-8")
    code, _, err = run(["moves", "dara(rows=99)"], "", monkeypatch, capsys)
    assert code == 2
    assert err == ("nugar moves: argument RULES: rows must be 1..26, not 99 "
                   "(see 'nugar moves --help')\n")
