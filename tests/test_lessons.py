"""The lessons (nugar.lessons): every position legal, every expected turn legal, the unique
puzzles unique (by an exact search of Dara and Dala to a fixed depth, by the solver for Kalah
and Dracala), every rule of the rules page taught, and the replies a step gives."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import nugar
from nugar.lessons import (
    RULE_TAGS,
    LessonError,
    Step,
    lesson_from_json,
    lessons,
    load,
    names,
    tags_of,
    validate,
)
from nugar.rules import Game, Move, family_of, from_position
from nugar.rules.options import option_fields

RULES_PAGE = Path(nugar.__file__).parent / "docs" / "rules.md"
#: headings of the rules page that state no rule of their own (examples to run)
NOT_RULES = {"Checks you can run"}

LESSONS = lessons()
STEPS = [(lesson, i, step) for lesson in LESSONS for i, step in enumerate(lesson.steps, 1)]
PUZZLES = [(lesson, i, step) for lesson, i, step in STEPS if step.puzzle]


def step_id(item: tuple[object, int, Step]) -> str:
    lesson, i, _ = item
    return f"{getattr(lesson, 'name', lesson)}-{i}"


def whole_turns(game: Game) -> list[tuple[tuple[Move, ...], Game]]:
    """Every whole turn the player to move may play, with the game after it."""
    mover, found = game.to_move, []

    def walk(g: Game, moves: tuple[Move, ...]) -> None:
        for move in g.legal_moves():
            after = g.copy()
            after.play(move)
            if after.is_over or after.to_move != mover:
                found.append(((*moves, move), after))
            else:
                walk(after, (*moves, move))

    walk(game, ())
    return found


def turn_moves(game: Game, text: str) -> tuple[Move, ...]:
    return tuple(Move.parse(t) for t in game.descriptor.split_turn(text))


# --- the files ---------------------------------------------------------------------------


def test_one_lesson_per_game_in_teaching_order() -> None:
    assert names() == ["dara", "dala", "kalah", "dracala"]
    assert [lesson.rules for lesson in LESSONS] == ["dara", "dala", "kalah", "dracala"]
    for lesson in LESSONS:
        assert lesson.puzzles and not lesson.steps[0].puzzle
        # the teaching steps come first, then the puzzles
        kinds = [s.puzzle for s in lesson.steps]
        assert kinds == sorted(kinds)


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda lesson: lesson.name)
def test_every_lesson_is_valid_by_the_rules(lesson: nugar.lessons.Lesson) -> None:
    assert validate(lesson) == []


@pytest.mark.parametrize("item", STEPS, ids=step_id)
def test_positions_parse_and_expected_turns_are_legal(item: tuple[object, int, Step]) -> None:
    _, _, step = item
    game = from_position(step.position)
    assert not game.is_over
    assert from_position(game.position_text()) == game
    for text in step.expected:
        played = from_position(step.position)
        mover = played.to_move
        played.play(text)  # raises if any move of the turn is not legal
        assert played.is_over or played.to_move != mover, f"{text} is not a whole turn"
        assert step.check(text)[0] and step.check(text.upper())[0]


def test_validate_finds_what_is_wrong() -> None:
    base = json.loads(json.dumps(_step_json()))
    bad = [
        ({"position": "dara ....../....../....../....../...... b hand=13,12"},
         "position: position text for dara: Black has 0 pieces on the board and 13 in hand"),
        ({"expected": ["c3-c4"]}, "expected 'c3-c4': it is still the drop phase"),
        ({"expected": ["zz"]}, "expected 'zz': cannot read 'zz'"),
        ({"replies": {"c3": "no"}}, "replies 'c3' is an expected turn"),
        ({"tags": ["sowing"]}, "unknown tag 'sowing'"),
        ({"goal": "win"}, "goal, unique and depth are for puzzles"),
        ({"position": "kalah 4,4,4,4,4,4:0/4,4,4,4,4,4:0 s", "expected": ["1"]},
         "the position's rules kalah are not of the lesson's family"),
    ]
    for change, message in bad:
        lesson = lesson_from_json({"title": "t", "rules": "dara", "intro": "i", "order": 1,
                                   "steps": [{**base, **change}]}, "sample")
        problems = validate(lesson)
        assert len(problems) == 1 and message in problems[0], (change, problems)
    kalah = lesson_from_json({"title": "t", "rules": "kalah", "intro": "i", "order": 1,
                              "steps": [{**base, "position": "kalah 4,4,4,4,4,4:0/4,4,4,4,4,"
                                                             "4:0 s", "expected": ["3"],
                                         "tags": ["bonus-step"]}]}, "sample")
    assert validate(kalah) == ["sample, step 1 (t): expected '3': the turn is not over after it"]


def _step_json() -> dict[str, object]:
    return {"title": "t", "text": "x", "position": "dara ....../....../....../....../...... b "
            "hand=12,12", "instruction": "Drop on c3.", "expected": ["c3"], "wrong": "No.",
            "tags": ["drop"]}


@pytest.mark.parametrize(("change", "message"), [
    ({"colour": "red"}, "sample, step 1: unknown field 'colour'"),
    ({"expected": []}, "sample, step 1: expected must be a list of one or more texts"),
    ({"expected": "c3"}, "sample, step 1: expected must be a JSON list, not str"),
    ({"goal": "draw"}, "goal must be one of win, not_lose, not 'draw'"),
    ({"depth": True}, "depth must be a JSON int, not bool"),
    ({"replies": {"d4": 1}}, "replies must map turn texts to texts"),
])
def test_bad_lesson_files_are_refused(change: dict[str, object], message: str) -> None:
    step = {**_step_json(), **change}
    with pytest.raises(LessonError, match=re.escape(message)):
        lesson_from_json({"title": "t", "rules": "dara", "intro": "i", "order": 1,
                          "steps": [step]}, "sample")
    with pytest.raises(LessonError, match="field 'steps' is missing"):
        lesson_from_json({"title": "t", "rules": "dara", "intro": "i", "order": 1}, "sample")
    with pytest.raises(LessonError, match="sample: rules: unknown preset 'chess'"):
        lesson_from_json({"title": "t", "rules": "chess", "intro": "i", "order": 1,
                          "steps": [_step_json()]}, "sample")
    with pytest.raises(LessonError, match="no lesson named 'chess'; lessons: dala, dara"):
        load("chess")


# --- what a step answers -----------------------------------------------------------------


@pytest.mark.parametrize("item", STEPS, ids=step_id)
def test_a_refused_move_gets_the_engines_reason(item: tuple[object, int, Step]) -> None:
    """A move the rules refuse is answered with the engine's own reason, as Game.explain
    gives it (the web page and `nugar play` show the same)."""
    _, _, step = item
    game = step.game()
    codec = family_of(game).parts.codec(game.rules)
    legal = game.legal_moves()
    illegal = [str(m) for m in codec.moves if m is not None and m not in legal][:5]
    for text in illegal:
        ok, reply = step.check(text)
        assert not ok and reply == game.explain(text) and reply
    # and a text that is no move at all: the notation's own message
    ok, reply = step.check("zz")
    assert not ok and reply.startswith("cannot read 'zz' as a") and game.descriptor.name in reply


@pytest.mark.parametrize("item", STEPS, ids=step_id)
def test_a_legal_wrong_move_gets_the_steps_reply(item: tuple[object, int, Step]) -> None:
    _, _, step = item
    game = step.game()
    expected = {turn_moves(game, t) for t in step.expected}
    replies = {turn_moves(game, t): r for t, r in step.replies}
    wrong = [moves for moves, _ in whole_turns(game) if moves not in expected]
    for moves in wrong[:6]:
        text = game.descriptor.join_turn(list(moves))
        assert step.check(text) == (False, replies.get(moves, step.wrong))
    if not wrong:  # every legal turn is right: nothing to answer but refusals
        assert all(step.check(game.descriptor.join_turn(list(m)))[0]
                   for m, _ in whole_turns(game))


def test_replies_of_a_step_in_detail() -> None:
    dara = load("dara")
    drop, capture = dara.steps[0], dara.steps[4]
    assert drop.check("c3") == (True, "Right: your first piece stands on c3.")
    assert drop.check(" C3 ")[0]
    assert drop.check("d4") == (False, drop.wrong)
    assert drop.check("c3-c4") == (False, "it is still the drop phase (White has 12 pieces "
                                          "in hand), and steps come only after it")
    assert drop.check("")[1].startswith("type a move, such as a1, b1, c1")
    assert "cannot read 'zz'" in drop.check("zz")[1]
    # the start of a right turn: right so far, and the turn goes on
    assert capture.check("c2-c1") == (False, "right so far: c2-c1 and the turn goes on "
                                             "(xe2, xc3, xe4, xa5)")
    assert capture.check("c2-c1xa5")[0]
    assert capture.check("c2-c1xa1") == (False, "a1 holds Black's own piece; capture a White "
                                                "piece")
    kalah = load("kalah")
    bonus = kalah.steps[1]
    assert bonus.check("3")[1].startswith("right so far: 3 and the turn goes on")
    assert bonus.check("3-1")[0] and not bonus.check("1")[0]
    assert bonus.check("1-2") == (False, "the turn is over after 1: 2 is not part of it")
    with_reply = Step(title="t", text="x", position=bonus.position, instruction="i",
                      expected=("3-1",), wrong="no", tags=("sowing",),
                      replies=(("4", "hole 4 puts one seed in your store and ends there"),))
    assert with_reply.check("4") == (False, "hole 4 puts one seed in your store and ends "
                                            "there")
    assert with_reply.check("5") == (False, "no")


# --- the rules taught ----------------------------------------------------------------------


def _headings() -> dict[str, list[str]]:
    """The ``###`` headings of each family's section of the rules page, by family name (the
    section's heading starts with the family's name: "Alignment family: Dara and Dala")."""
    found: dict[str, list[str]] = {}
    family = None
    for line in RULES_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            family = next((f for f in nugar.rules.family.FAMILIES
                           if line[3:].lower().startswith(f"{f} family")), None)
        elif line.startswith("### ") and family is not None:
            found.setdefault(family, []).append(line[4:].strip())
    return found


def test_rule_tags_name_the_rules_page_headings() -> None:
    headings = _headings()
    assert set(headings) == set(nugar.rules.family.FAMILIES)
    for tag in RULE_TAGS:
        assert tag.heading in headings[tag.family], tag
    for family, names_ in headings.items():
        covered = {t.heading for t in tags_of(family).values()}
        assert set(names_) - NOT_RULES <= covered, family


def test_options_on_which_presets_differ_are_tagged() -> None:
    """Every option whose value differs between two presets of a family is the subject of a
    tag (what each preset changes is taught)."""
    for family in nugar.rules.family.FAMILIES:
        presets = [p for p in nugar.PRESETS.values() if p.family == family]
        options = {t for tag in tags_of(family).values() for t in tag.options}
        for field in option_fields(type(presets[0].options)):
            values = {getattr(p.options, field.name) for p in presets}
            if len(values) > 1:
                assert field.name in options, (family, field.name)
        assert options <= {f.name for f in option_fields(type(presets[0].options))}


def test_every_rule_tag_is_taught() -> None:
    for family in nugar.rules.family.FAMILIES:
        taught = {t for lesson in LESSONS if lesson.family == family
                  for step in lesson.steps for t in step.tags}
        assert set(tags_of(family)) <= taught, (family, set(tags_of(family)) - taught)


# --- the puzzles ---------------------------------------------------------------------------


def _alignment_result(game: Game, depth: int, me: int) -> int:
    """1 if ``me`` wins within ``depth`` decisions whatever the opponent does, -1 if he loses
    within them whatever he does, else 0: an exact alpha-beta search over the rules, with
    nothing but the game's end as evaluation."""
    outcome = game.outcome
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == me else -1)
    if depth == 0:
        return 0
    mine = game.to_move == me
    best = -1 if mine else 1
    for move in game.legal_moves():
        game.push(move)
        value = _alignment_result(game, depth - 1, me)
        game.undo()
        if (mine and value > best) or (not mine and value < best):
            best = value
        if best == (1 if mine else -1):
            break
    return best


