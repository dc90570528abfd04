"""Rule sets as text: presets, overrides, canonical printing and clear errors (RULES.md,
"Naming a rule set in text")."""

from __future__ import annotations

import pytest

import nugar
from nugar import RulesError, parse_rules


class TestPresets:
    def test_every_preset_of_the_contract_exists(self) -> None:
        names = [p["name"] for p in nugar.presets()]
        assert names == ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]

    def test_presets_name_their_sources(self) -> None:
        sources = {p["name"]: p["source"] for p in nugar.presets()}
        assert sources["dara"] == "dara-wikipedia.txt"
        assert sources["dara-sheet"] == "dara-rule-sheet.txt"
        assert sources["dala"] == "dala-wikipedia.txt"
        assert sources["dracala"] == "dracala-mancala-world.txt"

    @pytest.mark.parametrize(
        ("name", "overrides"),
        [
            ("dara", {}),
            ("dara-niger", {"drop_limit": "no_three"}),
            ("dara-sheet", {"protect_threes": False, "no_return": True}),
            ("dala", {"rows": 6, "centre_first": True, "drop_capture": True,
                      "drop_limit": "none", "long_lines": "allowed", "protect_threes": False}),
            ("kalah", {}),
            ("dracala", {"seeds": 6, "leftovers": "last_mover"}),
        ],
    )
    def test_preset_differences_match_the_contract(self, name: str,
                                                   overrides: dict[str, object]) -> None:
        preset = next(p for p in nugar.presets() if p["name"] == name)
        assert preset["overrides"] == overrides

    def test_alignment_defaults_are_dara(self) -> None:
        o = parse_rules("dara").options
        assert isinstance(o, nugar.AlignmentOptions)
        assert (o.rows, o.cols, o.pieces, o.loss_at, o.repetition, o.quiet_limit) == (
            5, 6, 12, 2, 3, 100)
        assert (o.drop_limit, o.long_lines, o.all_protected, o.blocked) == (
            "no_four", "forbidden", "forfeit", "pass")
        assert o.protect_threes and not o.no_return and not o.centre_first
        assert not o.drop_capture

    def test_sowing_defaults_are_kalah(self) -> None:
        o = parse_rules("kalah").options
        assert isinstance(o, nugar.SowingOptions)
        assert (o.pits, o.seeds, o.skip_origin, o.empty_capture, o.end, o.leftovers) == (
            6, 4, False, "none", "any_side_empty", "owner")


class TestParsing:
    @pytest.mark.parametrize(
        "text",
        ["dara", "dara-niger", "dala(quiet_limit=off)", "kalah(pits=4,seeds=3)",
         "dracala(leftovers=last_capturer)", "kalah(skip_origin=on)",
         "dara-sheet(repetition=5,quiet_limit=40)", "dara(rows=3,cols=3,pieces=4)"],
    )
    def test_canonical_text_round_trips(self, text: str) -> None:
        rules = parse_rules(text)
        assert rules.text == text
        assert parse_rules(rules.text) == rules

    def test_spaces_case_and_true_false_are_accepted(self) -> None:
        rules = parse_rules(" Kalah( Skip_Origin = TRUE , seeds=5 ) ")
        assert rules.text == "kalah(seeds=5,skip_origin=on)"

    def test_overriding_to_the_preset_value_prints_nothing(self) -> None:
        assert parse_rules("dala(rows=6)").text == "dala"

    def test_numeric_limits_accept_off(self) -> None:
        o = parse_rules("dara(repetition=off,quiet_limit=off)").options
        assert isinstance(o, nugar.AlignmentOptions)
        assert o.repetition is None and o.quiet_limit is None

    def test_every_preset_starts_a_game(self) -> None:
        for p in nugar.presets():
            game = nugar.new_game(p["name"])
            assert game.rules.name == p["name"]
            assert game.legal_moves()


class TestErrors:
    @pytest.mark.parametrize(
        ("text", "fragment"),
        [
            ("chess", "allowed: dara, dara-niger, dara-sheet, dala, kalah, dracala"),
            ("dara(colour=red)", "allowed: rows, cols, pieces"),
            ("kalah(pits=0)", "allowed: int >= 1"),
            ("dara(rows=27)", "allowed: int 1..26"),
            ("dara(no_return=maybe)", "allowed: on, off"),
            ("dara(drop_limit=five)", "allowed: none, no_four, no_three"),
            ("dara(repetition=1)", "int >= 2 or off"),
            ("kalah(pits=off)", "allowed: int >= 1"),
            ("dara(pieces=2)", "greater than loss_at"),
            ("dara(rows)", "needs a value"),
            ("dara(rows=4,rows=5)", "given twice"),
            ("kalah(rows=4)", "allowed: pits, seeds"),
            ("dara(", "cannot read rule set"),
        ],
    )
    def test_bad_rule_sets_name_what_is_allowed(self, text: str, fragment: str) -> None:
        with pytest.raises(RulesError) as info:
            nugar.new_game(text)
        assert fragment in str(info.value)

    def test_rules_error_is_a_value_error(self) -> None:
        assert issubclass(RulesError, ValueError)
        assert issubclass(nugar.InvalidMoveError, ValueError)
        assert issubclass(nugar.IllegalMoveError, ValueError)

    def test_with_options_checks_names(self) -> None:
        rules = parse_rules("dara")
        assert rules.with_options(no_return=True).text == "dara(no_return=on)"
        with pytest.raises(RulesError, match="unknown option"):
            rules.with_options(colour="red")


def test_a_family_class_refuses_the_other_familys_rules() -> None:
    from nugar.rules.alignment import AlignmentGame
    from nugar.rules.sowing import SowingGame

    with pytest.raises(RulesError, match=r"needs a sowing rule set \(kalah, dracala\), not 'dara'"):
        SowingGame("dara")
    with pytest.raises(RulesError,
                       match=r"needs an alignment rule set \(dara, dara-niger, dara-sheet, dala\)"):
        AlignmentGame("kalah(pits=3)")
    assert SowingGame("dracala").rules.text == "dracala"
