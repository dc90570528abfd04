"""Building agents from their spec text, and the levels (``LEVEL_RANGE``, 1 to 8).

``make_agent("alphabeta:depth=6")``, ``make_agent("mcts:playouts=2000,seed=1")``,
``make_agent("level:5")``. Each agent declares its options once (``options.py``); the search
agents and the perfect player are imported only when asked for, so that ``import nugar.ai``
stays light.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, replace

from ..rules.base import Game
from ..rules.family import ai_profiles
from ..rules.options import RuleSet
from ..rules.profiles import DARA_PROFILE
from .base import Agent, Analysis, Limits, parse_spec
from .options import AgentOptions, int_option
from .simple import GreedyAgent, GreedyOptions, RandomAgent, RandomOptions

AGENT_NAMES: tuple[str, ...] = ("random", "greedy", "alphabeta", "mcts", "level:N", "perfect")

#: the levels offered by every face (command line, engine protocol, web page), weakest first;
#: every AI profile's table (``AiProfile.levels``) has exactly these
LEVEL_RANGE: range = range(1, 9)

#: the levels as text for help and error messages: ``1..8``
LEVEL_RANGE_TEXT = f"{LEVEL_RANGE[0]}..{LEVEL_RANGE[-1]}"

# Each AI profile of the rules (``RuleSet.ai_profile``, ``nugar.rules.profiles``) has its own
# table of levels, read from the rules, so a Dala-shaped ``dara(...)`` plays Dala's levels.
# Level 1 plays almost at random, levels 3 to 7 search fixed node budgets (they play alike
# on any machine and at any time limit) held back by an imprecision that shrinks from level
# to level, and level 8 uses all of the time given; docs/ai.md ("Levels") says which
# imprecision each game needs and why, docs/strength.md measures every level.

#: the levels of Dara, the table shown when no game is named
LEVELS: Mapping[int, str] = DARA_PROFILE.levels

#: the strongest level, the one that plays with all of the time given (the engine's default)
TOP_LEVEL: int = LEVEL_RANGE[-1]

#: the level people meet when they name none: in the terminal (``nugar play``), on the web
#: page and as the Gymnasium environment's opponent. A middle level (docs/ai.md says why).
DEFAULT_LEVEL: int = 4

#: the share of a time limit the exact solver of a level may use before the level's
#: search decides instead; at 0.2 s the rest still searches more than level 7's budget
SPECIAL_SHARE = 0.85

#: what decides when the solver of a level runs out of time: a search probing the endgame
#: databases built on disk (Kalah's), so its leaves within their reach are exact
SOLVER_FALLBACK = "alphabeta:probe=1"


def level_spec(level: int, rules: RuleSet) -> str:
    """The agent spec of ``level`` for ``rules``: the table of their AI profile."""
    return rules.ai_profile.levels[level]


@dataclass(frozen=True)
class LevelOptions(AgentOptions):
    """``level:N``: the level number (written without a name); any other option
    (``level:5,seed=3``) goes on to the agent the level plays with."""

    agent = "level"
    level: int = int_option(DEFAULT_LEVEL, LEVEL_RANGE[0], LEVEL_RANGE[-1],
                            "the level, weakest first")


def _with_options(spec: str, extra: str) -> str:
    if not extra or spec.startswith("perfect"):  # the solver has nothing random to seed
        return spec
    return spec + ("," if ":" in spec else ":") + extra


class LevelAgent(Agent):
    """A level: the agent of the level table of the game's AI profile, built on first use,
    with the caller's extra options (``level:5,seed=3``) passed on."""

    def __init__(self, level: int, extra: str = "", table: float | None = None) -> None:
        self.options = LevelOptions(level=level)
        self.level = level
        self.extra = extra
        #: the transposition table in MB of the search agents it builds (None: their default)
        self.table = table
        self.spec = f"level:{level}" + (f",{extra}" if extra else "")
        self._agents: dict[str, Agent] = {}
        self._fallback: Agent | None = None
        self._seed: int | None = None
        self._quick_rules: dict[str, bool] = {}
        for profile in ai_profiles():  # every spec is checked up front
            _check_spec(_with_options(profile.levels[level], extra))

    def agent_for(self, game: Game) -> Agent:
        spec = level_spec(self.level, game.rules)
        agent = self._agents.get(spec)
        if agent is None:
            agent = make_agent(self._sized(_with_options(spec, self.extra)))
            if self._seed is not None:
                agent.reseed(self._seed)
            self._agents[spec] = agent
        return agent

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        """The game's agent decides. The exact solver gets ``SPECIAL_SHARE`` of a time limit
        (what it solves stays in its table for the next move); when it
        reports no finished answer (``depth == 0``: it ran out of time) the search decides
        with the time left. Without a time limit the solver plays only where it is quick
        (``_quick``); elsewhere the search decides with the caller's limits."""
        if self.level == TOP_LEVEL:  # the Dara and Dala endgame tablebases, where built
            from .endgame import tablebase_analysis

            known = tablebase_analysis(game)
            if known is not None:
                return known
        solver = level_spec(self.level, game.rules).startswith("perfect")
        if solver and not _solvable(game):  # a board larger than the solver covers
            return self._fallback_agent().analyse(game, limits)
        if solver and (limits is None or limits.time is None) and not self._quick(game):
            # no time given and no databases on disk: the solver could take minutes
            return self._fallback_agent().analyse(game, limits)
        agent = self.agent_for(game)
        if not solver or limits is None or limits.time is None:
            return agent.analyse(game, limits)
        start = time.perf_counter()
        first = agent.analyse(game, Limits(time=limits.time * SPECIAL_SHARE))
        left = limits.time - (time.perf_counter() - start)
        if first.depth > 0 or left < 0.01:
            return first
        second = self._fallback_agent().analyse(game, Limits(left, limits.depth, limits.nodes))
        return replace(second, seconds=time.perf_counter() - start)

    def _fallback_agent(self) -> Agent:
        if self._fallback is None:
            self._fallback = make_agent(self._sized(SOLVER_FALLBACK))
            if self._seed is not None:
                self._fallback.reseed(self._seed)
        return self._fallback

    def _quick(self, game: Game) -> bool:
        """Whether the perfect player has what it needs to answer ``game``'s rules quickly
        without a time limit (``database_note``; checked once per rule set, since it reads
        the databases' checksums)."""
        quick = self._quick_rules.get(game.rules.text)
        if quick is None:
            from .perfect import database_note

            quick = self._quick_rules[game.rules.text] = database_note(game.rules) is None
        return quick

    def _sized(self, spec: str) -> str:
        """``spec`` with the table size asked for: the alpha-beta search's table, or the
        solver's (at most the search's default, so that the solver and the search it
        falls back on each stay within the level's table budget)."""
        if spec.startswith("perfect"):
            from .search_setup import DEFAULT_TABLE_MB

            mb = max(1, int(DEFAULT_TABLE_MB if self.table is None else self.table))
            return spec + ("," if ":" in spec else ":") + f"memory={mb}"
        if self.table is None or not spec.startswith("alphabeta"):
            return spec
        return _with_options(spec, f"table={self.table:g}")

    def _built(self) -> list[Agent]:
        """The agents built so far, the solver's fallback included."""
        return [*self._agents.values(), *([self._fallback] if self._fallback else [])]

    def reseed(self, value: int) -> None:
        """Seed the agents built so far and those built later."""
        self._seed = value
        for agent in self._built():
            agent.reseed(value)

    def reset(self) -> None:
        """Forget the search tables of the agents built so far (a new game)."""
        for agent in self._built():
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset()


