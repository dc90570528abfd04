"""``nugar engine``: the text protocol (:mod:`nugar.protocol`) on stdin and stdout."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..rules import parse_rules
from .common import command, rules_arg


def register(sub: Any) -> None:
    """Add ``engine`` to the ``nugar`` command line."""
    p = sub.add_parser("engine", help="the engine protocol on stdin/stdout",
                       description="Answer protocol commands on stdin (see "
                                   "docs/engine-protocol.md).")
    p.add_argument("--rules", type=rules_arg, default=parse_rules("dara"), metavar="RULES",
                   help="rules of the first game (default: dara)")
    p.set_defaults(func=cmd_engine)


@command("engine")
def cmd_engine(args: argparse.Namespace) -> int:
    from ..protocol import run

    return run(sys.stdin, sys.stdout, args.rules)
