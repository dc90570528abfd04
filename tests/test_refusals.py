"""Player names in every text, and refusals that say why a move is not legal.

Each refusal is a scenario on a small board (``X`` first player, ``O`` second, ``.`` empty;
sowing diagrams as in ``test_sowing_rules.py``); the tests assert the whole reason text, then
that the reason reaches the user through the command line, the engine protocol and the web API.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import nugar
from nugar import IllegalMoveError, InvalidMoveError
from nugar.cli import main
from nugar.protocol import EngineSession, plain_board
from nugar.rules.alignment import AlignmentGame
from nugar.rules.family import ALIGNMENT, SOWING
from nugar.rules.sowing import SowingGame


def board(rules: str, diagram: str, **kwargs: object) -> AlignmentGame:
    return AlignmentGame.from_diagram(rules, diagram, **kwargs)  # type: ignore[arg-type]


def holes(rules: str, south: list[int], north: list[int], **kwargs: object) -> SowingGame:
    return SowingGame.from_position(rules, south, north, **kwargs)  # type: ignore[arg-type]


def refusal(game: nugar.Game, text: str) -> str:
    """The message of the IllegalMoveError that playing ``text`` raises; checks that the
    game did not change."""
    before = (str(game), game.turns())
    with pytest.raises(IllegalMoveError) as info:
        game.play(text)
    assert (str(game), game.turns()) == before
    return str(info.value)


def reason(game: nugar.Game, text: str) -> str:
    """The reason part of a refusal: between ``"is not legal here: "`` and the legal list."""
    message = refusal(game, text)
    head = f"{text} is not legal here: "
    assert message.startswith(head), message
    legal = ", ".join(str(m) for m in game.legal_moves())
    tail = f"; {game.player_name(game.to_move)} may play: {legal}"
    assert message.endswith(tail), message
    return message[len(head):-len(tail)]


# X steps c1-c2 and makes the three a2 b2 c2; O has loose pieces and, on top, a three
STEP_INTO_THREE = """
    O O O . . .
    . . . . . .
    . . . . . .
    X X . O O .
    . . X O . ."""


# --- names --------------------------------------------------------------------------------
class TestNames:
    def test_one_name_per_family_and_player(self) -> None:
        assert [ALIGNMENT.player_name(p) for p in (1, 2)] == ["Black", "White"]
        assert [SOWING.player_name(p) for p in (1, 2)] == ["South", "North"]
        assert ALIGNMENT.player_label(2) == "White (second)"
        for rules, first, second in (("dala", "Black", "White"), ("dracala", "South", "North")):
            game = nugar.new_game(rules)
            assert (game.player_name(1), game.player_name(2)) == (first, second)
            assert game.player_label(1) == f"{first} (first)"
        with pytest.raises(ValueError, match="1 \\(first\\) or 2 \\(second\\), not 3"):
            SOWING.player_name(3)

    def test_presets_carry_the_names(self) -> None:
        by_name = {p["name"]: p for p in nugar.presets()}
        assert by_name["dara"]["players"] == ["Black", "White"]
        assert by_name["kalah"]["players"] == ["South", "North"]

    def test_alignment_text_board(self) -> None:
        game = nugar.new_game("dara")
        game.play("c3")
        lines = str(game).splitlines()
        assert lines[-3:] == ["X Black (first), O White (second); in hand: Black 11, White 12",
                              "to move: White", "last move: c3"]

    def test_sowing_text_board_labels_the_stores(self) -> None:
        game = nugar.new_game("kalah(pits=2,seeds=1)")
        game.play("2")  # one seed into South's store: a bonus step
        assert str(game).splitlines() == [
            "Kalah (kalah(pits=2,seeds=1)): South to move; last turn: South 2",
            "        2    1   holes of North (second)",
            "        1    1",
            "   0              1   North's store 0 on the left, South's store 1 on the right",
            "        1    0",
            "        1    2   holes of South (first)",
        ]

    def test_terminal_boards(self) -> None:
        game = nugar.new_game("kalah(pits=2,seeds=1)")
        game.play("2")
        text = plain_board(game).splitlines()
        assert text[3] == "( 0)         ( 1)  North's store 0 on the left, " \
                          "South's store 1 on the right"
        assert text[1].endswith("North's holes") and text[5].endswith("South's holes")
        assert text[6:] == ["Score: South (first) 1, North (second) 0", "Last turn: South 2",
                            "Turn 1: South to move"]
        dara = nugar.new_game("dara")
        dara.play("c3")
        text = plain_board(dara).splitlines()
        assert text[-3:] == [
            "● Black (first): 11 in hand, 1 on the board; ○ White (second): 12 in hand, "
            "0 on the board", "Last turn: Black c3", "Turn 2: White to move"]

    def test_web_svg_names_hands_and_stores(self) -> None:
        from nugar.server.play.render import svg

        assert ">White in hand: 12<" in svg(nugar.new_game("dara"))
        picture = svg(nugar.new_game("kalah"))
        assert ">North</text>" in picture and ">South</text>" in picture

    def test_openspiel_observation_string(self) -> None:
        pyspiel = pytest.importorskip("pyspiel")
        import nugar.envs.openspiel  # noqa: F401  (registers the games)

        game = pyspiel.load_game("nugar_kalah")
        state = game.new_initial_state()
        observer = game.make_py_observer()
        assert observer.string_from(state, 1).startswith("North observes; to move: South\n")


# --- alignment refusals ---------------------------------------------------------------------
class TestAlignmentRefusals:
    def test_square_occupied(self) -> None:
        game = nugar.new_game("dara")
        game.play("c3")
        assert reason(game, "c3") == "c3 is occupied (by a Black piece)"

    def test_no_piece_left_in_hand(self) -> None:
        game = board("dara", ". . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nX . X . X .",
                     in_hand=(0, 3))
        assert reason(game, "b1") == "Black has no piece left in hand"

    def test_drop_phase_over(self) -> None:
        game = board("dara", STEP_INTO_THREE)
        assert reason(game, "f1") == ("the drop phase is over (White has no piece left in "
                                      "hand), so a piece steps to a neighbouring empty square "
                                      "instead")

    def test_step_in_the_drop_phase(self) -> None:
        game = nugar.new_game("dara")
        assert reason(game, "c3-c4") == ("it is still the drop phase (White has 12 pieces in "
                                         "hand), and steps come only after it")

    def test_no_piece_there_and_not_your_piece(self) -> None:
        game = board("dara", STEP_INTO_THREE)
        assert reason(game, "e1-f1") == "there is no piece on e1"
        assert reason(game, "d1-e1") == "the piece on d1 is White's, not Black's"

    def test_target_not_empty(self) -> None:
        game = board("dara", STEP_INTO_THREE)
        assert reason(game, "c1-d1") == "d1 is occupied (by a White piece)"
        assert reason(game, "a2-b2") == "b2 is occupied (by a Black piece)"

    @pytest.mark.parametrize("text", ["c1-c3", "c1-d2"])
    def test_target_not_a_neighbour(self, text: str) -> None:
        game = board("dara", STEP_INTO_THREE)
        with pytest.raises(InvalidMoveError,
                           match=f"^{text} is not a step: a piece moves one square up, down, "
                                 "left or right"):
            game.play(text)

    def test_square_off_the_board(self) -> None:
        game = nugar.new_game("dara")
        with pytest.raises(InvalidMoveError,
                           match=r"^square 'g1' is off the 5x6 board of dara; squares are "
                                 r"a1\.\.f5; Black may play: a1, "):
            game.play("g1")

    def test_drop_making_four_no_four(self) -> None:
        game = board("dara", ". . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nX X X . . .",
                     in_hand=(9, 12))
        assert reason(game, "d1") == "a drop on d1 would make a line of four (drop_limit=no_four)"
        game.play("e1")  # a line of three is allowed under no_four

    def test_drop_making_three_no_three(self) -> None:
        game = board("dara-niger",
                     ". . . . . .\n. . . . . .\n. . . . . .\n. . . . . .\nX X . . . .",
                     in_hand=(10, 12))
        assert reason(game, "c1") == "a drop on c1 would make three in a row (drop_limit=no_three)"

    def test_step_making_four_long_lines_forbidden(self) -> None:
        diagram = "O . O . O .\n. . . . . .\n. . . . . .\n. . . . . .\nX X X . . X"
        game = board("dara", diagram)
        game.play("f1-e1")
        game.play("a5-a4")
        assert reason(game, "e1-d1") == "e1-d1 would make a line of four (long_lines=forbidden)"
        # long_lines=allowed (Dala): the same step is legal
        board("dala(rows=5)", diagram.replace("X X X . . X", "X X X . X .")).play("e1-d1")

    def test_centre_first(self) -> None:
        game = nugar.new_game("dala")
        assert reason(game, "a1") == ("the centre squares c3, d3, c4, d4 must be filled first "
                                      "(centre_first=on)")

    def test_no_return(self) -> None:
        game = board("dara-sheet", "O . O . O .\n. . . . . .\nX . . . . X\n. . . . . .\n"
                                   ". . X . . .")
        game.play("c1-c2")
        game.play("a5-a4")
        assert reason(game, "c2-c1") == ("the piece on c2 just came from c1 and may not step "
                                         "straight back (no_return=on)")

    def test_capture_pending(self) -> None:
        game = board("dara", STEP_INTO_THREE)
        game.play("c1-c2")
        assert game.capture_pending
        assert reason(game, "a2-a3") == "Black formed a three and must first capture a White piece"
        assert reason(game, "pass") == "Black formed a three and must first capture a White piece"
        assert refusal(game, "a2-a3").endswith("; Black may play: xd1, xd2, xe2")

    def test_capture_protected_own_or_empty(self) -> None:
        game = board("dara", STEP_INTO_THREE)
        game.play("c1-c2")
        assert reason(game, "xa5") == ("the White piece on a5 stands in a three and is "
                                       "protected (protect_threes=on)")
        assert reason(game, "xa2") == "a2 holds Black's own piece; capture a White piece"
        assert reason(game, "xf1") == "there is no piece on f1 to capture"

    def test_nothing_to_capture(self) -> None:
        game = nugar.new_game("dara")
        assert reason(game, "xc3") == "there is nothing to capture, as Black has not just " \
                                      "formed a three"

    def test_pass_only_when_blocked(self) -> None:
        game = nugar.new_game("dara")
        assert reason(game, "pass") == "Black may pass only when blocked, and has 30 legal moves"

    def test_a_turn_that_goes_on_after_its_end(self) -> None:
        game = nugar.new_game("dara")
        assert refusal(game, "c3xd4") == ("turn 'c3xd4' cannot continue with xd4: Black's turn "
                                          "ended with c3, as c3 formed no three")
        game = board("dara", ". . . . . O\n. . . . . .\n. . . . . .\n. . . . . .\nX X . . . .",
                     in_hand=(10, 11))
        assert refusal(game, "c1xf5") == (
            "turn 'c1xf5' cannot continue with xf5: Black's turn ended with c1, as a three "
            "made by a drop captures nothing (drop_capture=off)")
        game = board("dara", "O O O . . .\n. . . . . .\n. . . . . .\nX X . . . .\n. . X . . .")
        assert refusal(game, "c1-c2xa5") == (
            "turn 'c1-c2xa5' cannot continue with xa5: Black's turn ended with c1-c2, as every "
            "White piece was protected")

    def test_game_over(self) -> None:
        game = board("dara", ". . . . . .\n. . . . . .\n. . . . . .\nX X . O O .\n. . X O . .")
        game.play("c1-c2xd1")
        assert refusal(game, "d2-d1") == "d2-d1 cannot be played: the game is over (1-0 (pieces))"


# --- sowing refusals --------------------------------------------------------------------------
class TestSowingRefusals:
    def test_hole_empty(self) -> None:
        game = holes("kalah(pits=3)", [0, 1, 1], [1, 1, 1])
        assert reason(game, "1") == "hole 1 is empty"

    def test_hole_out_of_range(self) -> None:
        with pytest.raises(InvalidMoveError, match=r"^there is no hole 7 in kalah; holes are "
                                                   r"1\.\.6; South may play: 1, 2, 3, 4, 5, 6$"):
            nugar.new_game("kalah").play("7")

    def test_dracala_must_capture_the_most(self) -> None:
        # hole 1 lands in the empty hole 2 facing North's seed: 1 + 1; hole 3 sows 1 into the store
        game = holes("dracala(pits=3)", [1, 0, 1], [0, 1, 0])
        assert game.step_captures() == [2, None, 1]
        assert reason(game, "3") == ("hole 3 would capture 1 seed while hole 1 captures 2, and a "
                                     "step must capture as many seeds as possible")

    def test_dracala_bonus_preference(self) -> None:
        # holes 2 and 3 each put one seed into the store; only hole 2 ends there (a bonus step)
        game = holes("dracala(pits=3)", [0, 2, 2], [0, 0, 1])
        assert reason(game, "3") == ("hole 2 captures as many seeds (1) and gives a bonus step, "
                                     "and among the steps capturing the most the rightmost one "
                                     "giving a bonus step must be taken")
        # the first step of the game is exempt from the preference
        holes("dracala(pits=3)", [0, 2, 2], [0, 0, 1], first_step_done=False).play("3")

    def test_dracala_rightmost_bonus_hole(self) -> None:
        game = holes("dracala(pits=3)", [0, 2, 1], [0, 0, 1])
        assert reason(game, "2") == ("hole 2 gives a bonus step, but so does hole 3, and the "
                                     "rightmost step giving a bonus step must be taken")

    def test_a_turn_that_goes_on_without_a_bonus_step(self) -> None:
        game = nugar.new_game("kalah")
        assert refusal(game, "1-2") == ("turn '1-2' cannot continue with 2: South's turn ended "
                                        "with 1, as the last seed of 1 did not fall into "
                                        "South's store")

    def test_game_over(self) -> None:
        game = nugar.new_game("kalah(pits=1,seeds=1)")
        game.play("1")
        assert refusal(game, "1") == ("1 cannot be played: the game is over "
                                      "(1/2-1/2 (empty_side))")


# --- the reason reaches the user ------------------------------------------------------------
OCCUPIED = "c3 is not legal here: c3 is occupied (by a Black piece); White may play: a1, b1, "


def test_cli_moves_prints_the_reason_on_stderr(monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["moves", "dara", "c3", "c3"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"nugar moves: turn 2 'c3': {OCCUPIED}")


def test_cli_play_shows_the_reason(monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "400")
    monkeypatch.setattr(sys, "stdin", io.StringIO("c3\nc3\nquit\n"))
    assert main(["play", "dara", "--second", "human"]) == 0
    out, _ = capsys.readouterr()
    assert f"Not played: {OCCUPIED}" in out
    assert "White > " in out


def test_cli_replay_shows_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.txt"
    path.write_text('[Rules "kalah"]\n\n1. 1-2 *\n', encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["replay", str(path)]) == 1
    _, err = capsys.readouterr()
    assert ("'1-2': turn '1-2' cannot continue with 2: South's turn ended with 1, as the last "
            "seed of 1 did not fall into South's store") in err


def test_engine_play_replies_with_the_reason() -> None:
    session = EngineSession("dara")
    assert session.handle("play c3") == "= \n\n"
    reply = session.handle("1 play c3")
    assert reply is not None and reply.startswith(f"?1 {OCCUPIED}")
    assert session.handle("tomove") == "= 2\n\n"


def test_web_move_response_carries_the_reason(client: TestClient) -> None:
    made = client.post("/api/games", json={"rules": "dara", "mode": "friend"}).json()
    gid, keys = made["id"], made["keys"]
    assert made["state"]["players"] == ["Black", "White"]
    assert client.post(f"/api/games/{gid}/move",
                       json={"key": keys["1"], "move": "c3"}).status_code == 200
    r = client.post(f"/api/games/{gid}/move", json={"key": keys["2"], "move": "c3"})
    assert r.status_code == 409 and r.json()["error"] == "illegal_move"
    assert r.json()["detail"].startswith(OCCUPIED)
    r = client.post(f"/api/games/{gid}/move", json={"key": keys["1"], "move": "d4"})
    assert r.status_code == 409
    assert r.json()["detail"] == "it is White's turn, not Black's"
    presets = {p["name"]: p for p in client.get("/api/presets").json()}
    assert presets["dracala"]["players"] == ["South", "North"]
    replay = client.post("/api/replay", json={"record": '[Rules "kalah"]\n1. 3-6 *\n'})
    assert replay.json()["players"] == ["South", "North"]
