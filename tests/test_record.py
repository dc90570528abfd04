"""Game records: writing, reading, checking, and locating every problem (nugar.record)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import nugar
from nugar import record
from nugar.record import RecordError
from random_play import random_game
from rule_sets import RULE_SETS


def finished_game(rules: str, seed: int = 0) -> nugar.Game:
    for s in range(seed, seed + 50):
        game = random_game(rules, s, 20_000)
        if game.is_over:
            return game
    raise AssertionError(f"no finished random game of {rules}")


def errors_of(text: str, rules: str | None = None) -> list[RecordError]:
    with pytest.raises(RecordError) as info:
        record.loads(text, rules)
    return info.value.problems


# --- round trips -----------------------------------------------------------------------------


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("seed", [1, 2])
def test_round_trip_of_random_games(rules: str, seed: int) -> None:
    # seed 1 plays to the end, seed 2 stops early: finished and unfinished records
    game = random_game(rules, seed, 20_000 if seed == 1 else 2 * seed + 17)
    text = record.dumps(game, {"First": "Ann", "Second": "Bo", "Date": "2026.01.02"})
    rec = record.load_one(text)
    assert rec.turns == game.turns()
    assert rec.result == game.result
    assert rec.game.result == game.result
    assert rec.game.score == game.score
    assert rec.rules.text == game.rules.text
    assert rec.tags["First"] == "Ann" and rec.tags["Rules"] == game.rules.text
    assert rec.dumps() == text  # read then write is exact
    again = record.load_one(rec.dumps())
    assert (again.tags, again.turns, again.result) == (rec.tags, rec.turns, rec.result)
    if game.rules.family == "sowing":
        assert rec.tags["Score"] == "{} : {}".format(*game.score)
    else:
        assert "Score" not in rec.tags
    if game.is_over:
        assert game.outcome is not None
        assert rec.tags["Termination"] == game.outcome.reason
    else:
        assert rec.tags["Result"] == "*" and "Termination" not in rec.tags


@pytest.mark.parametrize("rules", ["dara", "kalah", "dracala"])
def test_json_round_trip(rules: str) -> None:
    game = random_game(rules, 5, 20_000)
    obj = json.loads(json.dumps(record.to_json(game, {"First": "x"})))
    assert obj["rules"] == game.rules.text
    assert obj["turns"] == game.turns()
    assert obj["result"] == game.result
    assert obj["score"] == list(game.score)
    assert obj["tags"]["First"] == "x"
    back = record.from_json(obj)
    assert back.turns() == game.turns() and back.result == game.result
    assert record.from_json(json.dumps(obj)).turns() == game.turns()


def test_standard_tags_come_first_and_extra_tags_are_kept() -> None:
    game = nugar.new_game("dara")
    game.play("c3")
    text = record.dumps(game, {"Event": "club night", "Date": "2026.03.04",
                               "First": 'A "quoted" \\ name', "Result": "1-0"})
    keys = [line.split()[0][1:] for line in text.splitlines() if line.startswith("[")]
    assert keys == ["Game", "Rules", "First", "Second", "Date", "Result", "Event"]
    rec = record.load_one(text)
    assert rec.tags["First"] == 'A "quoted" \\ name'
    assert rec.tags["Result"] == "*"  # the game decides its result, not the caller
    assert rec.tags["Event"] == "club night"


def test_bad_tags_are_refused_when_writing() -> None:
    game = nugar.new_game("dara")
    with pytest.raises(RecordError, match="bad tag name"):
        record.dumps(game, {"no spaces": "x"})
    with pytest.raises(RecordError, match="one line"):
        record.dumps(game, {"Event": "two\nlines"})


def test_comments_are_kept_and_written_back() -> None:
    text = ('[Rules "dara"]\n\n{before} 1. c3 {a quiet start} d4 {mirror}\n'
            '2. e2 ; a line comment\n c2 *\n')
    rec = record.load_one(text)
    assert rec.turns == ["c3", "d4", "e2", "c2"]
    assert rec.comments == {-1: ["before"], 0: ["a quiet start"], 1: ["mirror"],
                            2: ["a line comment"]}
    out = rec.dumps()
    assert ("{before} 1. c3 {a quiet start} 1... d4 {mirror} 2. e2 {a line comment} 2... c2 *"
            in out.replace("\n", " "))
    assert max(len(line) for line in out.splitlines()) <= 79
    again = record.load_one(out)
    assert again.comments == rec.comments and again.turns == rec.turns


def test_resignation_is_recorded_and_replayed() -> None:
    game = nugar.new_game("kalah")
    game.play("3-6")
    game.resign()  # the second player gives up
    text = record.dumps(game)
    assert '[Result "1-0"]' in text and '[Termination "resigned"]' in text
    rec = record.load_one(text)
    assert rec.game.outcome == nugar.Outcome(1, "resigned")
    assert rec.dumps() == text


def test_several_games_in_one_file() -> None:
    games = [finished_game("kalah", 3), random_game("dara", 4, 9), finished_game("dracala", 1)]
    text = "\n".join(record.dumps(g) for g in games)
    recs = record.loads(text)
    assert [r.turns for r in recs] == [g.turns() for g in games]
    assert [r.rules.text for r in recs] == ["kalah", "dara", "dracala"]


def test_games_separated_by_results_without_tags() -> None:
    recs = record.loads("1. 3-6 1 1-0\n1. 1 2 *\n", "kalah")
    assert [r.turns for r in recs] == [["3-6", "1"], ["1", "2"]]
    assert [r.result for r in recs] == ["1-0", None]  # 1-0 stated (say, on time)
    assert recs[0].game.result is None  # ... but the rules have not ended that game


def test_bare_list_of_turns() -> None:
    rec = record.load_one("c3 d4 e2\nc2", "dara")
    assert rec.turns == ["c3", "d4", "e2", "c2"]
    assert rec.result is None
    assert rec.game.to_move == 1
    # whole turns and single-step sowing turns; the Game tag alone also names the rules
    assert record.load_one('[Game "Kalah"]\n3-6 1').turns == ["3-6", "1"]


def test_case_and_spacing_are_normalised() -> None:
    rec = record.load_one("1.C3   D4\n2.e2", "dara")
    assert rec.turns == ["c3", "d4", "e2"]


# --- Mancala World style records -----------------------------------------------------------

# Checked by hand: Kalah, 4 seeds. First: hole 3 ends in the store (1 seed), bonus step from
# hole 6 puts 1 more in the store: 2 in all. Second: hole 1 ends in his own hole 6: none.
# Then first: hole 1 ends in his hole 5 (not empty): none; second: hole 2, 6 seeds, one
# passes through his store: 1.
MANCALA_WORLD = "1. 2-6 (-3)....4 (-1)"
KALAH_MW = "1. 3-6 (-2)....1\n2. 1....2 (-1)\n"


def test_mancala_world_annotations_are_read_and_checked() -> None:
    rec = record.load_one(KALAH_MW, "kalah")
    assert rec.turns == ["3-6", "1", "1", "2"]
    assert rec.game.score == (2, 1)


@pytest.mark.parametrize(("text", "line", "column", "reason"), [
    ("1. 3-6 (-1)....1\n2. 1....2 (-1)\n", 1, 8, "annotated (-1) but put 2"),
    ("1. 3-6 (-2)....1\n2. 1....2\n", 2, 9, "put 1 seed in the store but has no '(-1)'"),
    ("1. 3-6 (-2)....1 (-3)\n", 1, 18, "annotated (-3) but put 0"),
    ("1. (-2) 3-6\n", 1, 4, "must follow a turn"),
])
def test_mancala_world_annotation_errors(text: str, line: int, column: int,
                                         reason: str) -> None:
    problems = errors_of(text, "kalah")
    assert (problems[0].line, problems[0].column) == (line, column)
    assert reason in problems[0].reason


def test_annotations_of_whole_random_games_including_the_last_turn() -> None:
    for seed in range(4):
        game = finished_game("dracala", seed)
        assert isinstance(game, nugar.rules.sowing.SowingGame)
        turns, caps = game.turns(), game.turn_captures()
        lines = []
        for i in range(0, len(turns), 2):
            pair = [t + (f" (-{c})" if c else "") for t, c in zip(turns[i:i + 2],
                                                                     caps[i:i + 2],
                                                                     strict=True)]
            lines.append(f"{i // 2 + 1}. " + "....".join(pair))
        text = "\n".join(lines)
        assert record.load_one(text, "dracala").turns == turns
        if any(caps):
            k = next(i for i, c in enumerate(caps) if c)
            changed = text.replace(f"{turns[k]} (-{caps[k]})", turns[k], 1)
            assert errors_of(changed, "dracala")


def test_a_one_hole_turn_written_against_the_dots() -> None:
    # "2. 1....2": after the move number, "1...." is the one-hole turn 1, not a move number
    rec = record.load_one("1. 3-6....1 2. 1....2", "kalah")
    assert rec.turns == ["3-6", "1", "1", "2"]


# --- records copied from a web page ---------------------------------------------------------

# A Dracala game played by nugar's levels 6 (South) and 5 (North), written as a Mancala World
# page shows an example game: a heading, the players, a sentence, then the numbered lines.
WEB_HEADER = [
    "Example Game",
    "Anna Berg (South) - Carlos Mendes (North), igGameCenter, 2011 (North wins, 37 : 33)",
    "The following game was played online; South's seeds are counted first.",
]
WEB_MOVES = [
    "1. 4 (-1)....1 (-1)",
    "2. 2 (-1)....6 (-1)",
    "3. 1 (-1)....4 (-1)",
    "4. 3 (-1)....6 (-1)",
    "5. 5 (-4)....6-3 (-2)",
    "6. 6 (-7)....2 (-3)",
    "7. 1-6-3-4 (-9)....4 (-1)",
    "8. 6 (-1)....5-3-5-6 (-5)",
    "9. 6-4 (-5)....4 (-4)",
    "10. 5 (-1)....6-5-4 (-13)",
    "11. 3 (-4)....6-1 (-1)",
    "12. 4 (-2)",
]
WEB_RECORD = "\n".join(WEB_HEADER + WEB_MOVES) + "\n"


def test_a_record_copied_from_a_web_page_skips_the_words_around_the_moves() -> None:
    parsed = record.parse(WEB_RECORD, "dracala")
    assert [(s.line, s.text) for s in parsed.skipped] == list(enumerate(WEB_HEADER, 1))
    [rec] = parsed.records
    bare = " ".join(line.split(" ", 1)[1] for line in WEB_MOVES)  # the turns alone
    plain = record.load_one(" ".join(t for t in bare.replace("....", " ").split()
                                     if not t.startswith("(")), "dracala")
    assert rec.turns == plain.turns and len(rec.turns) == 23
    assert rec.game.outcome is not None and rec.result == "0-1"
    assert rec.game.score == (37, 33)  # as the heading says, South's seeds first
    assert record.loads(WEB_RECORD, "dracala")[0].turns == rec.turns


def test_errors_inside_the_numbered_lines_keep_their_place() -> None:
    bad_move = WEB_RECORD.replace("9. 6-4 (-5)", "9. 6-9 (-5)")
    problems = errors_of(bad_move, "dracala")
    assert (problems[0].line, problems[0].column) == (12, 4)
    assert "no hole 9" in problems[0].reason
    bad_note = WEB_RECORD.replace("5-3-5-6 (-5)", "5-3-5-6 (-4)")
    problems = errors_of(bad_note, "dracala")
    assert (problems[0].line, problems[0].column) == (11, 22)
    assert "annotated (-4) but put 5" in problems[0].reason
    # a number line that is not movetext is an error too, not a skipped line
    problems = errors_of(WEB_RECORD.replace("6. 6 (-7)", "6. 6 (-7) ) "), "dracala")
    assert (problems[0].line, problems[0].column) == (9, 11)
    assert "unexpected character ')'" in problems[0].reason


def test_only_texts_without_tags_are_sorted() -> None:
    # with tag pairs a record is strict, as before: the heading is an error
    problems = errors_of('[Rules "dracala"]\nExample Game\n1. 4 (-1)....1 (-1) *')
    assert (problems[0].line, problems[0].column) == (2, 1)
    # without a numbered line every line is a bare list of turns
    assert record.load_one("c3 d4\ne2 c2", "dara").turns == ["c3", "d4", "e2", "c2"]
    assert record.parse("c3 d4\ne2 c2", "dara").skipped == []


def test_lines_that_continue_the_moves_are_movetext() -> None:
    text = ("Our game\n"
            "; a line comment\n"
            "1. c3 d4 {a comment\n"
            "on two lines} 2. e2\n"       # inside the comment, then its end
            "c2 3. e3 b2\n"               # a wrapped line: continues line 4
            "*\n"
            "\n"
            "Played in Niamey.\n")        # after a blank line: text again
    parsed = record.parse(text, "dara")
    assert [s.line for s in parsed.skipped] == [1, 8]
    [rec] = parsed.records
    assert rec.turns == ["c3", "d4", "e2", "c2", "e3", "b2"]
    assert rec.comments == {-1: ["a line comment"], 1: ["a comment on two lines"]}


def test_text_directly_under_the_moves_is_read_as_moves_and_says_so() -> None:
    problems = errors_of("1. 4 (-1)....1 (-1)\nSouth resigned.\n", "dracala")
    assert (problems[0].line, problems[0].column) == (2, 1)
    assert "cannot read 'south'" in problems[0].reason.lower()
    assert "put a blank line before it" in problems[0].reason
    parsed = record.parse("1. 4 (-1)....1 (-1)\n\nSouth resigned.\n", "dracala")
    assert [s.line for s in parsed.skipped] == [3]


def test_notes_on_skipped_lines_are_short() -> None:
    long_line = record.SkippedLine(2, WEB_HEADER[1])
    note = long_line.note("game.txt")
    assert note.startswith("game.txt, line 2: skipped, not movetext: 'Anna Berg (South)")
    assert note.endswith("...'") and len(note) < 110
    assert record.SkippedLine(1, "Example Game").note() == (
        "line 1: skipped, not movetext: 'Example Game'")


# --- located errors --------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "line", "column", "reason"), [
    ('[Rules "dara"]\n\n1. c3 d4 2. c3 *', 3, 13, "c3 is not legal here"),
    ('[Rules "dara"]\n\n1. c3 zz *', 3, 7, "cannot read 'zz'"),
    ('[Rules "dara"]\n1. c3 d4 2. e2 e3 3. f9 *', 2, 22, "f9"),
    ('[Rules "nosuch"]\n1. c3', 1, 1, "unknown preset 'nosuch'"),
    ('[Rules "kalah(pits=0)"]\n1. 1', 1, 1, "pits"),
    ('[Rules dara]\n1. c3', 1, 1, "malformed tag pair"),
    ('[Rules "dara"]\n[Rules "dala"]\n1. c3', 2, 1, "given twice"),
    ('[Game "Kalah"]\n[Rules "dara"]\n1. c3', 1, 1, "tag Game says 'Kalah'"),
    ('[Game "Chess"]\n1. e4', 1, 1, "unknown game 'Chess'"),
    ('[Rules "dara"]\n1. c3 {no end', 2, 7, "never closed"),
    ('[Rules "dara"]\n1. c3 d4 3. e2 *', 2, 10, "move number 3 where 2 was expected"),
    ('[Rules "dara"]\n1. c3 d4 ) *', 2, 10, "unexpected character ')'"),
    ('[Rules "dara"]\n[Result "1-0"]\n1. c3 d4 0-1', 3, 10, "the movetext ends with 0-1"),
    ('[Rules "dara"]\n[Result "won"]\n1. c3', 2, 1, "tag Result 'won'"),
    ('[Rules "kalah"]\n\n1. 3 1 *', 3, 4, "the turn is not complete"),
    ('[Rules "kalah"]\n[Score "5 : 0"]\n1. 3-6 *', 2, 1, "tag Score says '5 : 0'"),
    ('[Rules "dara"]\n1. c3 (-2) *', 2, 7, "only belongs in sowing games"),
    ("1. c3 d4", 1, 1, "does not say its rules"),
])
def test_malformed_records_give_located_errors(text: str, line: int, column: int,
                                               reason: str) -> None:
    problems = errors_of(text)
    first = problems[0]
    assert (first.line, first.column) == (line, column), str(first)
    assert reason in first.reason
    assert f"line {line}, column {column}: " in str(first)


def test_an_illegal_move_names_what_was_legal() -> None:
    problems = errors_of('[Rules "kalah"]\n1. 3-6 1 2. 3 *')
    assert "turn 3 (first player) '3'" in problems[0].reason
    assert "may play: 1, 2, 4, 5" in problems[0].reason


def test_result_and_termination_must_match_the_rules() -> None:
    game = finished_game("kalah")
    text = record.dumps(game)
    assert game.result is not None
    wrong = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[game.result]
    bad = text.replace(f'[Result "{game.result}"]', f'[Result "{wrong}"]')
    bad = bad.rstrip().rsplit(" ", 1)[0] + f" {wrong}\n"
    assert "the game ended" in errors_of(bad)[0].reason
    unfinished = text.replace(f'[Result "{game.result}"]', '[Result "*"]')
    unfinished = unfinished.rstrip().rsplit(" ", 1)[0] + " *\n"
    assert "unfinished (*) but it is over" in errors_of(unfinished)[0].reason
    assert game.outcome is not None
    term = text.replace(f'[Termination "{game.outcome.reason}"]', '[Termination "pieces"]')
    assert "tag Termination says 'pieces'" in errors_of(term)[0].reason


def test_a_turn_after_the_end_is_reported() -> None:
    game = finished_game("kalah")
    movetext = " ".join(game.turns()) + " 1"
    problems = errors_of(movetext, "kalah")
    assert "already over" in problems[0].reason
    assert problems[0].column == len(" ".join(game.turns())) + 2


def test_every_problem_is_reported_with_its_place() -> None:
    text = ('[Rules "dara"]\n1. c3 d4 2. c3 *\n\n'
            '[Rules "kalah"]\n1. 9 *\n\n'
            '[Rules "dala"]\n1. c3 d4 *\n'
            '[Rules "bad"]\n1. 1\n')
    with pytest.raises(RecordError) as info:
        record.loads(text, source="games.txt")
    places = [(p.line, p.column) for p in info.value.problems]
    assert places == [(2, 13), (5, 4), (9, 1)]
    message = str(info.value)
    assert message.startswith("3 problems in the record:")
    assert "games.txt, line 5, column 4: turn 1 (first player) '9': there is no hole 9" \
        in message


def test_load_one_wants_exactly_one_game() -> None:
    with pytest.raises(RecordError, match="found 0"):
        record.load_one("")
    with pytest.raises(RecordError, match="found 2"):
        record.load_one("c3 1/2-1/2 d4 *", "dara")


@pytest.mark.parametrize(("obj", "reason"), [
    ([], "an object with 'rules' and 'turns'"),
    ({"turns": []}, "needs 'rules'"),
    ({"rules": "chess", "turns": []}, "unknown preset"),
    ({"rules": "dara", "turns": "c3 d4"}, "'turns' must be a list"),
    ({"rules": "dara", "turns": ["c3", "c3"]}, "'turns'[1] (turn 2): c3 is not legal"),
    ({"rules": "kalah", "turns": ["3-6"], "score": [0, 0]}, "'score' says [0, 0]"),
    ({"rules": "kalah", "turns": [], "score": 7}, "'score' says 7"),
    ({"rules": "kalah", "turns": [], "result": "2-0"}, "'result' '2-0'"),
    ("{not json", "not JSON"),
])
def test_from_json_errors(obj: object, reason: str) -> None:
    with pytest.raises(RecordError) as info:
        record.from_json(obj)  # type: ignore[arg-type]
    assert reason in str(info.value)


# --- files -----------------------------------------------------------------------------------


def test_write_file_is_atomic(tmp_path: Path) -> None:
    target = tmp_path / "game.txt"
    game = random_game("dara", 1, 30)
    record.write_file(target, record.dumps(game))
    first = target.read_text(encoding="utf-8")
    assert record.read_file(target)[0].turns == game.turns()
    # a write that fails half way leaves the old file and no temporary file behind
    with pytest.raises(UnicodeEncodeError):
        record.write_file(target, "[Event \"\ud800\"]\n")
    assert target.read_text(encoding="utf-8") == first
    assert os.listdir(tmp_path) == ["game.txt"]


def test_read_file_reports_the_file_name(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text('[Rules "dara"]\n1. c3 c3\n', encoding="utf-8")
    with pytest.raises(RecordError) as info:
        record.read_file(path)
    assert str(info.value).startswith(f"{path}, line 2, column 7: ")
    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="not UTF-8"):
        record.read_file(binary)


def test_only_the_last_turn_may_stop_half_way() -> None:
    # a game saved while the second step of a Kalah turn is still to be chosen
    rec = record.load_one('[Rules "kalah"]\n1. 3 *')
    assert rec.turns == ["3"] and rec.game.to_move == 1
    assert rec.dumps().endswith("1. 3 *\n")
    assert record.from_json({"rules": "kalah", "turns": ["3"]}).to_move == 1
    with pytest.raises(RecordError, match="not complete"):
        record.from_json({"rules": "kalah", "turns": ["3", "1"]})


def test_a_draw_by_agreement_round_trips() -> None:
    game = nugar.new_game("dara")
    game.play("c3")
    game.agree_draw()
    text = record.dumps(game)
    assert '[Termination "agreement"]' in text and '[Result "1/2-1/2"]' in text
    again = record.load_one(text)
    assert again.game.outcome == nugar.Outcome(None, "agreement")
    assert record.dumps(again.game, again.tags) == text
    with pytest.raises(record.RecordError, match="draw by agreement ends 1/2-1/2"):
        record.loads(text.replace('[Result "1/2-1/2"]', '[Result "1-0"]').replace(
            "1/2-1/2\n", "1-0\n"))
