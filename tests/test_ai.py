"""Agents: the interface, spec parsing, legality in every preset, forced wins, and agreement
of the compiled and pure-Python search paths."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

import nugar
from nugar.ai import LEVELS, Agent, Analysis, Limits, make_agent
from nugar.rules.alignment import AlignmentGame
from nugar.rules.base import Game
from nugar.rules.sowing import SowingGame
from rule_sets import not_large, of_family, small


def solve(game: Game, memo: dict[tuple[int, int], int]) -> int:
    """Exact game value for the first player (+1 win, 0 draw, -1 loss) by plain minimax over
    the public API: the independent reference the search is checked against."""
    outcome = game.outcome
    if outcome is not None:
        return 0 if outcome.winner is None else (1 if outcome.winner == 1 else -1)
    key = (game.key, game.to_move)  # type: ignore[attr-defined]
    if key in memo:
        return memo[key]
    values = []
    for a in game.legal_actions():
        game.push_action(a)
        values.append(solve(game, memo))
        game.undo()
    value = max(values) if game.to_move == 1 else min(values)
    memo[key] = value
    return value


# --- the interface ---------------------------------------------------------------------------


class TestSpecs:
    @pytest.mark.parametrize("spec", ["random", "greedy", "alphabeta", "mcts", "random:seed=3",
                                      "alphabeta:depth=6", "mcts:playouts=2000",
                                      "alphabeta:depth=3,time=0.5,nodes=1000",
                                      "greedy:noise=0.5,seed=1", "level:1", "level:8",
                                      "perfect",
                                      "level:5,seed=2" if "greedy" in LEVELS[5] else "level:5"])
    def test_known_specs_build_agents(self, spec: str) -> None:
        agent = make_agent(spec)
        assert isinstance(agent, Agent)
        assert agent.spec

    @pytest.mark.parametrize("spec", ["minimax", "", "level:9", "level:0", "level",
                                      "level:x", "alphabeta:depth=0", "alphabeta:depth=x",
                                      "alphabeta:speed=3", "mcts:playouts=-1",
                                      "random:seed=1,seed=2", "greedy:noise=2",
                                      "alphabeta:time=0"])
    def test_bad_specs_are_rejected_clearly(self, spec: str) -> None:
        with pytest.raises(ValueError) as err:
            make_agent(spec)
        assert str(err.value)

    def test_unknown_agent_names_the_allowed_ones(self) -> None:
        with pytest.raises(ValueError, match="random, greedy, alphabeta, mcts"):
            make_agent("stockfish")

    @pytest.mark.parametrize(("spec", "canonical"), [
        ("alphabeta:seed=2,depth=4,noise=20", "alphabeta:depth=4,noise=20,seed=2"),
        ("alphabeta:nodes=1000000", "alphabeta:nodes=1000000"),  # was 1e+06: unreadable
        ("alphabeta:time=0.50,table=64.0,share=1", "alphabeta:time=0.5,table=64"),
        ("alphabeta:w=100/0/10/30/-30,blunder=0.1", "alphabeta:w=100/0/10/30/-30,blunder=0.1"),
        ("alphabeta:contempt=0,noise=0", "alphabeta"),
        ("mcts:tree=64,c=2,seed=1", "mcts:c=2,seed=1,tree=64"),  # tree was left out
        ("mcts:c=1.4,cutoff=0", "mcts"),
        ("greedy:seed=1,noise=0.5", "greedy:noise=0.5,seed=1"),
        ("random:seed=3", "random:seed=3"),
        ("perfect:swindle=0,memory=256", "perfect"),
        ("perfect:swindle=1,memory=8", "perfect:memory=8,swindle=1"),
    ])
    def test_spec_text_is_canonical_and_builds_a_twin(self, spec: str, canonical: str) -> None:
        """An agent's spec lists the options that differ from the declared defaults, in the
        declared order, each value as it reads back: ``make_agent(agent.spec)`` is a twin."""
        agent = make_agent(spec)
        assert agent.spec == canonical
        twin = make_agent(agent.spec)
        assert twin.spec == canonical
        assert vars(twin)["options"] == vars(agent)["options"]

    @pytest.mark.parametrize(("spec", "parts"), [
        ("alphabeta:speed=3", ["unknown option(s) speed for alphabeta", "depth (int 1..64)",
                               "time (number > 0)", "share (number > 0 and <= 1)",
                               "blunder (number 0..1)"]),
        ("alphabeta:depth=65", ["depth must be 1..64, not 65"]),
        ("mcts:c=-1", ["c must be a number >= 0, not -1"]),
        ("mcts:tree=8", ["tree must be 16.."]),
        ("greedy:noise=x", ["option noise: bad value 'x'; allowed: number 0..1"]),
        ("random:noise=1", ["for random; allowed: seed (int 0.."]),
        ("level:9", ["level must be 1..8, not 9"]),
        ("level:x", ["allowed: int 1..8"]),
        ("level", ["e.g. level:5 (1..8)"]),
    ])
    def test_bad_options_name_what_is_allowed(self, spec: str, parts: list[str]) -> None:
        with pytest.raises(ValueError) as err:
            make_agent(spec)
        message = str(err.value)
        assert message.startswith(f"agent {spec!r}: ") and "\n" not in message
        for part in parts:
            assert part in message

    def test_constructors_take_the_declared_options(self) -> None:
        """One declaration per agent gives the constructor's defaults and keywords too."""
        from nugar.ai.alphabeta import AlphaBetaAgent, AlphaBetaOptions
        from nugar.ai.mcts import MctsAgent, MctsOptions
        from nugar.ai.simple import GreedyAgent, GreedyOptions

        assert AlphaBetaAgent().options == AlphaBetaOptions()
        assert AlphaBetaAgent().spec == "alphabeta"
        agent = AlphaBetaAgent(depth=4, noise=20)
        assert agent.spec == "alphabeta:depth=4,noise=20"
        assert agent.budget == Limits(depth=4)
        assert AlphaBetaAgent(AlphaBetaOptions(depth=4), noise=20).spec == agent.spec
        assert MctsAgent(playouts=50).options == MctsOptions(playouts=50)
        assert GreedyAgent(noise=0.25).spec == "greedy:noise=0.25"
        assert GreedyAgent().options == GreedyOptions()
        with pytest.raises(ValueError, match=r"unknown option\(s\) speed for alphabeta"):
            AlphaBetaAgent(speed=3)
        with pytest.raises(ValueError, match=r"depth must be 1\.\.64, not 0"):
            AlphaBetaAgent(depth=0)
        with pytest.raises(ValueError, match=r"noise must be a number 0\.\.1, not 2"):
            GreedyOptions(noise=2.0)

    def test_the_options_table_of_docs_lists_every_declared_option(self) -> None:
        """docs/ai.md's table of agents names each agent's options: the declared ones."""
        import dataclasses
        from pathlib import Path

        from nugar.ai.alphabeta import AlphaBetaOptions
        from nugar.ai.mcts import MctsOptions
        from nugar.ai.options import AgentOptions
        from nugar.ai.perfect import PerfectOptions
        from nugar.ai.simple import GreedyOptions, RandomOptions

        doc = (Path(__file__).parents[1] / "docs" / "ai.md").read_text(encoding="utf-8")
        rows = {line.split("|")[1].strip(" `"): line.split("|")[3] for line in doc.splitlines()
                if line.startswith("| `")}
        kinds: list[type[AgentOptions]] = [RandomOptions, GreedyOptions, AlphaBetaOptions,
                                           MctsOptions, PerfectOptions]
        for kind in kinds:
            declared = {f.name for f in dataclasses.fields(kind)}
            documented = set(re.findall(r"`(\w+)`", rows[kind.agent]))
            assert documented == declared, kind.agent

    def test_importing_the_agents_stays_light(self) -> None:
        """``import nugar.ai`` loads neither the compiled search nor the solver: those load
        when an agent that needs them is built."""
        code = ("import sys, nugar.ai; print(sorted(m for m in sys.modules if m == 'numba' "
                "or m.startswith(('nugar.solver', 'nugar.ai.perfect', 'nugar.ai.alphabeta'))))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, timeout=120).stdout
        assert out.strip() == "[]"

    def test_levels_cover_one_to_eight(self) -> None:
        assert sorted(LEVELS) == list(range(1, 9))
        for level in LEVELS:
            assert make_agent(f"level:{level}").spec == f"level:{level}"

    @pytest.mark.parametrize("kwargs", [{"time": 0}, {"time": -1.0}, {"depth": 0},
                                        {"nodes": 0}, {"depth": 1.5}, {"time": float("inf")}])
    def test_bad_limits(self, kwargs: dict[str, float]) -> None:
        with pytest.raises(ValueError):
            Limits(**kwargs)  # type: ignore[arg-type]

    def test_limits_merge_takes_the_tighter(self) -> None:
        merged = Limits(time=1.0, depth=5).merged(Limits(time=0.5, nodes=100))
        assert merged == Limits(time=0.5, depth=5, nodes=100)

    def test_finished_game_is_refused(self) -> None:
        game = SowingGame.from_position("kalah", [0] * 6, [1] * 6, (30, 12))
        assert game.is_over
        for spec in ("random", "greedy", "alphabeta:depth=2", "mcts:playouts=10"):
            with pytest.raises(ValueError, match="over"):
                make_agent(spec).choose(game)


# --- legality in random games ----------------------------------------------------------------

AGENT_MIX = ["random:seed=1", "greedy:seed=2", "alphabeta:depth=2", "mcts:playouts=40,seed=3",
             "alphabeta:nodes=3000", "level:1,seed=4"]


# not on the large boards, where the searches of these agents take about a second a rule set
@pytest.mark.parametrize("rules", not_large())
def test_agents_only_return_legal_moves(rules: str) -> None:
    """Agents take turns in one game, each decision checked against the legal moves; the
    game must not be changed by an analysis."""
    game = nugar.new_game(rules)
    agents = [make_agent(s) for s in AGENT_MIX]
    for decision in range(90):
        if game.is_over:
            break
        agent = agents[decision % len(agents)]
        before = (str(game), game.turns())
        analysis = agent.analyse(game, Limits(depth=3, nodes=5000))
        assert isinstance(analysis, Analysis)
        assert (str(game), game.turns()) == before
        assert analysis.move in game.legal_moves(), (agent.spec, str(game))
        assert analysis.pv and analysis.pv[0] == analysis.move
        assert analysis.nodes >= 0 and analysis.seconds >= 0
        game.play(analysis.move)


@pytest.mark.parametrize("rules", ["dara", "kalah", "dracala", "dala"])
def test_search_principal_variation_is_playable(rules: str) -> None:
    game = nugar.new_game(rules)
    rng_agent = make_agent("random:seed=11")
    for _ in range(12):
        game.play(rng_agent.choose(game))
    analysis = make_agent("alphabeta:depth=5").analyse(game)
    copy = game.copy()
    for move in analysis.pv:
        copy.play(move)  # raises if any move of the line is not legal in turn
    assert analysis.depth == 5


def test_perfect_agent_is_reachable_by_name() -> None:
    """``perfect`` (the exact solver of nugar.solver) is built by make_agent and agrees with
    the exhaustive minimax of this file on a small Kalah."""
    game = nugar.new_game("kalah(pits=3,seeds=2)")
    analysis = make_agent("perfect").analyse(game)
    memo: dict[tuple[int, int], int] = {}
    value = solve(game, memo)
    game.play(analysis.move)
    assert solve(game, memo) == value  # the chosen move keeps the exact value


def test_random_agent_is_reproducible_with_a_seed() -> None:
    def moves(seed: int) -> list[str]:
        game = nugar.new_game("dara")
        agent = make_agent(f"random:seed={seed}")
        return [str(agent.choose(game)) for _ in range(1) if not game.is_over] + [
            str(m) for m in _play(game, agent, 20)]

    assert moves(3) == moves(3)
    assert moves(3) != moves(4)


def _play(game: Game, agent: Agent, n: int) -> list[str]:
    out = []
    for _ in range(n):
        if game.is_over:
            break
        move = agent.choose(game)
        game.play(move)
        out.append(str(move))
    return out


def test_greedy_takes_the_capture() -> None:
    """Greedy counts the capture that follows a three: the only step forming one wins a
    piece, every other step wins nothing."""
    game = AlignmentGame.from_diagram("dara", """
        . . . . . .
        . O . . . .
        . . . . . O
        X X . . O .
        . . X . . O""")
    for seed in range(5):
        move = make_agent(f"greedy:seed={seed}").choose(game)
        assert str(move) == "c1-c2"


def test_greedy_prefers_the_store_in_kalah() -> None:
    game = nugar.new_game("kalah")  # hole 3 (4 seeds) ends in the store: one seed and a bonus
    for seed in range(5):
        assert str(make_agent(f"greedy:seed={seed}").choose(game)) == "3"


# --- forced wins -----------------------------------------------------------------------------


def _play_out(game: Game, agent: Agent, opponent: Agent, limit: int) -> None:
    mover = game.to_move
    for _ in range(limit):
        if game.is_over:
            return
        who = agent if game.to_move == mover else opponent
        game.play(who.choose(game))


def test_finds_the_capture_that_wins_dara() -> None:
    """Second player down to three pieces: the step forming a three and its capture win."""
    game = AlignmentGame.from_diagram("dara", """
        . . . . . .
        . . . . . .
        . . . . . O
        X X . . O .
        . . X . . O""")
    analysis = make_agent("alphabeta:depth=3").analyse(game)
    assert str(analysis.move) == "c1-c2"
    assert analysis.score is not None and analysis.score > 9000
    game.play(analysis.move)
    game.play(make_agent("alphabeta:depth=3").choose(game))
    assert game.outcome is not None and game.outcome.winner == 1


def test_finds_the_dala_bull() -> None:
    """c1 stands in the three a1-b1-c1 and stepping to c2 makes c2-d2-e2: it shuttles and
    captures every turn, which beats four scattered pieces before they can block it."""
    game = AlignmentGame.from_diagram("dala", """
        O . O . O .
        . . . . . .
        . . . . . O
        . . . . . .
        . . . X X .
        X X X . . .""")
    agent = make_agent("alphabeta:depth=6")
    analysis = agent.analyse(game)
    assert str(analysis.move) == "c1-c2"
    assert analysis.score is not None and analysis.score > 9000
    _play_out(game, agent, make_agent("alphabeta:depth=4"), 12)
    assert game.outcome is not None and game.outcome.winner == 1
    assert game.outcome.reason == "pieces"


DRACALA_WIN = ("dracala(pits=4,seeds=4)", [3, 4, 3, 4], [4, 0, 0, 1], (2, 2))


def test_finds_a_dracala_forced_sequence() -> None:
    """A small Dracala position (misère: more than half the seeds loses) that the first
    player wins with one move only, checked by exhaustive minimax."""
    rules, holes1, holes2, stores = DRACALA_WIN
    game = SowingGame.from_position(rules, holes1, holes2, stores, to_move=1)
    memo: dict[tuple[int, int], int] = {}
    assert solve(game, memo) == 1
    winning = []
    for a in game.legal_actions():
        game.push_action(a)
        if solve(game, memo) == 1:
            winning.append(a)
        game.undo()
    assert 0 < len(winning) < len(game.legal_actions())
    analysis = make_agent("alphabeta:depth=20").analyse(game)
    assert game.move_to_action(analysis.move) in winning
    assert analysis.score is not None and analysis.score > 9000
    _play_out(game, make_agent("alphabeta:depth=20"), make_agent("alphabeta:depth=20"), 60)
    assert game.outcome is not None and game.outcome.winner == 1


# the small sowing rule sets of more than one hole a side: a forced move is played without a
# search, so the positions asked about must offer a choice
@pytest.mark.parametrize("rules", [rules for rules in small(of_family("sowing"))
                                   if nugar.parse_rules(rules).options.pits > 1])
@pytest.mark.parametrize("seed", range(4))
def test_search_agrees_with_exhaustive_minimax_on_small_boards(rules: str, seed: int) -> None:
    """Deep enough to see the end, the search's verdict equals the exact game value, in
    random positions of the small sowing rule sets."""
    import random

    rng = random.Random(seed)
    pits = nugar.parse_rules(rules).options.pits
    while True:
        holes1 = [rng.randint(0, 3) for _ in range(pits)]
        holes2 = [rng.randint(0, 3) for _ in range(pits)]
        holes1[0] += 1
        holes2[-1] += 1
        game = SowingGame.from_position(rules, holes1, holes2, (0, 0))
        if len(game.legal_moves()) > 1:
            break
    value = solve(game, {})
    analysis = make_agent("alphabeta:depth=40").analyse(game)
    assert analysis.score is not None
    verdict = 0 if abs(analysis.score) < 9000 else (1 if analysis.score > 0 else -1)
    assert verdict == value  # the first player is to move, so his view is the first's
    if value != 0:
        assert abs(analysis.score) > 9000


def test_mcts_takes_an_immediate_win() -> None:
    game = AlignmentGame.from_diagram("dara", """
        . . . . . .
        . . . . . .
        . . . . . O
        X X . . O .
        . . X . . O""")
    agent = make_agent("mcts:playouts=3000,seed=1")
    game.play(agent.choose(game))
    game.play(agent.choose(game))
    assert game.outcome is not None and game.outcome.winner == 1


REPEAT_DIAGRAM = """
    X . . . . O
    . . . . . .
    . . . . . O
    . . . . . .
    X . X . O O"""


def test_a_return_to_an_earlier_position_is_scored_as_a_draw() -> None:
    """The first player is a piece down; after both sides shuttled once, stepping a5-b5
    again returns to a position of the game, which the search scores as a draw (0) and so
    prefers to any losing line. Without that history the same position scores below 0."""
    fresh = AlignmentGame.from_diagram("dara(quiet_limit=off)", REPEAT_DIAGRAM)
    before = make_agent("alphabeta:depth=2").analyse(fresh)
    assert before.score is not None and before.score < 0
    game = AlignmentGame.from_diagram("dara(quiet_limit=off)", REPEAT_DIAGRAM)
    for turn in ["a5-b5", "f5-e5", "b5-a5", "e5-f5"]:
        game.play(turn)
    assert str(game) == str(fresh).replace("last move: -", "last move: e5-f5")
    after = make_agent("alphabeta:depth=2").analyse(game)
    assert after.score == 0.0
    assert str(after.move) == "a5-b5"


# --- compiled and pure paths -----------------------------------------------------------------

_PURE_SCRIPT = textwrap.dedent("""
    import json, random
    import nugar
    from nugar.ai import make_agent
    out = []
    for case in (("kalah(pits=4,seeds=3)", 5, 4),
                                  ("dara(rows=4,cols=4,pieces=5)", 3, 12),
                                  ("dara(rows=4,cols=4,pieces=5)", 3, 12,
                                   "noise=60,contempt=25,seed=4"),
                                  ("kalah(pits=4,seeds=3)", 5, 4, "noise=150,seed=2")):
        rules, depth, opening = case[:3]
        extra = "," + case[3] if len(case) > 3 else ""
        game = nugar.new_game(rules)
        rng = random.Random(7)
        for _ in range(opening):
            game.play(rng.choice(game.legal_moves()))
        a = make_agent(f"alphabeta:depth={depth},table=1{extra}").analyse(game)
        out.append([str(a.move), a.score, a.depth, a.nodes, [str(m) for m in a.pv]])
    print(json.dumps(out))
""")


def _run_search_script(disable_jit: bool) -> list[object]:
    env = dict(os.environ)
    env["NUMBA_DISABLE_JIT"] = "1" if disable_jit else "0"
    done = subprocess.run([sys.executable, "-c", _PURE_SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_compiled_and_pure_python_search_agree() -> None:
    """The same moves, scores, node counts and lines at fixed depth with and without numba."""
    compiled = _run_search_script(False)
    pure = _run_search_script(True)
    assert compiled == pure
    assert len(compiled) == 4


def test_table_size_is_fixed_by_the_option() -> None:
    """The transposition table is allocated once at the configured size and a search never
    replaces or grows it."""
    from nugar.ai.alphabeta import AlphaBetaAgent

    agent = make_agent("alphabeta:table=2,nodes=20000")
    assert isinstance(agent, AlphaBetaAgent)
    game = nugar.new_game("kalah")
    agent.analyse(game)
    (buffers,) = agent._buffers.values()
    keys, data = buffers.tables.tt_keys, buffers.tables.tt_data
    assert keys.nbytes + data.nbytes <= 2 * 1024 * 1024
    assert keys.nbytes + data.nbytes > 1024 * 1024  # the largest power of two that fits
    game.play(agent.choose(game))
    agent.analyse(game)
    (again,) = agent._buffers.values()
    assert again.tables.tt_keys is keys and again.tables.tt_data is data
    assert int((keys != 0).sum()) > 0


def test_the_compiled_search_takes_the_records_members_in_their_order() -> None:
    """``search_root`` hands its records' members to the compiled ``_search_root``, which
    makes them into records again by position: its parameters must be the fields."""
    import inspect

    from nugar.kernels import search_core

    entry = getattr(search_core._search_root, "py_func", search_core._search_root)
    tables = [f for f in search_core.SearchTables._fields if f != "endgames"]
    endgames = [f"eg_{f}" for f in search_core.Endgames._fields]
    assert search_core.SearchTables._fields[-1] == "endgames"
    assert list(inspect.signature(entry).parameters) == [
        *search_core.SearchGame._fields, *tables, *endgames, "root_depth"]


def test_greedy_reverses_the_goal_in_dracala() -> None:
    """Dracala is misère (more than half the seeds loses). On the first step every hole puts
    one seed in the store, but hole 1 ends there and forces another capturing step: greedy
    avoids it in Dracala, and takes it in Kalah with the same seeds."""
    dracala = nugar.new_game("dracala")
    assert len(dracala.legal_moves()) == 6
    dracala.play("1")
    assert dracala.to_move == 1  # the bonus step: more seeds into the store to come
    dracala.undo()
    kalah = nugar.new_game("kalah(seeds=6)")
    for seed in range(6):
        assert str(make_agent(f"greedy:seed={seed}").choose(dracala)) != "1"
        assert str(make_agent(f"greedy:seed={seed}").choose(kalah)) == "1"


@pytest.mark.parametrize("rules", ["dara", "kalah", "dracala", "dala"])
def test_mcts_with_evaluation_cutoff(rules: str) -> None:
    game = nugar.new_game(rules)
    agent = make_agent("mcts:playouts=200,cutoff=8,seed=2")
    for _ in range(6):
        if game.is_over:
            break
        analysis = agent.analyse(game)
        assert analysis.move in game.legal_moves()
        if len(game.legal_moves()) > 1:  # a forced move is played without a search
            assert analysis.score is not None and 0.0 <= analysis.score <= 1.0
            assert analysis.nodes == 200
        game.play(analysis.move)


@pytest.mark.parametrize("rules", ["dara", "dara-sheet", "dala", "dara(rows=7,cols=9)"])
def test_bitboard_evaluation_counts_as_the_square_walk(rules: str) -> None:
    """The one-word evaluation (shifts and bit counts) finds the same mobility, threats,
    bulls and pieces in a three as the walk over every square, in random positions."""
    import random

    import numpy as np

    from nugar.kernels import alignment as kernel
    from nugar.kernels import search_alignment as ev

    checked = 0
    for seed in range(8):
        rng = random.Random(seed)
        game = nugar.new_game(rules)
        params = game.params
        assert params[kernel.P_W] == 1
        runs = np.empty((6, params[kernel.P_N]), dtype=np.int64)
        for _ in range(160):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
            state = game.state
            for player in (1, 2):
                own = int(state[kernel.ST_BOARD + player - 1])
                other = int(state[kernel.ST_BOARD + 2 - player])
                walk = ev._features(params, state, player, runs)
                assert ev._features_one_word(params, own, other) == walk
                checked += 1
    assert checked > 100


def test_alignment_square_classes_open_twos_and_blocked_pieces() -> None:
    """The terms added to the alignment evaluation, counted by hand on a Dala board (6 x 6,
    square ``r * 6 + c``): own pieces on a corner (a1), the edge (b1), the ring (b2) and the
    centre (c3); the opponent on a2 blocks a1 in; c1 and b3 would complete a three."""
    from nugar.kernels import search_alignment as ev

    params = nugar.new_game("dala").params
    own = (1 << 0) | (1 << 1) | (1 << 7) | (1 << 14)
    other = 1 << 6
    counts = ev._features_one_word(params, own, other)
    assert len(counts) == ev.N_COUNTS
    # edge, ring, centre, open twos, blocked
    assert counts[4:] == (1, 1, 1, 2, 1)
    assert [ev._square_class(params, sq) for sq in (0, 1, 7, 14, 21, 35)] == [0, 1, 2, 3, 3, 0]
    assert ev.DARA_WEIGHTS.shape == ev.DALA_WEIGHTS.shape == (ev.N_WEIGHTS,)


def test_alignment_phase_terms() -> None:
    """The terms by phase, on a Dara board (counted by hand): X a2 b2 c1, O d2 e1 f1 and
    e3 f3 d4. X to move threatens c1-c2 (a2 b2 c2); O has five steps that form a three:
    d2-d1 (d1 e1 f1), d4-d3 and d2-d3 (d3 e3 f3), e3-d3 (d2 d3 d4), d2-e2 (e1 e2 e3). Once
    all pieces are on the board the player to move has a capture ready and the opponent
    two or more threats; while pieces are in hand the drop-phase weights repeat mobility,
    threats and bulls and the others count nothing."""
    from nugar.kernels import search_alignment as ev
    from nugar.scale.features import evaluation_features

    diagram = """
        . . . . . .
        . . . O . .
        . . . . O O
        X X . O . .
        . . X . O O"""
    moving = evaluation_features(AlignmentGame.from_diagram("dara", diagram))
    assert moving[ev.W_THREAT_ME] == 1 and moving[ev.W_THREAT_OPP] == -5
    assert moving[ev.W_CAPTURE_NOW] == 1
    assert moving[ev.W_OPP_THREAT] == moving[ev.W_OPP_THREATS] == -1
    assert list(moving[ev.W_DROP_MOBILITY:ev.W_DROP_BULL + 1]) == [0, 0, 0, 0]
    dropping = evaluation_features(AlignmentGame.from_diagram("dara", diagram, in_hand=(2, 1)))
    assert list(dropping[ev.W_DROP_MOBILITY:ev.W_DROP_BULL + 1]) == [
        dropping[ev.W_MOBILITY], 1, -5, dropping[ev.W_BULL]]
    assert list(dropping[ev.W_CAPTURE_NOW:ev.W_OPP_THREATS + 1]) == [0, 0, 0]
    # O to move: one threat of X against him, none of his own counted as X's
    other = evaluation_features(AlignmentGame.from_diagram("dara", diagram, to_move=2))
    assert other[ev.W_CAPTURE_NOW] == 1 and other[ev.W_OPP_THREAT] == -1
    assert other[ev.W_OPP_THREATS] == 0


def test_the_shipped_weights_are_the_recorded_fits() -> None:
    """The presets' alignment weights are the fits kept as data (with the script's settings)
    in ``ai/data/tuned_weights.json``; a fit of fewer terms ends in zeros."""
    from importlib import resources

    from nugar.kernels import search_alignment as ev

    doc = json.loads(resources.files("nugar.ai").joinpath("data/tuned_weights.json")
                     .read_text(encoding="utf-8"))
    for profile, shipped in (("dara", ev.DARA_WEIGHTS), ("dala", ev.DALA_WEIGHTS)):
        tuned = doc[profile]["tuned"]
        assert list(shipped) == tuned + [0] * (ev.N_WEIGHTS - len(tuned)), profile
        assert doc[profile]["tuned_loss"] < doc[profile]["old_loss"]


def test_a_short_weight_list_ends_in_zeros() -> None:
    """``w=`` with the 7 weights of older specs searches as the same 7 followed by zeros;
    a list longer than the evaluation's is refused in one line."""
    import random

    from nugar.kernels import search_alignment as ev

    game = nugar.new_game("dara")
    rng = random.Random(3)
    for _ in range(10):
        game.push_action(rng.choice(game.legal_actions()))
    short = "100/5/3/45/30/30/8"
    padded = short + "/0" * (ev.N_WEIGHTS - 7)
    full = short + "/50/50/50" + "/0" * (ev.N_WEIGHTS - 10)  # drop-phase piece-square terms
    a = make_agent(f"alphabeta:depth=3,w={short}").analyse(game)
    b = make_agent(f"alphabeta:depth=3,w={padded}").analyse(game)
    assert (a.move, a.score, a.nodes) == (b.move, b.score, b.nodes)
    c = make_agent(f"alphabeta:depth=3,w={full}").analyse(game)
    assert c.nodes != b.nodes or c.score != b.score or c.move != b.move
    too_long = "/".join(["1"] * (ev.N_WEIGHTS + 1))
    with pytest.raises(ValueError, match=f"at most {ev.N_WEIGHTS} weights"):
        make_agent(f"alphabeta:depth=1,w={too_long}").analyse(game)


def test_popcount() -> None:
    from nugar.kernels.search_alignment import popcount

    for x in (0, 1, 0b1011, (1 << 62) | 5, (1 << 63) - 1, 0x5555555555555555):
        assert popcount(x) == bin(x).count("1")


def test_level_budgets_grow_from_level_to_level() -> None:
    """Levels 3 to 7 stop at node budgets that grow at least threefold per level; level 8
    has none (all of the time given)."""
    from nugar.ai.agents import LevelAgent

    budgets = []
    for level in range(3, 8):
        agent = make_agent(LEVELS[level])
        nodes = agent.budget.nodes  # type: ignore[attr-defined]
        assert nodes is not None
        budgets.append(nodes)
    assert all(b >= 3 * a for a, b in itertools.pairwise(budgets))
    top = make_agent("level:8")
    assert isinstance(top, LevelAgent)
    assert top.agent_for(nugar.new_game("dara")).budget.nodes is None  # type: ignore[attr-defined]


def test_level_8_plays_dracala_with_the_solver() -> None:
    from nugar.ai.agents import LevelAgent
    from nugar.ai.alphabeta import AlphaBetaAgent
    from nugar.ai.perfect import PerfectAgent

    agent = make_agent("level:8")
    assert isinstance(agent, LevelAgent) and agent.spec == "level:8"
    assert isinstance(agent.agent_for(nugar.new_game("dracala")), PerfectAgent)
    assert isinstance(agent.agent_for(nugar.new_game("kalah")), PerfectAgent)
    assert isinstance(agent.agent_for(nugar.new_game("dara")), AlphaBetaAgent)
    game = nugar.new_game("dracala")
    assert agent.choose(game, Limits(time=5.0)) in game.legal_moves()
    agent.reset()


def test_level_falls_back_to_the_search_when_the_solver_runs_out_of_time() -> None:
    from nugar.ai.agents import LevelAgent, level_spec
    from nugar.ai.perfect import PerfectAgent

    class Unsolved(PerfectAgent):
        """A solver that never finishes in time and knows no book."""

        def book_answer(self, game: Game) -> Analysis | None:
            return None

        def attempt(self, game: Game, time_limit: float | None = None,
                    max_nodes: int | None = None) -> Analysis | None:
            return None

        def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
            move = game.legal_moves()[0]
            return Analysis(move, None, 0, 0, [move], 0.0)

    game = nugar.new_game("dracala")
    agent = LevelAgent(8)
    agent._agents[level_spec(8, game.rules)] = Unsolved(swindle=1)
    agent._fallback = make_agent("alphabeta:depth=3")
    assert agent.analyse(game, Limits(time=30.0)).depth == 3   # the search decided
    assert agent.analyse(game).depth == 0  # no limit at all: the solver alone (Dracala is quick)
