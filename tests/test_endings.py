"""Endings owned by the game: the Termination enum, the imposed endings (resignation,
agreement, adjudication, time) and the takeback to a player's turn."""

from __future__ import annotations

import pytest

import nugar
from nugar import IllegalMoveError, Outcome, Termination, from_position, new_game, record


def test_termination_is_a_closed_list_of_words() -> None:
    assert [str(t) for t in Termination] == [
        "pieces", "blocked", "repetition", "quiet_limit", "majority", "empty_side",
        "resigned", "agreement", "adjudication", "time"]
    imposed = {t for t in Termination if not t.by_rules}
    assert imposed == {Termination.RESIGNATION, Termination.AGREEMENT,
                       Termination.ADJUDICATION, Termination.TIME}


def test_outcome_reason_stays_the_word_and_a_word_is_read_as_a_termination() -> None:
    outcome = Outcome(2, "resigned")
    assert outcome.termination is Termination.RESIGNATION
    assert outcome.reason == "resigned" and outcome.reason is Termination.RESIGNATION
    assert outcome == Outcome(2, Termination.RESIGNATION)
    assert hash(outcome) == hash(Outcome(2, Termination.RESIGNATION))
    assert str(outcome) == "0-1 (resigned)" and f"{outcome.reason}" == "resigned"
    with pytest.raises(ValueError):
        Outcome(1, "checkmate")


def test_rule_endings_carry_their_termination() -> None:
    game = from_position("kalah(pits=2,seeds=1) 0,1:1/1,0:1 s")
    game.play("2")
    assert game.outcome is not None
    assert game.outcome.termination is Termination.EMPTY_SIDE
    dracala = from_position("dracala(pits=1,seeds=2) 2:0/1:1 s")
    assert dracala.outcome is None
    dracala.play("1")
    assert dracala.outcome is not None and dracala.outcome.termination is Termination.MAJORITY


@pytest.mark.parametrize("rules", ["dara", "kalah"])
@pytest.mark.parametrize("winner", [1, 2, None])
def test_adjudication_ends_a_running_game_and_undo_takes_it_back(rules: str,
                                                                 winner: int | None) -> None:
    game = new_game(rules)
    game.play(game.legal_moves()[0])
    game.adjudicate(winner)
    assert game.outcome == Outcome(winner, Termination.ADJUDICATION)
    assert game.legal_moves() == [] and game.legal_actions() == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.resign()
    assert game.undo() is None
    assert game.outcome is None and game.legal_moves()


def test_adjudication_names_the_winners_allowed() -> None:
    game = new_game("dara")
    with pytest.raises(IllegalMoveError, match="1, 2 or None"):
        game.adjudicate(3)
    assert game.outcome is None


@pytest.mark.parametrize("rules", ["dala", "dracala"])
def test_loss_on_time(rules: str) -> None:
    game = new_game(rules)
    game.play(game.legal_moves()[0])
    mover = game.to_move
    game.lose_on_time()
    assert game.outcome == Outcome(3 - mover, Termination.TIME)
    assert game.undo_turn() == [] and game.outcome is None
    game.lose_on_time(2)
    assert game.result == "1-0"
    with pytest.raises(IllegalMoveError, match="player must be 1 or 2"):
        new_game(rules).lose_on_time(0)


@pytest.mark.parametrize("termination,result,call", [
    ("adjudication", "1/2-1/2", lambda g: g.adjudicate(None)),
    ("adjudication", "0-1", lambda g: g.adjudicate(2)),
    ("time", "1-0", lambda g: g.lose_on_time(2)),
    ("resigned", "0-1", lambda g: g.resign(1)),
    ("agreement", "1/2-1/2", lambda g: g.agree_draw()),
])
def test_imposed_endings_survive_the_position_text(termination: str, result: str,
                                                   call: object) -> None:
    game = new_game("kalah")
    game.play("1")
    call(game)  # type: ignore[operator]
    text = game.position_text()
    assert text.endswith(f"result={result}:{termination}")
    again = from_position(text)
    assert again.outcome == game.outcome and again == game
    again.undo()
    assert again.outcome is None


def test_a_result_must_fit_its_termination() -> None:
    with pytest.raises(nugar.NugarError, match="resigned ends 1-0 or 0-1"):
        from_position("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=1/2-1/2:resigned")
    with pytest.raises(nugar.NugarError, match="adjudication, time"):
        from_position("kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s result=1-0:flag")


@pytest.mark.parametrize("termination,result", [("time", "0-1"), ("adjudication", "1-0"),
                                                ("adjudication", "1/2-1/2")])
def test_records_replay_imposed_endings(termination: str, result: str) -> None:
    text = f'[Rules "kalah"]\n[Result "{result}"]\n[Termination "{termination}"]\n\n1. 1 {result}'
    game = record.load_one(text).game
    assert game.outcome is not None
    assert game.outcome.termination == termination and game.result == result


def test_records_refuse_a_draw_on_time_while_both_could_win() -> None:
    text = '[Rules "kalah"]\n[Result "1/2-1/2"]\n[Termination "time"]\n\n1. 1 1/2-1/2'
    with pytest.raises(record.RecordError, match="draw on time needs a player who could no"):
        record.load_one(text)


# --- undo_to_turn_of ---------------------------------------------------------------------

def test_undo_to_turn_of_takes_back_the_players_turn_and_the_replies_after_it() -> None:
    game = new_game("dara")
    for turn in ("a1", "b1", "c1", "d1"):
        game.play(turn)
    # Black asks: his turn c1 and White's reply d1 go
    assert [str(m) for m in game.undo_to_turn_of(1)] == ["c1", "d1"]
    assert game.turns() == ["a1", "b1"] and game.to_move == 1
    # White asks now: his b1 goes, and Black's a1 stays
    assert [str(m) for m in game.undo_to_turn_of(2)] == ["b1"]
    assert game.turns() == ["a1"] and game.to_move == 2


def test_undo_to_turn_of_takes_back_a_whole_turn_of_several_steps() -> None:
    game = new_game("kalah")
    game.play("3-1")   # a bonus step then a step: one turn of South
    game.play("2")     # North
    undone = game.undo_to_turn_of(1)
    assert [str(m) for m in undone] == ["3", "1", "2"]
    assert game.move_stack == [] and game.to_move == 1


def test_undo_to_turn_of_the_player_who_just_moved_takes_back_only_that_turn() -> None:
    game = new_game("kalah")
    game.play("1")
    game.play("2")
    assert [str(m) for m in game.undo_to_turn_of(2)] == ["2"]
    assert game.turns() == ["1"] and game.to_move == 2


def test_undo_to_turn_of_removes_an_imposed_ending_too() -> None:
    game = new_game("dala")
    game.play("c3")
    game.play("d3")
    game.resign(1)
    assert [str(m) for m in game.undo_to_turn_of(1)] == ["c3", "d3"]
    assert game.outcome is None and game.to_move == 1


def test_undo_to_turn_of_a_player_who_has_not_moved_is_refused_unchanged() -> None:
    game = new_game("dara")
    game.play("a1")
    game.resign()
    with pytest.raises(IllegalMoveError, match="White has not moved yet"):
        game.undo_to_turn_of(2)
    assert game.turns() == ["a1"] and game.outcome == Outcome(1, "resigned")
    with pytest.raises(IllegalMoveError, match="player must be 1 or 2"):
        game.undo_to_turn_of(3)
