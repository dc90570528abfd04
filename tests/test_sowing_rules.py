"""Scenario tests of the sowing rules (rules page, "Sowing family"): one class per rule or option
value, each on a small board drawn as a diagram.

A diagram has three lines, as the first player sees the board::

       h2[P] ... h2[2] h2[1]      the second player's holes, his hole 1 on the right
    store2               store1   the second player's store left, the first player's right
       h1[1] h1[2] ... h1[P]      the first player's holes, his hole 1 on the left
"""

from __future__ import annotations

import numpy as np
import pytest

import nugar
from nugar import IllegalMoveError, InvalidMoveError, Move, NugarError
from nugar.kernels import sowing as K
from nugar.rules.sowing import SowingGame

Board = tuple[list[int], list[int], tuple[int, int]]


def parse_diagram(diagram: str) -> Board:
    top, middle, bottom = ([int(v) for v in line.split()]
                           for line in diagram.strip().splitlines())
    assert len(top) == len(bottom) and len(middle) == 2, "malformed diagram in the test"
    return bottom, top[::-1], (middle[1], middle[0])


def setup(rules: str, diagram: str, to_move: int = 1, **kw: object) -> SowingGame:
    holes1, holes2, stores = parse_diagram(diagram)
    return SowingGame.from_position(rules, holes1, holes2, stores, to_move, **kw)  # type: ignore[arg-type]


def board(game: SowingGame) -> Board:
    holes1, holes2 = game.holes
    return list(holes1), list(holes2), game.stores


def legal(game: SowingGame) -> list[str]:
    return [str(m) for m in game.legal_moves()]


class TestStartAndSowing:
    def test_start_position(self) -> None:
        game = nugar.new_game("kalah")
        assert isinstance(game, SowingGame)
        assert board(game) == ([4] * 6, [4] * 6, (0, 0))
        assert game.to_move == 1 and not game.is_over and game.result is None
        assert legal(game) == ["1", "2", "3", "4", "5", "6"]
        assert board(nugar.new_game("dracala")) == ([6] * 6, [6] * 6, (0, 0))

    def test_sowing_goes_into_own_store_then_opponent_holes(self) -> None:
        game = nugar.new_game("kalah")
        game.play("5")  # 4 seeds: hole 6, store, opponent's holes 1 and 2
        assert board(game) == parse_diagram("""
            4 4 4 4 5 5
           0           1
            4 4 4 4 0 5
        """)
        assert game.to_move == 2

    def test_opponent_store_is_skipped(self) -> None:
        game = setup("kalah(pits=3)", """
            1 1 1
           0     0
            0 1 6
        """, to_move=1)
        game.play("3")  # store, opponent 1..3, (his store skipped), own 1, own 2
        assert board(game) == parse_diagram("""
            2 2 2
           0     1
            1 2 0
        """)

    def test_second_player_sows_counter_clockwise_too(self) -> None:
        game = setup("kalah(pits=3)", """
            5 0 1
           0     0
            1 1 1
        """, to_move=2)
        game.play("3")  # his store, first player's 1..3, (first's store skipped), his 1
        assert board(game) == parse_diagram("""
            0 0 2
           1     0
            2 2 2
        """)


class TestLaps:
    def test_thirteen_seeds_end_in_the_starting_hole_and_capture(self) -> None:
        # 6 holes: 13 seeds from hole 4 go round and the last one falls into hole 4 itself
        game = setup("kalah", """
            0 0 0 1 0 0
           0           0
            0 0 0 13 0 0
        """)
        game.play("4")
        # hole 4 got the 13th seed into an empty hole; the facing hole (opponent's 3) held
        # 1 + 1 seeds: 3 captured, plus 1 sown into the store
        assert board(game) == parse_diagram("""
            1 1 1 0 1 1
           0           4
            1 1 1 0 1 1
        """)
        assert game.turn_captures() == [4]

    def test_skip_origin_passes_over_the_starting_hole(self) -> None:
        game = setup("kalah(skip_origin=on)", """
            0 0 0 1 0 0
           0           0
            0 0 0 13 0 0
        """)
        game.play("4")
        assert board(game) == parse_diagram("""
            1 1 1 2 1 1
           0           1
            1 1 1 0 2 1
        """)
        assert game.to_move == 2

    def test_several_laps_on_a_small_board(self) -> None:
        # pits=2: a lap is own 2 holes + store + 2 opponent holes = 5 cells; 11 seeds from
        # hole 1 make two full laps and one more seed, into hole 2
        game = setup("kalah(pits=2)", """
            1 1
           0   0
            11 1
        """)
        game.play("1")
        assert board(game) == parse_diagram("""
            3 3
           0   2
            2 4
        """)

    def test_several_laps_with_skip_origin(self) -> None:
        # with skip_origin a lap is 4 cells: 9 seeds = two laps + one seed (hole 2)
        game = setup("kalah(pits=2,skip_origin=on)", """
            1 1
           0   0
            9 1
        """)
        game.play("1")
        assert board(game) == parse_diagram("""
            3 3
           0   2
            0 4
        """)


