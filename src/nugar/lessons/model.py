"""Lessons as data: the typed, frozen form of a lesson file, reading it from JSON, answering a
move typed at a step (:meth:`Step.check`), and the checks that need only the rules
(:func:`validate`). The format is described in ``docs/lessons.md``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import NugarError
from ..i18n import Text
from ..rules import Game, Move, from_position, parse_rules
from ..rules.family import family_of
from .tags import tags_of

#: what a puzzle asks: a turn that wins, or a turn that does not lose
GOALS = ("win", "not_lose")


class LessonError(NugarError):
    """A lesson file that cannot be read: the message names the file, the step and the field."""


@dataclass(frozen=True)
class Step:
    """One step of a lesson: a position to set up, a sentence saying what to do, and the
    move (or whole turn) that does it.

    ``text`` is the rule the step teaches, in a few sentences; ``position`` a position text
    (``docs/records.md``, "Positions"); ``instruction`` one sentence; ``expected`` the turn
    texts that are right (a turn may be one move, ``c3``, or several, ``d2-d1xe5``, ``3-6``);
    ``wrong`` the reply to a legal move that is not expected, saying why it is not the one;
    ``replies`` replies of their own for some legal turns; ``right`` what is said to a right
    move; ``tags`` the rules taught (:data:`~nugar.lessons.tags.RULE_TAGS`). A puzzle has a
    ``goal`` (:data:`GOALS`), ``unique`` when its solution is the only move that reaches the
    goal, and for a search the ``depth`` in decisions within which that is decided."""

    title: str
    text: str
    position: str
    instruction: str
    expected: tuple[str, ...]
    wrong: str
    tags: tuple[str, ...]
    replies: tuple[tuple[str, str], ...] = ()
    right: str = ""
    puzzle: bool = False
    goal: str | None = None
    unique: bool = False
    depth: int | None = None

    def game(self) -> Game:
        """A new game set up at the step's position."""
        return from_position(self.position)

    def check(self, move_text: str) -> tuple[bool, str]:
        """Whether ``move_text`` (one move or a whole turn) is what the step asks, and the
        reply to show: for a move the rules refuse, the engine's own reason (as
        :meth:`Game.explain` gives it); for a legal move that is not the one, the step's reply;
        for the start of a right turn, a word that the turn goes on."""
        answer = self.answer(move_text)
        return answer.ok, answer.reply

    def answer(self, move_text: str) -> Answer:
        """What :meth:`check` says of ``move_text``, with what a front end draws besides:
        the kind of answer (:data:`VERDICTS`), the moves read and, when they were all legal,
        the position after them."""
        game = self.game()
        try:
            played = _parse_turn(game, move_text)
        except ValueError as exc:
            return Answer("unreadable", _said(exc))
        mover = game.to_move
        for i, move in enumerate(played):
            if i > 0 and (game.is_over or game.to_move != mover):
                so_far = game.descriptor.join_turn(list(played[:i]))
                return Answer("illegal", Text("the turn is over after {so_far}: {move} is not "
                                              "part of it", so_far=so_far, move=str(move)),
                              played)
            why = game.explain(move)
            if why is not None:
                return Answer("illegal", why, played)
            game.play(move)
        expected = [_parse_turn(self.game(), text) for text in self.expected]
        if played in expected:
            return Answer("right", self.right or Text("Right."), played, game)
        if not game.is_over and game.to_move == mover and any(
                len(e) > len(played) and e[:len(played)] == played for e in expected):
            legal = ", ".join(str(m) for m in game.legal_moves())
            return Answer("goes_on", Text("right so far: {played} and the turn goes on "
                                          "({legal})",
                                          played=game.descriptor.join_turn(list(played)),
                                          legal=legal), played, game)
        for text, reply in self.replies:
            if _parse_turn(self.game(), text) == played:
                return Answer("wrong", reply, played, game)
        return Answer("wrong", self.wrong, played, game)


