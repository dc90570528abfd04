"""The registry of game families: each family described once, asked by everything else.

Code outside ``nugar.rules`` never branches on a family's name or a game's display name: it
asks the family's :class:`FamilyDescriptor` (``family_of(game)``) for what it needs, the light
data here (player names, notation, score label, record tags, AI profiles) or, through
``descriptor.parts``, what comes with the compiled kernels (params, action codes,
observations, board data). Adding a family is one descriptor here and one
module holding its ``Game`` subclass and ``PARTS``; adding a variant of a family is a preset
(``options.register_preset``) or an option (``docs/architecture.md``, "Adding a variant or a
family").
"""

from __future__ import annotations

from dataclasses import Field
from typing import Any

from ..errors import RulesError
from ..i18n import Text
from ..notation import split_alignment_turn, split_sowing_turn
from .base import FamilyDescriptor, FamilyParts, Game, Observation
from .moves import Move
from .options import (
    PRESETS,
    AlignmentOptions,
    Options,
    Preset,
    RuleSet,
    SowingOptions,
    describe_values,
    format_value,
    option_fields,
    parse_rules,
)
from .profiles import DALA_PROFILE, DARA_PROFILE, DRACALA_PROFILE, KALAH_PROFILE, AiProfile


def _capture_continues(last: Move, move: Move) -> bool:
    """Alignment: only a capture continues a turn, right after its drop or step (a blocked
    opponent passes explicitly, so two turns of one player never touch)."""
    return move.kind == "capture" and last.kind in ("drop", "step")


def _always_continues(last: Move, move: Move) -> bool:
    """Sowing: consecutive steps of one player are one turn (bonus steps)."""
    return True


ALIGNMENT = FamilyDescriptor(
    name="alignment",
    options_type=AlignmentOptions,
    # the first player is Black (rules page)
    player_names=(Text("Black"), Text("White")),
    score_label="pieces left",
    split_turn=split_alignment_turn,
    turn_joiner="",
    continues_turn=_capture_continues,
    score_tag=False,
    capture_annotations=False,
    solvable=False,
    ai_profiles=(DARA_PROFILE, DALA_PROFILE),
    implementation="nugar.rules.alignment",
)

SOWING = FamilyDescriptor(
    name="sowing",
    options_type=SowingOptions,
    # the first player's holes run along the near, south side of the board
    player_names=(Text("South"), Text("North")),
    score_label="stores",
    split_turn=split_sowing_turn,
    turn_joiner="-",
    continues_turn=_always_continues,
    score_tag=True,
    capture_annotations=True,
    solvable=True,
    ai_profiles=(KALAH_PROFILE, DRACALA_PROFILE),
    implementation="nugar.rules.sowing",
)

#: every family by name (``Preset.family``)
FAMILIES: dict[str, FamilyDescriptor] = {d.name: d for d in (ALIGNMENT, SOWING)}


def register_family(descriptor: FamilyDescriptor) -> None:
    """Add a family (its presets come with ``options.register_preset``)."""
    if descriptor.name in FAMILIES:
        raise RulesError(Text("a family named {name!r} is already registered",
                              name=descriptor.name))
    FAMILIES[descriptor.name] = descriptor


def ai_profiles() -> list[AiProfile]:
    """The AI profiles of every registered family, family by family."""
    return [profile for family in FAMILIES.values() for profile in family.ai_profiles]


def family_of(what: RuleSet | Preset | Game | str) -> FamilyDescriptor:
    """The descriptor of a game's, rule set's or preset's family (a string is read as a rule
    set, e.g. ``"kalah(pits=4)"``).

    >>> family_of("dala").player_names
    ('Black', 'White')
    """
    if isinstance(what, Game):
        return what.descriptor
    name = what.family if isinstance(what, Preset | RuleSet) else parse_rules(what).family
    try:
        return FAMILIES[name]
    except KeyError:
        raise RulesError(Text("no family named {name!r} is registered; families: {families}",
                              name=name, families=", ".join(FAMILIES))) from None


def presets() -> list[dict[str, Any]]:
    """Every preset with its game, family, player names, source and full option values."""
    return [{**_about(p),
             "options": {name: getattr(p.options, name)
                         for name in p.options.__dataclass_fields__},
             "overrides": p.overrides} for p in PRESETS.values()]


def _about(preset: Preset) -> dict[str, Any]:
    """What :func:`presets` and :func:`preset_json` say of every preset besides options."""
    return {"name": preset.name, "game": preset.game, "family": preset.family,
            "players": list(FAMILIES[preset.family].player_names),
            "source": preset.source, "description": preset.description}


def preset_json(preset: Preset) -> dict[str, Any]:
    """One preset as JSON, the one shape that ``nugar rules --json`` and the web app's
    ``GET /api/presets`` share: its game, family, player names, source, description, the
    options it changes (``overrides``) and every option (:func:`option_json`). Values are
    written as rule-set texts write them (``on``, ``off``, ``6``)."""
    return {**_about(preset),
            "overrides": {k: format_value(v) for k, v in preset.overrides.items()},
            "options": [option_json(f, None, preset.options)
                        for f in option_fields(type(preset.options))]}


def rule_set_json(rules: RuleSet) -> dict[str, Any]:
    """One rule set as JSON (``nugar rules RULES --json``): each option's value beside the
    preset's default."""
    preset = rules.preset
    return {"rules": rules.text, "preset": preset.name, "game": rules.game,
            "family": rules.family, "players": list(family_of(rules).player_names),
            "description": preset.description, "source": preset.source,
            "options": [option_json(f, rules.options, preset.options)
                        for f in option_fields(type(rules.options))]}


def option_json(f: Field[Any], options: Options | None, defaults: Options) -> dict[str, Any]:
    """One option as JSON: ``name``, ``kind``, ``value`` (only with ``options``), ``default``
    (in ``defaults``), ``allowed`` (as text), ``values`` (a choice), ``min``, ``max`` and
    ``off_allowed`` (a whole number), and ``meaning``."""
    meta = f.metadata
    out: dict[str, Any] = {"name": f.name, "kind": meta["kind"]}
    if options is not None:
        out["value"] = format_value(getattr(options, f.name))
    out["default"] = format_value(getattr(defaults, f.name))
    out["allowed"] = describe_values(f)
    if meta["kind"] == "choice":
        out["values"] = list(meta["values"])
    elif meta["kind"] == "int":
        out.update(min=meta["lo"], max=meta["hi"], off_allowed=meta["off_ok"])
    out["meaning"] = meta.get("doc", "")
    return out


__all__ = ["ALIGNMENT", "FAMILIES", "SOWING", "AiProfile", "FamilyDescriptor", "FamilyParts",
           "Observation", "ai_profiles", "family_of", "option_json", "preset_json", "presets",
           "register_family", "rule_set_json"]
