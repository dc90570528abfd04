"""Scenario tests of the alignment rules (rules page, "Alignment family"), one class per rule and
per option value, on small ASCII boards read by ``AlignmentGame.from_diagram``.

Diagrams put the highest row first; ``X`` is the first player, ``O`` the second, ``.`` empty.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import nugar
from nugar import IllegalMoveError, InvalidMoveError, Move
from nugar.kernels import alignment as K
from nugar.kernels import dispatch as D
from nugar.rules.alignment import AlignmentGame


def setup(rules: str, diagram: str, **kwargs: object) -> AlignmentGame:
    return AlignmentGame.from_diagram(rules, diagram, **kwargs)  # type: ignore[arg-type]


def new(rules: str) -> AlignmentGame:
    game = nugar.new_game(rules)
    assert isinstance(game, AlignmentGame)
    return game


def legal(game: nugar.Game) -> list[str]:
    return [str(m) for m in game.legal_moves()]


def play_all(game: nugar.Game, *turns: str) -> None:
    for turn in turns:
        game.play(turn)


# X steps c1-c2 and makes the three a2 b2 c2; O has six loose pieces.
STEP_INTO_THREE = """
    O . O . O .
    . . . . . .
    . . . . . .
    X X . O O .
    . . X O . ."""

# the same with O's top row a standing three (a5 b5 c5)
O_HAS_A_THREE = """
    O O O . . .
    . . . . . .
    . . . . . .
    X X . O O .
    . . X O . ."""

# every O piece stands in a three
ALL_O_PROTECTED = """
    O O O . . .
    . . . . . .
    . . . . . .
    X X . . . .
    . . X . . ."""

# as STEP_INTO_THREE, but O has only three pieces
LAST_THREE = ". . . . . .\n. . . . . .\n. . . . . .\nX X . O O .\n. . X O . ."

# quiet position for shuffling: X a1-a2 and back, O f5-f4 and back; no lines anywhere
SHUFFLE = """
    O . O . . O
    . . . . . .
    . . X . . .
    . . . . . .
    X . . . X ."""


class TestBoardAndNotation:
    def test_dara_board_is_five_rows_by_six_columns(self) -> None:
        game = new("dara")
        assert legal(game)[0] == "a1" and legal(game)[-1] == "f5"
        assert len(legal(game)) == 30

    def test_dala_board_is_six_by_six(self) -> None:
        game = new("dala(centre_first=off)")
        assert len(legal(game)) == 36 and legal(game)[-1] == "f6"

    @pytest.mark.parametrize("text", ["g1", "a6", "z26", "a1-a0", "xg5", "f5-g5"])
    def test_squares_off_the_board_are_invalid(self, text: str) -> None:
        game = new("dara")
        with pytest.raises(InvalidMoveError, match=r"off the 5x6 board|not a square|cannot read"):
            game.play(text)

    @pytest.mark.parametrize("text", ["4", "1-6"])
    def test_sowing_moves_are_invalid(self, text: str) -> None:
        game = new("dara")
        with pytest.raises(InvalidMoveError, match=r"not an alignment move|cannot read"):
            game.play(text)
        with pytest.raises(InvalidMoveError, match="not an alignment move"):
            game.parse_move(Move.sow(4))

    @pytest.mark.parametrize("text", ["c3-d4", "c3-c5", "c3-c3"])
    def test_steps_must_be_orthogonal_neighbours(self, text: str) -> None:
        game = new("dara")
        with pytest.raises(InvalidMoveError, match="never diagonally"):
            game.parse_move(text)

    def test_every_action_code_names_its_move(self) -> None:
        game = AlignmentGame("dara")
        n = 30
        assert str(game.action_to_move(0)) == "a1"
        assert str(game.action_to_move(n + 4 * 14 + 0)) == "c3-c4"
        assert str(game.action_to_move(n + 4 * 14 + 1)) == "c3-d3"
        assert str(game.action_to_move(n + 4 * 14 + 2)) == "c3-c2"
        assert str(game.action_to_move(n + 4 * 14 + 3)) == "c3-b3"
        assert str(game.action_to_move(5 * n + 28)) == "xe5"
        assert str(game.action_to_move(6 * n)) == "pass"
        for code in (0, n + 57, 5 * n + 28, 6 * n):
            assert game.move_to_action(game.action_to_move(code)) == code
        with pytest.raises(InvalidMoveError, match="outside"):
            game.action_to_move(6 * n + 1)
        with pytest.raises(InvalidMoveError, match="off the board"):
            game.action_to_move(n + 4 * 0 + 2)  # a1 down

    def test_text_board_has_coordinates_hands_mover_and_last_move(self) -> None:
        game = new("dara")
        game.play("c3")
        text = str(game)
        assert "a b c d e f" in text
        assert "3 . . X . . . 3" in text
        assert "X Black (first), O White (second); in hand: Black 11, White 12" in text
        assert "to move: White\n" in text
        assert "last move: c3" in text

    def test_text_board_of_a_finished_game_and_of_two_digit_rows(self) -> None:
        game = setup("dara", LAST_THREE)
        game.play("c1-c2xd1")
        assert "game over: 1-0 (pieces)" in str(game)
        assert "last move: c1-c2xd1" in str(game)
        big = new("dara(rows=12,cols=3)")
        lines = str(big).splitlines()
        assert lines[0] == "   a b c" and lines[1] == "12 . . . 12" and lines[12] == " 1 . . . 1"

    def test_diagram_reads_back(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        again = setup("dara", game.diagram())
        assert again.diagram() == game.diagram()
        assert game.piece_at("c1") == 1 and game.piece_at("d1") == 2 and game.piece_at("f5") == 0
        assert game.score == (3, 6)

    @pytest.mark.parametrize(("diagram", "kwargs", "message"), [
        ("X X", {}, "has 5"),
        (". . . . . .\n" * 4 + ". . . . .", {}, "5 squares; dara has 6"),
        (". . . . . .\n" * 4 + ". . . . . Q", {}, "use X"),
        (". . . . . .\n" * 5, {"to_move": 3}, "to_move"),
        (". . . . . .\n" * 5, {"in_hand": (13, 0)}, "more than pieces"),
        (". . . . . .\n" * 5, {"in_hand": (-1, 0)}, "in_hand"),
    ])
    def test_bad_diagrams_are_rejected(self, diagram: str, kwargs: dict[str, object],
                                       message: str) -> None:
        with pytest.raises(ValueError, match=message):
            setup("dara", diagram, **kwargs)


class TestDropPhase:
    def test_drops_last_until_the_second_hand_is_empty(self) -> None:
        game = new("dara")
        rng = random.Random(1)
        for _ in range(24):
            assert game.in_drop_phase
            moves = game.legal_moves()
            assert all(m.kind == "drop" for m in moves)
            game.play(rng.choice(moves))
        assert not game.in_drop_phase
        assert game.in_hand == (0, 0)
        assert all(m.kind == "step" for m in game.legal_moves())

    # 1x8: X cannot drop (c1 makes five, f1 makes d1 e1 f1 a three); O can drop on c1 only
    BLOCKED_DROP = "X X . X X . O O"

    def test_a_blocked_dropper_passes_and_keeps_the_piece(self) -> None:
        game = setup("dara-niger(rows=1,cols=8,pieces=5)", self.BLOCKED_DROP, in_hand=(1, 1))
        assert legal(game) == ["pass"]
        game.play("pass")
        assert legal(game) == ["c1"]
        game.play("c1")
        assert not game.in_drop_phase
        assert game.in_hand == (1, 0)
        assert game.score == (5, 3)
        assert all(m.kind == "step" for m in game.legal_moves())

    def test_blocked_lose_in_the_drop_phase(self) -> None:
        game = setup("dara-niger(rows=1,cols=8,pieces=5,blocked=lose)", self.BLOCKED_DROP,
                     in_hand=(1, 1))
        assert game.outcome == nugar.Outcome(2, "blocked")

    def test_a_player_with_an_empty_hand_is_blocked_while_the_other_drops(self) -> None:
        game = setup("dara(rows=1,cols=8,pieces=5)", "X X . O . X . O", in_hand=(0, 2))
        assert legal(game) == ["pass"]
        game.play("pass")
        assert legal(game) == ["c1", "e1", "g1"]


class TestCentreFirst:
    def test_dala_first_four_drops_fill_the_centre(self) -> None:
        game = new("dala")
        choices = []
        for _ in range(4):
            moves = legal(game)
            assert set(moves) <= {"c3", "d3", "c4", "d4"}
            choices.append(len(moves))
            game.play(moves[-1])
        assert choices == [4, 3, 2, 1]
        assert game.turn_list()[0][0] == 1 and game.turn_list()[1][0] == 2
        assert len(legal(game)) == 32

    def test_centre_of_a_five_by_six_board(self) -> None:
        game = new("dara(centre_first=on)")
        assert legal(game) == ["c2", "d2", "c3", "d3"]

    def test_off_allows_any_square(self) -> None:
        assert len(legal(new("dala(centre_first=off)"))) == 36

    def test_counts_drops_already_made(self) -> None:
        board = ". . . . . .\n" * 5 + "X O . . . ."
        game = setup("dala", board, in_hand=(11, 11))
        assert legal(game) == ["c3", "d3", "c4", "d4"]
        game = setup("dala", board, in_hand=(9, 9))
        assert len(legal(game)) == 34


class TestDropCapture:
    BOARD = """
        . . . . . .
        . . . . . .
        . . O O . .
        . . . . . .
        . . . . . .
        X X . . . ."""

    def test_off_a_drop_three_captures_nothing(self) -> None:
        game = setup("dala(drop_capture=off)", self.BOARD, in_hand=(9, 9))
        game.play("c1")
        assert game.to_move == 2 and not game.capture_pending

    def test_on_a_drop_three_captures(self) -> None:
        game = setup("dala", self.BOARD, in_hand=(9, 9))
        game.play("c1")
        assert game.to_move == 1 and game.capture_pending
        assert legal(game) == ["xc4", "xd4"]
        game.play("xd4")
        assert game.turns() == ["c1xd4"]
        assert game.score == (11, 10) and game.to_move == 2

    def test_nothing_to_take_means_no_capture_decision(self) -> None:
        board = ". . . . . .\n" * 5 + "X X . . . ."
        game = setup("dala(centre_first=off)", board, in_hand=(10, 12))
        game.play("c1")
        assert game.to_move == 2 and not game.capture_pending


class TestDropLimit:
    def test_no_four_forbids_a_drop_in_a_line_of_four(self) -> None:
        board = ". . . . . .\n" * 4 + "X X X . . ."
        moves = legal(setup("dara", board, in_hand=(5, 6)))
        assert "d1" not in moves and "d2" in moves and "a2" in moves
        gap = ". . . . . .\n" * 4 + "X X . X . ."
        assert "c1" not in legal(setup("dara", gap, in_hand=(5, 6)))

    def test_no_four_allows_a_three(self) -> None:
        board = ". . . . . .\n" * 4 + "X X . . . ."
        assert "c1" in legal(setup("dara", board, in_hand=(5, 6)))

    def test_no_three_forbids_a_drop_in_a_three(self) -> None:
        board = ". . . . . .\n" * 4 + "X X . . . ."
        moves = legal(setup("dara-niger", board, in_hand=(5, 6)))
        assert "c1" not in moves and "d1" in moves
        gap = ". . . . . .\n" * 4 + "X . X . . ."
        assert "b1" not in legal(setup("dara-niger", gap, in_hand=(5, 6)))
        column = ". . . . . .\n. . . . . .\n. . . . . .\nX . . . . .\nX . . . . ."
        assert "a3" not in legal(setup("dara-niger", column, in_hand=(5, 6)))

    def test_none_allows_any_line(self) -> None:
        board = ". . . . . .\n" * 5 + "X X X . . ."
        assert "d1" in legal(setup("dala", board, in_hand=(9, 9)))

    def test_only_the_dropped_pieces_lines_count(self) -> None:
        board = "X X X X . .\n" + ". . . . . .\n" * 3 + ". . . . . ."
        moves = legal(setup("dara-niger", board, in_hand=(4, 6)))
        assert "a1" in moves and "e5" not in moves and len(moves) == 25


class TestLongLines:
    MAKE_FOUR = """
        . . . . . .
        . . . . . O
        . . . . . O
        . . . . . .
        . . . X . .
        X X X . . O"""

    def test_forbidden_a_step_may_not_make_four(self) -> None:
        game = setup("dala(long_lines=forbidden)", self.MAKE_FOUR)
        moves = legal(game)
        assert "d2-d1" not in moves and "d2-d3" in moves

    def test_forbidden_only_the_moved_pieces_lines_count(self) -> None:
        board = "X X X X . .\n. . . . . .\n. . . . . O\n. . . . . O\nX . . . . O"
        moves = legal(setup("dara", board))
        assert "a1-a2" in moves and "a1-b1" in moves and "d5-e5" in moves

    def test_allowed_a_four_captures_nothing(self) -> None:
        game = setup("dala", self.MAKE_FOUR)
        game.play("d2-d1")
        assert game.to_move == 2 and not game.capture_pending

    def test_allowed_a_three_made_with_a_four_still_captures(self) -> None:
        board = """
            . . . . . .
            . . . . . O
            . . . . . O
            . . . X . .
            . . . X . .
            X X X . X O"""
        game = setup("dala", board)
        game.play("e1-d1")
        assert game.capture_pending and legal(game) == ["xf1", "xf4", "xf5"]

    def test_allowed_stepping_off_the_end_of_a_four_captures(self) -> None:
        board = """
            . . . . . .
            . . . . . O
            . . . . . O
            . . . . . .
            . . . . . .
            X X X X . O"""
        game = setup("dala", board)
        game.play("d1-d2")
        assert game.capture_pending
        game.play("xf5")
        assert game.turns() == ["d1-d2xf5"]


class TestFormingThrees:
    def test_stepping_next_to_two_forms_a_three(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        game.play("c1-c2")
        assert game.to_move == 1 and game.capture_pending
        assert legal(game) == ["xd1", "xd2", "xe2", "xa5", "xc5", "xe5"]

    def test_a_standing_three_never_counts_again(self) -> None:
        board = ". . . . . O\n. . . . . .\nX X X . . .\n. . . . . .\nX . . O O ."
        game = setup("dara", board)
        game.play("a1-a2")
        assert game.to_move == 2 and not game.capture_pending

    def test_reforming_a_three_counts(self) -> None:
        board = ". . . . . O\n. . . . . .\nX X X . . .\n. . . . . .\n. . . O O ."
        game = setup("dara", board)
        game.play("c3-c4")
        assert game.to_move == 2
        game.play("f5-f4")
        game.play("c4-c3")
        assert game.capture_pending

    def test_two_threes_with_one_move_give_one_capture(self) -> None:
        board = """
            O . . . O .
            . . . . . O
            X X . X . .
            . . X . . O
            . . X . . O"""
        game = setup("dara", board)
        game.play("d3-c3")
        assert game.capture_pending
        game.play("xf4")
        assert game.to_move == 2 and not game.capture_pending
        assert game.score == (5, 4)

    def test_diagonals_never_count(self) -> None:
        board = ". . . . O O\n. . . . . .\n. . X . . .\n. X . . . .\n. . X . . O"
        game = setup("dara", board)
        game.play("c3-c4")
        assert game.to_move == 2
        game = setup("dara", ". . . . O O\n. . . . . .\n. . . X . .\n. X . . . .\nX . . . . O")
        game.play("d3-c3")
        assert game.to_move == 2  # a1 b2 c3 is a diagonal: nothing to capture


class TestCaptureChoice:
    def test_capture_is_a_separate_decision_of_the_same_player(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        game.play("c1-c2")
        assert [m.kind for m in game.legal_moves()] == ["capture"] * 6
        game.play("xa5")
        assert game.turns() == ["c1-c2xa5"] and game.to_move == 2
        assert game.turn_list() == [(1, [Move.step("c1", "c2"), Move.capture("a5")])]

    def test_a_whole_turn_text_is_accepted(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        game.play("c1-c2xe5")
        assert game.piece_at("e5") == 0 and game.to_move == 2
        assert game.undo_turn() == [Move.step("c1", "c2"), Move.capture("e5")]
        assert game.diagram() == setup("dara", STEP_INTO_THREE).diagram()

    def test_protect_threes_on_spares_pieces_in_a_three(self) -> None:
        game = setup("dara", O_HAS_A_THREE)
        game.play("c1-c2")
        assert legal(game) == ["xd1", "xd2", "xe2"]

    def test_protect_threes_off_any_piece(self) -> None:
        game = setup("dara-sheet", O_HAS_A_THREE)
        game.play("c1-c2")
        assert legal(game) == ["xd1", "xd2", "xe2", "xa5", "xb5", "xc5"]

    def test_all_protected_forfeit_loses_the_capture(self) -> None:
        game = setup("dara", ALL_O_PROTECTED)
        game.play("c1-c2")
        assert game.to_move == 2 and not game.capture_pending
        assert game.quiet_turns == 1
        assert game.turns() == ["c1-c2"]

    def test_all_protected_take_any(self) -> None:
        game = setup("dara(all_protected=take_any)", ALL_O_PROTECTED)
        game.play("c1-c2")
        assert legal(game) == ["xa5", "xb5", "xc5"]


class TestNoReturn:
    BOARD = """
        O . O . O .
        . . . . . .
        X . . . . X
        . . . . . .
        . . X . . ."""

    def test_on_the_piece_may_not_step_straight_back(self) -> None:
        game = setup("dara-sheet", self.BOARD)
        play_all(game, "c1-c2", "a5-a4")
        moves = legal(game)
        assert "c2-c1" not in moves and {"c2-c3", "c2-b2", "c2-d2"} <= set(moves)

    def test_on_the_restriction_lasts_one_turn(self) -> None:
        game = setup("dara-sheet", self.BOARD)
        play_all(game, "c1-c2", "a5-a4", "a3-a2", "a4-b4")
        assert "c2-c1" in legal(game) and "a2-a3" not in legal(game)

    def test_off_stepping_back_is_allowed(self) -> None:
        game = setup("dara", self.BOARD)
        play_all(game, "c1-c2", "a5-a4")
        assert "c2-c1" in legal(game)

    def test_a_pass_lifts_the_restriction(self) -> None:
        game = setup("dara-sheet(rows=1,loss_at=0)", ". X O O . .", last_steps=("a1-b1", None))
        assert legal(game) == ["pass"]
        play_all(game, "pass", "d1-e1")
        assert legal(game) == ["b1-a1"]

    def test_the_capture_decision_does_not_lift_it(self) -> None:
        game = setup("dara-sheet", STEP_INTO_THREE)
        play_all(game, "c1-c2xe5", "a5-a4")
        assert "c2-c1" not in legal(game) and "c2-c3" in legal(game)
        game = setup("dara", STEP_INTO_THREE)
        play_all(game, "c1-c2xe5", "a5-a4")
        assert "c2-c1" in legal(game)

    def test_last_steps_are_part_of_the_position_only_when_on(self) -> None:
        for rules, differ in (("dara-sheet", True), ("dara", False)):
            a = setup(rules, self.BOARD, last_steps=("c2-c1", None))
            b = setup(rules, self.BOARD)
            assert (a.key != b.key) is differ


class TestBlocked:
    def test_pass_a_blocked_player_must_pass(self) -> None:
        game = setup("dara(rows=1,cols=5,loss_at=0)", "X . O O .", to_move=2)
        game.play("c1-b1")
        assert legal(game) == ["pass"]
        assert game.quiet_turns == 1
        game.play("pass")
        assert game.quiet_turns == 2 and game.to_move == 2
        assert game.turns() == ["c1-b1", "pass"]

    def test_pass_both_blocked_in_a_row_is_a_draw(self) -> None:
        game = setup("dara(rows=1,cols=2,loss_at=0)", "X O")
        assert legal(game) == ["pass"]
        game.play("pass")
        assert game.outcome == nugar.Outcome(None, "blocked")
        assert game.result == "1/2-1/2"

    def test_lose_the_blocked_player_loses_at_the_start_of_his_turn(self) -> None:
        game = setup("dara(rows=1,cols=5,loss_at=0,blocked=lose)", "X . O O .", to_move=2)
        assert game.outcome is None
        game.play("c1-b1")
        assert game.outcome == nugar.Outcome(2, "blocked")
        assert game.legal_moves() == []

    def test_lose_a_position_set_up_blocked_starts_ended(self) -> None:
        game = setup("dara(rows=1,cols=2,loss_at=0,blocked=lose)", "X O")
        assert game.outcome == nugar.Outcome(2, "blocked")


class TestLossAt:
    def test_down_to_two_pieces_loses(self) -> None:
        game = setup("dara", LAST_THREE)
        game.play("c1-c2xd1")
        assert game.outcome == nugar.Outcome(1, "pieces")
        assert game.result == "1-0" and game.score == (3, 2)

    def test_loss_at_is_an_option(self) -> None:
        game = setup("dara(loss_at=1)", LAST_THREE)
        game.play("c1-c2xd1")
        assert game.outcome is None

    @pytest.mark.parametrize(("hand", "over"), [(1, True), (2, False)])
    def test_pieces_in_hand_count(self, hand: int, over: bool) -> None:
        board = "X . X . . .\n. . . . . .\n. . . . . .\n. . . . . O\n. . . O O ."
        game = setup("dara", board, to_move=2, in_hand=(hand, 0))
        game.play("f2-f1xa5")
        assert (game.outcome == nugar.Outcome(2, "pieces")) is over
        assert game.score == (1 + hand, 3)

    def test_a_position_set_up_lost_starts_ended(self) -> None:
        game = setup("dara", "X X . . . .\n" + ". . . . . .\n" * 3 + "O O O . . .")
        assert game.outcome == nugar.Outcome(2, "pieces")


CYCLE = ["a1-a2", "f5-f4", "a2-a1", "f4-f5"]
SQUARE_CYCLE = ["a1-a2", "f5-f4", "a2-b2", "f4-e4", "b2-b1", "e4-e5", "b1-a1", "e5-f5"]


class TestRepetition:
    def test_draw_on_the_third_occurrence(self) -> None:
        game = setup("dara(quiet_limit=off)", SHUFFLE)
        play_all(game, *CYCLE, *CYCLE[:3])
        assert game.outcome is None
        game.play(CYCLE[3])
        assert game.outcome == nugar.Outcome(None, "repetition")

    def test_the_count_is_an_option(self) -> None:
        game = setup("dara(quiet_limit=off,repetition=2)", SHUFFLE)
        play_all(game, *CYCLE)
        assert game.outcome == nugar.Outcome(None, "repetition")

    def test_off_never_draws(self) -> None:
        game = setup("dara(quiet_limit=off,repetition=off)", SHUFFLE)
        play_all(game, *(CYCLE * 10))
        assert game.outcome is None

    def test_undo_takes_the_draw_back(self) -> None:
        game = setup("dara(quiet_limit=off,repetition=2)", SHUFFLE)
        play_all(game, *CYCLE)
        game.undo()
        assert game.outcome is None
        game.play(CYCLE[3])
        assert game.outcome is not None

    def test_with_no_return_the_last_steps_must_match_too(self) -> None:
        # Without no_return the start comes back after turns 8 and 16. In dara-sheet the
        # start (no last steps) and the position after turn 1 (no last step of O) never come
        # back; the position after turn 2 does, after turns 10 and 18.
        game = setup("dara(quiet_limit=off)", SHUFFLE)
        play_all(game, *SQUARE_CYCLE, *SQUARE_CYCLE[:7])
        assert game.outcome is None
        game.play(SQUARE_CYCLE[7])
        assert game.outcome == nugar.Outcome(None, "repetition")
        game = setup("dara-sheet(quiet_limit=off)", SHUFFLE)
        play_all(game, *SQUARE_CYCLE, *SQUARE_CYCLE, SQUARE_CYCLE[0])
        assert game.outcome is None
        game.play(SQUARE_CYCLE[1])
        assert game.outcome == nugar.Outcome(None, "repetition")

    def test_positions_are_compared_only_at_the_start_of_a_turn(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        history = np.zeros(8, dtype=np.int64)
        count = K.note_position(game.params, game.state, history, 0)
        assert count == 1 and history[0] == game.key
        game.play("c1-c2")
        assert game.capture_pending
        assert K.note_position(game.params, game.state, history, count) == count
        game.play("xe5")
        assert K.note_position(game.params, game.state, history, count) == 1  # after a capture
        assert history[0] == game.key                                          # nothing older

    def test_a_playout_without_draw_rules_stops_at_max_plies(self) -> None:
        rules = "dara(rows=1,cols=5,pieces=3,loss_at=0,quiet_limit=off,repetition=off)"
        game = setup(rules, "X . O . O", in_hand=(1, 0))
        before = game.state.copy()
        assert D.random_playout(D.FAM_ALIGNMENT, game.params, game.state, 5, 500) == 0
        assert np.array_equal(game.state, before)

    def test_compiled_playouts_apply_repetition(self) -> None:
        # only repetition can end a game in which nobody can ever form a three
        rules = "dara(rows=1,cols=5,pieces=3,loss_at=0,quiet_limit=off)"
        game = setup(rules, "X . O . O", in_hand=(1, 0))
        for seed in range(20):
            assert D.random_playout(D.FAM_ALIGNMENT, game.params, game.state, seed, 10**6) == 3


class TestQuietLimit:
    def test_draw_at_the_limit(self) -> None:
        game = setup("dara(quiet_limit=4,repetition=off)", SHUFFLE)
        play_all(game, *CYCLE[:3])
        assert game.outcome is None and game.quiet_turns == 3
        game.play(CYCLE[3])
        assert game.outcome == nugar.Outcome(None, "quiet_limit")

    def test_off_never_draws(self) -> None:
        game = setup("dara(quiet_limit=off,repetition=off)", SHUFFLE)
        play_all(game, *(CYCLE * 60))
        assert game.outcome is None and game.quiet_turns == 240

    def test_a_capture_resets_the_counter(self) -> None:
        game = setup("dara", STEP_INTO_THREE, to_move=2)
        game.play("a5-a4")
        assert game.quiet_turns == 1
        game.play("c1-c2xe5")
        assert game.quiet_turns == 0

    def test_the_drop_phase_does_not_count(self) -> None:
        game = new("dala")
        rng = random.Random(7)
        while game.in_drop_phase:
            game.play(rng.choice(game.legal_moves()))
            assert game.quiet_turns == 0


class TestCheckOrder:
    def test_repetition_comes_before_quiet_limit(self) -> None:
        game = setup("dara(quiet_limit=4,repetition=2)", SHUFFLE)
        play_all(game, *CYCLE)
        assert game.outcome == nugar.Outcome(None, "repetition")

    def test_pieces_come_before_blocked(self) -> None:
        # after xf5 O keeps a1 and e1, both walled in: the piece count decides
        board = ". . . . . O\n. . . . . .\n. . . . . .\nX X . X X .\nO X . X O X"
        game = setup("dara(blocked=lose)", board)
        game.play("d2-c2")
        assert legal(game) == ["xa1", "xe1", "xf5"]
        game.play("xf5")
        assert game.outcome == nugar.Outcome(1, "pieces")
        game = setup("dara(blocked=lose,loss_at=1)", board)
        game.play("d2-c2xf5")
        assert game.outcome == nugar.Outcome(1, "blocked")


class TestKnownFacts:
    def test_dara_drop_four_is_illegal_and_drop_threes_capture_nothing(self) -> None:
        game = new("dara")
        play_all(game, "a1", "a5", "b1", "b5", "c1", "c5")
        assert game.to_move == 1 and not game.capture_pending  # both made drop threes
        assert "d1" not in legal(game)
        with pytest.raises(IllegalMoveError):
            game.play("d1")

    def test_dala_forced_centre_and_stepping_off_a_four_captures(self) -> None:
        game = new("dala")
        counts = []
        for _ in range(4):
            counts.append(len(game.legal_moves()))
            game.play(game.legal_moves()[0])
        assert counts == [4, 3, 2, 1]
        game = setup("dala", ". . . . . .\n. . . . . O\n. . . . . O\n. . . . . .\n"
                     ". . . . . .\nX X X X . O")
        game.play("d1-d2")
        assert game.capture_pending


class TestErrors:
    def test_illegal_move_lists_the_legal_moves_and_changes_nothing(self) -> None:
        game = setup("dara", STEP_INTO_THREE)
        before = game.state.copy()
        with pytest.raises(IllegalMoveError, match=r"c1-d1 is not legal.*a2-a1"):
            game.play("c1-d1")
        assert (game.state == before).all() and game.turns() == []

    def test_a_bad_capture_in_a_turn_undoes_the_step(self) -> None:
        game = setup("dara", O_HAS_A_THREE)
        before = game.state.copy()
        with pytest.raises(IllegalMoveError, match=r"xa5 is not legal.*xd1, xd2, xe2"):
            game.play("c1-c2xa5")
        assert (game.state == before).all() and game.move_stack == []

    def test_a_capture_when_none_is_owed(self) -> None:
        game = new("dara")
        with pytest.raises(IllegalMoveError, match=r"^turn 'c3xd4' cannot continue with xd4: "
                                                   r"Black's turn ended with c3, as c3 formed "
                                                   r"no three$"):
            game.play("c3xd4")
        assert game.turns() == []

    @pytest.mark.parametrize("text", ["", "c", "c3--c4", "x", "c3xx", "pas"])
    def test_malformed_text(self, text: str) -> None:
        game = new("dara")
        with pytest.raises(InvalidMoveError, match=r"cannot read|not a square"):
            game.play(text)

    def test_no_move_after_the_end(self) -> None:
        game = setup("dara", LAST_THREE)
        game.play("c1-c2xd1")
        assert game.is_over and game.legal_moves() == []
        with pytest.raises(IllegalMoveError, match="game is over"):
            game.play("c2-c3")

    def test_not_an_alignment_rule_set(self) -> None:
        with pytest.raises(ValueError, match="alignment rule set"):
            AlignmentGame("kalah")


class TestAnyBoardSize:
    def test_one_square(self) -> None:
        game = new("dara(rows=1,cols=1)")
        play_all(game, "a1", "pass")
        assert game.outcome == nugar.Outcome(None, "blocked")

    def test_largest_board_across_word_boundaries(self) -> None:
        rows = ". " * 26 + "\n"
        lines = [rows] * 26
        # squares 61, 62 (j3, k3) sit at the end of the first 63-bit word, 63 (l3) in the next
        lines[23] = ". " * 9 + "X X " + ". " * 15 + "\n"
        lines[22] = ". " * 11 + "X " + ". " * 14 + "\n"
        lines[0] = "O O . O " + ". " * 22 + "\n"
        game = setup("dara(rows=26,cols=26)", "".join(lines))
        assert game.params[K.P_W] == 11
        assert "l4-l3" in legal(game)
        game.play("l4-l3")
        assert game.capture_pending and legal(game) == ["xa26", "xb26", "xd26"]
        game.play("xd26")
        assert game.piece_at("l3") == 1 and game.piece_at("z26") == 0
        game2 = new("dala(rows=26,cols=26,centre_first=off)")
        game2.play("z26")
        assert game2.piece_at("z26") == 1


class TestKey:
    def test_incremental_key_matches_a_fresh_computation(self) -> None:
        game = new("dara-sheet")
        rng = random.Random(3)
        while not game.is_over and len(game.move_stack) < 150:
            game.play(rng.choice(game.legal_moves()))
            assert game.key == K.compute_key(game.params, game.state)

    def test_same_position_by_different_orders_same_key(self) -> None:
        a, b = new("dara"), new("dara")
        play_all(a, "a1", "f5", "c3", "d4")
        play_all(b, "c3", "d4", "a1", "f5")
        assert a.key == b.key
        assert np.array_equal(a.state[5:], b.state[5:])