#: the kinds of :class:`Answer`: the whole right turn; the right turn's first moves, which
#: the turn goes on from; a legal turn that is not the one; a move the rules refuse; a text
#: that is no move
VERDICTS = ("right", "goes_on", "wrong", "illegal", "unreadable")


@dataclass(frozen=True, eq=False)
class Answer:
    """The answer of a step to a typed turn (:meth:`Step.answer`): its ``verdict`` (one of
    :data:`VERDICTS`), the ``reply`` to show, the ``moves`` read from the text (none when it
    could not be read) and ``game``, the position after them when they were all legal
    (``right``, ``goes_on``, ``wrong``), else ``None``."""

    verdict: str
    reply: str
    moves: tuple[Move, ...] = ()
    game: Game | None = None

    @property
    def ok(self) -> bool:
        """The step is done: the whole of a right turn was played."""
        return self.verdict == "right"


@dataclass(frozen=True)
class Lesson:
    """A lesson: its ``name`` (the file's), ``title``, the rule set it teaches (``rules``;
    steps may use variants of it), an introduction and its steps, teaching steps first,
    then puzzles."""

    name: str
    title: str
    rules: str
    intro: str
    order: int
    steps: tuple[Step, ...]

    @property
    def family(self) -> str:
        """The name of the family of the lesson's rules (``FamilyDescriptor.name``)."""
        return family_of(self.rules).name

    @property
    def puzzles(self) -> tuple[Step, ...]:
        return tuple(s for s in self.steps if s.puzzle)


def _parse_turn(game: Game, text: str) -> tuple[Move, ...]:
    """The moves of a turn text on ``game``'s board (not checked for legality); ValueError
    saying what cannot be read."""
    if not isinstance(text, str) or not text.strip():
        raise NugarError(Text("type a move, such as {moves}",
                              moves=", ".join(str(m) for m in game.legal_moves()[:3])))
    return tuple(game.parse_move(t) for t in game.descriptor.split_turn(text.strip()))


# --- reading -------------------------------------------------------------------------------

_STEP_FIELDS: dict[str, tuple[type, bool]] = {
    # name: (type, required)
    "title": (str, True), "text": (str, True), "position": (str, True),
    "instruction": (str, True), "expected": (list, True), "wrong": (str, True),
    "tags": (list, True), "replies": (dict, False), "right": (str, False),
    "puzzle": (bool, False), "goal": (str, False), "unique": (bool, False),
    "depth": (int, False),
}
_LESSON_FIELDS: dict[str, tuple[type, bool]] = {
    "title": (str, True), "rules": (str, True), "intro": (str, True), "order": (int, True),
    "steps": (list, True),
}


