"""The levels 1 to 8: one table per game, and the handicaps that tell the levels apart
(evaluation noise, blunders) or make the top level play on for a win (contempt)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

import nugar
from nugar.ai import Limits, make_agent
from nugar.ai.agents import LEVEL_RANGE, LEVELS, LevelAgent, level_spec
from nugar.ai.alphabeta import AlphaBetaAgent
from nugar.ai.base import parse_spec
from nugar.kernels import search_core
from nugar.rules import parse_rules
from nugar.rules.alignment import AlignmentGame
from nugar.rules.family import ai_profiles
from nugar.rules.profiles import (
    DALA_PROFILE,
    DARA_PROFILE,
    DRACALA_PROFILE,
    KALAH_PROFILE,
    AiProfile,
)

#: a preset of each AI profile (``RuleSet.ai_profile``)
PRESET = {"dara": "dara", "dala": "dala", "kalah": "kalah", "dracala": "dracala"}

#: Dala's rules written as options of the ``dara`` preset
DALA_SHAPED_DARA = ("dara(rows=6,cols=6,centre_first=on,drop_capture=on,drop_limit=none,"
                    "long_lines=allowed,protect_threes=off)")


def test_every_profile_has_a_table_of_the_levels() -> None:
    assert {p.name for p in ai_profiles()} == set(PRESET)
    assert set(ai_profiles()) == {parse_rules(p["name"]).ai_profile for p in nugar.presets()}
    assert list(LEVEL_RANGE) == list(range(1, 9))
    for profile in ai_profiles():
        assert sorted(profile.levels) == list(LEVEL_RANGE)
    assert LEVELS is DARA_PROFILE.levels


def test_the_level_table_of_docs_ai_md_is_the_profiles() -> None:
    """docs/ai.md shows every profile's levels in one table (a column each, in the order of
    ``ai_profiles()``): it must say what the profiles hold."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "ai.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0].isdigit():
            rows[int(cells[0])] = [c.split("`")[1] for c in cells[1:]]
    assert sorted(rows) == list(LEVEL_RANGE)
    for column, profile in enumerate(ai_profiles()):
        assert {level: rows[level][column] for level in LEVEL_RANGE} == dict(profile.levels)


@pytest.mark.parametrize("profile", sorted(PRESET))
def test_a_level_plays_its_own_games_table(profile: str) -> None:
    game = nugar.new_game(PRESET[profile])
    assert game.rules.ai_profile.name == profile
    for level in LEVEL_RANGE:
        agent = make_agent(f"level:{level}")
        assert isinstance(agent, LevelAgent) and agent.spec == f"level:{level}"
        assert agent.agent_for(game).spec == game.rules.ai_profile.levels[level]
        assert level_spec(level, game.rules) == game.rules.ai_profile.levels[level]


def test_a_dala_shaped_dara_plays_dalas_levels() -> None:
    """The table follows the rules, not the preset's name: Dala's rules written as options of
    ``dara`` get Dala's levels (which differ from Dara's)."""
    game = nugar.new_game(DALA_SHAPED_DARA)
    assert game.rules.name == "dara" and game.rules.ai_profile is DALA_PROFILE
    assert dict(DALA_PROFILE.levels) != dict(DARA_PROFILE.levels)
    for level in LEVEL_RANGE:
        agent = make_agent(f"level:{level}")
        assert isinstance(agent, LevelAgent)
        assert level_spec(level, game.rules) == DALA_PROFILE.levels[level]
        assert agent.agent_for(game).spec == DALA_PROFILE.levels[level]


def _handicaps(spec: str) -> tuple[float, float, float] | None:
    """(search budget, noise, blunder) of a search level's spec, None for other agents; a
    search without a node or depth budget counts as the largest, and so does the solver."""
    name, _, options = parse_spec(spec)
    if name == "perfect":
        return (float("inf"), 0.0, 0.0)
    if name != "alphabeta":
        return None
    budget = float(options["nodes"]) if "nodes" in options else (
        float(options["depth"]) if "depth" in options else float("inf"))
    return (budget, float(options.get("noise", 0)), float(options.get("blunder", 0)))


@pytest.mark.parametrize("profile", [DARA_PROFILE, DALA_PROFILE, KALAH_PROFILE], ids=str)
def test_handicaps_shrink_from_level_to_level(profile: AiProfile) -> None:
    """Among the search levels of a game, going up a level never searches less, never adds
    noise and never blunders more, and always changes one of them; level 8 has no budget
    and no handicap. (Dracala's table is not ordered so: there a search four decisions deep
    with 10% blunders beats one of 60 nodes without, and level 1 plays for Kalah's goal;
    docs/strength.md. Its levels are checked by the next test and by the matches.)"""
    table = profile.levels
    steps = [h for level in LEVEL_RANGE if (h := _handicaps(table[level])) is not None]
    assert len(steps) >= 5
    for (b1, n1, p1), (b2, n2, p2) in itertools.pairwise(steps):
        assert b2 >= b1 and n2 <= n1 and p2 <= p1
        assert (b2, n2, p2) != (b1, n1, p1)
    assert steps[-1] == (float("inf"), 0.0, 0.0)


