"""The text protocol of ``nugar engine``: line commands on stdin/stdout for other programs.

GUIs, referees running matches and other engines drive nugar with it.

Modelled on GTP (the Go Text Protocol): one command per line, optionally preceded by a
numeric id; a success reply is ``=`` (plus the id), a space and the payload, an error reply
is ``?`` (plus the id), a space and the reason; every reply ends with an empty line. An error
never ends the session. ``docs/engine-protocol.md`` is the reference.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TextIO

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
        self.commands: dict[str, Callable[[list[str]], str]] = {
            "protocol_version": lambda a: self._no_args("protocol_version", a, PROTOCOL_VERSION),
            "name": lambda a: self._no_args("name", a, "nugar"),
            "version": lambda a: self._no_args("version", a, __version__),
            "known_command": self.cmd_known_command,
            "list_commands": lambda a: self._no_args("list_commands", a,
                                                     "\n".join(self.commands)),
            "rules": self.cmd_rules,
            "newgame": self.cmd_newgame,
            "play": self.cmd_play,
            "undo": self.cmd_undo,
            "legal": lambda a: self._no_args("legal", a, " ".join(
                str(m) for m in self.game.legal_moves())),
            "turns": lambda a: self._no_args("turns", a, " ".join(self.game.turns())),
            "moves": lambda a: self._no_args("moves", a, " ".join(
                str(m) for m in self.game.move_stack)),
            "board": lambda a: self._no_args("board", a, plain_board(self.game)),
            "tomove": lambda a: self._no_args("tomove", a, "-" if self.game.is_over
                                              else str(self.game.to_move)),
            "result": lambda a: self._no_args("result", a, self.game.result or "*"),
            "status": self.cmd_status,
            "score": lambda a: self._no_args("score", a, "{} {}".format(*self.game.score)),
            "go": self.cmd_go,
            "agent": self.cmd_agent,
            "resign": self.cmd_resign,
            "json": lambda a: self._no_args("json", a, _one_line_json(self.game)),
            "quit": self.cmd_quit,
        }

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
        command = self.commands.get(name.lower())
        try:
            if command is None:
                raise CommandError(f"unknown command {name!r}; known commands: "
                                   + " ".join(self.commands))
            payload = command(args)
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

    # --- commands ------------------------------------------------------------------------
    @staticmethod
    def _no_args(name: str, args: list[str], payload: str) -> str:
        if args:
            raise CommandError(f"{name} takes no arguments, got {' '.join(args)!r}")
        return payload

    def cmd_known_command(self, args: list[str]) -> str:
        if len(args) != 1:
            raise CommandError("known_command needs one command name, e.g. 'known_command go'")
        return "true" if args[0].lower() in self.commands else "false"

    def cmd_rules(self, args: list[str]) -> str:
        if not args:
            return self.rules.text
        rules = parse_rules("".join(args))
        self.rules = rules
        self._prepare(self.agent_spec)
        self.game = new_game(rules)
        return rules.text

    def cmd_newgame(self, args: list[str]) -> str:
        self._no_args("newgame", args, "")
        self.game = new_game(self.rules)
        return ""

    def cmd_play(self, args: list[str]) -> str:
        if not args:
            raise CommandError("play needs a move or a whole turn, e.g. 'play c3', "
                               "'play c3-c4xe5' or 'play 1-6'")
        self.game.play("".join(args))
        return ""

    def cmd_undo(self, args: list[str]) -> str:
        if args not in ([], ["turn"]):
            raise CommandError(f"undo takes nothing (one decision) or 'turn' (the whole last "
                               f"turn), not {' '.join(args)!r}")
        if args:
            return " ".join(str(m) for m in self.game.undo_turn())
        move = self.game.undo()
        return "" if move is None else str(move)

    def cmd_status(self, args: list[str]) -> str:
        self._no_args("status", args, "")
        outcome = self.game.outcome
        if outcome is None:
            return f"running {self.game.to_move}"
        return f"over {outcome.result} {outcome.reason}"

    def cmd_agent(self, args: list[str]) -> str:
        if len(args) > 1:
            raise CommandError("agent takes one spec, e.g. 'agent level:5' or 'agent random'")
        if not args:
            return self.agent_spec
        from .ai import make_agent

        make_agent(args[0])  # checks the spec now rather than at the next go
        self.agent_spec = args[0]
        self._prepare(self.agent_spec)
        return self.agent_spec

    def cmd_resign(self, args: list[str]) -> str:
        self._no_args("resign", args, "")
        self.game.resign()
        return self.game.result or "*"

    def cmd_go(self, args: list[str]) -> str:
        from .ai import make_agent

        spec, limits = parse_go(args, self.agent_spec)
        if self.game.is_over:
            raise CommandError(f"the game is over ({self.game.outcome}); nothing to choose")
        agent = make_agent(spec)
        return str(self._choose(agent, spec, limits))

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
        before = interpreted_calls()
        move = agent.choose(self.game.copy(), limits)
        if interpreted_calls() != before and self.log is not None:
            print("nugar engine: still compiling (first run only): for this move the "
                  "kernels not compiled yet ran interpreted, so a search saw fewer positions "
                  "than usual", file=self.log, flush=True)
        return move

    def cmd_quit(self, args: list[str]) -> str:
        self._no_args("quit", args, "")
        self.finished = True
        return ""


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