def _solvable(game: Game) -> bool:
    """Whether the exact solver covers ``game``'s rule set (it has a seed limit)."""
    from ..solver.core import SolverError, check_solvable

    try:
        check_solvable(game.rules)
    except SolverError:
        return False
    return True


def _check_spec(spec: str) -> None:
    """Raise ``ValueError`` if ``spec`` names no agent. The solver is not built here (it
    loads its kernels); a search agent allocates its table only when it first searches."""
    name, _, _ = parse_spec(spec)
    if name == "perfect":
        return
    make_agent(spec)


def _known() -> str:
    return (f"random, greedy, alphabeta, mcts, level:N (N {LEVEL_RANGE_TEXT}), perfect "
            "(sowing games: the exact solver); options as name:key=value, e.g. "
            "alphabeta:depth=6, mcts:playouts=2000, random:seed=3")


def _level_agent(spec: str, positional: str | None, options: dict[str, str],
                 table: float | None = None) -> LevelAgent:
    """``level:N[,key=value...]``: the number read by ``LevelOptions``, the rest passed on."""
    if positional is None:
        raise ValueError(f"agent {spec!r}: give the level number, e.g. level:5 "
                         f"({LEVEL_RANGE_TEXT})")
    level = LevelOptions.parse(spec, {"level": positional}).level
    extra = ",".join(f"{k}={v}" for k, v in options.items())
    try:
        return LevelAgent(level, extra, table if "table" not in options else None)
    except ValueError as err:
        raise ValueError(f"agent {spec!r}: {err}") from None


def make_agent(spec: str, *, table: float | None = None) -> Agent:
    """The agent named by ``spec``; ``ValueError`` naming the allowed specs otherwise.
    ``table``: the transposition table in MB of the alpha-beta searches it builds, where the
    spec gives none (a bound on memory, e.g. per task of a cluster)."""
    name, positional, options = parse_spec(spec)
    if name == "level":
        return _level_agent(spec, positional, options, table)
    if positional is not None:
        raise ValueError(f"agent {spec!r}: cannot read {positional!r}; allowed agents: "
                         + _known())
    if name == "random":
        return RandomAgent(RandomOptions.parse(spec, options))
    if name == "greedy":
        return GreedyAgent(GreedyOptions.parse(spec, options))
    if name == "alphabeta":
        from .alphabeta import AlphaBetaAgent, AlphaBetaOptions

        if table is not None and "table" not in options:
            options = {**options, "table": f"{table:g}"}
        return AlphaBetaAgent(AlphaBetaOptions.parse(spec, options))
    if name == "mcts":
        from .mcts import MctsAgent, MctsOptions

        return MctsAgent(MctsOptions.parse(spec, options))
    if name == "perfect":
        from .perfect import PerfectAgent, PerfectOptions

        return PerfectAgent(PerfectOptions.parse(spec, options))
    raise ValueError(f"unknown agent {name!r} in {spec!r}; allowed: " + _known())