#: the matches docs/strength.md plays in Dracala (A, B), all from the starting position
DRACALA_PAIRS = [*((f"level:{n}", f"level:{n - 1}") for n in range(2, 9)),
                 ("level:8", "level:6"), ("level:8", "random")]


def _seeded(spec: str, seed: int) -> str:
    return spec + ("," if ":" in spec else ":") + f"seed={seed}"


@pytest.mark.parametrize(("a", "b"), DRACALA_PAIRS)
def test_dracala_matches_vary_from_the_start(a: str, b: str) -> None:
    """Dracala's strength matches have no random opening (``--opening 0``), so in each of
    them at least one side must choose at random by itself: with other seeds the same two
    levels play another game from the start."""
    lines = set()
    for seed in range(1, 9):  # stop at the first game that differs (a slip can be rare)
        if len(lines) > 1:
            break
        game = nugar.new_game("dracala")
        players = {1: make_agent(_seeded(a, seed)), 2: make_agent(_seeded(b, seed + 10))}
        while not game.is_over:
            game.push(players[game.to_move].choose(game, Limits(time=1.0)))
        lines.add(tuple(str(m) for m in game.move_stack))
    assert len(lines) > 1


def test_dracala_level_1_plays_for_the_wrong_goal() -> None:
    """Level 1 of Dracala searches with Kalah's goal (more seeds in the store is better):
    it heads for the majority that loses Dracala, so it plays worse than random moves."""
    name, _, options = parse_spec(DRACALA_PROFILE.levels[1])
    assert name == "alphabeta" and options["w"].split("/")[0] == "100"
    assert int(options["w"].split("/")[3]) > 0 > int(options["w"].split("/")[4])
    assert DRACALA_PROFILE.levels[2] == "random"


@pytest.mark.parametrize("profile", sorted(PRESET))
def test_level_options_reach_the_games_agent(profile: str) -> None:
    game = nugar.new_game(PRESET[profile])
    for level in range(1, 8):
        agent = make_agent(f"level:{level},seed=3")
        assert isinstance(agent, LevelAgent)
        assert agent.agent_for(game).spec.endswith("seed=3")
        move = agent.choose(game, Limits(time=1.0))
        assert move in game.legal_moves()


@pytest.mark.parametrize("spec", ["level:3,foo=1", "level:8,depth=x", "alphabeta:noise=-1",
                                  "alphabeta:blunder=2", "alphabeta:contempt=x",
                                  "alphabeta:blunder=-0.1"])
def test_bad_level_and_handicap_options_are_refused(spec: str) -> None:
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    assert spec.split(":")[0] in str(err.value) or "agent" in str(err.value)


# --- evaluation noise ------------------------------------------------------------------------


def test_noise_offsets_stay_in_range_and_follow_key_and_seed() -> None:
    ctx = np.zeros(search_core.CX_SIZE, dtype=np.int64)
    ctx[search_core.CX_NOISE] = 40
    rng = random.Random(1)
    keys = [rng.randrange(1 << 63) for _ in range(2000)]
    ctx[search_core.CX_NOISE_SEED] = 12345
    first = [search_core._leaf_noise(ctx, k) for k in keys]
    assert all(-40 <= v <= 40 for v in first)
    assert min(first) < -30 and max(first) > 30          # spread over the whole range
    assert abs(sum(first) / len(first)) < 4               # centred on 0
    # a position keeps its offset
    assert [search_core._leaf_noise(ctx, k) for k in keys] == first
    ctx[search_core.CX_NOISE_SEED] = 999
    other = [search_core._leaf_noise(ctx, k) for k in keys]
    # another game, other offsets
    assert sum(a != b for a, b in zip(first, other, strict=True)) > 1800


def test_noise_varies_the_choice_between_games_and_a_seed_repeats_it() -> None:
    """With a large noise the search picks among the Kalah openings almost at random, a new
    game draws new offsets, and the same seed gives the same choices."""
    game = nugar.new_game("kalah")
    noisy = make_agent("alphabeta:depth=3,noise=5000,seed=8")
    again = make_agent("alphabeta:depth=3,noise=5000,seed=8")
    moves, repeated = [], []
    for agent, out in ((noisy, moves), (again, repeated)):
        for _ in range(12):
            agent.reset()  # a new game: new offsets
            out.append(str(agent.choose(game)))
    assert moves == repeated
    assert len(set(moves)) >= 3
    plain = make_agent("alphabeta:depth=3")
    assert len({str(plain.choose(game)) for _ in range(3)}) == 1


def test_small_noise_keeps_an_obvious_capture() -> None:
    """Noise of a few tenths of a piece does not hide a capture that wins the game."""
    game = AlignmentGame.from_diagram("dara", """
        . . . . . .
        . . . . . .
        . . . . . .
        X X . . O O
        . . X . O .""")
    for seed in range(5):
        agent = make_agent(f"alphabeta:depth=2,noise=40,seed={seed}")
        assert str(agent.choose(game)).startswith("c1-c2")


# --- blunders ----------------------------------------------------------------------------------


