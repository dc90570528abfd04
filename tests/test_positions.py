"""Positions as values: equality and hashing of games, and the one-line position text
(``Game.position_text()``, ``nugar.from_position``; docs/records.md, "Positions")."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nugar
from nugar import Game, IllegalMoveError, NugarError, Outcome, RulesError, from_position
from nugar.i18n import Text, say
from nugar.rules.alignment import AlignmentGame
from random_play import play_random
from rule_sets import PRESET_NAMES, RULE_SETS


def assert_same_position(a: Game, b: Game) -> None:
    assert a == b and b == a
    assert hash(a) == hash(b)
    assert a.position_text() == b.position_text()
    assert a.legal_moves() == b.legal_moves()
    assert a.outcome == b.outcome
    assert a.to_move == b.to_move and a.score == b.score


# --- round trip --------------------------------------------------------------------------------
class TestRoundTrip:
    @settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(rules=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**32 - 1))
    def test_every_position_of_a_random_game_round_trips(self, rules: str, seed: int) -> None:
        rng = random.Random(seed)
        game = nugar.new_game(rules)
        while True:
            text = game.position_text()
            again = from_position(text)
            assert again.position_text() == text
            assert_same_position(again, game)
            assert again.move_stack == []
            if game.is_over or len(game.move_stack) >= 250:
                break
            game.play(rng.choice(game.legal_moves()))

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(rules=st.sampled_from(RULE_SETS), seed=st.integers(0, 2**32 - 1),
           start=st.integers(0, 80))
    def test_a_set_up_game_has_the_same_future(self, rules: str, seed: int, start: int) -> None:
        # the repetition record is history, not position: without the repetition rule the
        # futures of a game and of its position set up again are the same, move for move
        rules = nugar.parse_rules(rules).with_options(repetition=None).text \
            if nugar.parse_rules(rules).family == "alignment" else rules
        rng = random.Random(seed)
        game = nugar.new_game(rules)
        play_random(game, rng, start)
        again = from_position(game.position_text())
        for _ in range(300):
            assert_same_position(again, game)
            if game.is_over:
                break
            move = rng.choice(game.legal_moves())
            game.play(move)
            again.play(move)

    def test_a_set_up_game_has_no_history(self) -> None:
        game = nugar.new_game("dara")
        game.play("c3")
        again = from_position(game.position_text())
        assert again.move_stack == [] and again.turns() == []
        with pytest.raises(IllegalMoveError, match="nothing to undo"):
            again.undo()

    def test_resignation_and_agreed_draw_are_part_of_the_position(self) -> None:
        game = nugar.new_game("kalah")
        game.play("3")
        game.resign()
        text = game.position_text()
        assert text.endswith(" s result=0-1:resigned")
        again = from_position(text)
        assert_same_position(again, game)
        assert again.legal_moves() == []
        assert again.undo() is None and again.outcome is None  # taken back as in any game
        draw = nugar.new_game("dala")
        draw.agree_draw()
        assert from_position(draw.position_text()).outcome == Outcome(None, "agreement")


# --- equality and hashing -----------------------------------------------------------------------
class TestEquality:
    def test_new_games_of_one_rule_set_are_equal(self) -> None:
        for name in PRESET_NAMES:
            assert_same_position(nugar.new_game(name), nugar.new_game(name))
        assert len({nugar.new_game("dara"), nugar.new_game("dara"), nugar.new_game("kalah")}) == 2

    def test_the_issue_example(self) -> None:
        assert nugar.new_game("dara") == nugar.new_game("dara")

    def test_drops_in_another_order_reach_an_equal_game(self) -> None:
        a, b = nugar.new_game("dara"), nugar.new_game("dara")
        for move in ("c3", "d4", "e3"):
            a.play(move)
        for move in ("e3", "d4", "c3"):
            b.play(move)
        assert a.turns() != b.turns()
        assert_same_position(a, b)
        assert {a: "seen"}[b] == "seen"

    def test_steps_in_another_order_reach_an_equal_game(self) -> None:
        board = "dara ....../....../bb.w../ww.b../...... b hand=0,0"
        a, b = from_position(board), from_position(board)
        for move in ("a3-a4", "a2-a3", "b3-b4", "b2-b3"):
            a.play(move)
        for move in ("b3-b4", "b2-b3", "a3-a4", "a2-a3"):
            b.play(move)
        assert a.quiet_turns == b.quiet_turns == 4  # type: ignore[attr-defined]
        assert_same_position(a, b)

    @pytest.mark.parametrize(("rules", "depth"), [
        ("dala", 4), ("dara(rows=3,cols=3,pieces=3,loss_at=0)", 4),
        ("kalah(pits=3,seeds=1)", 4), ("kalah", 5),
    ])
    def test_every_transposition_found_compares_equal(self, rules: str, depth: int) -> None:
        lines: dict[str, list[tuple[str, ...]]] = defaultdict(list)

        def walk(game: Game, line: tuple[str, ...]) -> None:
            lines[game.position_text()].append(line)
            if len(line) == depth or game.is_over:
                return
            for move in game.legal_moves():
                game.push(move)
                walk(game, (*line, str(move)))
                game.undo()

        walk(nugar.new_game(rules), ())
        shared = [group for group in lines.values() if len(group) > 1]
        assert shared, "no transposition at this depth"
        for group in shared[:20]:
            games = []
            for line in group[:3]:
                game = nugar.new_game(rules)
                for move in line:
                    game.play(move)
                games.append(game)
            for other in games[1:]:
                assert_same_position(games[0], other)

    def test_dracala_steps_in_another_order_reach_an_equal_game(self) -> None:
        a, b = nugar.new_game("dracala"), nugar.new_game("dracala")
        for move in ("2", "1", "3", "2", "4", "3", "6"):
            a.play(move)
        for move in ("3", "1", "2", "2", "4", "3", "6"):
            b.play(move)
        assert a.turns() != b.turns()
        assert_same_position(a, b)

    @pytest.mark.parametrize(("one", "other"), [
        # the same board, but something else that decides the game differs
        ("dara ....../....../bb.w../ww.b../...... b", "dara ....../....../bb.w../ww.b../...... w"),
        ("dara ....../....../bb.w../ww.b../...... b hand=1,0",
         "dara ....../....../bb.w../ww.b../...... b"),
        ("dara ....../....../bb.w../ww.b../...... b quiet=3",
         "dara ....../....../bb.w../ww.b../...... b"),
        ("dara ....../....../bbbw../ww.b../...... b capture",
         "dara ....../....../bbbw../ww.b../...... b"),
        ("dara-sheet ....../....../bb.w../ww.b../...... b last=a2-a3,-",
         "dara-sheet ....../....../bb.w../ww.b../...... b"),
        ("dara ....../....../bb.w../ww.b../...... b",
         "dara(quiet_limit=off) ....../....../bb.w../ww.b../...... b"),
        ("dracala 6,6,6,6,6,6:0/6,6,6,6,6,6:0 s opening", "dracala 6,6,6,6,6,6:0/6,6,6,6,6,6:0 s"),
        ("dracala(leftovers=last_capturer) 0,6,6,6,6,6:6/6,6,6,6,6,6:0 n capturer=s",
         "dracala(leftovers=last_capturer) 0,6,6,6,6,6:6/6,6,6,6,6,6:0 n"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s",
         "kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=0-1:resigned"),
    ])
    def test_positions_differing_in_any_field_are_unequal(self, one: str, other: str) -> None:
        a, b = from_position(one), from_position(other)
        assert a != b and not (a == b)

    def test_fields_that_cannot_matter_are_left_out(self) -> None:
        # a quiet counter without quiet_limit, Dracala's first step in Kalah, a last step
        # whose piece was taken: none changes the future, so none is in the position
        game = nugar.new_game("dara(quiet_limit=off)")
        rng = random.Random(4)
        while game.quiet_turns < 3 and not game.is_over:  # type: ignore[attr-defined]
            play_random(game, rng, 1)
        assert game.quiet_turns >= 3  # type: ignore[attr-defined]
        assert "quiet=" not in game.position_text()
        board = "dara-sheet ....../.....b/bb..../...b../...www"
        sheet = from_position(f"{board} w capture last=a2-a3,-")
        sheet.play("xa3")  # the piece that made Black's last step is taken
        assert "last=" not in sheet.position_text()
        assert sheet == from_position("dara-sheet ....../.....b/.b..../...b../...www b")
        kalah = nugar.new_game("kalah")
        assert kalah.position_text() == "kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s"
        kalah.play("1")
        assert kalah.position_text() == "kalah 0,5,5,5,5,4:0/4,4,4,4,4,4:0 n"

    def test_a_game_is_not_equal_to_other_things(self) -> None:
        game = nugar.new_game("kalah")
        assert game != game.position_text() and game != 0
        assert game == game.copy()

    def test_the_hash_follows_the_position(self) -> None:
        game = nugar.new_game("kalah")
        before = hash(game)
        game.play("1")
        assert hash(game) != before
        game.undo()
        assert hash(game) == before


# --- the text itself ---------------------------------------------------------------------------
class TestText:
    @pytest.mark.parametrize(("rules", "text"), [
        ("dara", "dara ....../....../....../....../...... b hand=12,12"),
        ("dala", "dala ....../....../....../....../....../...... b hand=12,12"),
        ("dara-sheet(rows=2,cols=3,pieces=2,loss_at=0)",
         "dara-sheet(rows=2,cols=3,pieces=2,loss_at=0) .../... b hand=2,2"),
        ("kalah", "kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s"),
        ("dracala", "dracala 6,6,6,6,6,6:0/6,6,6,6,6,6:0 s opening"),
        ("kalah(pits=2,seeds=1)", "kalah(pits=2,seeds=1) 1,1:0/1,1:0 s"),
    ])
    def test_starting_positions(self, rules: str, text: str) -> None:
        assert nugar.new_game(rules).position_text() == text
        assert from_position(text) == nugar.new_game(rules)

    def test_an_alignment_board_reads_from_the_highest_row(self) -> None:
        game = from_position("dara ....../....../..b.../...w../...... b hand=11,11")
        assert isinstance(game, AlignmentGame)
        assert game.piece_at("c3") == 1 and game.piece_at("d2") == 2
        assert game.in_hand == (11, 11) and game.to_move == 1

    def test_a_sowing_board_reads_from_each_players_hole_1(self) -> None:
        game = from_position("kalah(pits=3,seeds=2) 2,2,0:1/3,2,2:0 n")
        assert game.holes == ((2, 2, 0), (3, 2, 2)) and game.stores == (1, 0)  # type: ignore[attr-defined]
        assert game.to_move == 2 and [str(m) for m in game.legal_moves()] == ["1", "2", "3"]

    def test_an_owed_capture(self) -> None:
        game = from_position("dara ....../....../bbbw../ww.b../...... b capture")
        assert game.capture_pending  # type: ignore[attr-defined]
        assert {m.kind for m in game.legal_moves()} == {"capture"}
        game.play("xd3")
        assert game.to_move == 2

    def test_the_quiet_counter_at_its_limit_ends_the_game(self) -> None:
        game = from_position("dara(quiet_limit=4) ....../....../bb.w../ww.b../...... b quiet=3")
        assert game.outcome is None
        game.play("a3-a4")
        assert game.outcome == Outcome(None, "quiet_limit")
        at_limit = from_position("dara(quiet_limit=4) ....../....../bb.w../ww.b../...... b quiet=4")
        assert at_limit.outcome == Outcome(None, "quiet_limit")
        assert at_limit.position_text().endswith(" quiet=4 result=1/2-1/2:quiet_limit")

    def test_a_last_step_forbids_its_way_back(self) -> None:
        board = "dara-sheet ....w./....../bb.w../.w.b../...... b"
        game = from_position(f"{board} last=a2-a3,-")
        assert not game.is_legal("a3-a2") and game.is_legal("b3-c3")
        free = from_position(board)
        assert free.is_legal("a3-a2")
        assert game != free
        game.play("d2-e2")  # another piece steps: the restriction moves on with it
        game.play("b2-c2")
        assert game.is_legal("a3-a2")
        assert game.position_text().endswith(" last=d2-e2,b2-c2")

    def test_results_the_board_cannot_show(self) -> None:
        board = "dara ....../....../bb.w../ww.b../...... b"
        repeated = from_position(f"{board} result=1/2-1/2:repetition")
        assert repeated.outcome == Outcome(None, "repetition") and repeated.legal_moves() == []
        blocked = from_position("dara(rows=1,cols=2,loss_at=0) bw b result=1/2-1/2:blocked")
        assert blocked.outcome == Outcome(None, "blocked")
        running = from_position("dara(rows=1,cols=2,loss_at=0) bw b")
        assert running.outcome is None and [str(m) for m in running.legal_moves()] == ["pass"]

    def test_a_decided_position_ends_with_or_without_its_result(self) -> None:
        text = "dara ....../....../bb..../ww.b../...... w hand=0,0"
        game = from_position(text)
        assert game.outcome == Outcome(1, "pieces")  # White has loss_at=2 pieces left
        assert game.position_text() == text + " result=1-0:pieces"
        assert from_position(game.position_text()) == game

    def test_case_and_spaces_are_forgiven(self) -> None:
        game = from_position("  Dala( quiet_limit = OFF )   ....../....../....../....../"
                             "....../......  B  HAND=12,12 ")
        assert game.position_text() == ("dala(quiet_limit=off) ....../....../....../....../"
                                        "....../...... b hand=12,12")


class TestErrors:
    @pytest.mark.parametrize(("text", "fragment"), [
        ("", "a position text is the rule set, the board and the player to move"),
        ("dara", "a position text is the rule set"),
        ("chess ..... b", "unknown preset 'chess'; allowed: dara"),
        ("dara(rows=27) . b", "rows must be 1..26, not 27"),
        ("dara ....../...... b", "the board has 2 rows; dara has 5"),
        ("dara ....../....../......./....../...... b", "board row 3 '.......' has 7 squares; dara "
                                                       "has 6 columns"),
        ("dara ....../....../..x.../....../...... b", "has 'x'; a square is b (Black), w (White)"),
        ("dara ....../....../....../....../......", "the player to move"),
        ("dara ....../....../....../....../...... x", "the player to move is b (Black), w (White)"
                                                      ", not 'x'"),
        ("dara bbbbbb/bbbbbb/bb..../....../...... b hand=0,0",
         "Black has 14 pieces on the board and 0 in hand, more than pieces=12"),
        ("dara ....../....../....../....../...... b hand=13,12",
         "Black has 0 pieces on the board and 13 in hand, more than pieces=12"),
        ("dara ....../....../....../....../...... b hand=12", "hand= gives the pieces in hand"),
        ("dara ....../....../....../....../...... b hand=a,1", "must be a whole number"),
        ("dara ....../....../....../....../...... b colour=red", "unknown field 'colour=red'"),
        ("dara ....../....../....../....../...... b hand=1,1 hand=1,1", "hand is given twice"),
        ("dara ....../....../....../....../...... b capture=yes", "field capture is written like "
                                                                   "capture"),
        ("dara ....../....../....../....../...... b quiet", "field quiet is written like quiet=10"),
        ("dara(quiet_limit=off) ....../....../bb.w../ww.b../...... b quiet=2",
         "does not have"),
        ("dara(quiet_limit=4) ....../....../bb.w../ww.b../...... b quiet=5",
         "the quiet counter is at most 4 (quiet_limit=4), not 5"),
        ("dara ....../....../bb.w../ww.b../...... b hand=0,1 quiet=5",
         "the quiet counter starts with the move phase"),
        ("dara ....../....../bb.w../ww.b../...... b capture", "has none on the board"),
        ("dara ....../....../bbb.../ww.b../...... b hand=7,7 capture", "drop_capture=off"),
        ("dara(loss_at=0) ....../....../bbb.../....../...... b capture", "no White piece may be "
                                                                          "taken"),
        ("dara ....../....../bb.w../ww.b../...... b last=a2-a3,-", "only under no_return"),
        ("dara-sheet ....../....../bb.w../ww.b../...... b last=a3-a4,-", "no Black piece on a4"),
        ("dara-sheet ....../....../bb.w../ww.b../...... b last=a2-a3", "'-' for none"),
        ("dara-sheet ....../....../bb.w../ww.b../...... b hand=0,2 last=a2-a3,-",
         "no step has been made during the drop phase"),
        ("kalah 4,4,4,4,4,4/4,4,4,4,4,4 s", "the board is South's holes from his hole 1"),
        ("kalah 4,4,4,4,4:0/4,4,4,4,4,4:0 s", "South has 5 holes; kalah has 6"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,5:0 s", "the seeds add up to 49; kalah has 48 in play"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,x,4:0 s", "a seed count must be a whole number"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 w", "the player to move is s (South), n (North)"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s opening", "matters only under capture_duty=maximal"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s capturer=s", "only under leftovers=last_capturer"),
        ("dracala(leftovers=last_capturer) 6,6,6,6,6,6:0/6,6,6,6,6,6:0 s capturer=x",
         "capturer= is s (South), n (North)"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=2-0:pieces", "is not a result"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=1-0:repetition",
         "a game ended by repetition ends 1/2-1/2, not 1-0"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=1-0:empty_side",
         "does not fit the position, which by the rules is still running"),
        ("kalah 0,0,0,0,0,0:30/0,0,0,0,0,0:18 s result=0-1:empty_side",
         "which by the rules is over: 1-0 (empty_side)"),
        ("kalah 0,0,0,0,0,0:30/0,0,0,0,0,0:18 s result=0-1:resigned", "is over"),
        ("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=1/2-1/2:repetition", "still running"),
        ("dara(repetition=off) ....../....../bb.w../ww.b../...... b result=1/2-1/2:repetition",
         "still running"),
    ])
    def test_bad_text_says_what_is_wrong(self, text: str, fragment: str) -> None:
        with pytest.raises(NugarError) as info:
            from_position(text)
        assert fragment in str(info.value)
        assert isinstance(info.value, ValueError) and "\n" not in str(info.value)
        # a sentence of the engine catalog: the web app says it in French and in Arabic
        assert isinstance(info.value.args[0], Text)
        for lang in ("fr", "ar"):
            said = say(info.value, lang)
            assert said != str(info.value) and "\n" not in said

    def test_an_unknown_rule_set_is_a_rules_error(self) -> None:
        with pytest.raises(RulesError):
            from_position("chess ..... b")

    def test_not_text(self) -> None:
        with pytest.raises(NugarError, match="a position is given as text, not int"):
            from_position(3)  # type: ignore[arg-type]
