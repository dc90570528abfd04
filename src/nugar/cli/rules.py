"""``nugar rules [RULES]`` (the presets, or the options of one rule set) and ``nugar moves``
(the legal moves after some turns, for scripts)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rich.table import Table

from ..i18n import gettext_for, say
from ..rules import PRESETS, RuleSet, new_game
from ..rules.family import preset_json, rule_set_json
from ..rules.options import describe_values, format_value, option_fields
from .common import (
    EXIT_OK,
    RULES_HELP,
    add_lang_option,
    checked_rules,
    command,
    console,
    language,
    misere_note,
    play_turns,
    rules_arg,
    rules_arg_later,
    turn_texts,
)

#: the width of ``nugar rules`` written to a file or a pipe: enough for every column whole
_PLAIN_WIDTH = 10_000


def register(sub: Any) -> None:
    """Add ``rules`` and ``moves`` to the ``nugar`` command line."""
    p = sub.add_parser("rules", help="list the presets, or the options of one rule set",
                       description="Without RULES: the presets and their sources. With RULES: "
                                   "every option, its value, default and allowed values.")
    p.add_argument("rules", nargs="?", type=rules_arg_later, metavar="RULES", help=RULES_HELP)
    p.add_argument("--json", action="store_true",
                   help="print the same as JSON: presets, or options with value, default, "
                        "allowed values, limits and meaning (data: always English)")
    add_lang_option(p)
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("moves", help="legal moves after some turns (for scripts)",
                       description="Print the legal moves, one per line, after playing the "
                                   "given turns from the start.")
    p.add_argument("rules", type=rules_arg, metavar="RULES", help=RULES_HELP)
    # default=[]: without it argparse counts a '*' positional as required and names it
    # (wrongly) when RULES is missing
    p.add_argument("turns", nargs="*", default=[], metavar="TURN",
                   help="turns or single decisions, e.g. c3 d4 or 1-6 5 (optional)")
    p.set_defaults(func=cmd_moves)


def rules_json(rules: RuleSet | None = None) -> dict[str, Any]:
    """What ``nugar rules [RULES] --json`` prints: every preset with its options, or one rule
    set with each option's value beside the preset's default."""
    if rules is None:
        return {"presets": [preset_json(preset) for preset in PRESETS.values()]}
    return rule_set_json(rules)


@command("rules")
def cmd_rules(args: argparse.Namespace) -> int:
    args.rules = checked_rules(args, "nugar rules")
    if args.json:
        print(json.dumps(rules_json(args.rules), indent=2))
        return EXIT_OK
    out = console()
    if not out.is_terminal:  # a file or a pipe: whole columns, not cut to 80
        out.width = _PLAIN_WIDTH
    # the words are the reader's, a source's words too (its title and link as published);
    # names, option values and rule-set texts stay as they are written (they are data, typed
    # the same in every language)
    lang = language(args)
    _ = gettext_for(lang, "cli")
    if args.rules is None:
        table = Table(title=_("Presets (see 'nugar rules NAME' for all options)"))
        for column in (_("preset"), _("game"), _("family"),
                       _("differences from the family defaults"), _("source")):
            table.add_column(column)
        for preset in PRESETS.values():
            diff = ", ".join(f"{k}={format_value(v)}" for k, v in preset.overrides.items())
            table.add_row(preset.name, preset.game, _(preset.family), diff or "-",
                          _(preset.source))
        out.print(table)
        out.print(_("Override options in parentheses, e.g. 'dala(quiet_limit=off)' or "
                    "'kalah(pits=4,seeds=3)'."), markup=False)
        return EXIT_OK
    rules: RuleSet = args.rules
    table = Table(title=_("{rules}: {description} (source: {source})").format(
        rules=rules.text, description=_(rules.preset.description),
        source=_(rules.preset.source)))
    for column in (_("option"), _("value"), _("preset default"), _("allowed"), _("meaning")):
        table.add_column(column)
    for f in option_fields(type(rules.options)):
        value = format_value(getattr(rules.options, f.name))
        default = format_value(getattr(rules.preset.options, f.name))
        doc = f.metadata.get("doc", "")
        table.add_row(f.name, value, default, say(describe_values(f), lang),
                      _(doc) if doc else "")
    out.print(table)
    return EXIT_OK


@command("moves")
def cmd_moves(args: argparse.Namespace) -> int:
    game = new_game(args.rules)
    play_turns(game, turn_texts(args.turns))
    for move in game.legal_moves():
        print(move)
    if game.is_over:
        print(f"game over: {game.outcome}{misere_note(game)}", file=sys.stderr)
    return EXIT_OK