def test_blunder_one_never_plays_the_searched_move() -> None:
    game = nugar.new_game("kalah")
    best = make_agent("alphabeta:depth=4").choose(game)
    for seed in range(6):
        move = make_agent(f"alphabeta:depth=4,blunder=1,seed={seed}").choose(game)
        assert move in game.legal_moves() and move != best
    assert make_agent("alphabeta:depth=4,blunder=0").choose(game) == best


def test_blunder_leaves_a_forced_move_alone() -> None:
    game = nugar.new_game("dracala")
    while len(game.legal_moves()) != 1:
        game.push(game.legal_moves()[0])
    only = game.legal_moves()[0]
    assert make_agent("alphabeta:depth=2,blunder=1,seed=1").choose(game) == only


def test_blunder_rate_is_roughly_the_option() -> None:
    game = nugar.new_game("kalah")
    best = make_agent("alphabeta:depth=2").choose(game)
    agent = make_agent("alphabeta:depth=2,blunder=0.25,seed=11")
    slips = sum(agent.choose(game) != best for _ in range(200))
    assert 25 <= slips <= 75


# --- contempt ----------------------------------------------------------------------------------


REPEAT_DIAGRAM = """
    X . . . . O
    . . . . . .
    . . . . . O
    . . . . . .
    X . X . O O"""


def _shuttled() -> AlignmentGame:
    """The first player is a piece down; after both sides shuttled once, a5-b5 returns to a
    position of the game, a draw for the search."""
    game = AlignmentGame.from_diagram("dara(quiet_limit=off)", REPEAT_DIAGRAM)
    for turn in ["a5-b5", "f5-e5", "b5-a5", "e5-f5"]:
        game.play(turn)
    return game


def test_contempt_scores_a_draw_below_zero() -> None:
    plain = make_agent("alphabeta:depth=2").analyse(_shuttled())
    assert plain.score == 0.0 and str(plain.move) == "a5-b5"
    keen = make_agent("alphabeta:depth=2,contempt=30").analyse(_shuttled())
    assert keen.score == -0.3 and str(keen.move) == "a5-b5"  # still better than losing


def test_contempt_larger_than_the_deficit_plays_on() -> None:
    fresh = AlignmentGame.from_diagram("dara(quiet_limit=off)", REPEAT_DIAGRAM)
    behind = make_agent("alphabeta:depth=2").analyse(fresh).score
    assert behind is not None and -9000 < behind < 0
    contempt = int(-behind * 100) + 50
    keen = make_agent(f"alphabeta:depth=2,contempt={contempt}").analyse(_shuttled())
    assert str(keen.move) != "a5-b5"
    assert keen.score is not None and keen.score > -contempt / 100


def test_level_8_of_dara_has_contempt() -> None:
    agent = make_agent("level:8")
    assert isinstance(agent, LevelAgent)
    searcher = agent.agent_for(nugar.new_game("dara-sheet"))
    assert isinstance(searcher, AlphaBetaAgent) and searcher.options.contempt > 0


def test_contempt_agent_playing_both_sides_forgets_the_other_sides_draws() -> None:
    """One agent searching for both players (a self-play match reuses it) clears its table
    when the player changes, so draw scores searched for one side never mislead the other."""
    agent = make_agent("alphabeta:depth=2,contempt=30")
    game = _shuttled()
    game.play("a5-b5")           # now the second player is to move
    agent.analyse(game)
    game.undo()
    again = agent.analyse(game)  # the first player again, as in test_contempt_scores...
    assert again.score == -0.3 and str(again.move) == "a5-b5"


@pytest.mark.parametrize("spec,rules", [("level:1", "dara"), ("level:4", "dala"),
                                        ("level:5", "kalah"), ("mcts:playouts=50", "kalah")])
def test_reseed_replays_the_same_games(spec: str, rules: str) -> None:
    """A reseeded agent plays the same game again (what a seeded Gymnasium reset needs)."""

    def game_of(agent: nugar.ai.Agent) -> list[str]:
        game = nugar.new_game(rules)
        for _ in range(16):
            if game.outcome is not None:
                break
            game.push(agent.choose(game, Limits(time=5.0)))
        return [str(m) for m in game.move_stack]

    agent = make_agent(spec)
    agent.reseed(11)
    first = game_of(agent)
    agent.reseed(11)
    assert game_of(agent) == first
    games = set()
    for value in range(6):  # other seeds give other games
        agent.reseed(value)
        games.add(tuple(game_of(agent)))
    assert len(games) > 1


@pytest.mark.parametrize("rules", ["dracala(pits=12,seeds=12)", "dracala(pits=32,seeds=64)"])
def test_level_8_plays_boards_beyond_the_solver_by_search(rules: str) -> None:
    """Level 8 of Dracala is the exact solver, which covers at most 255 seeds; on a larger
    board (allowed by the options' ranges) it searches instead of failing."""
    game = nugar.new_game(rules)
    for limits in (Limits(time=0.2), Limits(depth=2)):
        move = make_agent("level:8").choose(game, limits)
        assert move in game.legal_moves()