_SOLVERS: dict[str, object] = {}


def _sowing_result(game: Game, me: int) -> int:
    from nugar.solver import Solver

    outcome = game.outcome
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == me else -1)
    solver = _SOLVERS.setdefault(game.rules.text, Solver(game.rules, max_memory_mb=64,
                                                         disk_db=False))
    assert isinstance(solver, Solver)
    result = solver.result(game.state.copy())
    return result if game.to_move == me else -result


@pytest.mark.parametrize("item", PUZZLES, ids=step_id)
def test_unique_puzzles_have_one_solution(item: tuple[object, int, Step]) -> None:
    """A puzzle marked unique: its expected turns reach the goal, and no other turn does
    (Dara and Dala: within the puzzle's depth in decisions, exactly; Kalah and Dracala: by the
    exact solver)."""
    _, _, step = item
    if not step.unique:
        pytest.skip("not marked unique")
    game = step.game()
    me = game.to_move
    exact = family_of(game).solvable
    assert exact or step.depth is not None, "a search puzzle needs its depth"
    reaching = set()
    for moves, after in whole_turns(game):
        if exact:
            result = _sowing_result(after, me)
        else:
            assert step.depth is not None
            result = _alignment_result(after, step.depth - len(moves), me)
        if result == 1 or (step.goal == "not_lose" and result == 0):
            reaching.add(moves)
    assert reaching == {turn_moves(game, t) for t in step.expected}
