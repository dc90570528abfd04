"""Building agents from their spec text, and the levels 1 to 8.

``make_agent("alphabeta:depth=6")``, ``make_agent("mcts:playouts=2000,seed=1")``,
``make_agent("level:5")``. The search agents are imported only when asked for, so that
``import nugar.ai`` stays light.
"""

from __future__ import annotations

import time

from ..rules.base import Game
from .base import Agent, Analysis, Limits, no_more_options, option_float, option_int, parse_spec
from .simple import GreedyAgent, RandomAgent

AGENT_NAMES: tuple[str, ...] = ("random", "greedy", "alphabeta", "mcts", "level:N", "perfect")

#: the levels offered by the command line and the web UI: level -> agent spec.
#: Levels 1 and 2 mix random moves into greedy play; levels 3 to 7 stop at fixed node
#: budgets four to five times apart (and at the caller's time
#: limit), level 8 uses all of the time given, so a level never searches more than the one
#: above it, whatever the time. docs/strength.md has the measured strength.
LEVELS: dict[int, str] = {
    1: "greedy:noise=0.9",
    2: "greedy:noise=0.3",
    3: "alphabeta:nodes=40",
    4: "alphabeta:nodes=200",
    5: "alphabeta:nodes=1000",
    6: "alphabeta:nodes=4000",
    7: "alphabeta:nodes=16000",
    8: "alphabeta",
}

#: levels that play another agent in some games: level -> {game name: agent spec}. In
#: Dracala the exact solver answers each move in well under a second, so level 8 plays
#: perfectly there.
LEVEL_BY_GAME: dict[int, dict[str, str]] = {
    8: {"Dracala": "perfect"},
}


#: the share of a time limit the game's own agent of a level (the solver) may use before
#: the default agent decides instead
SPECIAL_SHARE = 0.5


class LevelAgent(Agent):
    """A level whose agent depends on the game: ``default`` unless ``by_game`` names another
    spec for the game's name (``game.rules.game``). Agents are built on first use."""

    def __init__(self, spec: str, default: Agent, by_game: dict[str, str]) -> None:
        self.spec = spec
        self.default = default
        self.by_game = dict(by_game)
        self._agents: dict[str, Agent] = {}

    def agent_for(self, game: Game) -> Agent:
        name = game.rules.game
        other = self.by_game.get(name)
        if other is None:
            return self.default
        agent = self._agents.get(name)
        if agent is None:
            agent = make_agent(other)
            self._agents[name] = agent
        return agent

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        """The game's own agent decides; under a time limit it gets half of it, and when it
        reports no finished answer (``depth == 0``: the solver ran out of time) the default
        agent decides with the time left."""
        agent = self.agent_for(game)
        if agent is self.default or limits is None or limits.time is None:
            return agent.analyse(game, limits)
        start = time.perf_counter()
        first = agent.analyse(game, Limits(time=limits.time * SPECIAL_SHARE))
        left = limits.time - (time.perf_counter() - start)
        if first.depth > 0 or left < 0.01:
            return first
        second = self.default.analyse(game, Limits(left, limits.depth, limits.nodes))
        return Analysis(second.move, second.score, second.depth, second.nodes, second.pv,
                        time.perf_counter() - start)

    def reset(self) -> None:
        """Forget the search tables of the agents built so far (a new game)."""
        for agent in (self.default, *self._agents.values()):
            reset = getattr(agent, "reset", None)
            if callable(reset):
                reset()


def _known() -> str:
    return ("random, greedy, alphabeta, mcts, level:N (N 1..8), perfect (sowing games: the "
            "exact solver); options as name:key=value, e.g. alphabeta:depth=6, "
            "mcts:playouts=2000, random:seed=3")


def make_agent(spec: str) -> Agent:
    """The agent named by ``spec``; ``ValueError`` naming the allowed specs otherwise."""
    name, positional, options = parse_spec(spec)
    if name == "level":
        if positional is None:
            raise ValueError(f"agent {spec!r}: give the level number, e.g. level:5 (1..8)")
        try:
            level = int(positional)
        except ValueError:
            raise ValueError(f"agent {spec!r}: the level must be a number 1..8, "
                             f"not {positional!r}") from None
        if level not in LEVELS:
            raise ValueError(f"agent {spec!r}: level must be 1..8, not {level}")
        base = LEVELS[level]
        extra = ",".join(f"{k}={v}" for k, v in options.items())
        if extra:
            base += ("," if ":" in base else ":") + extra
        agent = make_agent(base)
        agent.spec = f"level:{level}" + (f",{extra}" if extra else "")
        if level in LEVEL_BY_GAME:
            return LevelAgent(agent.spec, agent, LEVEL_BY_GAME[level])
        return agent
    if positional is not None:
        raise ValueError(f"agent {spec!r}: cannot read {positional!r}; allowed agents: "
                         + _known())
    if name == "random":
        seed = option_int(spec, options, "seed", 0, None)
        no_more_options(spec, name, options, ("seed",))
        return RandomAgent(seed)
    if name == "greedy":
        seed = option_int(spec, options, "seed", 0, None)
        noise = option_float(spec, options, "noise", 0.0, 0.0, inclusive=True, hi=1.0)
        no_more_options(spec, name, options, ("seed", "noise"))
        assert noise is not None
        return GreedyAgent(seed, noise)
    if name == "alphabeta":
        from .alphabeta import AlphaBetaAgent

        return AlphaBetaAgent.from_options(spec, options)
    if name == "mcts":
        from .mcts import MctsAgent

        return MctsAgent.from_options(spec, options)
    if name == "perfect":
        from ..solver.agent import PerfectAgent

        return PerfectAgent.from_options(spec, options)
    raise ValueError(f"unknown agent {name!r} in {spec!r}; allowed: " + _known())
