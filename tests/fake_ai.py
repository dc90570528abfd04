"""A computer player for the web app's tests that compiles nothing: it plays the first legal
move (``FirstMove``), behind the AI pool's interface (``FakeComputer``)."""

from __future__ import annotations

import threading

from nugar.ai import Agent, Analysis, Limits
from nugar.rules import Game


class FirstMove(Agent):
    """Plays the first legal move; ``gate`` (if set) must open before it answers."""

    spec = "first"

    def __init__(self, gate: threading.Event | None = None, fail: bool = False) -> None:
        self.gate = gate
        self.fail = fail
        self.calls = 0

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        self.calls += 1
        if self.gate is not None:
            assert self.gate.wait(10)
        if self.fail:
            raise RuntimeError("the agent broke")
        moves = game.legal_moves()
        return Analysis(moves[0], 0.0, 1, 1, [moves[0]])


class FakeComputer:
    """A computer player with no compiling and one :class:`FirstMove` agent."""

    def __init__(self, agent: FirstMove | None = None) -> None:
        self.the_agent = agent or FirstMove()
        self.prepared: list[int] = []

    def prepare(self, game: Game, level: int) -> None:
        self.prepared.append(level)

    def agent(self, level: int) -> Agent:
        return self.the_agent

    def limits(self) -> Limits:
        return Limits(time=0.01)
