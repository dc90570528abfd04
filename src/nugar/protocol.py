"""The text protocol of ``nugar engine``: line commands on stdin/stdout for other programs.

GUIs, referees running matches and other engines drive nugar with it.

Modelled on GTP (the Go Text Protocol): one command per line, optionally preceded by a
numeric id; a success reply is ``=`` (plus the id), a space and the payload, an error reply
is ``?`` (plus the id), a space and the reason; every reply ends with an empty line. An error
never ends the session. ``docs/engine-protocol.md`` is the reference.
"""

from __future__ import annotations

import inspect
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO, TypeVar

from . import __version__
from .ai.agents import LEVEL_RANGE, LEVEL_RANGE_TEXT, TOP_LEVEL
from .errors import NugarError
from .record import to_json
from .rules import Game, RuleSet, new_game, parse_rules
from .textboard import render

if TYPE_CHECKING:
    from .ai import Agent, Limits
    from .rules.base import Move
    from .warmup import Warmup

PROTOCOL_VERSION = "1"
#: a program driving the engine (a GUI, a referee) gets full strength unless it asks for less
DEFAULT_AGENT = f"level:{TOP_LEVEL}"


class CommandError(Exception):
    """A command that cannot be carried out; its message is the ``?`` reply's reason."""


def plain_board(game: Game) -> str:
    """The terminal diagram of a game as plain text, without colour or blank lines."""
    from rich.console import Console

    sink = io.StringIO()
    Console(file=sink, width=100, color_system=None, highlight=False).print(render(game))
    return "\n".join(line.rstrip() for line in sink.getvalue().splitlines() if line.strip())


#: a method answering a command: ``(session)`` for a command without arguments, else
#: ``(session, args)``; returns the reply's payload
Handler = TypeVar("Handler", bound=Callable[..., str])


@dataclass(frozen=True)
class Command:
    """One command of the protocol, as :func:`command` registers it: its name, its usage line
    (``undo [turn]``: placeholders in capitals, optional parts in brackets, ``...`` for the
    rest of the line), what it answers (``help``), how many arguments it takes (``least`` to
    ``most``, ``None``: no upper bound), the words its arguments must be (``words``, where they
    are fixed), what a wrong call is told before the usage (``hint``), and its method."""

    name: str
    usage: str
    summary: str
    least: int
    most: int | None
    words: tuple[str, ...]
    hint: str
    method: Callable[..., str]

    def check(self, args: list[str]) -> None:
        """Raise ``CommandError`` unless ``args`` fit the command."""
        if self.most == 0:
            if args:
                raise CommandError(f"{self.name} takes no arguments, got {' '.join(args)!r}")
            return
        count_ok = self.least <= len(args) and (self.most is None or len(args) <= self.most)
        words_ok = not self.words or all(a in self.words for a in args)
        if count_ok and words_ok:
            return
        given = f", not {' '.join(args)!r}" if args else ""
        raise CommandError(f"{self.hint or self._count_text()}{given} (usage: {self.usage})")

    def _count_text(self) -> str:
        """What the command takes, in words, e.g. ``help takes at most 1 argument``."""
        def arguments(n: int) -> str:
            return f"{n} argument" + ("s" if n != 1 else "")

        if self.most is None:
            return f"{self.name} needs at least {arguments(self.least)}"
        if self.least == self.most:
            return f"{self.name} takes {arguments(self.least)}"
        if self.least == 0:
            return f"{self.name} takes at most {arguments(self.most)}"
        return f"{self.name} takes {self.least} to {arguments(self.most)}"

    def answer(self, session: EngineSession, args: list[str]) -> str:
        """The payload of the reply to the command with ``args``, checked first."""
        self.check(args)
        return self.method(session) if self.most == 0 else self.method(session, args)

    @property
    def help_line(self) -> str:
        return f"{self.usage}: {self.summary}"


#: every command by name, in the order ``list_commands`` gives them
COMMANDS: dict[str, Command] = {}


