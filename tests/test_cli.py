"""The ``nugar`` command line: every subcommand, driven in process and through a subprocess."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import nugar
from cli_running import run_cli
from nugar import record
from nugar.ai import DEFAULT_LEVEL
from nugar.cli import build_parser, main
from nugar.cli.common import PlayerSpec
from nugar.cli.play import sides
from nugar.rules import parse_rules
from nugar.rules.options import KALAH_SOURCE, SowingOptions, format_value, option_fields
from random_play import random_game


@pytest.fixture(autouse=True)
def _plain_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")


def random_turns(rules: str, seed: int) -> list[str]:
    """The turns of a random game played to its end."""
    game = random_game(rules, seed)
    assert game.is_over
    return game.turns()


# --- the program -------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["play"], ["replay"], ["rules"], ["moves"],
                                     ["engine"]])
def test_help_on_every_command(command: list[str], monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli([*command, "--help"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert out.startswith("usage: nugar")


@pytest.mark.parametrize(("args", "message"), [
    ([], "nugar: a command is needed, one of: play, replay, rules, moves, engine"),
    (["nosuch"], "invalid choice"),
    (["play"], "the following arguments are required: RULES"),
    (["play", "chess"], "unknown preset 'chess'; allowed: dara"),
    (["play", "dara(pieces=1)"], "must be greater than loss_at"),
    (["play", "dara", "--first", "robot"], "'robot' is not a player; allowed: human, ai"),
    (["play", "dara", "--second", "ai:9"], "level must be 1..8"),
    (["play", "dara", "--movetime", "-1"], "not a positive number"),
    (["moves", "kalah(seeds=x)"], "option seeds: bad value 'x'"),
    (["replay", "/no/such/file.txt"], "no such record file: /no/such/file.txt"),
    (["moves", "dara", "zz"], "turn 1 'zz': cannot read 'zz'"),
])
def test_bad_usage_exits_2_with_one_clear_message(args: list[str], message: str,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(args, monkeypatch=monkeypatch, capsys=capsys)
    assert code == 2
    assert message in err
    assert "Traceback" not in err
    assert err.count("\n") == 1 and "usage:" not in err, err


def test_usage_errors_are_one_line_for_every_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's usage block is not printed before a usage error: one line, as every other
    error of nugar, naming the command and where its help is."""
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction)).choices
    assert {"play", "replay", "rules", "moves", "engine", "solve", "serve"} <= set(commands)
    for name in commands:
        code, out, err = run_cli([name, "--no-such-option"], monkeypatch=monkeypatch,
                                 capsys=capsys)
        assert (code, out) == (2, ""), name
        assert err.count("\n") == 1 and "usage" not in err, err
        assert err.startswith("nugar") and err.endswith(" --help')\n"), err
    code, out, err = run_cli(["play", "dara", "--first"], monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (2, "")
    assert err == ("nugar play: argument --first: expected one argument "
                   "(see 'nugar play --help')\n")


def test_extensions_add_commands_and_their_errors_are_not_hidden(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    cli = importlib.import_module("nugar.cli.main")

    (tmp_path / "nugar_test_ext_ok.py").write_text(
        "def register(subparsers):\n"
        "    p = subparsers.add_parser('hello', help='say hello')\n"
        "    p.set_defaults(func=lambda args: print('hello from ext') or 3)\n")
    (tmp_path / "nugar_test_ext_broken.py").write_text("import nugar_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cli, "_EXTENSIONS", ("nugar_test_no_such_module", "nugar_test_ext_ok"))
    code, out, _ = run_cli(["hello"], monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (3, "hello from ext\n")  # the missing module was skipped
    # a module that exists but fails to import is a bug to show, not a command to skip
    monkeypatch.setattr(cli, "_EXTENSIONS", ("nugar_test_ext_broken",))
    with pytest.raises(ModuleNotFoundError, match="nugar_no_such_dependency"):
        cli.build_parser()


@pytest.mark.parametrize(("args", "code", "first_line"), [
    (["match", "greedy", "oracle", "--games", "2"], 2, "nugar match: unknown agent 'oracle'"),
    (["tournament", "random", "--games", "2"], 2,
     "nugar tournament: a tournament needs at least two agents"),
    (["analyse", "dara", "z9"], 2, "nugar analyse: "),
    (["serve", "--port", "0"], 2, "nugar serve: --port must be 1..65535, not 0"),
    (["serve", "--public-url", "games.example.org"], 2,
     "nugar serve: --public-url must be http(s)://HOST[:PORT][/PATH]"),
    (["serve", "--forwarded-allow-ips", "proxy"], 2,
     "nugar serve: --forwarded-allow-ips: 'proxy' is not an IP address"),
    (["serve", "--workers", "0"], 2, "nugar serve: --workers must be 1..64, not 0"),
    (["serve", "--workers", "2"], 2, "nugar serve: --workers 2 needs a PostgreSQL database"),
    (["serve", "--workers", "2", "--db", "sqlite:///g.db"], 2,
     "nugar serve: --workers 2 needs a PostgreSQL database"),
    (["solve", "dara"], 2, "nugar solve: "),
    (["solve", "kalah(pits=3,seeds=1)", "3", "3"], 1, "nugar solve: turn 2 '3': "),
    (["moves", "kalah", "3", "3"], 1, "nugar moves: turn 2 '3': "),
])
def test_every_command_reports_an_error_the_same_way(
        args: list[str], code: int, first_line: str, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    got, out, err = run_cli(args, monkeypatch=monkeypatch, capsys=capsys)
    assert (got, out) == (code, "")
    assert err.startswith(first_line) and err.count("\n") == 1, err


@pytest.mark.parametrize("args", [
    ["moves", "dara", "c3", "d4"],
    ["rules"],
    ["rules", "dala", "--json"],
    ["replay", "-", "--rules", "kalah"],
    ["--help"],
])
def test_a_pipe_closed_by_the_reader_ends_quietly(args: list[str], tmp_path: Path) -> None:
    # the reading end is closed before nugar writes, as when `| head -3` has read its lines
    # and gone; nugar must end with status 0 and say nothing (no "Broken pipe", no traceback)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        proc = subprocess.run([sys.executable, "-m", "nugar", *args], input="1. 3-6 1 *\n",
                              stdout=write_end, stderr=subprocess.PIPE, text=True,
                              env=dict(os.environ, NO_COLOR="1"), timeout=120)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, "")


# --- rules and moves ---------------------------------------------------------------------


def test_rules_lists_every_preset_with_its_source(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rules"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    for preset in nugar.PRESETS.values():
        assert preset.name in out and preset.source in out
    assert "drop_limit=no_three" in out  # dara-niger's difference


def test_rules_of_one_rule_set_shows_values_defaults_and_choices(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rules", "dala(quiet_limit=off)"], monkeypatch=monkeypatch,
                           capsys=capsys)
    assert code == 0
    assert "dala(quiet_limit=off)" in out and "https://en.wikipedia.org/wiki/Dala_(game)" in out
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:5]]
            for line in out.splitlines() if line.count("│") >= 5}
    assert rows["quiet_limit"] == ["off", "100", "int 1..1000 or off"]
    assert rows["centre_first"] == ["on", "on", "on/off"]
    assert rows["drop_limit"] == ["none", "none", "none/no_four/no_three"]


def test_moves_lists_legal_moves_for_scripts(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["moves", "kalah"], monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out.split()) == (0, ["1", "2", "3", "4", "5", "6"])
    # after a step that ends in the store, the same player chooses again
    code, out, _ = run_cli(["moves", "kalah", "3"], monkeypatch=monkeypatch, capsys=capsys)
    assert out.split() == ["1", "2", "4", "5", "6"]
    # move numbers are ignored, so movetext can be pasted
    code, out, _ = run_cli(["moves", "dala", "1. c3 d3", "2.", "c4"], monkeypatch=monkeypatch,
                           capsys=capsys)
    assert out.split() == ["d4"]
    code, _, err = run_cli(["moves", "dara", "c3", "c3"], monkeypatch=monkeypatch,
                           capsys=capsys)
    assert code == 1 and "turn 2 'c3': c3 is not legal here" in err


def test_moves_after_the_end(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    turns = random_turns("kalah(pits=3,seeds=2)", 1)
    code, out, err = run_cli(["moves", "kalah(pits=3,seeds=2)", *turns],
                             monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (0, "")
    assert "game over" in err


def test_moves_without_arguments_asks_for_the_rules_only(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["moves"], monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (2, "")
    assert err == ("nugar moves: the following arguments are required: RULES (see 'nugar "
                   "moves --help')\n")


def test_rules_written_to_a_pipe_keep_every_column_whole(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # what a console assumes without a terminal
    code, out, _ = run_cli(["rules"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and "…" not in out
    dala = nugar.PRESETS["dala"]
    differences = ", ".join(f"{k}={format_value(v)}" for k, v in dala.overrides.items())
    assert any(differences in line and dala.source in line for line in out.splitlines())
    assert "'dala(quiet_limit=off)' or 'kalah(pits=4,seeds=3)'." in out
    code, out, _ = run_cli(["rules", "dracala"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0 and "…" not in out
    assert nugar.PRESETS["dracala"].description in out


def test_rules_as_json_for_every_preset(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rules", "--json"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    presets = json.loads(out)["presets"]
    assert [p["name"] for p in presets] == list(nugar.PRESETS)
    for data in presets:
        preset = nugar.PRESETS[data["name"]]
        assert (data["game"], data["family"], data["source"], data["description"]) == (
            preset.game, preset.family, preset.source, preset.description)
        assert data["overrides"] == {k: format_value(v) for k, v in preset.overrides.items()}
        declared = option_fields(type(preset.options))
        assert [o["name"] for o in data["options"]] == [f.name for f in declared]
        for option, f in zip(data["options"], declared, strict=True):
            assert option["default"] == format_value(getattr(preset.options, f.name))
            assert (option["kind"], option["meaning"]) == (f.metadata["kind"], f.metadata["doc"])
            assert "value" not in option
            if f.metadata["kind"] == "int":
                assert (option["min"], option["max"], option["off_allowed"]) == (
                    f.metadata["lo"], f.metadata["hi"], f.metadata["off_ok"])
    dala = {o["name"]: o for o in presets[[p["name"] for p in presets].index("dala")]["options"]}
    assert (dala["rows"]["default"], dala["rows"]["min"]) == ("6", 1)
    assert dala["quiet_limit"]["off_allowed"] is True
    assert dala["drop_limit"]["values"] == ["none", "no_four", "no_three"]
    assert dala["centre_first"] | {"meaning": ""} == {
        "name": "centre_first", "kind": "switch", "default": "on", "allowed": "on/off",
        "meaning": ""}


def test_rules_as_json_for_one_rule_set(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["rules", "kalah(seeds=3,skip_origin=on)", "--json"],
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("rules", "preset", "game", "family", "source")} == {
        "rules": "kalah(seeds=3,skip_origin=on)", "preset": "kalah", "game": "Kalah",
        "family": "sowing", "source": KALAH_SOURCE}
    options = {o["name"]: o for o in data["options"]}
    assert list(options) == [f.name for f in option_fields(SowingOptions)]
    assert (options["seeds"]["value"], options["seeds"]["default"]) == ("3", "4")
    assert (options["skip_origin"]["value"], options["skip_origin"]["default"]) == ("on", "off")
    assert options["pits"]["meaning"] == "holes per player"
    code, out, err = run_cli(["rules", "chess", "--json"], monkeypatch=monkeypatch,
                             capsys=capsys)
    assert (code, out) == (2, "") and "unknown preset 'chess'" in err


# --- replay ------------------------------------------------------------------------------


def test_replay_verifies_and_shows_the_result(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    game = nugar.new_game("dracala")
    for turn in random_turns("dracala", 2):
        game.play(turn)
    path = tmp_path / "g.txt"
    record.write_file(path, record.dumps(game, {"First": "Ann"}))
    code, out, _ = run_cli(["replay", str(path)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert game.outcome is not None
    assert f"Result: {game.result} ({game.outcome.reason})" in out
    assert "Score: {} : {}".format(*game.score) in out
    assert "Ann" in out and f"1. {game.turns()[0]}" in out


def test_replay_of_a_directory_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["replay", str(tmp_path)], monkeypatch=monkeypatch, capsys=capsys)
    assert (code, out) == (2, "")
    assert err == (f"nugar replay: {tmp_path} is a directory; give a record file in it (or "
                   f"'-' for stdin)\n")


@pytest.mark.parametrize("rules", ["dracala", "kalah(pits=4,seeds=3,misere=on)"])
def test_misere_results_say_the_smaller_store_wins(rules: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Where the bigger store loses, the result line says so, in replay and in play."""
    game = next(g for g in (random_game(rules, seed) for seed in range(20))
                if g.outcome is not None and g.outcome.winner is not None)
    path = tmp_path / "g.txt"
    path.write_text(record.dumps(game), encoding="utf-8")
    code, out, _ = run_cli(["replay", str(path)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert (f"Result: {game.result} ({game.outcome.reason}): the smaller store wins "
            f"(misère)") in out
    code, out, _ = run_cli(["play", rules, "--first", "ai:random", "--second", "ai:random"],
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    result = [line for line in out.splitlines() if line.startswith("Result: ")]
    assert len(result) == 1
    assert result[0].endswith(": the smaller store wins (misère)") \
        or result[0].startswith("Result: 1/2-1/2")
    code, _, err = run_cli(["moves", rules, *game.turns()], monkeypatch=monkeypatch,
                           capsys=capsys)
    assert (code, err) == (0, f"game over: {game.outcome}: the smaller store wins (misère)\n")
    # Kalah's bigger store wins, and nothing is added
    kalah = random_game("kalah", 1)
    path.write_text(record.dumps(kalah), encoding="utf-8")
    code, out, _ = run_cli(["replay", str(path)], monkeypatch=monkeypatch, capsys=capsys)
    assert f"Result: {kalah.result} ({kalah.outcome.reason})\n" in out


def test_install_hints_name_the_checkout_extra() -> None:
    """The package is not on the package index: docs and the CLI's hints say ``pip install
    -e ".[web]"`` from a checkout, never ``pip install 'nugar[web]'``."""
    root = Path(__file__).resolve().parent.parent
    # cli/serve.py is being reworked on another branch; its hint changes when that is merged
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md")),
             *sorted((root / "src/nugar").rglob("*.py")),
             *sorted((root / "src/nugar").rglob("*.md"))]
    found = [f"{path.relative_to(root)}: {line.strip()}" for path in files
             for line in path.read_text(encoding="utf-8").splitlines()
             if re.search(r"""pip install [^\n]*["']?nugar\[""", line)]
    assert found == []


def test_replay_step_by_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "g.txt"
    path.write_text('[Rules "dara"]\n1. c3 d4 2. e2 *\n', encoding="utf-8")
    code, out, _ = run_cli(["replay", str(path), "--step"], "\n\n\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "1. c3" in out and "1... d4" in out and "2. e2" in out
    assert out.count("Dara (dara)") == 4  # the start and after each of the 3 turns
    assert "Result: * (unfinished)" in out


def test_replay_reads_stdin_and_several_games(monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    text = "1. 3-6 1 *\n1. 1 2 *\n"
    code, out, _ = run_cli(["replay", "-", "--rules", "kalah"], text,
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "Game 1 of 2" in out and "Game 2 of 2" in out


def test_replay_of_an_illegal_record_exits_1(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text('[Rules "dara"]\n\n1. c3 d4 2. c3 *\n', encoding="utf-8")
    code, _, err = run_cli(["replay", str(path)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1
    assert f"{path}, line 3, column 13: turn 3 (first player) 'c3': c3 is not legal" in err
    assert "Traceback" not in err


WEB_RECORD = """Example Game
Anna Berg (South) - Carlos Mendes (North), igGameCenter, 2011 (North wins, 37 : 33)
The following game was played online; South's seeds are counted first.
1. 4 (-1)....1 (-1)
2. 2 (-1)....6 (-1)
3. 1 (-1)....4 (-1)
4. 3 (-1)....6 (-1)
5. 5 (-4)....6-3 (-2)
6. 6 (-7)....2 (-3)
7. 1-6-3-4 (-9)....4 (-1)
8. 6 (-1)....5-3-5-6 (-5)
9. 6-4 (-5)....4 (-4)
10. 5 (-1)....6-5-4 (-13)
11. 3 (-4)....6-1 (-1)
12. 4 (-2)
"""


def test_replay_of_a_record_copied_from_a_web_page(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dracala.txt"
    path.write_text(WEB_RECORD, encoding="utf-8")
    code, out, err = run_cli(["replay", "--rules", "dracala", str(path)],
                             monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0, err
    assert "Result: 0-1 (majority)" in out and "Score: 37 : 33 (stores)" in out
    assert "12. 4 0-1" in out
    notes = err.splitlines()
    assert notes == [
        f"nugar replay: note: {path}, line 1: skipped, not movetext: 'Example Game'",
        f"nugar replay: note: {path}, line 2: skipped, not movetext: 'Anna Berg (South) - "
        "Carlos Mendes (North), igGameCenter,...'",
        f"nugar replay: note: {path}, line 3: skipped, not movetext: \"The following game "
        "was played online; South's seeds are c...\""]


def test_replay_of_a_web_record_with_a_bad_move_names_its_place(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "dracala.txt"
    path.write_text(WEB_RECORD.replace("7. 1-6-3-4 (-9)", "7. 1-6-3-2 (-9)"), encoding="utf-8")
    code, out, err = run_cli(["replay", "--rules", "dracala", str(path)],
                             monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1
    assert f"{path}, line 10, column 4: turn 13 (first player) '1-6-3-2'" in err
    assert "Result:" not in out and "Traceback" not in err


# --- play --------------------------------------------------------------------------------


def test_play_uses_the_one_default_level(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["play", "dara", "--first", "ai"])
    assert args.first.agent == args.hint == f"level:{DEFAULT_LEVEL}"
    assert sides(None, None)[1].agent == f"level:{DEFAULT_LEVEL}"
    code, out, _ = run_cli(["play", "--help"], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert f"level {DEFAULT_LEVEL})" in out and f"level:{DEFAULT_LEVEL})" in out


def test_play_a_side_not_named_is_the_person(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``nugar play dara --first ai:8`` is the computer against you (docs/benchmarks.md runs
    it so), not the computer against itself."""
    human, level = PlayerSpec(None), PlayerSpec(f"level:{DEFAULT_LEVEL}")
    assert sides(None, None) == (human, level)
    assert sides(PlayerSpec("level:8"), None) == (PlayerSpec("level:8"), human)
    assert sides(None, PlayerSpec("random")) == (human, PlayerSpec("random"))
    assert sides(None, human) == (human, human)
    code, out, _ = run_cli(["play", "dara", "--first", "ai:random"], "moves\nquit\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert out.count("nugar random plays") == 1 and "White > moves" in out
    assert '[Second "human"]' in out and '[First "nugar random"]' in out


def test_play_notes_the_missing_databases_for_level_8(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """Kalah's level 8 reads the endgame databases: ``nugar play`` says what it has of them
    and how to build the larger ones (none are built in the tests' data folder, and the
    automatic build is off there), as for a ``perfect`` agent; not for another level, nor
    for Dara's level 8."""
    from nugar.ai.perfect import RECOMMENDED_DB_SEEDS

    build = f"--build-db {RECOMMENDED_DB_SEEDS}"
    for side in ("ai:8", "ai:perfect"):
        code, out, _ = run_cli(["play", "kalah", "--second", side], "quit\n",
                               monkeypatch=monkeypatch, capsys=capsys)
        out = " ".join(out.split())  # the console wraps long lines
        assert code == 0 and build in out
        assert "Level 8 and the perfect player have no endgame databases yet" in out
        assert "in the background" not in out  # NUGAR_AUTO_DB=0 in the tests
    for rules, level in (("kalah", "ai:7"), ("dara", "ai:8")):
        code, out, _ = run_cli(["play", rules, "--second", level], "quit\n",
                               monkeypatch=monkeypatch, capsys=capsys)
        out = " ".join(out.split())  # the console wraps long lines
        assert code == 0 and "endgame databases" not in out


def test_play_builds_the_small_databases_in_the_background_and_says_so(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    """The first Kalah game against the computer starts building the small databases (to
    ``NUGAR_AUTO_DB`` seeds) and says so; after a computer move it says how far it is."""
    from nugar.solver import autodb

    monkeypatch.setenv("NUGAR_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("NUGAR_AUTO_DB", "5")
    code, out, _ = run_cli(["play", "kalah", "--first", "ai:8", "--second", "human",
                            "--movetime", "0.05"], "quit\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    out = " ".join(out.split())  # the console wraps long lines
    assert code == 0
    assert "Building the endgame databases to 5 seeds in the background" in out
    assert "NUGAR_AUTO_DB=0 turns this off" in out
    assert autodb.wait(parse_rules("kalah"), timeout=120).state == "ready"
    # after a computer move, the session says what changed since it last said
    from nugar.cli.common import checked_rules, console
    from nugar.cli.play import PlaySession

    args = build_parser().parse_args(["play", "kalah", "--second", "ai:8"])
    args.rules = checked_rules(args, "nugar play")
    args.first, args.second = sides(args.first, args.second)
    session = PlaySession(args, console())
    session._databases = autodb.AutoStatus("building", 2, 5)
    session.databases_progress()
    assert capsys.readouterr().out.strip() == "The endgame databases to 5 seeds are ready."
    session.databases_progress()
    assert capsys.readouterr().out == ""  # said once
    code, out, _ = run_cli(["play", "kalah", "--second", "ai:8"], "quit\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    out = " ".join(out.split())  # the console wraps long lines
    assert "in the background" not in out  # nothing left to build
    assert "Level 8 and the perfect player have the endgame databases to 5 seeds; " \
           "larger ones: nugar solve 'kalah' --build-db 26" in out
    monkeypatch.setenv("NUGAR_AUTO_DB", "many")
    code, out, _ = run_cli(["play", "kalah", "--second", "ai:8"], "quit\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    out = " ".join(out.split())  # the console wraps long lines
    assert code == 0 and "Endgame databases: NUGAR_AUTO_DB='many' is not allowed" in out


def test_play_between_two_people_to_the_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    turns = random_turns("kalah", 7)
    lines = ["help", "moves", "zz", "9", "board", "", turns[0], "undo", turns[0],
             *turns[1:]]
    save = tmp_path / "kalah.txt"
    code, out, _ = run_cli(["play", "kalah", "--first", "human", "--second", "human",
                            "--save", str(save)], "\n".join(lines) + "\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "moves          list the legal moves" in out  # help
    assert "Legal: 1 2 3 4 5 6" in out
    assert "Not played: cannot read 'zz'" in out
    assert "Not played: there is no hole 9 in kalah" in out
    rec = record.read_file(save)[0]
    assert rec.turns == turns
    assert rec.game.is_over and rec.tags["First"] == "human"
    assert f"Result: {rec.result}" in out


def test_play_continues_a_turn_decision_by_decision(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["play", "kalah", "--second", "human"], "3\n6\nquit\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "Your turn goes on; legal: 1 2 4 5 6" in out
    assert "1. 3-6 *" in out  # the record printed at the end


def test_play_against_the_computer_with_undo_hint_and_resign(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "g.txt"
    code, out, _ = run_cli(["play", "dara", "--second", "ai:random", "--hint", "greedy",
                            "--save", str(save)],
                           "c3\nundo\nd4\nhint\nsave\nresign\n",
                           monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "nugar random plays" in out
    assert "Hint (greedy): " in out
    assert f"Saved to {save}." in out
    rec = record.read_file(save)[0]
    assert rec.turns[0] == "d4"  # c3 and the reply to it were taken back
    assert rec.result == "0-1" and rec.tags["Termination"] == "resigned"
    assert rec.tags["Second"] == "nugar random"


def test_undo_before_the_person_moved_keeps_the_computers_opening(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["play", "dara", "--first", "ai:random", "--second", "human"],
                           "undo\nquit\n", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "Nothing to undo." in out  # the person has no turn of his own to take back
    assert out.count("nugar random plays") == 1


def test_play_stops_cleanly_at_the_end_of_input(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "g.txt"
    code, out, _ = run_cli(["play", "dala", "--second", "human", "--save", str(save)],
                           "c3\nd3\n", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    assert "End of input" in out
    rec = record.read_file(save)[0]
    assert rec.turns == ["c3", "d3"] and rec.result is None


@pytest.mark.parametrize("rules", list(nugar.PRESETS))
def test_play_works_for_every_preset(rules: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    save = tmp_path / "g.txt"
    code, out, _ = run_cli(["play", rules, "--first", "ai:random", "--second", "ai:greedy",
                            "--save", str(save)], monkeypatch=monkeypatch, capsys=capsys)
    assert code == 0
    rec = record.read_file(save)[0]
    assert rec.game.is_over and rec.rules.text == rules
    assert f"Result: {rec.result}" in out
    # the diagram shows coordinates or hole numbers
    assert ("a  b  c" in out) if rec.rules.family == "alignment" else ("South's holes" in out)


def test_play_from_a_real_process() -> None:
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100")
    proc = subprocess.run([sys.executable, "-m", "nugar", "play", "dara", "--second", "human"],
                          input="c3\nxx\nd4\nmoves\nquit\n", capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Not played: cannot read 'xx'" in proc.stdout
    assert "1. c3 d4 *" in proc.stdout
    assert "\x1b[" not in proc.stdout  # no colour codes when NO_COLOR is set


def test_play_in_a_pseudo_terminal() -> None:
    import pty
    import select

    master, slave = pty.openpty()
    env = dict(os.environ, NO_COLOR="1", COLUMNS="100", TERM="dumb")
    proc = subprocess.Popen([sys.executable, "-m", "nugar", "play", "kalah", "--second",
                             "human"], stdin=slave, stdout=slave, stderr=slave, env=env,
                            close_fds=True)
    os.close(slave)
    os.write(master, b"3-6\n8\nquit\n")
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(master, 4096)
        except OSError:  # the other side closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(timeout=60) == 0
    out = b"".join(chunks).decode("utf-8", "replace")
    assert "South > " in out
    assert "Not played: there is no hole 8 in kalah" in out
    assert "1. 3-6 *" in out


def test_a_record_that_cannot_be_saved_is_printed(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "missing-folder" / "g.txt"
    code, out, _ = run_cli(["play", "kalah", "--second", "human", "--save", str(target)],
                           "3-6\nquit\n", monkeypatch=monkeypatch, capsys=capsys)
    assert code == 1
    assert f"Could not save to {target}" in out
    assert "1. 3-6 *" in out and not target.exists()


def test_an_internal_error_is_one_line_not_a_traceback(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import nugar.ai.tournament as tournament

    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("'<' not supported between instances of 'str' and 'int'")

    monkeypatch.setattr(tournament, "run_match", broken)
    monkeypatch.delenv("NUGAR_DEBUG", raising=False)
    assert main(["match", "random", "random", "--games", "2", "--quiet"]) == 70
    err = capsys.readouterr().err
    assert err.startswith("nugar match: internal error (TypeError: '<' not supported")
    assert "bug in nugar" in err and "Traceback" not in err
    monkeypatch.setenv("NUGAR_DEBUG", "1")
    with pytest.raises(TypeError):
        main(["match", "random", "random", "--games", "2", "--quiet"])
