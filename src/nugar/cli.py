"""The ``nugar`` command line: play, replay, rules, moves and the engine protocol.

Other parts of the package add their own subcommands (``match``, ``serve``, ...): each module
named in :data:`_EXTENSIONS` exposes ``register(subparsers)``, which adds its parser with
``set_defaults(func=handler)``; ``handler(args)`` returns the exit code. Exit codes: 0 done,
1 a record or move that is not legal, 2 bad usage (unknown rules, unreadable move, missing
file). Errors caused by input are printed as one line on stderr, never as a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import Field, dataclass
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from . import __version__, record
from .ai.agents import DEFAULT_LEVEL, LEVELS
from .errors import IllegalMoveError, InvalidMoveError, NugarError, RulesError
from .rules import PRESETS, RuleSet, new_game, parse_rules
from .rules.options import Options, describe_values, format_value, option_fields
from .textboard import player_name, render

if TYPE_CHECKING:
    from .ai import Agent, Limits

_EXTENSIONS = ("nugar.ai.cli", "nugar.server.cli", "nugar.solver.cli")

EXIT_OK, EXIT_ILLEGAL, EXIT_USAGE = 0, 1, 2
EXIT_INTERNAL = 70  # sysexits' EX_SOFTWARE: an error inside nugar


class CliError(Exception):
    """An error to print as one line on stderr, with the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def _console() -> Console:
    """A console on the current stdout (looked up at call time, so tests can capture it)."""
    return Console(file=sys.stdout, highlight=False, soft_wrap=False)


# --- argument types ------------------------------------------------------------------------


def rules_arg(text: str) -> RuleSet:
    """argparse type: a rule-set text such as ``dara`` or ``kalah(pits=4,seeds=3)``."""
    try:
        return parse_rules(text)
    except RulesError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


@dataclass(frozen=True)
class PlayerSpec:
    """Who plays a side: a person at the keyboard (``agent is None``) or an agent spec."""

    agent: str | None

    @property
    def label(self) -> str:
        return "human" if self.agent is None else f"nugar {self.agent}"


def player_arg(text: str) -> PlayerSpec:
    """argparse type: ``human``, ``ai`` (``DEFAULT_LEVEL``), ``ai:N`` (level N) or
    ``ai:SPEC``."""
    t = text.strip().lower()
    if t == "human":
        return PlayerSpec(None)
    if t == "ai":
        return PlayerSpec(f"level:{DEFAULT_LEVEL}")
    if t.startswith("ai:"):
        rest = t[3:]
        spec = f"level:{rest}" if re.fullmatch(r"\d+", rest) else rest
        try:
            from .ai import make_agent

            make_agent(spec)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
        return PlayerSpec(spec)
    raise argparse.ArgumentTypeError(
        f"{text!r} is not a player; allowed: human, ai, ai:LEVEL ({min(LEVELS)}.."
        f"{max(LEVELS)}) or ai:AGENT "
        "(e.g. ai:random, ai:greedy, ai:alphabeta:depth=4)")


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds")
    return value


# --- play ----------------------------------------------------------------------------------

PLAY_HELP = """\
Type a move or a whole turn (c3, c3-c4, c3-c4xe5, xe5, pass; 4, 1-6), or a command:
  moves          list the legal moves
  hint           ask the computer for a move (not played)
  undo           take back your last turn (and the computer's reply)
  board          show the board again
  save [FILE]    write the game record now
  resign         give up the game
  quit           stop without finishing (the record is still written)
  help           this text"""


class _Input:
    """Lines typed by the player, from a terminal or from plain stdin."""

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


