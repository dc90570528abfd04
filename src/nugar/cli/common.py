"""What every sub-command of ``nugar`` shares: exit codes, errors, argument types.

Exit codes are the same for every sub-command: :data:`EXIT_OK` (0) done, :data:`EXIT_FAILED`
(1) a record or move that is not legal, or a task that could not be finished (the solver gave
up at its limit, the database cannot be opened), :data:`EXIT_USAGE` (2) bad usage (unknown
rules, unreadable move, missing file), :data:`EXIT_INTERNAL` (70) a bug of nugar's and
:data:`EXIT_INTERRUPTED` (130) Ctrl-C.

There is one error mechanism: a handler raises :class:`CliError` (or lets an error of nugar's
escape), and :func:`command` turns it into one line ``nugar COMMAND: message`` on stderr and
the exit code, never a traceback. Handlers are registered wrapped by :func:`command`, so a
sub-command behaves the same whether ``nugar`` runs it or a test calls ``args.func(args)``.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from .. import i18n
from ..errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from ..record import RecordError
from ..rules import PRESETS, RuleSet, parse_rules

if TYPE_CHECKING:
    from rich.console import Console

    from ..rules import Game

EXIT_OK = 0
EXIT_FAILED = 1
#: a record or move that is not legal (the same code as :data:`EXIT_FAILED`)
EXIT_ILLEGAL = EXIT_FAILED
EXIT_USAGE = 2
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: an error inside nugar
EXIT_INTERRUPTED = 130

Handler = Callable[[argparse.Namespace], int]

RULES_HELP = ("rule set: a preset (" + ", ".join(PRESETS) + ") with optional overrides, "
              "e.g. 'dala(quiet_limit=off)'")


class Parser(argparse.ArgumentParser):
    """argparse's parser with usage errors as one line, ``PROG: message (PROG --help)``,
    like every other error of ``nugar`` (argparse prints its usage block before them); the
    sub-commands' parsers are of the same class (``add_subparsers`` makes them so)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see '{self.prog} --help')\n")


class CliError(Exception):
    """An error to print as one line on stderr, with the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def command(name: str) -> Callable[[Handler], Handler]:
    """Decorator of a sub-command's handler: errors become ``nugar NAME: message`` on stderr
    and an exit code (see the module's text); ``NUGAR_DEBUG=1`` shows a bug's traceback."""

    def wrap(func: Handler) -> Handler:
        @functools.wraps(func)
        def handler(args: argparse.Namespace) -> int:
            return run_handler(f"nugar {name}", func, args)

        return handler

    return wrap


def run_handler(prog: str, func: Handler, args: argparse.Namespace) -> int:
    """Run ``func(args)``; an error is printed as one line starting with ``prog``."""
    try:
        return int(func(args))
    except CliError as exc:
        return _fail(prog, str(exc), exc.code)
    except (RecordError, IllegalMoveError) as exc:
        return _fail(prog, str(exc), EXIT_ILLEGAL)
    except (RulesError, InvalidMoveError, NugarError) as exc:
        return _fail(prog, str(exc), EXIT_USAGE)
    except BrokenPipeError:  # the reader of our output has gone: ``main`` ends quietly
        raise
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        return _fail(prog, f"cannot use{where}: {exc.strerror or exc}", EXIT_USAGE)
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # a bug of ours: say so in one line, not a traceback
        if os.environ.get("NUGAR_DEBUG"):
            raise
        return _fail(prog, f"internal error ({type(exc).__name__}: {exc}). This is a bug in "
                     "nugar; please report it with the command you ran (NUGAR_DEBUG=1 shows "
                     "the traceback).", EXIT_INTERNAL)


def _fail(prog: str, message: str, code: int) -> int:
    print(f"{prog}: {message}", file=sys.stderr)
    return code


def console() -> Console:
    """A console on the current stdout (looked up at call time, so tests can capture it)."""
    from rich.console import Console

    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


class LineInput:
    """Lines typed by a person, from a terminal (with line editing) or from plain stdin (then
    echoed, so that a piped transcript reads like a session)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.echo = not sys.stdin.isatty()

    def ask(self, prompt: str) -> str | None:
        """The next line, stripped; ``None`` at the end of input."""
        if not self.echo:  # a terminal: input() gives line editing
            self.console.file.flush()
            try:
                return input(prompt).strip()
            except EOFError:
                self.console.print()
                return None
        self.console.print(prompt, end="", markup=False)
        self.console.file.flush()
        line = sys.stdin.readline()
        if not line:
            self.console.print()
            return None
        self.console.print(line.rstrip("\n"), markup=False)  # readable piped transcripts
        return line.strip()


# --- argument types ------------------------------------------------------------------------


def rules_arg(text: str) -> RuleSet:
    """argparse type: a rule-set text such as ``dara`` or ``kalah(pits=4,seeds=3)``."""
    try:
        return parse_rules(text)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True)
class UnreadRules:
    """A rule-set text that does not read, kept by :func:`rules_arg_later` so that the
    command refuses it in its own language: argparse reads the rules before ``--lang``."""

    error: RulesError


