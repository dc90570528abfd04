"""Building agents from their spec text, and the levels 1 to 8.

``make_agent("alphabeta:depth=6")``, ``make_agent("mcts:playouts=2000,seed=1")``,
``make_agent("level:5")``. The search agents are imported only when asked for, so that
``import nugar.ai`` stays light.
"""

from __future__ import annotations

from .base import Agent, no_more_options, option_float, option_int, parse_spec
from .simple import GreedyAgent, RandomAgent

AGENT_NAMES: tuple[str, ...] = ("random", "greedy", "alphabeta", "mcts", "level:N", "perfect")

#: the levels offered by the command line and the web UI: level -> agent spec.
#: Levels 3 to 6 search 15% of the time given (levels 3 to 5 also stop at a node budget),
#: level 7 three tenths and level 8 all of it, so a level never searches more than the one
#: above it, whatever the time. docs/strength.md has the measured strength.
LEVELS: dict[int, str] = {
    1: "greedy:noise=0.6",
    2: "greedy",
    3: "alphabeta:nodes=150,share=0.15",
    4: "alphabeta:nodes=600,share=0.15",
    5: "alphabeta:nodes=2500,share=0.15",
    6: "alphabeta:share=0.15",
    7: "alphabeta:share=0.3",
    8: "alphabeta",
}


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
