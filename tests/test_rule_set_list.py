"""The shared list of rule sets (tests/rule_sets.py) keeps its promises: every preset, every
option value, boards of every kind, and helpers that split it as they say."""

from __future__ import annotations

import nugar
from nugar.kernels import alignment as K
from nugar.rules.alignment import make_params
from nugar.rules.family import FAMILIES
from nugar.rules.options import format_value, option_fields
from rule_sets import PRESET_NAMES, RULE_SETS, VARIANTS, family_name, is_small, of_family, small


def test_every_preset_comes_first_in_the_registrys_order() -> None:
    assert PRESET_NAMES == list(nugar.PRESETS)
    assert RULE_SETS[:len(PRESET_NAMES)] == PRESET_NAMES
    assert RULE_SETS[len(PRESET_NAMES):] == VARIANTS


def test_every_rule_set_is_read_and_no_two_are_the_same_rules() -> None:
    parsed = [nugar.parse_rules(rules) for rules in RULE_SETS]
    assert [r.text for r in parsed[len(PRESET_NAMES):]] == VARIANTS  # written canonically
    seen = [(r.family, r.options) for r in parsed]
    assert len(set(seen)) == len(seen)


def test_every_value_of_every_option_occurs() -> None:
    """Each value of a switch or a choice, and ``off`` of an option that can be off, is in the
    rules of at least one rule set of its family."""
    for family in FAMILIES.values():
        used = [nugar.parse_rules(rules).options for rules in of_family(family.name)]
        assert used, family.name
        for field in option_fields(family.options_type):
            meta = field.metadata
            if meta["kind"] == "switch":
                wanted = {"on", "off"}
            elif meta["kind"] == "choice":
                wanted = set(meta["values"])
            elif meta["off_ok"]:
                wanted = {"off"}
            else:
                continue
            found = {format_value(getattr(options, field.name)) for options in used}
            assert wanted <= found, f"{family.name} {field.name}: no rule set has "\
                f"{sorted(wanted - found)}"


def test_boards_of_every_kind_occur() -> None:
    """A single row and a single column, the largest boards of one 63-bit word and boards of
    more, one hole a side and six."""
    boards = []
    for rules in of_family("alignment"):
        options = nugar.parse_rules(rules).options
        assert isinstance(options, nugar.AlignmentOptions)
        boards.append((options.rows, options.cols, int(make_params(options)[K.P_W])))
    assert any(rows == 1 for rows, _, _ in boards) and any(cols == 1 for _, cols, _ in boards)
    assert {rows * cols for rows, cols, words in boards if words == 1} >= {63}
    assert any(words > 1 for _, _, words in boards)
    pits = set()
    for rules in of_family("sowing"):
        options = nugar.parse_rules(rules).options
        assert isinstance(options, nugar.SowingOptions)
        pits.add(options.pits)
    assert {1, 6} <= pits


def test_the_helpers_split_the_list() -> None:
    families = {name: of_family(name) for name in FAMILIES}
    assert sorted(rules for members in families.values() for rules in members) \
        == sorted(RULE_SETS)
    for name, members in families.items():
        assert all(family_name(rules) == name for rules in members)
        assert small(members), f"no small {name} rule set"
    assert small() == [rules for rules in RULE_SETS if is_small(rules)]
    assert "dara" not in small() and "kalah" not in small()
    assert is_small("dara(rows=4,cols=4,pieces=5)") and is_small("kalah(pits=3,seeds=3)")
    assert not is_small("dara(rows=4,cols=5)") and not is_small("kalah(pits=2,seeds=5)")
