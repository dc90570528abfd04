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
from typing import TYPE_CHECKING

from ..rules.base import Game
from ..rules.family import ai_profiles
from ..rules.options import RuleSet
from ..rules.profiles import DARA_PROFILE
from .base import Agent, Analysis, Limits, parse_spec
from .options import AgentOptions, int_option
from .simple import GreedyAgent, GreedyOptions, RandomAgent, RandomOptions

if TYPE_CHECKING:
    from .perfect import PerfectAgent

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

#: the share of a decision's time (without one: of ``SOLVE_NODES``) that level 8's exact
#: solver may use where it is expected to finish (``LevelAgent._beyond``); when it does not,
#: the search decides with the rest, so the search never has less than three quarters
SOLVE_SHARE = 0.25

#: the share it may use a little beyond the expectation (``PROBE_GAP`` seeds): a probe,
#: which finds out where the solver is quicker than expected (what it finds stays in the
#: solver's table, so that later attempts finish sooner); further out, none: the search
#: has the whole limit, so that level 8 searches there as ``alphabeta:probe=1`` does
PROBE_SHARE = 0.1

#: how many seeds beyond the expectation a probe is still tried
PROBE_GAP = 6

#: seeds in the holes beyond the reach of the databases on disk (0: none) up to which the
#: solver is expected to finish within ``SOLVE_SHARE`` of a tenth of a second: measured on
#: Kalah(6, 4) without databases, positions of 24 seeds took at most a few thousand nodes
#: (docs/ai.md, "Levels")
SOLVE_GAP = 24

#: what the shares are of at a decision without a time limit, in the solver's positions
#: (it expands about two million a second on one core of the development machine)
SOLVE_NODES = 800_000

#: what decides when level 8's solver does not finish: the search probing the endgame
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
        #: by rule set: the reach of the databases on disk and the seeds in the holes up to
        #: which the solver is expected to finish with them (``_beyond``), learnt from its
        #: attempts; kept from game to game, as its table is
        self._solvable_to: dict[str, tuple[int, int]] = {}
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
        """The game's agent decides; at level 8 the endgame tables first (Dara and Dala
        tablebases where built), and where the level is the exact solver, the search first
        (:meth:`_solve_or_search`)."""
        if self.level == TOP_LEVEL:  # the Dara and Dala endgame tablebases, where built
            from .endgame import tablebase_analysis

            known = tablebase_analysis(game)
            if known is not None:
                return known
        if not level_spec(self.level, game.rules).startswith("perfect"):
            return self.agent_for(game).analyse(game, limits)
        if not _solvable(game):  # a board larger than the solver covers
            return self._fallback_agent().analyse(game, limits)
        return self._solve_or_search(game, limits or Limits())

    def _solve_or_search(self, game: Game, limits: Limits) -> Analysis:
        """A level played by the exact solver (level 8 of the sowing games): the book's or
        the solver's exact answer where the solver finishes within a small share of the
        limit, and else the search (``SOLVER_FALLBACK``) with all of the rest.

        The solver may use ``SOLVE_SHARE`` of the time where it is expected to finish
        (``_beyond``), ``PROBE_SHARE`` a little further out (``PROBE_GAP``) and nothing
        beyond; what it found stays in its table, so that later moves finish sooner.
        Without a time limit the shares are of ``SOLVE_NODES`` solver positions and the
        search has the caller's depth and nodes (so that at a node limit level 8 plays as
        deterministically as the search does); with no limit at all the solver decides
        alone where it is quick (``_quick``: the databases it needs are on disk, or the
        board is small), as ``perfect`` does."""
        from .perfect import PerfectAgent

        perfect = self.agent_for(game)
        assert isinstance(perfect, PerfectAgent)
        start = time.perf_counter()
        if limits.time is None and limits.nodes is None and self._quick(game):
            return perfect.analyse(game)
        known = perfect.book_answer(game)
        if known is not None:
            return known
        if not perfect.open_soon(game, None if limits.time is None
                                 else limits.time * SOLVE_SHARE):
            # the solver's compiled code is not loaded yet (it compiles the first time):
            # it opens in the background while the search decides with the rest
            return self._search_rest(game, limits, start)
        beyond = self._beyond(game, perfect)
        if beyond > PROBE_GAP:  # far beyond what the solver finishes: the search alone
            return self._search_rest(game, limits, start)
        share = SOLVE_SHARE if beyond <= 0 else PROBE_SHARE
        time_cap = None
        if limits.time is not None:
            time_cap = limits.time * share - (time.perf_counter() - start)
            if time_cap <= 0:  # opening the solver took its share
                return self._search_rest(game, limits, start)
        # without a time limit the solver's share is of SOLVE_NODES: a node limit is the
        # search's own (the solver's positions are another, cheaper kind)
        node_cap = None if time_cap is not None else int(SOLVE_NODES * share)
        exact = perfect.attempt(game, time_cap, node_cap)
        self._learn(game, exact is not None, beyond <= 0)
        if exact is not None:
            return exact
        return self._search_rest(game, limits, start)

    def _search_rest(self, game: Game, limits: Limits, start: float) -> Analysis:
        """The search's decision within what the solver left of ``limits``: the time since
        ``start`` is spent, the node budget is the search's own (the solver's nodes are
        another, cheaper kind: at a node limit, level 8 searches as ``alphabeta:probe=1``
        does, and the solver answers on top where it finishes)."""
        rest = limits
        if limits.time is not None:
            rest = Limits(max(limits.time - (time.perf_counter() - start), 0.001),
                          limits.depth, limits.nodes)
        found = self._fallback_agent().analyse(game, None if rest.is_empty else rest)
        return replace(found, seconds=time.perf_counter() - start)

    def _beyond(self, game: Game, perfect: PerfectAgent) -> int:
        """How many seeds ``game``'s position has in its holes beyond those up to which the
        solver is expected to finish within ``SOLVE_SHARE`` of the limit (0 or less: it is
        expected to): every position where it has the databases it needs (``_quick``),
        else those of at most the seeds of the largest position it finished so far
        (``_learn``), at first ``SOLVE_GAP`` beyond the reach of the databases on disk (and
        again so when that reach grows: a build in the background, ``solver/autodb.py``)."""
        if self._quick(game):
            return 0
        reach = perfect.solver_for(game).db_reach
        known = self._solvable_to.get(game.rules.text)
        if known is None or known[0] != reach:  # what was learnt held for other databases
            known = self._solvable_to[game.rules.text] = (reach, reach + SOLVE_GAP)
        return self._seeds(game) - known[1]

    def _learn(self, game: Game, finished: bool, expected: bool) -> None:
        """Move the expectation of ``_beyond`` by an attempt on ``game``: a position
        finished raises it to its seeds; one expected but not finished lowers it below."""
        text, seeds = game.rules.text, self._seeds(game)
        known = self._solvable_to.get(text)
        if known is None:
            return
        reach, upto = known
        if finished:
            self._solvable_to[text] = (reach, max(upto, seeds))
        elif expected:
            self._solvable_to[text] = (reach, min(upto, seeds - 1))

    @staticmethod
    def _seeds(game: Game) -> int:
        from ..kernels.sowing import seeds_on_board
        from ..rules.sowing import SowingGame

        assert isinstance(game, SowingGame)  # the solver covers only the sowing games
        return int(seeds_on_board(game.pits, game.state))

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
