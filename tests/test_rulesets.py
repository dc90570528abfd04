"""Rule sets as text: presets, overrides, canonical printing and clear errors (rules page
nugar/docs/rules.md, "A rule set as text")."""

from __future__ import annotations

import re

import pytest

import nugar
from nugar import RulesError, parse_rules
from nugar.rules.options import DALA_WIKIPEDIA, DARA_SHEET, DARA_WIKIPEDIA, DRACALA_MANCALA_WORLD


class TestPresets:
    def test_every_preset_of_the_contract_exists(self) -> None:
        names = [p["name"] for p in nugar.presets()]
        assert names == ["dara", "dara-niger", "dara-sheet", "dala", "kalah", "dracala"]

    def test_presets_name_their_sources(self) -> None:
        sources = {p["name"]: p["source"] for p in nugar.presets()}
        assert sources["dara"] == DARA_WIKIPEDIA
        assert sources["dara-sheet"] == DARA_SHEET
        assert sources["dala"] == DALA_WIKIPEDIA
        assert sources["dracala"] == DRACALA_MANCALA_WORLD
        for source in sources.values():  # a title and an address, never a file of ours
            assert ".txt" not in source and ("https://" in source or "printed" in source)

    @pytest.mark.parametrize(
        ("name", "overrides"),
        [
            ("dara", {}),
            ("dara-niger", {"drop_limit": "no_three"}),
            ("dara-sheet", {"protect_threes": False, "no_return": True}),
            ("dala", {"rows": 6, "centre_first": True, "drop_capture": True,
                      "drop_limit": "none", "long_lines": "allowed", "protect_threes": False}),
            ("kalah", {}),
            ("dracala", {"seeds": 6, "leftovers": "last_mover", "capture_duty": "maximal",
                         "misere": True}),
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
            ("kalah(pits=0)", "pits must be 1..32, not 0"),
            ("dara(rows=27)", "rows must be 1..26, not 27"),
            ("dara(no_return=maybe)", "allowed: on, off"),
            ("dara(drop_limit=five)", "allowed: none, no_four, no_three"),
            ("dara(repetition=1)", "repetition must be 2..100 or off, not 1"),
            ("kalah(pits=off)", "allowed: int 1..32"),
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


# --- numeric limits ------------------------------------------------------------------------------
#: every int option: the options its extremes need besides itself, its bounds, whether "off"
#: is allowed; the bounds are what the kernels handle (see options.py)
LIMITS: dict[str, tuple[str, dict[str, int], int, int, bool]] = {
    "rows": ("dara", {}, 1, 26, False),
    "cols": ("dara", {}, 1, 26, False),
    "pieces": ("dara", {"loss_at": 0}, 1, 676, False),
    "loss_at": ("dara", {"pieces": 676}, 0, 675, False),
    "repetition": ("dara", {}, 2, 100, True),
    "quiet_limit": ("dara", {}, 1, 1000, True),
    "pits": ("kalah", {}, 1, 32, False),
    "seeds": ("kalah", {}, 1, 64, False),
}


def _rules_text(preset: str, extra: dict[str, int], name: str, value: object) -> str:
    inner = ",".join(f"{k}={v}" for k, v in {**extra, name: value}.items())
    return f"{preset}({inner})"


class TestNumericLimits:
    def test_every_int_option_has_its_limits_here(self) -> None:
        from nugar.rules.options import option_fields

        ints = {f.name for t in (nugar.AlignmentOptions, nugar.SowingOptions)
                for f in option_fields(t) if f.metadata["kind"] == "int"}
        assert ints == set(LIMITS)

    @pytest.mark.parametrize("name", list(LIMITS))
    def test_the_bounds_are_accepted(self, name: str) -> None:
        preset, extra, lo, hi, off = LIMITS[name]
        for value in (lo, hi):
            rules = parse_rules(_rules_text(preset, extra, name, value))
            assert getattr(rules.options, name) == value
        if off:
            assert getattr(parse_rules(_rules_text(preset, extra, name, "off")).options,
                           name) is None

    @pytest.mark.parametrize("name", list(LIMITS))
    def test_just_outside_the_bounds_is_refused_saying_the_bounds(self, name: str) -> None:
        preset, extra, lo, hi, off = LIMITS[name]
        allowed = f"{lo}..{hi}" + (" or off" if off else "")
        for value in (lo - 1, hi + 1):
            message = f"{name} must be {allowed}, not {value}"
            with pytest.raises(RulesError) as info:
                parse_rules(_rules_text(preset, extra, name, value))
            assert str(info.value) == message
            with pytest.raises(RulesError) as info:  # the same check without the text form
                parse_rules(preset).with_options(**{**extra, name: value})
            assert str(info.value) == message

    def test_the_issue_examples(self) -> None:
        with pytest.raises(RulesError, match=r"^pits must be 1\.\.32, not 40$"):
            nugar.new_game("kalah(pits=40)")
        with pytest.raises(RulesError, match=r"^seeds must be 1\.\.64, not 1000$"):
            nugar.new_game("kalah(seeds=1000)")

    def test_options_made_directly_are_checked_too(self) -> None:
        with pytest.raises(RulesError, match=re.escape("rows must be 1..26, not 0")):
            nugar.AlignmentOptions(rows=0)
        with pytest.raises(RulesError, match=re.escape("seeds must be 1..64, not True")):
            nugar.SowingOptions(seeds=True)
        message = "quiet_limit must be 1..1000 or off, not '5'"
        with pytest.raises(RulesError, match=re.escape(message)):
            nugar.AlignmentOptions(quiet_limit="5")  # type: ignore[arg-type]

    def test_a_huge_number_is_refused_in_one_line(self) -> None:
        message = "pits must be 1..32, not 1" + "0" * 11 + "..."
        with pytest.raises(RulesError, match=re.escape(message)):
            parse_rules("kalah(pits=" + "1" + "0" * 250 + ")")
        with pytest.raises(RulesError, match="at most 300 characters, not 5013"):
            parse_rules("kalah(pits=" + "1" + "0" * 5000 + ")")

    def test_the_limits_are_described_for_the_option_tables(self) -> None:
        from nugar.rules.options import describe_values, option_fields

        described = {f.name: describe_values(f) for f in option_fields(nugar.SowingOptions)}
        assert described["pits"] == "int 1..32"
        described = {f.name: describe_values(f) for f in option_fields(nugar.AlignmentOptions)}
        assert described["repetition"] == "int 2..100 or off"

    @pytest.mark.parametrize("rules", [
        "dara(rows=1,cols=1,pieces=1,loss_at=0)",
        "dara(rows=26,cols=26,pieces=676,loss_at=675)",
        "dara(rows=26,cols=26,loss_at=0)",
        "dala(rows=1,cols=26,pieces=13,loss_at=0)",
        "dara-sheet(rows=26,cols=1,pieces=13,loss_at=0)",
        "dara(rows=3,cols=3,pieces=4,loss_at=0,repetition=2,quiet_limit=1)",
        "dara(rows=3,cols=3,pieces=4,loss_at=0,repetition=100,quiet_limit=1000)",
        "kalah(pits=1,seeds=1)",
        "kalah(pits=32,seeds=64)",
        "dracala(pits=32,seeds=64)",
        "kalah(pits=1,seeds=64,skip_origin=on)",
        "dracala(pits=32,seeds=1)",
    ])
    def test_games_at_the_limits_play(self, rules: str) -> None:
        import random

        from nugar.ai.agents import make_agent
        from nugar.envs.encoding import Encoder

        game = nugar.new_game(rules)
        encoder = Encoder(rules)
        rng = random.Random(7)
        for _ in range(40):
            if game.is_over:
                break
            observation = encoder.observe(game, game.to_move)
            assert observation.shape == encoder.observation_shape
            game.play(rng.choice(game.legal_moves()))
            assert nugar.from_position(game.position_text()) == game
        if not game.is_over:
            move = make_agent("alphabeta:depth=1").choose(game)
            assert move in game.legal_moves()
        assert len(game.move_stack) > 0