def command(usage: str, summary: str, *, least: int = 0, most: int | None = 0,
            words: tuple[str, ...] = (), hint: str = "") -> Callable[[Handler], Handler]:
    """Register the decorated method as the command named by ``usage``'s first word (see
    :class:`Command` for the rest). The method takes the session alone when the command
    takes no arguments (``most=0``, the default), else the session and the arguments."""

    def register(method: Handler) -> Handler:
        name = usage.split()[0]
        if name in COMMANDS:
            raise ValueError(f"the command {name!r} is registered twice")
        takes_args = len(inspect.signature(method).parameters) == 2
        if takes_args != (most != 0):
            raise TypeError(f"the method of {name!r} must take (self{', args' * (most != 0)})")
        COMMANDS[name] = Command(name, usage, summary, least, most, words, hint, method)
        return method

    return register


class EngineSession:
    """The state of one protocol session: the game, the rules and the default agent."""

    def __init__(self, rules: str | RuleSet = "dara", *, warmup: Warmup | None = None,
                 log: TextIO | None = None) -> None:
        self.rules = parse_rules(rules)
        # ``nugar engine`` compiles in the background from the start (first run), with notes
        # on ``log``; queued before the first game, which then need not wait for the compiler
        self.warmup = warmup
        self.log = log
        self._prepare(DEFAULT_AGENT)
        self.game = new_game(self.rules)
        self.agent_spec = DEFAULT_AGENT
        self.finished = False

    # --- the loop ------------------------------------------------------------------------
    def handle(self, line: str) -> str | None:
        """The full reply to one input line (ending with the blank line); ``None`` for a line
        holding no command (empty or a ``#`` comment)."""
        text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", line.replace("\t", " "))
        text = text.split("#", 1)[0].strip()
        if not text:
            return None
        ident = ""
        m = re.match(r"^(\d+)\s*(.*)$", text)
        if m:
            ident, text = m.group(1), m.group(2)
            if not text:
                return f"?{ident} a command is missing after the id {ident}\n\n"
        name, *args = text.split()
        found = COMMANDS.get(name.lower())
        try:
            if found is None:
                raise CommandError(f"unknown command {name!r}; known commands: "
                                   + " ".join(COMMANDS))
            payload = found.answer(self, args)
        except (CommandError, NugarError, ValueError) as exc:
            return f"?{ident} {_one_line(str(exc))}\n\n"
        except Exception as exc:  # a bug must not end a GUI's session
            return f"?{ident} internal error: {type(exc).__name__}: {_one_line(str(exc))}\n\n"
        return f"={ident} {payload}\n\n"

    def run(self, stdin: TextIO, stdout: TextIO) -> int:
        """Answer commands from ``stdin`` until ``quit`` or the end of input."""
        for line in stdin:
            reply = self.handle(line)
            if reply is None:
                continue
            stdout.write(reply)
            stdout.flush()
            if self.finished:
                break
        return 0

    # --- commands, in the order list_commands gives them ---------------------------------
    @command("protocol_version", f"the protocol's version, {PROTOCOL_VERSION}")
    def cmd_protocol_version(self) -> str:
        return PROTOCOL_VERSION

    @command("name", "the engine's name, nugar")
    def cmd_name(self) -> str:
        return "nugar"

    @command("version", "nugar's version")
    def cmd_version(self) -> str:
        return __version__

    @command("known_command NAME", "true if NAME is a command, else false", least=1, most=1,
             hint="known_command needs one command name, e.g. 'known_command go'")
    def cmd_known_command(self, args: list[str]) -> str:
        return "true" if args[0].lower() in COMMANDS else "false"

    @command("list_commands", "the command names, one per line")
    def cmd_list_commands(self) -> str:
        return "\n".join(COMMANDS)

    @command("rules [TEXT...]", "with TEXT, start a new game under those rules and answer "
             "their canonical text; without, the current rules", most=None)
    def cmd_rules(self, args: list[str]) -> str:
        if not args:
            return self.rules.text
        rules = parse_rules("".join(args))
        self.rules = rules
        self._prepare(self.agent_spec)
        self.game = new_game(rules)
        return rules.text

    @command("newgame", "start again under the same rules")
    def cmd_newgame(self) -> str:
        self.game = new_game(self.rules)
        return ""

    @command("play MOVE...", "play one decision or a whole turn", least=1, most=None,
             hint="play needs a move or a whole turn, e.g. 'play c3', 'play c3-c4xe5' or "
                  "'play 1-6'")
    def cmd_play(self, args: list[str]) -> str:
        self.game.play("".join(args))
        return ""

    @command("undo [turn]", "take back the last decision, or with turn the whole last turn",
             most=1, words=("turn",),
             hint="undo takes nothing (one decision) or 'turn' (the whole last turn)")
    def cmd_undo(self, args: list[str]) -> str:
        if args:
            return " ".join(str(m) for m in self.game.undo_turn())
        move = self.game.undo()
        return "" if move is None else str(move)

    @command("legal", "the legal decisions of the player to move, separated by spaces")
    def cmd_legal(self) -> str:
        return " ".join(str(m) for m in self.game.legal_moves())

    @command("turns", "the turns played so far, separated by spaces")
    def cmd_turns(self) -> str:
        return " ".join(self.game.turns())

    @command("moves", "the decisions played so far, separated by spaces")
    def cmd_moves(self) -> str:
        return " ".join(str(m) for m in self.game.move_stack)

    @command("board", "a text diagram of the position")
    def cmd_board(self) -> str:
        return plain_board(self.game)

    @command("tomove", "the player to move, 1 or 2; - when the game is over")
    def cmd_tomove(self) -> str:
        return "-" if self.game.is_over else str(self.game.to_move)

    @command("result", "1-0, 0-1, 1/2-1/2, or * while the game runs")
    def cmd_result(self) -> str:
        return self.game.result or "*"

    @command("status", "running P (P to move) or over RESULT REASON")
    def cmd_status(self) -> str:
        outcome = self.game.outcome
        if outcome is None:
            return f"running {self.game.to_move}"
        return f"over {outcome.result} {outcome.reason}"

    @command("score", "two numbers, the first player's first")
    def cmd_score(self) -> str:
        return "{} {}".format(*self.game.score)

    @command("go [movetime MS] [depth N] [nodes N] [level N] [agent SPEC]",
             "the decision the computer would choose for the player to move, not played "
             f"(level {LEVEL_RANGE_TEXT})", most=None)
    def cmd_go(self, args: list[str]) -> str:
        from .ai import make_agent

        spec, limits = parse_go(args, self.agent_spec)
        if self.game.is_over:
            raise CommandError(f"the game is over ({self.game.outcome}); nothing to choose")
        agent = make_agent(spec)
        return str(self._choose(agent, spec, limits))

    @command("agent [SPEC]", "set (or show) the agent go uses by default", most=1,
             hint="agent takes one spec, e.g. 'agent level:5' or 'agent random'")
    def cmd_agent(self, args: list[str]) -> str:
        if not args:
            return self.agent_spec
        from .ai import make_agent

        make_agent(args[0])  # checks the spec now rather than at the next go
        self.agent_spec = args[0]
        self._prepare(self.agent_spec)
        return self.agent_spec

    @command("resign", "the player to move resigns; answers the result")
    def cmd_resign(self) -> str:
        self.game.resign()
        return self.game.result or "*"

    @command("json", "the game as one line of JSON")
    def cmd_json(self) -> str:
        return _one_line_json(self.game)

    @command("quit", "end the session")
    def cmd_quit(self) -> str:
        self.finished = True
        return ""

    @command("help [COMMAND]", "the usage of every command, one per line, or of COMMAND",
             most=1)
    def cmd_help(self, args: list[str]) -> str:
        if not args:
            return "\n".join(c.help_line for c in COMMANDS.values())
        found = COMMANDS.get(args[0].lower())
        if found is None:
            raise CommandError(f"help: unknown command {args[0]!r}; known commands: "
                               + " ".join(COMMANDS))
        return found.help_line

    # --- compiling (first run) -----------------------------------------------------------
    def _prepare(self, spec: str) -> None:
        """Queue the compiling that playing these rules with ``spec`` needs."""
        if self.warmup is not None:
            from .warmup import steps_for

            self.warmup.add(steps_for(self.rules, [spec]))

    def _choose(self, agent: Agent, spec: str, limits: Limits) -> Move:
        """The agent's move, once the compiled code it needs is loaded. While a first run
        still compiles, a ``go`` with a movetime is searched at once, by the kernels run
        interpreted where not compiled yet (a legal move from the same search, seeing
        fewer positions: said on the log); without a movetime it waits for the compiler."""
        if self.warmup is None:
            return agent.choose(self.game.copy(), limits)
        from .kernels.jit import interpreted_calls
        from .warmup import steps_for

        steps = steps_for(self.rules, [spec])
        self.warmup.add(steps)
        # loading cached code takes a moment, worth waiting for; compiling is not, on a clock
        self.warmup.wait(steps=steps, until_compiling=limits.time is not None)
        # when the move's own steps are done its kernels are compiled: calls counted while
        # it searched were the background warm-up's (other agents' kernels), not this move's
        ready = self.warmup.ready(steps)
        before = interpreted_calls()
        move = agent.choose(self.game.copy(), limits)
        if not ready and interpreted_calls() != before and self.log is not None:
            print("nugar engine: still compiling (first run only): for this move the "
                  "kernels not compiled yet ran interpreted, so a search saw fewer positions "
                  "than usual", file=self.log, flush=True)
        return move


