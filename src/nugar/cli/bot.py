"""``nugar bot``: play as a bot account on a nugar server (:mod:`nugar.bot`), with a program
speaking the engine protocol or one of nugar's agents."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .common import EXIT_FAILED, EXIT_OK, CliError, command

#: the environment variable read for the token when ``--token`` is not given (a token on a
#: command line is seen by every user of the machine in its process list)
TOKEN_ENV = "NUGAR_BOT_TOKEN"


def register(sub: Any) -> None:
    """Add ``bot`` to the ``nugar`` command line."""
    p = sub.add_parser("bot", help="play as a bot account on a nugar server",
                       description="Connect a bot account to a nugar server: accept the "
                                   "challenges made to it and play its games with an engine "
                                   "program (the protocol of 'nugar engine') or an agent.")
    p.add_argument("--url", default="http://127.0.0.1:8000",
                   help="the server's address (default: http://127.0.0.1:8000)")
    p.add_argument("--token", default=None,
                   help=f"the bot's API token (default: the {TOKEN_ENV} environment variable)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--engine", metavar="CMD", default=None,
                     help="a program speaking nugar engine's protocol, e.g. 'nugar engine'")
    who.add_argument("--agent", metavar="SPEC", default=None,
                     help="one of nugar's agents, in this process (default: level:4)")
    p.add_argument("--go", metavar="ARGS", default="",
                   help="what the engine's go command gets, e.g. 'movetime 1000'")
    p.add_argument("--rules", metavar="GAMES", default=None,
                   help="accept only challenges of these games, comma-separated (e.g. "
                        "'dara,kalah'); others are declined (default: all)")
    p.add_argument("--games", type=int, default=None, metavar="N",
                   help="stop after N games (default: run until stopped)")
    p.set_defaults(func=cmd_bot)


@command("bot")
def cmd_bot(args: argparse.Namespace) -> int:
    from ..bot import Bot, BotError, player_of

    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        raise CliError(f"a bot needs its API token: --token T or {TOKEN_ENV} (make one with "
                       "POST /api/account/tokens, signed in as the bot)")
    if args.games is not None and args.games < 1:
        raise CliError(f"--games is a number of games, at least 1, not {args.games}")
    games = None if not args.rules else {g.strip() for g in args.rules.split(",") if g.strip()}

    def accept(challenge: dict[str, Any]) -> bool:
        return games is None or challenge.get("game") in games

    try:
        player = player_of(args.engine, args.agent, args.go)
    except BotError as exc:
        raise CliError(str(exc)) from None
    bot = Bot(args.url, token, player, accept=accept, games=args.games,
              log=lambda text: print(f"nugar bot: {text}", file=sys.stderr, flush=True))
    try:
        bot.run()
    except BotError as exc:
        raise CliError(str(exc), EXIT_FAILED) from None
    finally:
        player.close()
    return EXIT_OK
