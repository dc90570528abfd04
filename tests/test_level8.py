"""Level 8 of the sowing games: the perfect player (its opening book, then the exact solver
within the move's time, reading only the databases on disk), and the alpha-beta search with
the time left when the solver does not answer in time."""

from __future__ import annotations

import random
import time

import pytest

import nugar
from nugar.ai import Limits, make_agent
from nugar.ai.agents import LevelAgent
from nugar.ai.book import lookup
from nugar.ai.perfect import PerfectAgent, database_note
from nugar.rules.sowing import SowingGame
from nugar.solver import Solver
from nugar.solver.core import auto_db_seeds

SMALL = "kalah(pits=4,seeds=3)"


def _level8(table: float = 16) -> LevelAgent:
    agent = make_agent("level:8", table=table)
    assert isinstance(agent, LevelAgent)
    return agent


@pytest.mark.parametrize("rules", ["kalah", "dracala"])
def test_level_8_of_the_sowing_games_is_the_perfect_player(rules: str) -> None:
    agent = _level8(table=8).agent_for(nugar.new_game(rules))
    assert isinstance(agent, PerfectAgent)
    assert agent.options.memory == 8  # the solver's table within the level's table budget


def test_level_8_plays_a_move_of_optimal_value_in_every_position() -> None:
    """On a small board the solver answers within the time: every move level 8 plays keeps
    the exact value of the position (checked by a solver of its own)."""
    rng = random.Random(8)
    agent = _level8()
    exact = Solver(SMALL, max_memory_mb=16, db_seeds=0)
    for _ in range(3):
        game = nugar.new_game(SMALL)
        assert isinstance(game, SowingGame)
        while game.outcome is None:
            value = exact.value(game.state)
            analysis = agent.analyse(game, Limits(time=10.0))
            assert analysis.depth > 0 and analysis.score == value  # solved, not searched
            mover = game.to_move
            game.push(analysis.move)
            if game.outcome is None:
                after = exact.value(game.state)
                assert (after if game.to_move == mover else -after) == value
            if game.outcome is None:
                game.push(rng.choice(game.legal_moves()))


def test_level_8_answers_from_the_book() -> None:
    game = nugar.new_game("kalah")
    assert isinstance(game, SowingGame)
    entry = lookup(game.rules.text, game.params, game.state)
    assert entry is not None
    analysis = _level8().analyse(game, Limits(time=5.0))
    assert analysis.nodes == 0 and analysis.score == entry["value"]
    assert str(analysis.move) == str(game.action_to_move(entry["pv"][0]))


def _outside_the_book(seed: int) -> SowingGame:
    rng = random.Random(seed)
    while True:
        game = nugar.new_game("kalah")
        assert isinstance(game, SowingGame)
        for _ in range(6):
            game.push(rng.choice(game.legal_moves()))
            if game.outcome is not None:
                break
        if game.outcome is None and lookup(game.rules.text, game.params, game.state) is None:
            return game


def test_level_8_falls_back_on_the_search_within_a_tiny_time() -> None:
    """Standard Kalah outside the book cannot be solved in a tenth of a second (without the
    databases on disk): level 8 still answers, by the search, within the time."""
    agent = _level8()
    agent.analyse(_outside_the_book(0), Limits(time=0.1))  # compiles and opens the solver
    for seed in (1, 2):
        game = _outside_the_book(seed)
        start = time.perf_counter()
        analysis = agent.analyse(game, Limits(time=0.1))
        assert time.perf_counter() - start < 0.6
        assert analysis.move in game.legal_moves()


@pytest.mark.skipif(database_note("kalah") is None, reason="Kalah databases on disk")
def test_level_8_without_a_time_searches_where_the_solver_would_be_slow() -> None:
    game = _outside_the_book(3)
    start = time.perf_counter()
    analysis = _level8().analyse(game, Limits(depth=3))
    assert analysis.move in game.legal_moves() and time.perf_counter() - start < 30


def test_solver_for_a_move_builds_no_database() -> None:
    assert auto_db_seeds(nugar.new_game(SMALL).rules) > 0
    assert Solver(SMALL, max_memory_mb=4).db_seeds > 0
    assert Solver(SMALL, max_memory_mb=4, build_db=False).db_seeds == 0