def parse_go(args: list[str], default_spec: str) -> tuple[str, Limits]:
    """The agent spec and limits of ``go [movetime MS] [depth N] [nodes N] [level N]``."""
    from .ai import Limits

    allowed = f"movetime MS, depth N, nodes N, level N ({LEVEL_RANGE_TEXT}), agent SPEC"
    if len(args) % 2:
        raise CommandError(f"go takes name-value pairs ({allowed}); "
                           f"{args[-1]!r} has no value")
    spec = default_spec
    values: dict[str, int] = {}
    for name, raw in zip(args[::2], args[1::2], strict=True):
        key = name.lower()
        if key == "agent":
            spec = raw
            continue
        if key not in ("movetime", "depth", "nodes", "level"):
            raise CommandError(f"go: unknown limit {name!r}; allowed: {allowed}")
        if key in values:
            raise CommandError(f"go: {key} is given twice")
        if not re.fullmatch(r"\d+", raw) or int(raw) < 1:
            raise CommandError(f"go: {key} needs a whole number >= 1, not {raw!r}")
        values[key] = int(raw)
    if "level" in values:
        if values["level"] not in LEVEL_RANGE:
            raise CommandError(f"go: level must be {LEVEL_RANGE_TEXT}, not {values['level']}")
        spec = f"level:{values['level']}"
    movetime = values.get("movetime")
    limits = Limits(time=None if movetime is None else movetime / 1000.0,
                    depth=values.get("depth"), nodes=values.get("nodes"))
    return spec, limits


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _one_line_json(game: Game) -> str:
    import json

    return json.dumps(to_json(game), separators=(",", ":"))


def run(stdin: TextIO, stdout: TextIO, rules: str | RuleSet = "dara",
        log: TextIO | None = None) -> int:
    """Run one session over the given streams (what ``nugar engine`` does). The kernels it
    needs are compiled in a background thread from the start; on a first run (nothing
    cached yet) the progress and notes go to ``log``, stderr by default."""
    from . import warmup

    out = sys.stderr if log is None else log
    unsubscribe = warmup.WARMUP.subscribe(warmup.line_reporter("nugar engine: ", out))
    try:
        return EngineSession(rules, warmup=warmup.WARMUP, log=out).run(stdin, stdout)
    finally:
        unsubscribe()