def rules_arg_later(text: str) -> RuleSet | UnreadRules:
    """argparse type of the commands that speak the reader's language (``play``, ``rules``):
    :func:`rules_arg`, its refusal left to :func:`checked_rules`."""
    try:
        return parse_rules(text)
    except RulesError as exc:
        return UnreadRules(exc)


def checked_rules(args: argparse.Namespace, prog: str) -> RuleSet | None:
    """``args.rules`` read by :func:`rules_arg_later`; a text that did not read is refused
    as argparse refuses an argument (the same line, exit code 2), its reason said in the
    command's language (:func:`language`)."""
    rules: RuleSet | UnreadRules | None = args.rules
    if isinstance(rules, UnreadRules):
        lang = language(args)
        _ = i18n.gettext_for(lang, "cli")
        raise CliError(_("argument RULES: {reason} (see '{command} --help')").format(
            reason=i18n.say(rules.error, lang), command=prog))
    return rules


@dataclass(frozen=True)
class PlayerSpec:
    """Who plays a side: a person at the keyboard (``agent is None``) or an agent spec."""

    agent: str | None

    @property
    def label(self) -> str:
        return "human" if self.agent is None else f"nugar {self.agent}"


def player_arg(text: str) -> PlayerSpec:
    """argparse type: ``human``, ``ai`` (the default level), ``ai:N`` (level N) or
    ``ai:SPEC``."""
    from ..ai.agents import DEFAULT_LEVEL, LEVEL_RANGE_TEXT

    t = text.strip().lower()
    if t == "human":
        return PlayerSpec(None)
    if t == "ai":
        return PlayerSpec(f"level:{DEFAULT_LEVEL}")
    if t.startswith("ai:"):
        rest = t[3:]
        spec = f"level:{rest}" if re.fullmatch(r"\d+", rest) else rest
        try:
            from ..ai import make_agent

            make_agent(spec)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
        return PlayerSpec(spec)
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a player; allowed: human, ai, ai:LEVEL ({LEVEL_RANGE_TEXT}) or "
        "ai:AGENT (e.g. ai:random, ai:greedy, ai:alphabeta:depth=4)")


def connect_ray(address: str) -> None:
    """Join the Ray cluster at ``address`` (``--ray``), a refusal as the command's one-line
    error. Ray is imported only here, and only when a command is given ``--ray``."""
    from ..scale.ray_runner import RayUnavailableError, connect

    try:
        connect(address)
    except (RayUnavailableError, ValueError) as exc:
        raise CliError(str(exc)) from None


def lang_arg(text: str) -> str:
    """argparse type: a language nugar is written in (``fr``, ``ar_SD.UTF-8``, ``en``)."""
    try:
        return i18n.check_language(text)
    except i18n.LanguageError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_lang_option(parser: argparse.ArgumentParser) -> None:
    """``--lang``: the language of the command's texts; by default the terminal's
    (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, as gettext reads them)."""
    parser.add_argument("--lang", type=lang_arg, default=None, metavar="LANG",
                        help=f"language of the texts: {', '.join(i18n.LANGUAGES)} (default: "
                             "from LANGUAGE/LC_ALL/LC_MESSAGES/LANG, else en)")


def language(args: argparse.Namespace) -> str:
    """The language a command speaks: ``--lang``, else the terminal's."""
    chosen: str | None = getattr(args, "lang", None)
    return chosen if chosen is not None else i18n.from_environment()


def positive_float(text: str) -> float:
    """argparse type: a number of seconds above 0 (and finite)."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


def positive_int(text: str) -> int:
    """argparse type: a whole number >= 1."""
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {value}")
    return value


def count(text: str) -> int:
    """argparse type: a whole number >= 0."""
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {value}")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


# --- turns given on the command line -------------------------------------------------------


def turn_texts(args: Iterable[str]) -> list[str]:
    """The turns of TURN arguments: each may hold several separated by spaces (``"c3 d4"``);
    move numbers such as ``1.`` or ``2...`` (copied from a record) are left out."""
    return [t for arg in args for t in arg.split() if not re.fullmatch(r"\d+\.+", t)]


def play_turns(game: Game, texts: Iterable[str]) -> None:
    """Play the turns on ``game``; the first that fails raises :class:`CliError` naming it:
    exit 1 for a turn that is not legal, 2 for one that cannot be read."""
    for i, text in enumerate(texts, 1):
        try:
            game.play(text)
        except IllegalMoveError as exc:
            raise CliError(f"turn {i} {text!r}: {exc}", EXIT_ILLEGAL) from None
        except InvalidMoveError as exc:
            raise CliError(f"turn {i} {text!r}: {exc}") from None


def misere_note(game: Game) -> str:
    """What to add to a result line where the bigger store lost (a misère rule set such as
    Dracala's, ended by its rules), so nobody reads the score the Kalah way; else ``""``."""
    outcome = game.outcome
    if outcome is None or outcome.winner is None or not game.rules.misere \
            or not outcome.termination.by_rules:
        return ""
    return ": the smaller store wins (misère)"
