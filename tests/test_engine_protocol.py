"""The ``nugar engine`` line protocol, through a real subprocess and in process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

import nugar
from nugar.ai import DEFAULT_LEVEL, TOP_LEVEL
from nugar.protocol import COMMANDS, Command, CommandError, EngineSession, command
from nugar.rules.family import ai_profiles


def talk(commands: list[str], *args: str) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """Send the commands to ``nugar engine``; the replies, each without its blank line."""
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run([sys.executable, "-m", "nugar", "engine", *args],
                          input="".join(c + "\n" for c in commands), capture_output=True,
                          text=True, env=env, timeout=120)
    assert proc.stdout.endswith("\n\n") or proc.stdout == ""
    replies = proc.stdout[:-2].split("\n\n") if proc.stdout else []
    return replies, proc


def test_a_session_through_a_subprocess() -> None:
    replies, proc = talk([
        "name",
        "version",
        "protocol_version",
        "rules kalah(pits=4, seeds=3)",
        "legal",
        "play 2-4",          # a whole turn: hole 2 ends in the store, then hole 4
        "turns",
        "result",
        "play 9",            # malformed: no such hole
        "bogus command",     # unknown
        "play",              # missing argument
        "go depth x",        # bad limit
        "",                  # blank lines and comments get no reply
        "# a comment",
        "7 tomove",          # an id is echoed
        "go agent greedy",
        "legal",
        "undo",
        "turns",
        "quit",
        "name",              # after quit nothing more is read
    ])
    # stderr carries only the compiling progress of a first run (nothing when cached)
    assert proc.returncode == 0
    assert all(line.startswith("nugar engine: ") and ("Preparing the engine" in line
                                                      or "Engine ready" in line)
               for line in proc.stderr.splitlines())
    assert replies == [
        "= nugar",
        f"= {nugar.__version__}",
        "= 1",
        "= kalah(pits=4,seeds=3)",
        "= 1 2 3 4",
        "= ",
        "= 2-4",
        "= *",
        "? there is no hole 9 in kalah(pits=4,seeds=3); holes are 1..4; "
        "North may play: 1, 2, 3, 4",
        replies[9],
        replies[10],
        "? go: depth needs a whole number >= 1, not 'x'",
        "=7 2",
        replies[13],
        "= 1 2 3 4",
        "= 4",
        "= 2",
        "= ",
    ]
    assert replies[9].startswith("? unknown command 'bogus'; known commands: ")
    assert replies[10].startswith("? play needs a move or a whole turn")
    game = nugar.new_game("kalah(pits=4,seeds=3)")
    game.play("2-4")
    assert replies[13][2:] in [str(m) for m in game.legal_moves()]  # go: chosen, not played


def test_end_of_input_ends_the_session() -> None:
    replies, proc = talk(["rules dala", "play c3", "board"])
    assert proc.returncode == 0
    assert replies[:2] == ["= dala", "= "]
    board = replies[2]
    assert board.startswith("= Dala (dala)")
    assert "[●]" in board  # the last move is marked
    assert "\x1b[" not in board


def test_engine_starts_with_the_rules_given() -> None:
    replies, proc = talk(["rules", "legal"], "--rules", "dracala")
    assert replies == ["= dracala", "= 1 2 3 4 5 6"]
    _, proc = talk([], "--rules", "nosuch")
    assert proc.returncode == 2 and "unknown preset 'nosuch'" in proc.stderr


def test_the_engine_plays_at_full_strength_unless_told_otherwise() -> None:
    # the top of every game's level table: a referee sending only "go movetime MS" gets it
    assert all(max(profile.levels) == TOP_LEVEL for profile in ai_profiles())
    assert TOP_LEVEL > DEFAULT_LEVEL
    replies, proc = talk(["agent", "rules dracala", "agent", "go movetime 300",
                          "agent level:3", "agent"])
    assert proc.returncode == 0
    assert replies[:3] == [f"= level:{TOP_LEVEL}", "= dracala", f"= level:{TOP_LEVEL}"]
    assert re.fullmatch(r"= [1-6]", replies[3])
    assert replies[4:] == ["= level:3", "= level:3"]


@pytest.fixture
def session() -> EngineSession:
    return EngineSession("dara")


def ask(session: EngineSession, line: str) -> str:
    reply = session.handle(line)
    assert reply is not None and reply.endswith("\n\n")
    assert "\n\n" not in reply[:-2]  # a payload never holds a blank line
    return reply[:-2]


@pytest.mark.parametrize(("line", "reply"), [
    ("rules chess", "? unknown preset 'chess'; allowed: dara, dara-niger, dara-sheet, dala, "
                    "kalah, dracala"),
    ("play c3 c4 c5", "? cannot read 'c3c4c5' as an alignment move or turn"),
    ("play z9", "? square 'z9' is off the 5x6 board of dara"),
    ("undo", "? nothing to undo"),
    ("undo everything", "? undo takes nothing (one decision) or 'turn'"),
    ("legal now", "? legal takes no arguments, got 'now'"),
    ("go movetime", "? go takes name-value pairs"),
    ("go level 9", "? go: level must be 1..8, not 9"),
    ("go speed 3", "? go: unknown limit 'speed'"),
    ("go depth 2 depth 3", "? go: depth is given twice"),
    ("agent wizard", "? unknown agent 'wizard'"),
    ("known_command", "? known_command needs one command name"),
    ("known_command go play", "? known_command needs one command name, e.g. 'known_command "
                              "go', not 'go play' (usage: known_command NAME)"),
    ("undo turn turn", "? undo takes nothing (one decision) or 'turn' (the whole last turn), "
                       "not 'turn turn' (usage: undo [turn])"),
    ("agent level:3 level:4", "? agent takes one spec, e.g. 'agent level:5' or 'agent random', "
                              "not 'level:3 level:4' (usage: agent [SPEC])"),
    ("play", "? play needs a move or a whole turn, e.g. 'play c3', 'play c3-c4xe5' or "
             "'play 1-6' (usage: play MOVE...)"),
    ("help go play", "? help takes at most 1 argument, not 'go play' (usage: help [COMMAND])"),
    ("help fly", "? help: unknown command 'fly'; known commands: protocol_version name"),
    ("quit now", "? quit takes no arguments, got 'now'"),
    ("12", "?12 a command is missing after the id 12"),
    ("3 PLAY zz", "?3 cannot read 'zz'"),
])
def test_malformed_commands_get_a_reason(session: EngineSession, line: str, reply: str) -> None:
    answer = ask(session, line)
    assert answer.startswith(reply), answer
    assert ask(session, "name") == "= nugar"  # the session goes on


def test_a_game_played_to_the_end(session: EngineSession) -> None:
    ask(session, "rules kalah(pits=3,seeds=2)")
    game = nugar.new_game("kalah(pits=3,seeds=2)")
    while ask(session, "result") == "= *":
        legal = ask(session, "legal")[2:].split()
        assert legal == [str(m) for m in game.legal_moves()]
        assert ask(session, "tomove") == f"= {game.to_move}"
        move = ask(session, "go agent random")[2:]
        assert move in legal
        assert ask(session, f"play {move}") == "= "
        game.play(move)
    assert game.outcome is not None
    assert ask(session, "result") == f"= {game.result}"
    assert ask(session, "status") == f"= over {game.result} {game.outcome.reason}"
    assert ask(session, "score") == "= {} {}".format(*game.score)
    assert ask(session, "turns") == "= " + " ".join(game.turns())
    assert ask(session, "legal") == "= "
    assert ask(session, "tomove") == "= -"
    assert ask(session, "go").startswith("? the game is over")
    assert ask(session, "play 1").startswith("? 1 cannot be played: the game is over")
    data = json.loads(ask(session, "json")[2:])
    assert data["turns"] == game.turns() and data["result"] == game.result


def test_undo_newgame_resign_and_commands(session: EngineSession) -> None:
    assert ask(session, "play c3") == "= "
    assert ask(session, "play d4") == "= "
    assert ask(session, "moves") == "= c3 d4"
    assert ask(session, "undo") == "= d4"
    assert ask(session, "status") == "= running 2"
    assert ask(session, "undo turn") == "= c3"
    assert ask(session, "play c3") == "= "
    assert ask(session, "resign") == "= 1-0"
    assert ask(session, "result") == "= 1-0"
    assert ask(session, "newgame") == "= "
    assert ask(session, "turns") == "= "
    assert ask(session, "known_command go") == "= true"
    assert ask(session, "known_command fly") == "= false"
    names = ask(session, "list_commands")[2:].split("\n")
    for required in ("rules", "newgame", "play", "undo", "legal", "turns", "board", "result",
                     "go", "name", "version", "quit"):
        assert required in names
    assert ask(session, "agent") == f"= level:{TOP_LEVEL}"
    assert ask(session, "agent greedy") == "= greedy"
    assert re.fullmatch(r"= [a-f][1-5]", ask(session, "go movetime 50 nodes 100"))
    assert session.handle("   # nothing here") is None
    assert ask(session, "quit") == "= " and session.finished


# --- the commands as the decorator registers them -------------------------------------------


def test_every_command_is_registered_once_with_its_usage(session: EngineSession) -> None:
    names = ask(session, "list_commands")[2:].split("\n")
    assert names == list(COMMANDS)
    assert names[:22] == ["protocol_version", "name", "version", "known_command",
                          "list_commands", "rules", "newgame", "play", "undo", "legal",
                          "turns", "moves", "board", "tomove", "result", "status", "score",
                          "go", "agent", "resign", "json", "quit"]  # the order of before help
    lines = ask(session, "help")[2:].split("\n")
    assert len(lines) == len(COMMANDS)
    for name, line in zip(names, lines, strict=True):
        usage = COMMANDS[name].usage
        assert usage.split()[0] == name and line.startswith(usage + ": ")
        assert ask(session, f"help {name.upper()}") == "= " + line
        assert ask(session, f"known_command {name}") == "= true"


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_command_taking_no_arguments_refuses_one(session: EngineSession, name: str) -> None:
    found = COMMANDS[name]
    if found.most != 0:
        return
    assert ask(session, f"{name} extra") == f"? {name} takes no arguments, got 'extra'"
    assert not session.finished


def test_the_argument_checks_count_and_words() -> None:
    def method(session: EngineSession, args: list[str]) -> str:
        return " ".join(args)

    two = Command("pair", "pair A B", "two words", 2, 2, (), "", method)
    some = Command("some", "some [X...]", "one or more", 1, None, (), "", method)
    choice = Command("pick", "pick [left|right]", "a side", 0, 1, ("left", "right"),
                     "pick takes left or right", method)
    session = EngineSession("dara")
    assert two.answer(session, ["a", "b"]) == "a b"
    assert some.answer(session, ["a", "b", "c"]) == "a b c"
    assert choice.answer(session, []) == "" and choice.answer(session, ["left"]) == "left"
    for cmd, args, message in [
            (two, ["a"], "pair takes 2 arguments, not 'a' (usage: pair A B)"),
            (two, ["a", "b", "c"], "pair takes 2 arguments, not 'a b c' (usage: pair A B)"),
            (some, [], "some needs at least 1 argument (usage: some [X...])"),
            (choice, ["up"], "pick takes left or right, not 'up' (usage: pick [left|right])"),
            (choice, ["left", "right"], "pick takes left or right, not 'left right' "
                                        "(usage: pick [left|right])")]:
        with pytest.raises(CommandError) as err:
            cmd.answer(session, args)
        assert str(err.value) == message


def test_a_command_is_registered_once_and_with_a_method_that_fits() -> None:
    with pytest.raises(ValueError, match="'go' is registered twice"):
        command("go [X]", "again", most=1)(lambda session, args: "")
    with pytest.raises(TypeError, match=r"must take \(self, args\)"):
        command("fresh_one X", "x", least=1, most=1)(lambda session: "")
    with pytest.raises(TypeError, match=r"must take \(self\)"):
        command("fresh_two", "x")(lambda session, args: "")
    assert "fresh_one" not in COMMANDS and "fresh_two" not in COMMANDS