def _fields(obj: Any, spec: Mapping[str, tuple[type, bool]], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise LessonError(f"{where}: must be a JSON object")
    unknown = sorted(set(obj) - set(spec))
    if unknown:
        raise LessonError(f"{where}: unknown field {unknown[0]!r}; allowed: {', '.join(spec)}")
    for name, (kind, required) in spec.items():
        if name not in obj:
            if required:
                raise LessonError(f"{where}: field {name!r} is missing")
            continue
        value = obj[name]
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise LessonError(f"{where}: {name} must be a JSON {kind.__name__}, not "
                              f"{type(value).__name__}")
    return dict(obj)


def _texts(value: list[Any], what: str) -> tuple[str, ...]:
    if not value or not all(isinstance(v, str) and v.strip() for v in value):
        raise LessonError(f"{what} must be a list of one or more texts")
    return tuple(value)


def step_from_json(obj: Any, where: str = "step") -> Step:
    """A :class:`Step` from its JSON object; :class:`LessonError` for a wrong shape."""
    f = _fields(obj, _STEP_FIELDS, where)
    replies = f.get("replies", {})
    if not all(isinstance(v, str) for v in replies.values()):
        raise LessonError(f"{where}: replies must map turn texts to texts")
    goal = f.get("goal")
    if goal is not None and goal not in GOALS:
        raise LessonError(f"{where}: goal must be one of {', '.join(GOALS)}, not {goal!r}")
    return Step(title=f["title"], text=f["text"], position=f["position"],
                instruction=f["instruction"],
                expected=_texts(f["expected"], f"{where}: expected"), wrong=f["wrong"],
                tags=_texts(f["tags"], f"{where}: tags"), replies=tuple(replies.items()),
                right=f.get("right", ""), puzzle=f.get("puzzle", False), goal=goal,
                unique=f.get("unique", False), depth=f.get("depth"))


def lesson_from_json(obj: Any, name: str) -> Lesson:
    """A :class:`Lesson` named ``name`` from its JSON object (or text)."""
    if isinstance(obj, str | bytes):
        try:
            obj = json.loads(obj)
        except ValueError as exc:
            raise LessonError(f"{name}: not JSON ({exc})") from None
    f = _fields(obj, _LESSON_FIELDS, name)
    try:
        parse_rules(f["rules"])
    except ValueError as exc:
        raise LessonError(f"{name}: rules: {exc}") from None
    steps = tuple(step_from_json(s, f"{name}, step {i}") for i, s in enumerate(f["steps"], 1))
    if not steps:
        raise LessonError(f"{name}: a lesson has at least one step")
    return Lesson(name=name, title=f["title"], rules=f["rules"], intro=f["intro"],
                  order=f["order"], steps=steps)


# --- checking with the rules ---------------------------------------------------------------


def validate(lesson: Lesson) -> list[str]:
    """What is wrong with ``lesson`` by the rules alone, one line per problem (empty when
    nothing is): every position parses and is not over, in the lesson's family; every
    expected turn, and every turn given a reply of its own, is legal there and whole; the
    tags are the family's; puzzle fields only on puzzles."""
    problems: list[str] = []
    known = tags_of(lesson.family)
    for i, step in enumerate(lesson.steps, 1):
        where = f"{lesson.name}, step {i} ({step.title})"
        try:
            game = step.game()
        except ValueError as exc:
            problems.append(f"{where}: position: {exc}")
            continue
        if game.is_over:
            problems.append(f"{where}: the position is already over ({game.outcome})")
        if family_of(game).name != lesson.family:
            problems.append(f"{where}: the position's rules {game.rules.text} are not of the "
                            f"lesson's family")
        turns = [("expected", t) for t in step.expected] + [("replies", t)
                                                             for t, _ in step.replies]
        expected: list[tuple[Move, ...]] = []
        for what, text in turns:
            why = whole_turn_problem(step.game(), text)
            if why:
                problems.append(f"{where}: {what} {text!r}: {why}")
                continue
            moves = _parse_turn(step.game(), text)
            if what == "expected":
                expected.append(moves)
            elif moves in expected:
                problems.append(f"{where}: replies {text!r} is an expected turn")
        problems += [f"{where}: unknown tag {t!r}; the family's tags: {', '.join(known)}"
                     for t in step.tags if t not in known]
        if not step.puzzle and (step.goal or step.unique or step.depth is not None):
            problems.append(f"{where}: goal, unique and depth are for puzzles")
        if step.unique and step.goal is None:
            problems.append(f"{where}: a unique solution needs a goal")
        if step.puzzle and step.unique and not family_of(game).solvable \
                and step.depth is None:
            problems.append(f"{where}: a unique puzzle of a game the solver does not cover "
                            f"needs the depth of its search")
    return problems


def _said(exc: BaseException) -> str:
    """An error's sentence, as the :class:`~nugar.i18n.Text` it was raised with where it was
    (so a face can translate it), else as its text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


def whole_turn_problem(game: Game, text: str) -> str:
    """Why ``text`` is not a whole legal turn on ``game`` (``""`` if it is); ``game`` is
    played on."""
    try:
        moves = _parse_turn(game, text)
    except ValueError as exc:
        return str(exc)
    mover = game.to_move
    for i, move in enumerate(moves):
        if i > 0 and (game.is_over or game.to_move != mover):
            return f"the turn is over before {move}"
        why = game.explain(move)
        if why is not None:
            return why
        game.play(move)
    if not game.is_over and game.to_move == mover:
        return "the turn is not over after it"
    return ""
