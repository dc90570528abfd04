"""The ``nugar`` program: its parser, the dispatch to a sub-command, and a closed pipe.

Every sub-command lives in a module named in :data:`_EXTENSIONS` that has
``register(subparsers)``: it adds its parser with ``set_defaults(func=handler)``, and
``handler(args)`` returns the exit code (handlers are wrapped by
:func:`~nugar.cli.common.command`, which prints errors as one line; see
:mod:`nugar.cli.common` for the exit codes).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from .. import __version__
from .common import EXIT_OK, EXIT_USAGE, Parser, run_handler

#: the modules that add sub-commands, in the order ``nugar --help`` lists them; a module
#: that is not there is skipped (one that fails to import is an error, not skipped)
_EXTENSIONS = ("nugar.cli.play", "nugar.cli.replay", "nugar.cli.rules", "nugar.cli.engine",
               "nugar.cli.ai", "nugar.cli.selfplay", "nugar.cli.serve", "nugar.cli.solve",
               "nugar.cli.puzzles", "nugar.cli.bot")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="nugar",
        description="Dara, Dala, Kalah and Dracala: play, check records, list rules, and "
                    "talk to programs.")
    parser.add_argument("--version", action="version", version=f"nugar {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that part is not installed
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code.

    A reader that stops early (``nugar moves dara | head -3``) closes the pipe: that is a
    normal end, so the command stops quietly with status 0.
    """
    try:
        code = _run(argv)
        sys.stdout.flush()  # what is still buffered meets a closed pipe here, not at exit
    except BrokenPipeError:
        return _pipe_closed()
    except SystemExit as exc:  # rich's consoles exit by themselves on a closed pipe
        if isinstance(exc.__context__, BrokenPipeError):
            return _pipe_closed()
        raise
    return code


def _pipe_closed() -> int:
    """Point stdout at the null device, so that the interpreter's last flush of what is left
    in the buffer does not fail on the closed pipe again; status 0."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test captures it)
        return EXIT_OK
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
    return EXIT_OK


def _run(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    func = getattr(args, "func", None)
    if func is None:
        commands = ", ".join(_commands(parser))
        print(f"nugar: a command is needed, one of: {commands} (see 'nugar --help')",
              file=sys.stderr)
        return EXIT_USAGE
    # the handlers of nugar's own sub-commands print their errors themselves; this catches
    # what a handler added by another module lets escape, the same way
    return run_handler(f"nugar {args.command}", func, args)


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    """The names of the sub-commands ``parser`` has."""
    return [name for action in parser._actions
            if isinstance(action, argparse._SubParsersAction)
            for name in action.choices]
