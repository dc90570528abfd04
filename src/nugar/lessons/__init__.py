"""Lessons that teach the games by playing: data files in ``data/*.json`` (one lesson per
game), read into frozen dataclasses, each step answering a typed move with
:meth:`Step.check`. The format: ``docs/lessons.md``. A lesson translated into another language
is the same file in ``data/<lang>/`` (only its texts differ); :func:`load` falls back to the
English file while a translation is missing.

This package needs only the rules: :func:`validate` checks what the rules can tell (positions,
legal moves, tags); the tests add what needs a search or the solver (unique puzzles).

>>> dara = load("dara")
>>> step = dara.steps[0]
>>> step.check("c3")
(True, 'Right: your first piece stands on c3.')
>>> step.check("c9")
(False, "square 'c9' is off the 5x6 board of dara; squares are a1..f5")
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from ..i18n import SOURCE, check_language
from .model import (
    GOALS,
    VERDICTS,
    Answer,
    Lesson,
    LessonError,
    Step,
    lesson_from_json,
    step_from_json,
    validate,
)
from .tags import RULE_TAGS, RuleTag, tags_of


def names() -> list[str]:
    """The names of the lessons in the package, in their teaching order."""
    return [lesson.name for lesson in lessons()]


def load(name: str, lang: str = SOURCE) -> Lesson:
    """The lesson of the package named ``name`` (``dara``, ``dala``, ``kalah``, ``dracala``)
    in ``lang`` (:data:`nugar.i18n.LANGUAGES`; the English lesson where that language has no
    translation of it yet); :class:`LessonError` if there is none."""
    data = _data()
    path = data.joinpath(f"{name}.json")
    if not name.replace("-", "").isalnum() or not path.is_file():
        raise LessonError(f"no lesson named {name!r}; lessons: {', '.join(_stems())}")
    lang = check_language(lang)
    if lang != SOURCE and (translated := data.joinpath(lang, f"{name}.json")).is_file():
        path = translated
    return lesson_from_json(path.read_text(encoding="utf-8"), name)


def lessons(lang: str = SOURCE) -> list[Lesson]:
    """Every lesson of the package, in teaching order, in ``lang`` (as :func:`load`)."""
    return sorted((load(n, lang) for n in _stems()), key=lambda lesson: lesson.order)


def _data() -> Traversable:
    """The folder of the package's lesson files."""
    return resources.files(__name__).joinpath("data")


def _stems() -> list[str]:
    data = _data()
    return sorted(p.name[:-5] for p in data.iterdir() if p.name.endswith(".json"))


__all__ = [
    "GOALS",
    "RULE_TAGS",
    "VERDICTS",
    "Answer",
    "Lesson",
    "LessonError",
    "RuleTag",
    "Step",
    "lesson_from_json",
    "lessons",
    "load",
    "names",
    "step_from_json",
    "tags_of",
    "validate",
]