class TestBonusStep:
    def test_last_seed_in_own_store_gives_another_step(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3")
        assert game.to_move == 1
        game.play("6")
        assert game.to_move == 2
        assert game.turns() == ["3-6"]
        assert [(p, [str(m) for m in ms]) for p, ms in game.turn_list()] == [(1, ["3", "6"])]

    def test_whole_turn_text(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3-6")
        assert game.turns() == ["3-6"] and game.to_move == 2
        assert len(game.move_stack) == 2

    def test_turn_text_may_not_continue_after_the_turn_ended(self) -> None:
        game = nugar.new_game("kalah")
        before = game.state.copy()
        with pytest.raises(IllegalMoveError,
                           match=r"^turn '1-6' cannot continue with 6: South's turn ended with "
                                 r"1, as the last seed of 1 did not fall into South's store$"):
            game.play("1-6")  # hole 1 ends in hole 5: no bonus step
        assert np.array_equal(game.state, before) and game.move_stack == []

    def test_bonus_step_for_the_second_player(self) -> None:
        game = nugar.new_game("kalah")
        game.play("1")
        game.play("3")
        assert game.to_move == 2
        game.play("1")
        assert game.to_move == 1
        assert game.turns() == ["1", "3-1"]


class TestOppositionCapture:
    def test_last_seed_in_empty_own_hole_takes_the_facing_seeds(self) -> None:
        game = setup("kalah(pits=3)", """
            1 5 2
           0     0
            1 0 1
        """)
        game.play("1")  # into empty hole 2, which faces the opponent's hole 2 (5 seeds)
        assert board(game) == parse_diagram("""
            1 0 2
           0     6
            0 0 1
        """)
        assert game.turn_captures() == [6]

    def test_own_hole_one_faces_opponent_hole_p(self) -> None:
        game = setup("kalah(pits=3)", """
            3 1 1
           0     0
            0 1 5
        """)
        game.play("3")  # store, his 1..3, (skip), own 1: empty, facing his hole 3
        assert board(game) == parse_diagram("""
            0 2 2
           0     6
            0 1 0
        """)

    def test_no_capture_into_a_non_empty_own_hole(self) -> None:
        game = setup("kalah(pits=3)", """
            1 5 2
           0     0
            1 1 1
        """)
        game.play("1")
        assert board(game) == parse_diagram("""
            1 5 2
           0     0
            0 2 1
        """)

    def test_no_capture_in_opponent_holes(self) -> None:
        game = setup("kalah(pits=3)", """
            1 2 0
           0     0
            1 1 2
        """)
        game.play("3")  # store, then his empty hole 1: nothing happens there
        assert board(game) == parse_diagram("""
            1 2 1
           0     1
            1 1 0
        """)

    def test_second_player_captures(self) -> None:
        game = setup("kalah(pits=3)", """
            1 0 1
           0     0
            4 2 2
        """, to_move=2)
        game.play("1")  # his hole 2 was empty; it faces the first player's hole 2
        assert board(game) == parse_diagram("""
            1 0 0
           3     0
            4 0 2
        """)


class TestEmptyCapture:
    DIAGRAM = """
        1 0 2
       0     0
        1 0 1
    """

    def test_none_leaves_the_lone_seed(self) -> None:
        game = setup("kalah(pits=3)", self.DIAGRAM)
        game.play("1")  # into empty hole 2, facing hole empty
        assert board(game) == parse_diagram("""
            1 0 2
           0     0
            0 1 1
        """)
        assert game.turn_captures() == [0]

    def test_single_stores_the_lone_seed(self) -> None:
        game = setup("kalah(pits=3,empty_capture=single)", self.DIAGRAM)
        game.play("1")
        assert board(game) == parse_diagram("""
            1 0 2
           0     1
            0 0 1
        """)
        assert game.turn_captures() == [1]


class TestEndAnySideEmpty:
    def test_mover_emptying_his_side_ends_it(self) -> None:
        game = setup("kalah(pits=3)", """
            1 1 1
           5     4
            0 0 2
        """)
        game.play("3")  # store, opponent's 1: own side empty
        assert game.is_over
        assert game.outcome == nugar.Outcome(2, "empty_side")
        assert board(game) == parse_diagram("""
            0 0 0
           9     5
            0 0 0
        """)
        assert game.legal_moves() == []

    def test_capturing_the_last_opponent_seeds_ends_it(self) -> None:
        game = setup("kalah(pits=3)", """
            0 3 0
           0     0
            1 0 4
        """)
        game.play("1")
        assert game.outcome == nugar.Outcome(1, "empty_side")
        assert game.score == (8, 0)

    def test_bonus_step_onto_empty_side_still_ends(self) -> None:
        game = setup("kalah(pits=3)", """
            2 0 0
           3     3
            0 0 1
        """)
        game.play("3")
        assert game.outcome == nugar.Outcome(2, "empty_side")
        assert game.score == (4, 5) and game.result == "0-1"

    def test_a_position_set_up_finished_starts_ended(self) -> None:
        game = setup("kalah(pits=4)", """
            0 0 0 0
           3       1
            1 1 0 0
        """, to_move=1)
        # player 2's side is empty: the owner takes his leftovers at once
        assert game.outcome == nugar.Outcome(None, "empty_side")
        assert game.score == (3, 3) and game.legal_moves() == []

    def test_equal_stores_draw(self) -> None:
        game = nugar.new_game("kalah(pits=1,seeds=1)")
        game.play("1")
        assert game.outcome == nugar.Outcome(None, "empty_side")
        assert game.result == "1/2-1/2" and game.score == (1, 1)


class TestEndMoverEmpty:
    def test_game_goes_on_while_the_player_to_move_has_seeds(self) -> None:
        game = setup("kalah(pits=3,end=mover_empty)", """
            1 1 1
           0     0
            0 0 2
        """)
        game.play("3")  # own side empty, but player 2 can move
        assert not game.is_over and game.to_move == 2
        assert board(game) == parse_diagram("""
            1 1 2
           0     1
            0 0 0
        """)
        game.play("3")  # one seed into his store: bonus step
        game.play("2")  # his hole 3 is empty and faces an empty hole: nothing captured
        assert game.outcome == nugar.Outcome(2, "empty_side")
        assert game.score == (1, 4)
        assert game.turns() == ["3", "3-2"]

    def test_ends_when_the_mover_keeps_the_turn_with_an_empty_side(self) -> None:
        game = setup("kalah(pits=3,end=mover_empty)", """
            1 1 1
           0     0
            0 0 1
        """)
        game.play("3")  # bonus step, but nothing left to sow
        assert game.outcome == nugar.Outcome(2, "empty_side")
        assert game.score == (1, 3)

    def test_same_position_under_any_side_empty_ends_at_once(self) -> None:
        game = setup("kalah(pits=3)", """
            1 1 1
           0     0
            0 0 2
        """)
        game.play("3")
        assert game.is_over


class TestLeftovers:
    def test_owner(self) -> None:
        game = setup("kalah(pits=3)", """
            1 1 1
           5     4
            0 0 2
        """)
        game.play("3")
        assert game.score == (5, 9)
        assert game.turn_captures() == [1]

    def test_last_mover(self) -> None:
        game = setup("kalah(pits=3,leftovers=last_mover)", """
            1 1 1
           5     4
            0 0 2
        """)
        game.play("3")
        assert game.score == (9, 5)
        assert game.outcome == nugar.Outcome(1, "empty_side")
        assert game.turn_captures() == [1]  # leftovers are not captures

    def test_last_capturer_gets_them(self) -> None:
        diagram = """
            0 0 0
           3     3
            1 1 0
        """
        # player 1 steps from hole 2 into his empty hole 3 (facing nothing): no capture, and
        # under mover_empty the game ends because player 2 has no seeds
        game = setup("kalah(pits=3,end=mover_empty,leftovers=last_capturer)", diagram,
                     last_capturer=2)
        game.play("2")
        assert game.score == (3, 5)
        assert game.outcome == nugar.Outcome(2, "empty_side")

    def test_last_capturer_is_the_last_mover_when_nobody_captured(self) -> None:
        diagram = """
            0 0 0
           3     3
            1 1 0
        """
        game = setup("kalah(pits=3,end=mover_empty,leftovers=last_capturer)", diagram,
                     last_capturer=0)
        game.play("2")
        assert game.score == (5, 3)

    def test_last_capturer_is_tracked_through_play(self) -> None:
        # player 1 captures (a bonus step), then steps without capturing; player 2 has no
        # seeds, so the game ends and the leftovers go to player 1, the last capturer
        game = setup("kalah(pits=3,end=mover_empty,leftovers=last_capturer)", """
            0 0 0
           3     3
            1 1 1
        """, last_capturer=2)
        game.play("3-1")
        assert game.is_over and game.score == (6, 3)
        assert game.turn_captures() == [1]


class TestDracalaCaptures:
    def test_only_maximal_captures_are_legal(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           0     0
            1 0 3
        """)
        # hole 1 captures 1 + 1 by opposition; hole 3 only sows 1 into the store
        assert game.step_captures() == [2, None, 1]
        assert legal(game) == ["1"]
        with pytest.raises(IllegalMoveError, match=r"South may play: 1$"):
            game.play("3")

    def test_a_step_into_the_store_is_a_capture(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           0     0
            0 1 2
        """)
        # hole 2 sows into the non-empty hole 3; hole 3 sows one seed into the store, which
        # is a capture, so the quiet step is illegal
        assert game.step_captures() == [None, 0, 1]
        assert legal(game) == ["3"]

    def test_without_captures_every_step_is_legal(self) -> None:
        game = setup("dracala(pits=4)", """
            1 1 0 1
           0       0
            1 1 0 0
        """)
        assert game.step_captures() == [0, 0, None, None]
        assert legal(game) == ["1", "2"]

    def test_maximum_is_taken_again_at_every_step_of_a_turn(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 3
           4     0
            2 0 1
        """)
        assert legal(game) == ["3"]  # the only capture (a bonus step)
        game.play("3")
        assert game.to_move == 1
        # now hole 1 (2 seeds: holes 2 and 3, 3 empty facing 3 seeds) captures 4
        assert game.step_captures() == [4, None, None]
        game.play("1")
        assert game.turn_captures() == [5] and game.to_move == 2 and not game.is_over


class TestDracalaBonusPreference:
    def test_bonus_step_preferred_among_equal_captures(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           0     0
            0 2 2
        """)
        # both capture 1; only hole 2 (hole 3, store) gives a bonus step
        assert game.step_captures() == [None, 1, 1]
        assert legal(game) == ["2"]

    def test_rightmost_bonus_step(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           0     0
            3 2 1
        """)
        assert game.step_captures() == [1, 1, 1]  # each ends in the store
        assert legal(game) == ["3"]

    def test_larger_capture_beats_a_bonus_step(self) -> None:
        game = setup("dracala(pits=3)", """
            0 5 0
           0     0
            1 0 1
        """)
        assert legal(game) == ["1"]

    def test_not_on_the_first_step_of_the_game(self) -> None:
        diagram = """
            1 1 1
           0     0
            3 2 1
        """
        game = setup("dracala(pits=3)", diagram, first_step_done=False)
        assert legal(game) == ["1", "2", "3"]
        game.play("3")  # bonus step: the preference applies to the second step already
        assert game.step_captures() == [1, 1, None]  # both give a bonus step
        assert legal(game) == ["2"]

    def test_dracala_start(self) -> None:
        game = nugar.new_game("dracala")
        assert legal(game) == ["1", "2", "3", "4", "5", "6"]
        game.play("1")  # a bonus step; now holes 2..6 each capture 1, none gives a bonus
        assert game.to_move == 1
        assert game.step_captures() == [None, 1, 1, 1, 1, 1]
        assert legal(game) == ["2", "3", "4", "5", "6"]


class TestDracalaMajority:
    def test_more_than_half_loses_at_once(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           2     6
            0 1 1
        """)
        game.play("3")  # 7 of 13 seeds: player 1 loses, seeds stay where they are
        assert game.outcome == nugar.Outcome(2, "majority")
        assert board(game) == parse_diagram("""
            1 1 1
           2     7
            0 1 0
        """)
        assert game.score == (7, 2) and game.legal_moves() == []

    def test_exactly_half_is_not_a_majority(self) -> None:
        game = setup("dracala(pits=3)", """
            1 1 1
           2     5
            0 1 1
        """)
        game.play("3")
        assert not game.is_over and game.score == (6, 2)

    def test_leftovers_go_to_the_last_mover_then_majority_loses(self) -> None:
        game = setup("dracala(pits=3)", """
            0 0 2
           5     4
            0 0 1
        """)
        game.play("3")  # bonus step, own side empty: 2 leftovers to player 1 -> 7 of 12
        assert game.outcome == nugar.Outcome(2, "majority")
        assert game.score == (7, 5)
        assert game.turn_captures() == [1]

    def test_equal_halves_draw(self) -> None:
        game = setup("dracala(pits=3)", """
            0 0 1
           6     4
            0 0 1
        """)
        game.play("3")
        assert game.outcome == nugar.Outcome(None, "empty_side")
        assert game.score == (6, 6) and game.result == "1/2-1/2"

    def test_leftovers_to_last_capturer(self) -> None:
        diagram = """
            0 0 0
           2     4
            1 1 0
        """
        # under mover_empty player 1's quiet step (no capture anywhere: every step is
        # legal) ends the game, and the 2 leftovers go to player 2, the last capturer
        rules = "dracala(pits=3,end=mover_empty,leftovers=last_capturer)"
        game = setup(rules, diagram, last_capturer=2)
        assert legal(game) == ["1", "2"]
        game.play("2")
        assert game.score == (4, 4)
        assert game.outcome == nugar.Outcome(None, "empty_side")
        game = setup("dracala(pits=3,end=mover_empty)", diagram, last_capturer=2)
        game.play("2")  # leftovers=last_mover: player 1 gets them, 6 of 8 seeds
        assert game.score == (6, 2) and game.outcome == nugar.Outcome(2, "majority")


class TestAnyBoardSize:
    @pytest.mark.parametrize("pits, seeds", [(1, 1), (1, 2), (1, 5), (2, 1), (3, 7), (9, 1)])
    def test_tiny_and_odd_boards_play_to_the_end(self, pits: int, seeds: int) -> None:
        game = nugar.new_game(f"kalah(pits={pits},seeds={seeds})")
        assert board(game) == ([seeds] * pits, [seeds] * pits, (0, 0))
        while not game.is_over:
            game.play(game.legal_moves()[-1])
        assert sum(game.score) == 2 * pits * seeds

    def test_one_hole_one_seed(self) -> None:
        game = nugar.new_game("kalah(pits=1,seeds=1)")
        assert legal(game) == ["1"]
        game.play("1")
        assert game.is_over and game.result == "1/2-1/2"

    def test_one_hole_two_seeds(self) -> None:
        # store, then the opponent's hole: 1 in store, opponent has 3
        game = nugar.new_game("kalah(pits=1,seeds=2)")
        game.play("1")
        assert game.outcome == nugar.Outcome(2, "empty_side")
        assert game.score == (1, 3)


class TestErrors:
    def test_illegal_move_lists_legal_moves_and_changes_nothing(self) -> None:
        game = setup("kalah(pits=3)", """
            1 1 1
           0     0
            0 1 1
        """)
        before = game.state.copy()
        with pytest.raises(IllegalMoveError,
                           match=r"^1 is not legal here: hole 1 is empty; South may play: 2, 3$"):
            game.play("1")
        assert np.array_equal(game.state, before) and game.move_stack == []

    def test_illegal_step_inside_a_turn_undoes_the_whole_turn(self) -> None:
        game = nugar.new_game("kalah")
        before = game.state.copy()
        with pytest.raises(IllegalMoveError,
                           match=r"^3 is not legal here \(in turn '3-3'\): hole 3 is empty; "
                                 r"South may play: 1, 2, 4, 5, 6$"):
            game.play("3-3")  # the bonus step is fine, but hole 3 is empty now
        assert np.array_equal(game.state, before) and game.move_stack == []
        assert game.turn_captures() == []

    @pytest.mark.parametrize("text", ["0", "7", "12", "c3", "c3-c4", "xe5", "pass", "1-",
                                      "-1", "1--2", "a", "", "1.5"])
    def test_malformed_or_outside_the_board(self, text: str) -> None:
        game = nugar.new_game("kalah")
        with pytest.raises(InvalidMoveError) as info:
            game.play(text)
        assert str(info.value).endswith("; South may play: 1, 2, 3, 4, 5, 6")
        assert game.move_stack == [] and board(game) == ([4] * 6, [4] * 6, (0, 0))

    def test_parse_move_checks_the_hole_range(self) -> None:
        game = nugar.new_game("kalah(pits=4)")
        assert game.parse_move("4") == Move.sow(4)
        with pytest.raises(InvalidMoveError, match=r"holes are 1\.\.4"):
            game.parse_move("5")
        with pytest.raises(InvalidMoveError, match="not a sowing move"):
            game.parse_move(Move.drop("c3"))
        with pytest.raises(InvalidMoveError, match="not a sowing move"):
            game.push(Move.step("a1", "a2"))

    def test_no_move_after_the_end(self) -> None:
        game = nugar.new_game("kalah(pits=1,seeds=1)")
        game.play("1")
        with pytest.raises(IllegalMoveError, match="game is over"):
            game.play("1")
        with pytest.raises(InvalidMoveError, match=r"the game is over \(1/2-1/2 \(empty_side\)\)"):
            game.play("2")
        assert game.legal_actions() == [] and game.legal_moves() == []

    def test_undo_and_undo_turn(self) -> None:
        game = nugar.new_game("kalah")
        start = game.state.copy()
        game.play("3-6")
        game.play("1")
        assert game.undo() == Move.sow(1)
        assert [str(m) for m in game.undo_turn()] == ["3", "6"]
        assert np.array_equal(game.state, start) and game.turn_captures() == []
        with pytest.raises(IllegalMoveError, match="nothing to undo"):
            game.undo()

    def test_resign(self) -> None:
        game = nugar.new_game("dracala")
        game.resign()
        assert game.outcome == nugar.Outcome(2, "resigned") and game.legal_actions() == []
        game.undo()
        assert game.outcome is None and len(game.legal_actions()) == 6

    @pytest.mark.parametrize("kwargs, message", [
        ({"holes1": [1, 1], "holes2": [1, 1, 1]}, "holes1 must list 3 holes"),
        ({"holes1": [1, 1, 1], "holes2": [1, 1, -1]}, "whole numbers >= 0"),
        ({"holes1": [1, 1, 1], "holes2": [1, 1, 1.5]}, "whole numbers >= 0"),
        ({"holes1": [1, 1, 1], "holes2": [1, 1, 1], "to_move": 3}, "to_move must be 1 or 2"),
        ({"holes1": [1, 1, 1], "holes2": [1, 1, 1], "last_capturer": 5}, "last_capturer"),
        ({"holes1": [1, 1, 1], "holes2": [1, 1, 1], "stores": (1,)}, "stores must be two"),
    ])
    def test_from_position_rejects_bad_input(self, kwargs: dict[str, object],
                                             message: str) -> None:
        with pytest.raises(NugarError, match=message):
            SowingGame.from_position("kalah(pits=3)", **kwargs)  # type: ignore[arg-type]

    def test_needs_a_sowing_rule_set(self) -> None:
        with pytest.raises(ValueError, match="sowing rule set"):
            SowingGame("dara")


class TestTextAndRecords:
    def test_board_text(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3-6")
        text = str(game)
        assert "Kalah (kalah): North to move; last turn: South 3-6" in text
        lines = text.splitlines()
        assert lines[1].split() == ["6", "5", "4", "3", "2", "1", "holes", "of", "North",
                                    "(second)"]
        assert lines[2].split() == ["4", "4", "5", "5", "5", "5"]  # his 6..1
        # the stores stand at the ends of the middle row, each named with its count
        assert lines[3].split()[:2] == ["0", "2"]
        assert lines[3].endswith("  North's store 0 on the left, South's store 2 on the right")
        assert lines[4].split() == ["4", "4", "0", "5", "5", "0"]
        assert lines[5].split() == ["1", "2", "3", "4", "5", "6", "holes", "of", "South",
                                    "(first)"]

    def test_board_text_at_the_end(self) -> None:
        game = nugar.new_game("kalah(pits=1,seeds=2)")
        game.play("1")
        assert "game over: 0-1 (empty_side), stores South 1, North 3" in str(game)

    def test_turn_captures_match_the_annotation(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3-6")   # 1 + 1 into the store
        game.play("6")     # 1 into his store
        game.play("3")     # one seed into the non-empty hole 4: no capture
        assert game.turns() == ["3-6", "6", "3"]
        assert game.turn_captures() == [2, 1, 0]

    def test_copy_is_independent(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3")
        other = game.copy()
        other.play("6")
        assert game.turns() == ["3"] and other.turns() == ["3-6"]
        assert game.to_move == 1 and other.to_move == 2
        other.undo()
        other.undo()
        assert other.turns() == [] and game.turns() == ["3"]

    def test_key_tracks_the_position(self) -> None:
        a = nugar.new_game("kalah")
        b = nugar.new_game("kalah")
        assert isinstance(a, SowingGame) and isinstance(b, SowingGame)
        a.play("1")
        b.play("2")
        assert a.key != b.key
        assert b.key == K.compute_key(b.params, b.state)
        a.undo()
        b.undo()
        assert a.key == b.key
        assert a.key == K.compute_key(a.params, a.state)


@pytest.mark.parametrize("rules", ["kalah", "dracala", "dara", "dala"])
def test_extend_turns_grows_the_turn_list_move_by_move(rules: str) -> None:
    """``extend_turns`` kept up move by move gives ``turn_list`` at every ply, and names the
    first turn it changed (a bonus sowing or a capture extends the last turn, not a new one)."""
    import random
    rng = random.Random(rules)
    game = nugar.new_game(rules)
    kept: list[tuple[int, list[Move]]] = []
    done = 0
    while not game.is_over and game.ply < 120:
        before = [(p, list(ms)) for p, ms in kept]
        game.push(rng.choice(game.legal_moves()))
        first = game.extend_turns(kept, done)
        done = game.ply
        assert kept == game.turn_list()
        assert kept[:first] == before[:first] and first in (len(before) - 1, len(before))
    with pytest.raises(ValueError, match="number of moves played"):
        game.extend_turns([], game.ply + 1)


def test_the_game_api_kernels_keep_the_gil_and_the_searches_let_it_go() -> None:
    """The game API calls quick twins that keep the GIL (no switch between threads for a
    microsecond of work); the kernels the searches and simulators call still release it."""
    from nugar.kernels import alignment as KA
    from nugar.kernels import dispatch as D
    from nugar.kernels import jit, search_core

    if jit.enabled():  # interpreted (NUMBA_DISABLE_JIT=1), there is no GIL to keep or not
        for held, plain in ((D.fam_legal_held, D.fam_legal), (D.fam_apply_held, D.fam_apply),
                            (KA.note_position_held, KA.note_position)):
            assert held.targetoptions["nogil"] is False, held
            assert plain.targetoptions["nogil"] is True, plain
        for module in (K, KA):
            assert module.legal_actions.targetoptions["nogil"] is True
        search = [k for k in jit.KERNELS if k.py_func.__module__ == search_core.__name__]
        assert search and all(k.targetoptions["nogil"] for k in search)
    game = nugar.new_game("dara")
    before = game.legal_actions()
    game.play("c3")
    assert game.legal_actions() != before and game.ply == 1