class _PlaySession:
    def __init__(self, args: argparse.Namespace, console: Console) -> None:
        self.args = args
        self.console = console
        self.game = new_game(args.rules)
        self.players: dict[int, PlayerSpec] = {1: args.first, 2: args.second}
        self.agents: dict[int, Agent] = {}
        self.input = _Input(console)
        self.limits = _limits(args.movetime)
        from .ai import make_agent

        for side, spec in self.players.items():
            if spec.agent is not None:
                self.agents[side] = make_agent(spec.agent)
        self.hint_spec: str = args.hint

    def tags(self) -> dict[str, str]:
        return {"First": self.players[1].label, "Second": self.players[2].label}

    def wait_for_engine(self, specs: list[str]) -> None:
        """Before a computer move or a hint: wait until the compiled code it needs is ready
        (at once when it is cached), showing the compiling progress of a first run."""
        from . import warmup

        steps = warmup.steps_for(self.game.rules, specs)
        engine = warmup.WARMUP
        engine.add(steps)
        if engine.ready(steps):
            return
        shown: list[str] = []
        status: Any = None

        def show(progress: warmup.Progress) -> None:
            text = progress.message()
            if not progress.compiling or progress.finished or (shown and shown[-1] == text):
                return
            shown.append(text)
            if status is not None:
                status.update(text)
            else:
                self.console.print(text, markup=False, soft_wrap=True)

        if self.console.is_terminal:
            with self.console.status("Preparing the engine...") as status:
                engine.wait(show, steps=steps)
        else:
            engine.wait(show, steps=steps)
        if shown:
            self.console.print("The engine is ready.", markup=False)

    def show(self) -> None:
        self.console.print()
        self.console.print(render(self.game))

    def run(self) -> int:
        self.console.print(f"nugar: {self.game.rules.game} ({self.game.rules.text}). "
                           "Type 'help' for commands.", markup=False)
        self.show()
        while not self.game.is_over:
            mover = self.game.to_move
            agent = self.agents.get(mover)
            if agent is not None:
                self.agent_turn(mover, agent)
                continue
            if not self.human_decision(mover):
                break
        return self.finish()

    def agent_turn(self, mover: int, agent: Agent) -> None:
        agent_spec = self.players[mover].agent
        self.wait_for_engine([] if agent_spec is None else [agent_spec])
        start = len(self.game.turn_list())
        while not self.game.is_over and self.game.to_move == mover:
            move = agent.choose(self.game.copy(), self.limits)
            self.game.play(move)
        played = self.game.turns()[start:]
        self.console.print(f"\n{self.players[mover].label} plays {' '.join(played)}",
                           markup=False)
        self.show()

    def human_decision(self, mover: int) -> bool:
        """Read and act on one line of the player to move; ``False`` to stop the game."""
        line = self.input.ask(f"{player_name(self.game, mover)} > ")
        if line is None:
            self.console.print("End of input: the game stops unfinished.")
            return False
        if not line:
            return True
        word, _, rest = line.partition(" ")
        command = word.lower()
        if command in ("help", "?"):
            self.console.print(PLAY_HELP, markup=False)
        elif command == "moves":
            self.console.print("Legal: " + " ".join(str(m) for m in self.game.legal_moves()),
                               markup=False)
        elif command == "board":
            self.show()
        elif command == "undo":
            self.undo()
        elif command == "hint":
            self.hint()
        elif command == "save":
            self.save(rest.strip() or None)
        elif command == "resign":
            self.game.resign(mover)
            self.console.print(f"{player_name(self.game, mover)} resigns.", markup=False)
        elif command in ("quit", "exit"):
            self.console.print("The game stops unfinished.")
            return False
        else:
            self.human_move(mover, line)
        return True

    def human_move(self, mover: int, text: str) -> None:
        try:
            self.game.play(text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            self.console.print(f"Not played: {exc}", markup=False)
            self.console.print("Type 'moves' for the legal moves, 'help' for commands.")
            return
        if not self.game.is_over and self.game.to_move == mover:
            legal = " ".join(str(m) for m in self.game.legal_moves())
            self.show()
            self.console.print(f"Your turn goes on; legal: {legal}", markup=False)
            return
        self.show()

    def undo(self) -> None:
        if not self.game.move_stack:
            self.console.print("Nothing to undo.")
            return
        self.game.undo_turn()
        # take back the computer's replies too, so that a person is to move again
        while self.game.move_stack and self.game.to_move in self.agents:
            self.game.undo_turn()
        self.show()

    def hint(self) -> None:
        from .ai import make_agent

        self.wait_for_engine([self.hint_spec])
        analysis = make_agent(self.hint_spec).analyse(self.game.copy(), self.limits)
        score = "" if analysis.score is None else f" (score {analysis.score:g})"
        self.console.print(f"Hint ({self.hint_spec}): {analysis.move}{score}", markup=False)

    def save(self, path: str | None) -> bool:
        """Write the record to ``path`` (or the ``--save`` file); whether it was written."""
        target = path or self.args.save
        if target is None:
            self.console.print("Give a file name: save FILE (or start with --save FILE).")
            return False
        try:
            record.write_file(target, record.dumps(self.game, self.tags()))
        except OSError as exc:
            self.console.print(f"Could not save to {target}: {exc.strerror or exc}",
                               markup=False)
            return False
        self.console.print(f"Saved to {target}.", markup=False)
        return True

    def finish(self) -> int:
        """Announce the result and write the record; exit 1 if the record could not be saved
        (it is then printed, so that the game is not lost)."""
        outcome = self.game.outcome
        if outcome is not None:
            self.console.print(f"\nResult: {outcome.result} ({outcome.reason}), score "
                               f"{record.score_text(self.game)}", markup=False)
        if self.args.save and self.save(None):
            return EXIT_OK
        text = record.dumps(self.game, self.tags())
        self.console.print("\nGame record:\n" + text, markup=False)
        return EXIT_ILLEGAL if self.args.save else EXIT_OK


def _limits(seconds: float | None) -> Limits:
    from .ai import Limits

    return Limits(time=seconds)


def cmd_play(args: argparse.Namespace) -> int:
    from . import warmup

    # compiling (on a first run) starts now, in the background, before the first position
    specs = [p.agent for p in (args.first, args.second) if p.agent is not None]
    warmup.WARMUP.add(warmup.steps_for(args.rules, specs))
    return _PlaySession(args, _console()).run()


# --- replay --------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    console = _console()
    source = "stdin" if args.file == "-" else args.file
    if args.file == "-":
        if args.step:
            raise CliError("--step reads Enter from stdin, so the record must come from a file")
        parsed = record.parse(sys.stdin.read(), args.rules, source=source)
    else:
        if not os.path.isfile(args.file):
            raise CliError(f"no such record file: {args.file}")
        parsed = record.parse_file(args.file, args.rules)
    for skipped in parsed.skipped:  # the words around moves copied from a web page
        print(f"nugar replay: note: {skipped.note(source)}", file=sys.stderr)
    records = parsed.records
    if not records:
        raise CliError(f"{source}: no game found in the record", EXIT_ILLEGAL)
    reader = _Input(console) if args.step else None
    for n, rec in enumerate(records, 1):
        if len(records) > 1:
            console.rule(f"Game {n} of {len(records)}")
        tags = Table(show_header=False, box=None)
        for key, value in rec.tags.items():
            tags.add_row(key, value)
        console.print(tags)
        if reader is not None:
            _step_through(console, reader, rec)
        else:
            console.print(record.movetext(rec.turns, rec.result), markup=False)
            console.print(render(rec.game))
        result = rec.result or "*"
        reason = rec.game.outcome.reason if rec.game.outcome else (
            "unfinished" if rec.result is None else "stated by the record")
        console.print(f"Result: {result} ({reason})", markup=False)
        what = rec.game.descriptor.score_label
        console.print(f"Score: {record.score_text(rec.game)} ({what})", markup=False)
    return EXIT_OK


def _step_through(console: Console, reader: _Input, rec: record.Record) -> None:
    game = new_game(rec.rules)
    console.print(render(game))
    for i, turn in enumerate(rec.turns):
        line = reader.ask("[Enter: next turn, q: skip to the end] ")
        if line is None or line.lower() == "q":
            game = rec.game
            console.print(render(game))
            return
        game.play(turn)
        console.print(f"\n{i // 2 + 1}{'.' if i % 2 == 0 else '...'} {turn}", markup=False)
        console.print(render(game))


# --- rules ---------------------------------------------------------------------------------


#: the width of ``nugar rules`` written to a file or a pipe: enough for every column whole
_PLAIN_WIDTH = 10_000


def _option_json(f: Field[Any], options: Options | None,
                 preset_options: Options) -> dict[str, Any]:
    """One option as JSON: values as rule-set texts write them (``on``, ``off``, ``6``)."""
    meta = f.metadata
    out: dict[str, Any] = {"name": f.name, "kind": meta["kind"]}
    if options is not None:
        out["value"] = format_value(getattr(options, f.name))
    out["default"] = format_value(getattr(preset_options, f.name))
    out["allowed"] = describe_values(f)
    if meta["kind"] == "choice":
        out["values"] = list(meta["values"])
    elif meta["kind"] == "int":
        out.update(min=meta["lo"], max=meta["hi"], off_allowed=meta["off_ok"])
    out["meaning"] = meta.get("doc", "")
    return out


def rules_json(rules: RuleSet | None = None) -> dict[str, Any]:
    """What ``nugar rules [RULES] --json`` prints: every preset with its options, or one rule
    set with each option's value beside the preset's default."""
    if rules is None:
        return {"presets": [
            {"name": preset.name, "game": preset.game, "family": preset.family,
             "description": preset.description, "source": preset.source,
             "overrides": {k: format_value(v) for k, v in preset.overrides.items()},
             "options": [_option_json(f, None, preset.options)
                         for f in option_fields(type(preset.options))]}
            for preset in PRESETS.values()]}
    preset = rules.preset
    return {"rules": rules.text, "preset": preset.name, "game": rules.game,
            "family": rules.family, "description": preset.description,
            "source": preset.source,
            "options": [_option_json(f, rules.options, preset.options)
                        for f in option_fields(type(rules.options))]}


def cmd_rules(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps(rules_json(args.rules), indent=2))
        return EXIT_OK
    console = _console()
    if not console.is_terminal:  # a file or a pipe: whole columns, not cut to 80
        console.width = _PLAIN_WIDTH
    if args.rules is None:
        table = Table(title="Presets (see 'nugar rules NAME' for all options)")
        for column in ("preset", "game", "family", "differences from the family defaults",
                       "source"):
            table.add_column(column)
        for preset in PRESETS.values():
            diff = ", ".join(f"{k}={format_value(v)}" for k, v in preset.overrides.items())
            table.add_row(preset.name, preset.game, preset.family, diff or "-", preset.source)
        console.print(table)
        console.print("Override options in parentheses, e.g. 'dala(quiet_limit=off)' or "
                      "'kalah(pits=4,seeds=3)'.", markup=False)
        return EXIT_OK
    rules: RuleSet = args.rules
    table = Table(title=f"{rules.text}: {rules.preset.description} "
                        f"(source: {rules.preset.source})")
    for column in ("option", "value", "preset default", "allowed", "meaning"):
        table.add_column(column)
    for f in option_fields(type(rules.options)):
        value = format_value(getattr(rules.options, f.name))
        default = format_value(getattr(rules.preset.options, f.name))
        table.add_row(f.name, value, default, describe_values(f), f.metadata.get("doc", ""))
    console.print(table)
    return EXIT_OK


# --- moves ---------------------------------------------------------------------------------


def cmd_moves(args: argparse.Namespace) -> int:
    game = new_game(args.rules)
    texts = [t for arg in args.turns for t in arg.split() if not re.fullmatch(r"\d+\.+", t)]
    for i, text in enumerate(texts, 1):
        try:
            game.play(text)
        except InvalidMoveError as exc:
            raise CliError(f"turn {i} {text!r}: {exc}") from None
        except IllegalMoveError as exc:
            raise CliError(f"turn {i} {text!r}: {exc}", EXIT_ILLEGAL) from None
    for move in game.legal_moves():
        print(move)
    if game.is_over:
        print(f"game over: {game.outcome}", file=sys.stderr)
    return EXIT_OK


# --- engine --------------------------------------------------------------------------------


def cmd_engine(args: argparse.Namespace) -> int:
    from .engine import run

    return run(sys.stdin, sys.stdout, args.rules)


# --- the program ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nugar",
        description="Dara, Dala, Kalah and Dracala: play, check records, list rules, and "
                    "talk to programs.")
    parser.add_argument("--version", action="version", version=f"nugar {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    rules_help = "rule set: a preset (" + ", ".join(PRESETS) + ") with optional overrides, " \
                 "e.g. 'dala(quiet_limit=off)'"
    p = sub.add_parser("play", help="play a game in the terminal",
                       description="Play in the terminal against a person or the computer. "
                                   "Type 'help' during the game for the commands.")
    p.add_argument("rules", type=rules_arg, metavar="RULES", help=rules_help)
    p.add_argument("--first", type=player_arg, default=PlayerSpec(None),
                   metavar="human|ai[:LEVEL]", help="who plays first (default: human)")
    p.add_argument("--second", type=player_arg, default=PlayerSpec(f"level:{DEFAULT_LEVEL}"),
                   metavar="human|ai[:LEVEL]",
                   help=f"who plays second (default: ai, level {DEFAULT_LEVEL})")
    p.add_argument("--save", metavar="FILE", help="write the game record to FILE")
    p.add_argument("--movetime", type=positive_float, metavar="SECONDS",
                   help="time the computer may take per decision")
    p.add_argument("--hint", default=f"level:{DEFAULT_LEVEL}", metavar="AGENT",
                   help=f"agent that answers 'hint' (default: level:{DEFAULT_LEVEL})")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="check a game record and show it turn by turn",
                       description="Replay every game of a record file, checking each turn; "
                                   "exit 1 with the line and column of any problem.")
    p.add_argument("file", metavar="FILE", help="record file ('-' reads stdin)")
    p.add_argument("--step", action="store_true", help="show the board after each turn, "
                                                       "waiting for Enter")
    p.add_argument("--rules", type=rules_arg, metavar="RULES",
                   help="rules for games without a [Rules] or [Game] tag")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("rules", help="list the presets, or the options of one rule set",
                       description="Without RULES: the presets and their sources. With RULES: "
                                   "every option, its value, default and allowed values.")
    p.add_argument("rules", nargs="?", type=rules_arg, metavar="RULES", help=rules_help)
    p.add_argument("--json", action="store_true",
                   help="print the same as JSON: presets, or options with value, default, "
                        "allowed values, limits and meaning")
    p.set_defaults(func=cmd_rules)

    p = sub.add_parser("moves", help="legal moves after some turns (for scripts)",
                       description="Print the legal moves, one per line, after playing the "
                                   "given turns from the start.")
    p.add_argument("rules", type=rules_arg, metavar="RULES", help=rules_help)
    # default=[]: without it argparse counts a '*' positional as required and names it
    # (wrongly) when RULES is missing
    p.add_argument("turns", nargs="*", default=[], metavar="TURN",
                   help="turns or single decisions, e.g. c3 d4 or 1-6 5 (optional)")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("engine", help="the engine protocol on stdin/stdout",
                       description="Answer protocol commands on stdin (see "
                                   "docs/engine-protocol.md).")
    p.add_argument("--rules", type=rules_arg, default=parse_rules("dara"), metavar="RULES",
                   help="rules of the first game (default: dara)")
    p.set_defaults(func=cmd_engine)

    for name in _EXTENSIONS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue  # that part is not installed (yet)
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
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    prog = f"nugar {args.command}"
    try:
        code = func(args)
    except CliError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return exc.code
    except record.RecordError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_ILLEGAL
    except IllegalMoveError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_ILLEGAL
    except (RulesError, InvalidMoveError, NugarError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # the reader of our output has gone: see main
        raise
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{prog}: cannot use{where}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: say so in one line, not a traceback
        if os.environ.get("NUGAR_DEBUG"):
            raise
        print(f"{prog}: internal error ({type(exc).__name__}: {exc}). This is a bug in "
              f"nugar; please report it with the command you ran (NUGAR_DEBUG=1 shows the "
              f"traceback).", file=sys.stderr)
        return EXIT_INTERNAL
    return int(code)


if __name__ == "__main__":
    raise SystemExit(main())
