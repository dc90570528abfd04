"""``nugar play RULES``: a game in the terminal, against a person or the computer."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from .. import record
from ..ai.agents import DEFAULT_LEVEL
from ..errors import IllegalMoveError, InvalidMoveError
from ..i18n import gettext_for, say, translations
from ..rules import new_game
from ..textboard import player_name, reason_text, render
from .common import (
    EXIT_FAILED,
    EXIT_OK,
    RULES_HELP,
    LineInput,
    PlayerSpec,
    add_lang_option,
    checked_rules,
    command,
    console,
    language,
    misere_note,
    player_arg,
    positive_float,
    rules_arg_later,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..ai import Agent, Limits
    from ..solver.autodb import AutoStatus

def _n(text: str) -> str:
    """Marks ``text`` for the catalog where it is written; it is translated where shown."""
    return text


#: the commands typed during a game (the same English words in every language, as move texts
#: are), each with what it does
PLAY_COMMANDS = (
    ("moves", _n("list the legal moves")),
    ("hint", _n("ask the computer for a move (not played)")),
    ("undo", _n("take back your last turn (and the computer's reply)")),
    ("board", _n("show the board again")),
    ("save [FILE]", _n("write the game record now")),
    ("resign", _n("give up the game")),
    ("quit", _n("stop without finishing (the record is still written)")),
    ("help", _n("this text")),
)

# said where they are shown (a side's label, ``misere_note``'s words), marked here
_n("human")
_n(": the smaller store wins (misère)")


def play_help(lang: str = "en") -> str:
    """The text of ``help`` during a game, in ``lang``."""
    _ = gettext_for(lang, "cli")
    head = _("Type a move or a whole turn (c3, c3-c4, c3-c4xe5, xe5, pass; 4, 1-6), or a "
             "command:")
    return "\n".join([head, *(f"  {word:<14} {_(what)}" for word, what in PLAY_COMMANDS)])


def register(sub: Any) -> None:
    """Add ``play`` to the ``nugar`` command line."""
    p = sub.add_parser("play", help="play a game in the terminal",
                       description="Play in the terminal against a person or the computer. "
                                   "Type 'help' during the game for the commands.")
    p.add_argument("rules", type=rules_arg_later, metavar="RULES", help=RULES_HELP)
    p.add_argument("--first", type=player_arg, metavar="human|ai[:LEVEL]",
                   help="who plays first (default: you)")
    p.add_argument("--second", type=player_arg, metavar="human|ai[:LEVEL]",
                   help=f"who plays second (default: you if --first is given, else the "
                        f"computer at level {DEFAULT_LEVEL})")
    p.add_argument("--save", metavar="FILE", help="write the game record to FILE")
    p.add_argument("--movetime", type=positive_float, metavar="SECONDS",
                   help="time the computer may take per decision")
    p.add_argument("--hint", default=f"level:{DEFAULT_LEVEL}", metavar="AGENT",
                   help=f"agent that answers 'hint' (default: level:{DEFAULT_LEVEL})")
    add_lang_option(p)
    p.set_defaults(func=cmd_play)


@command("play")
def cmd_play(args: argparse.Namespace) -> int:
    from .. import warmup

    args.rules = checked_rules(args, "nugar play")
    args.first, args.second = sides(args.first, args.second)
    # compiling (on a first run) starts now, in the background, before the first position
    specs = [p.agent for p in (args.first, args.second) if p.agent is not None]
    warmup.WARMUP.add(warmup.steps_for(args.rules, specs))
    return PlaySession(args, console()).run()


def reads_databases(specs: list[str]) -> bool:
    """Whether a side plays an agent that reads the Kalah endgame databases: the perfect
    player, or the top level (whatever it plays, it probes them)."""
    from ..ai.agents import TOP_LEVEL
    from ..ai.base import parse_spec

    for spec in specs:
        name, positional, _ = parse_spec(spec)
        if name == "perfect" or (name == "level" and positional == str(TOP_LEVEL)):
            return True
    return False


def sides(first: PlayerSpec | None, second: PlayerSpec | None
          ) -> tuple[PlayerSpec, PlayerSpec]:
    """Who plays each side: with neither named, you open against the computer at the
    default level; otherwise a side not named is a person at the keyboard (``--first ai:8``
    is the computer against you, ``--second human`` two people taking turns)."""
    if first is None and second is None:
        return PlayerSpec(None), PlayerSpec(f"level:{DEFAULT_LEVEL}")
    return first or PlayerSpec(None), second or PlayerSpec(None)


class PlaySession:
    """One game at the terminal: whose turn it is, the agents, and the person's commands."""

    def __init__(self, args: argparse.Namespace, console: Console) -> None:
        from ..ai import make_agent

        self.args = args
        self.console = console
        self.game = new_game(args.rules)
        self.players: dict[int, PlayerSpec] = {1: args.first, 2: args.second}
        self.agents: dict[int, Agent] = {}
        self.input = LineInput(console)
        self.limits = _limits(args.movetime)
        for side, spec in self.players.items():
            if spec.agent is not None:
                self.agents[side] = make_agent(spec.agent)
        self.hint_spec: str = args.hint
        self.lang: str = language(args)
        self._ = gettext_for(self.lang, "cli")
        #: the background build of the endgame databases, as last said (None: none)
        self._databases: AutoStatus | None = None

    def say(self, text: str, **fields: Any) -> None:
        """Print a message of the ``cli`` catalog in the session's language."""
        self.console.print(self._(text).format(**fields), markup=False)

    def say_n(self, singular: str, plural: str, count: int, **fields: Any) -> None:
        """Print a message about ``count`` things in the form the language wants for it."""
        text = translations(self.lang, "cli").ngettext(singular, plural, count)
        self.console.print(text.format(**fields), markup=False)

    def _label(self, side: int) -> str:
        """The label of a side (``human``, ``level:4``): an agent spec stays as written."""
        label = self.players[side].label
        return self._(label) if label == "human" else label

    def tags(self) -> dict[str, str]:
        return {"First": self.players[1].label, "Second": self.players[2].label}

    def wait_for_engine(self, specs: list[str]) -> None:
        """Before a computer move or a hint: wait until the compiled code it needs is ready
        (at once when it is cached), showing the compiling progress of a first run."""
        from .. import warmup

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
            with self.console.status(self._("Preparing the engine...")) as status:
                engine.wait(show, steps=steps)
        else:
            engine.wait(show, steps=steps)
        if shown:
            self.say("The engine is ready.")

    # --- the endgame databases (solver/autodb.py) ---------------------------------------
    def start_databases(self) -> None:
        """In a game against the computer under rules with endgame databases: start
        building the small ones in the background if they are missing, and say so; then,
        if a side reads them, what it has and how to get the larger ones."""
        from ..ai.perfect import database_status
        from ..solver import autodb

        if not self.agents:
            return
        from .. import warmup

        try:
            auto = autodb.start(self.game.rules, after=warmup.WARMUP.wait)
        except ValueError as exc:  # a bad NUGAR_AUTO_DB: said, and the game goes on
            self.say("Endgame databases: {why}", why=str(exc))
            return
        self._databases = auto
        if auto.state in ("building", "waiting"):
            self.say_n("Building the endgame databases to {seeds} seed in the background "
                       "({size} MB on disk, on one core; {env}=0 turns this off). They are "
                       "used as each level is finished.",
                       "Building the endgame databases to {seeds} seeds in the background "
                       "({size} MB on disk, on one core; {env}=0 turns this off). They are "
                       "used as each level is finished.", auto.target, seeds=auto.target,
                       size=f"{auto.bytes / 2**20:.1f}", env=autodb.AUTO_ENV)
        if auto.state == "waiting":
            self.say("Another nugar process is building them now; this game uses what it "
                     "finishes.")
        specs = [p.agent for p in self.players.values() if p.agent is not None]
        status = database_status(self.game.rules) if reads_databases(specs) else None
        if status is None or status["have"] >= status["recommended"]:
            return
        fields = {"have": status["have"], "command": status["command"],
                  "size": status["gigabytes"], "minutes": status["minutes"]}
        if status["have"] >= 0:
            self.say_n("Level 8 and the perfect player have the endgame databases to {have} "
                       "seed; larger ones: {command} ({size} GB, about {minutes} min).",
                       "Level 8 and the perfect player have the endgame databases to {have} "
                       "seeds; larger ones: {command} ({size} GB, about {minutes} min).",
                       status["have"], **fields)
        else:
            self.say("Level 8 and the perfect player have no endgame databases yet; "
                     "build them with {command} ({size} GB, about {minutes} min).",
                     **fields)

    def databases_progress(self) -> None:
        """After a computer move: a line when the background build has finished a level
        since the last one shown, finished, or failed."""
        from ..solver import autodb

        last = self._databases
        if last is None or last.state not in ("building", "waiting"):
            return
        now = autodb.status(self.game.rules)
        if now.state == "ready":
            self.say_n("The endgame databases to {seeds} seed are ready.",
                       "The endgame databases to {seeds} seeds are ready.", now.target,
                       seeds=now.target)
        elif now.state == "failed":
            self.say("The endgame databases could not be built: {why}", why=now.error)
        elif now.have > last.have:
            self.say_n("Endgame databases: {percent}% built (to {seeds} seed).",
                       "Endgame databases: {percent}% built (to {seeds} seeds).", now.target,
                       percent=int(100 * now.share), seeds=now.target)
        else:
            return
        self._databases = now

    def show(self) -> None:
        self.console.print()
        self.console.print(render(self.game, self.lang))

    def run(self) -> int:
        self.say("nugar: {game} ({rules}). Type 'help' for commands.",
                 game=self.game.rules.game, rules=self.game.rules.text)
        self.start_databases()
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
        self.console.print()
        self.say("{player} plays {turn}", player=self._label(mover), turn=" ".join(played))
        self.databases_progress()
        self.show()

    def human_decision(self, mover: int) -> bool:
        """Read and act on one line of the player to move; ``False`` to stop the game."""
        line = self.input.ask(f"{player_name(self.game, mover, self.lang)} > ")
        if line is None:
            self.say("End of input: the game stops unfinished.")
            return False
        if not line:
            return True
        word, _, rest = line.partition(" ")
        command = word.lower()
        if command in ("help", "?"):
            self.console.print(play_help(self.lang), markup=False)
        elif command == "moves":
            self.say("Legal: {moves}", moves=" ".join(str(m) for m in self.game.legal_moves()))
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
            self.say("{player} resigns.", player=player_name(self.game, mover, self.lang))
        elif command in ("quit", "exit"):
            self.say("The game stops unfinished.")
            return False
        else:
            self.human_move(mover, line)
        return True

    def human_move(self, mover: int, text: str) -> None:
        try:
            self.game.play(text)
        except (InvalidMoveError, IllegalMoveError) as exc:
            self.say("Not played: {reason}", reason=say(exc, self.lang))
            self.say("Type 'moves' for the legal moves, 'help' for commands.")
            return
        if not self.game.is_over and self.game.to_move == mover:
            legal = " ".join(str(m) for m in self.game.legal_moves())
            self.show()
            self.say("Your turn goes on; legal: {moves}", moves=legal)
            return
        self.show()

    def undo(self) -> None:
        """Take back the last turn a person played, with the computer's replies after it, so
        that a person is to move again."""
        people = [player for player, _ in self.game.turn_list() if player not in self.agents]
        if not people:
            self.say("Nothing to undo.")
            return
        self.game.undo_to_turn_of(people[-1])
        self.show()

    def hint(self) -> None:
        from ..ai import make_agent

        self.wait_for_engine([self.hint_spec])
        analysis = make_agent(self.hint_spec).analyse(self.game.copy(), self.limits)
        if analysis.score is None:
            self.say("Hint ({agent}): {move}", agent=self.hint_spec, move=analysis.move)
        else:
            self.say("Hint ({agent}): {move} (score {score})", agent=self.hint_spec,
                     move=analysis.move, score=format(analysis.score, "g"))

    def save(self, path: str | None) -> bool:
        """Write the record to ``path`` (or the ``--save`` file); whether it was written."""
        target = path or self.args.save
        if target is None:
            self.say("Give a file name: save FILE (or start with --save FILE).")
            return False
        try:
            record.write_file(target, record.dumps(self.game, self.tags()))
        except OSError as exc:
            self.say("Could not save to {file}: {why}", file=target, why=exc.strerror or exc)
            return False
        self.say("Saved to {file}.", file=target)
        return True

    def finish(self) -> int:
        """Announce the result and write the record; exit 1 if the record could not be saved
        (it is then printed, so that the game is not lost)."""
        outcome = self.game.outcome
        if outcome is not None:
            self.console.print()
            note = misere_note(self.game)
            self.say("Result: {result} ({reason}), score {score}{note}", result=outcome.result,
                     reason=reason_text(outcome.reason, self.lang),
                     score=record.score_text(self.game), note=self._(note) if note else "")
        if self.args.save and self.save(None):
            return EXIT_OK
        text = record.dumps(self.game, self.tags())
        self.console.print()
        self.say("Game record:")
        self.console.print(text, markup=False)
        return EXIT_FAILED if self.args.save else EXIT_OK


def _limits(seconds: float | None) -> Limits:
    from ..ai import Limits

    return Limits(time=seconds)
