"""The rule sets the tests run over: one list for the whole suite.

``RULE_SETS`` is every preset (read from ``nugar.PRESETS``) followed by ``VARIANTS``, a curated
list of option combinations chosen so that every value of every switch and choice option, and
``off`` of every option that can be switched off, occurs at least once, on boards of every kind
the kernels treat differently (tiny boards, single rows and columns, the largest one-word board,
boards of several words). ``tests/test_rule_set_list.py`` checks that this stays true.

Test files take the whole list or a subset made by the helpers below (``of_family``,
``small``, ``not_large``), and say why where they take a subset. A new option value or board
kind is added here, once, and every test that runs over the list picks it up.
"""

from __future__ import annotations

from collections.abc import Iterable

import nugar
from nugar.rules.family import family_of

#: every preset by name, in the registry's order
PRESET_NAMES: list[str] = list(nugar.PRESETS)

#: rule sets beside the presets, each noted with what it brings; written as ``RuleSet.text``
#: writes them (the options in declaration order), so a game's ``rules.text`` is its entry here
VARIANTS: list[str] = [
    # --- alignment ---------------------------------------------------------------------------
    # a tiny board where a blocked player loses and a fully protected side may be taken
    "dara(rows=4,cols=4,pieces=5,all_protected=take_any,blocked=lose)",
    # tiny boards with position fields in play: a short quiet limit, a low loss threshold
    "dara(rows=4,cols=4,pieces=5,quiet_limit=12)",
    "dara-sheet(rows=3,cols=4,pieces=4,loss_at=1,quiet_limit=8)",
    # centre-first drops and drop captures on a tiny board
    "dara(rows=4,cols=4,pieces=6,centre_first=on,drop_capture=on)",
    "dala(rows=4,cols=4,pieces=6,blocked=lose)",
    # one row, one column, and a single line of squares: the board edges everywhere
    "dara(rows=1,cols=5,pieces=3,loss_at=0,repetition=2)",
    "dara-niger(rows=1,cols=12,pieces=5,loss_at=1)",
    "dara-niger(rows=12,cols=1,pieces=5,loss_at=1)",
    # the presets' boards with the option values the presets leave out, in combinations
    "dala(protect_threes=on,all_protected=take_any)",
    "dara(no_return=on,blocked=lose,quiet_limit=30)",
    "dala(drop_limit=no_three,long_lines=forbidden,repetition=2)",
    "dala(drop_limit=no_four,long_lines=forbidden,no_return=on)",
    "dara(drop_limit=none,long_lines=allowed,no_return=on)",
    "dala(no_return=on,repetition=2,quiet_limit=20)",
    "dala(repetition=2,quiet_limit=30)",
    # no quiet limit (repetition ends the game), and no repetition rule (the quiet limit does)
    "dara-niger(quiet_limit=off)",
    "dara-sheet(repetition=off,quiet_limit=40)",
    "dara-sheet(rows=3,cols=7,pieces=9,drop_limit=none,loss_at=3)",
    # the largest boards of one 63-bit word, both ways round
    "dara-sheet(rows=7,cols=9,pieces=25,drop_limit=no_three)",
    "dara-sheet(rows=7,cols=9,pieces=25,centre_first=on)",
    "dala(rows=9,cols=7,pieces=25,drop_limit=no_three)",
    # boards of two words
    "dala(rows=8,cols=8,pieces=20,long_lines=forbidden,no_return=on)",
    "dara(rows=9,cols=9,pieces=20,long_lines=allowed)",
    # --- sowing ------------------------------------------------------------------------------
    # one hole a side, two, and three with Kalah's own rules
    "kalah(pits=1,seeds=1)",
    "kalah(pits=2,seeds=1,end=mover_empty,leftovers=last_capturer)",
    "kalah(pits=3,seeds=2)",
    # small boards: single captures, laps over the starting hole, the other endings
    "kalah(pits=3,seeds=2,skip_origin=on,empty_capture=single)",
    "kalah(pits=3,seeds=2,end=mover_empty,leftovers=last_capturer)",
    "dracala(pits=3,seeds=3,skip_origin=on)",
    # Dracala's two options one at a time: the capture duty, then misère
    "kalah(pits=3,seeds=3,capture_duty=maximal)",
    "kalah(pits=3,seeds=2,misere=on)",
    # several laps per step
    "kalah(pits=2,seeds=9,skip_origin=on)",
    "kalah(pits=3,seeds=9,skip_origin=on,empty_capture=single)",
    # mid-sized and full-sized boards with the other endings and leftover rules
    "kalah(pits=4,seeds=3,skip_origin=on)",
    "kalah(pits=5,seeds=3,empty_capture=single,end=mover_empty)",
    "dracala(pits=3,seeds=5,skip_origin=on,end=mover_empty)",
    "kalah(end=mover_empty,leftovers=last_mover)",
    "dracala(leftovers=last_capturer)",
]

#: the one list: every preset, then every variant
RULE_SETS: list[str] = PRESET_NAMES + VARIANTS


def family_name(rules: str) -> str:
    """The name of the family a rule-set text belongs to (``alignment``, ``sowing``)."""
    return family_of(rules).name


def of_family(name: str, among: Iterable[str] = RULE_SETS) -> list[str]:
    """The rule sets of one family, in list order."""
    return [rules for rules in among if family_name(rules) == name]


def is_small(rules: str) -> bool:
    """Small enough for exhaustive checks: at most 16 squares (alignment), at most 18 seeds
    (sowing)."""
    options = nugar.parse_rules(rules).options
    if isinstance(options, nugar.AlignmentOptions):
        return options.rows * options.cols <= 16
    assert isinstance(options, nugar.SowingOptions)
    return 2 * options.pits * options.seeds <= 18


def small(among: Iterable[str] = RULE_SETS) -> list[str]:
    """The small rule sets (``is_small``), in list order."""
    return [rules for rules in among if is_small(rules)]


def is_large(rules: str) -> bool:
    """Larger than every preset of its family: more than Dala's 36 squares (alignment), more
    than Dracala's 72 seeds (sowing). Random games on these boards are long."""
    options = nugar.parse_rules(rules).options
    if isinstance(options, nugar.AlignmentOptions):
        return options.rows * options.cols > 36
    assert isinstance(options, nugar.SowingOptions)
    return 2 * options.pits * options.seeds > 72


def not_large(among: Iterable[str] = RULE_SETS) -> list[str]:
    """The rule sets that are not large (``is_large``), in list order: for the tests that play
    many whole games in Python, where the large boards would take most of the time."""
    return [rules for rules in among if not is_large(rules)]
