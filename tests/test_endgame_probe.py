"""The alpha-beta search probing the endgame tables below its root (``kernels/endgames.py``,
``search_core._endgame_leaf``): Dara's tablebases and Kalah's databases, built tiny here.

Dara: tables up to 5 pieces are probed, tables up to 6 pieces (built apart) give the exact
value of the positions of one piece more. Kalah: a database of a few seeds is probed, the
solver without a database gives the exact values.
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import nugar
from nugar.ai import Limits, endgame, make_agent
from nugar.ai.search_setup import SearchBuffers, kernels_for, turn_start_keys
from nugar.kernels import alignment as al
from nugar.kernels import endgames as eg
from nugar.kernels import search_core
from nugar.rules.base import Game
from nugar.solver import egdb
from nugar.solver import tablebase as tb
from nugar.solver.core import Solver

DARA = "dara(rows=4,cols=4,loss_at=1,quiet_limit=off)"
DARA_QUIET = "dara(rows=4,cols=4,loss_at=1,quiet_limit=30)"   # the same tables
PROBED = 5      # pieces of the tables the search probes
KALAH = "kalah(pits=4,seeds=3)"
REACH = 8       # seeds on the board of the Kalah database probed


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(tables up to 5 pieces, tables up to 6 pieces), in two data folders."""
    full = tmp_path_factory.mktemp("tb-full")
    tb.build(nugar.parse_rules(DARA), PROBED + 1, root=full)
    small = tmp_path_factory.mktemp("tb-small")
    source = tb.tb_directory(nugar.parse_rules(DARA), full)
    target = tb.tb_directory(nugar.parse_rules(DARA), small)
    target.mkdir(parents=True)
    for path in source.glob("m*-*.tb"):
        a, b = (int(x) for x in path.stem[1:].split("-"))
        if a + b <= PROBED:
            shutil.copy(path, target / path.name)
    return small, full


@pytest.fixture()
def data_dir(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Point the data folder at ``root`` with the endgame caches emptied (each rule set's
    tables are otherwise opened once per process)."""
    def use(root: Path) -> None:
        monkeypatch.setenv("NUGAR_DATA_DIR", str(root))
        monkeypatch.setattr(endgame, "_tables", {})
        monkeypatch.setattr(endgame, "_records", {})
        monkeypatch.setattr(endgame, "_open", {})

    return use


def _position(rng: random.Random, rules: str, m: int, o: int) -> Game:
    """A random running movement-phase position of ``m`` pieces of the side to move
    against ``o`` on the 4x4 board."""
    while True:
        squares = rng.sample(range(16), m + o)
        mover = sum(1 << q for q in squares[:m])
        other = sum(1 << q for q in squares[m:])
        game = tb.game_of(nugar.parse_rules(rules), mover, other, rng.choice((1, 2)))
        if game.outcome is None:
            return game


def _search(game: Game, endgames: eg.Endgames, depth: int) -> tuple[int, int, int]:
    """A depth-``depth`` alpha-beta search of ``game`` probing ``endgames``: (score, nodes,
    nodes the tables settled)."""
    fam = kernels_for(game)
    buf = SearchBuffers(game.state.shape[0], fam.n_actions, 1, endgames)
    buf.new_search(turn_start_keys(game), None)
    buf.tables.stack[0] = game.state
    score = search_core.search_root(fam, buf.tables, depth)
    ctx = buf.tables.ctx
    return int(score), int(ctx[search_core.CX_NODES]), int(ctx[search_core.CX_ENDGAME])


def test_the_search_probes_the_same_entries_as_the_tables(roots: tuple[Path, Path]) -> None:
    """The compiled probe reads every position's entry as ``Tablebase.probe`` does, and
    nothing where no table is built."""
    small, _ = roots
    base = tb.Tablebase(nugar.parse_rules(DARA), small)
    record = base.endgames()
    assert record.kind == eg.EG_TABLEBASE and record.reach == PROBED
    rng = random.Random(1)
    for m, o in [(2, 2), (3, 2), (2, 3), (4, 2), (3, 3)]:
        for _ in range(40):
            game = _position(rng, DARA, m, o)
            code = eg.tablebase_code(record, game.params, game.state)
            if m + o > PROBED:
                assert code == -1
            else:
                assert tb.Entry.unpack(code) == base.probe(game)
    assert tb.Tablebase(nugar.parse_rules(DARA), small / "none").endgames().kind == eg.EG_NONE


def test_children_of_the_root_score_their_exact_values(roots: tuple[Path, Path]) -> None:
    """From a position in the tables a one-decision search (and the captures a step owes)
    reaches only table positions: its score is the root's exact value, a win or a loss at
    the tables' distance (one more when the best turn captures: the search counts a capture
    as a decision of its own), a draw 0."""
    small, _ = roots
    base = tb.Tablebase(nugar.parse_rules(DARA), small)
    record = base.endgames()
    rng = random.Random(2)
    seen = {1: 0, 0: 0, -1: 0}
    for m, o in [(3, 2), (2, 3), (2, 2)]:
        for _ in range(60):
            game = _position(rng, DARA, m, o)
            entry = base.probe(game)
            assert entry is not None
            score, _, probes = _search(game, record, 1)
            assert probes > 0
            seen[entry.value] += 1
            if entry.value == 0:
                assert score == 0, game.position_text()
            else:
                assert np.sign(score) == entry.value, game.position_text()
                assert search_core.WIN - abs(score) in (entry.plies, entry.plies + 1)
    assert min(seen.values()) > 0


def test_one_piece_more_than_the_tables(roots: tuple[Path, Path]) -> None:
    """From positions of one piece more than the tables hold, the search probes them, and
    every forced result it finds is the exact value (the larger tables'); with them it finds
    more forced results than without them at the same depth."""
    small, full = roots
    probed = tb.Tablebase(nugar.parse_rules(DARA), small).endgames()
    truth = tb.Tablebase(nugar.parse_rules(DARA), full)
    rng = random.Random(3)
    forced = plain_forced = hits = 0
    for m, o in [(3, 3), (4, 2), (2, 4)] * 10:
        game = _position(rng, DARA, m, o)
        exact = truth.probe(game)
        assert exact is not None
        score, _, probes = _search(game, probed, 4)
        plain, _, none = _search(game, eg.NO_ENDGAMES, 4)
        assert none == 0
        hits += probes
        if abs(score) > search_core.WIN_BOUND:
            forced += 1
            assert np.sign(score) == exact.value, game.position_text()
            if exact.value > 0:
                assert search_core.WIN - score >= exact.plies   # never sooner than exact
        plain_forced += abs(plain) > search_core.WIN_BOUND
    assert hits > 0
    assert forced > plain_forced


def test_a_win_beyond_the_quiet_limit_is_a_draw(roots: tuple[Path, Path]) -> None:
    """A won or lost table position whose next capture comes after the quiet limit, counted
    from the position's counter, is probed as a draw; one whose capture fits keeps its
    value."""
    small, _ = roots
    record = tb.Tablebase(nugar.parse_rules(DARA_QUIET), small).endgames()
    base = tb.Tablebase(nugar.parse_rules(DARA_QUIET), small)
    rng = random.Random(4)
    checked = 0
    while checked < 20:
        game = _position(rng, DARA_QUIET, 3, 2)
        entry = base.probe(game)
        assert entry is not None
        if entry.value == 0:
            continue
        state = game.state.copy()
        state[al.ST_QUIET] = 30 - entry.to_capture
        assert eg.tablebase_probe(record, game.params, state) == (True, entry.value,
                                                                   entry.plies)
        state[al.ST_QUIET] += 1
        assert eg.tablebase_probe(record, game.params, state) == (True, 0, entry.plies)
        checked += 1
    assert eg.tablebase_probe(record, nugar.new_game(DARA_QUIET).params,
                              nugar.new_game(DARA_QUIET).state)[0] is False


def test_level_8_never_loses_a_position_one_piece_above_the_tables(
        roots: tuple[Path, Path], data_dir: Callable[[Path], None]) -> None:
    """Level 8 with the tables up to 5 pieces on disk, against level 8's search without
    them, from 6-piece positions the larger tables call won or drawn for level 8: it loses
    none of them (it plays by its search, which probes the tables, until a capture brings
    the game into them, then by the tables)."""
    small, full = roots
    truth = tb.Tablebase(nugar.parse_rules(DARA_QUIET), full)
    data_dir(small)
    level8 = make_agent("level:8")
    plain = make_agent("alphabeta:contempt=30")
    limits = Limits(nodes=3000)
    rng = random.Random(5)
    played = {1: 0, 0: 0}
    won = 0
    while min(played.values()) < 3:
        game = _position(rng, DARA_QUIET, 3, 3)
        exact = truth.probe(game)
        assert exact is not None
        if exact.value < 0 or played[exact.value] >= 3:
            continue
        me = game.to_move
        turns = 0
        while game.outcome is None and turns < 80:
            mover = game.to_move
            game.play((level8 if mover == me else plain).choose(game, limits))
            turns += game.to_move != mover
        winner = None if game.outcome is None else game.outcome.winner
        assert winner != 3 - me, game.position_text()
        won += exact.value > 0 and winner == me
        played[exact.value] += 1
    assert won > 0


def test_the_level_8_search_opens_the_tables_on_disk(roots: tuple[Path, Path],
                                                     data_dir: Callable[[Path], None]) -> None:
    """``alphabeta:probe=1`` (level 8's search) finds the tables under the data folder;
    without ``probe`` or without tables the search is the plain one, node for node."""
    small, _ = roots
    rng = random.Random(6)
    game = _position(rng, DARA, 3, 3)
    data_dir(small / "empty")
    assert endgame.endgames_for(game) is eg.NO_ENDGAMES
    without = make_agent("alphabeta:probe=1").analyse(game, Limits(depth=4)).nodes
    assert without == make_agent("alphabeta").analyse(game, Limits(depth=4)).nodes
    data_dir(small)
    assert endgame.endgames_for(game).kind == eg.EG_TABLEBASE
    assert nugar.parse_rules("dara").ai_profile.levels[8].endswith("probe=1")


# --- Kalah ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kalah_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("egdb")
    egdb.build(nugar.parse_rules(KALAH), REACH, root=root, workers=1)
    return root


def test_kalah_search_within_the_databases_plays_the_solvers_moves(
        kalah_root: Path, data_dir: Callable[[Path], None]) -> None:
    """Where the databases cover a position, a one-step search probing them scores it by
    its exact final margin (the solver's value) and plays a step the solver rates
    optimal; above their reach it probes them at its leaves."""
    data_dir(kalah_root)
    agent = make_agent("alphabeta:probe=1,depth=1")
    deeper = make_agent("alphabeta:probe=1,depth=3")
    solver = Solver(KALAH, max_memory_mb=8, db_seeds=0)
    rng = random.Random(7)
    checked = above = 0
    from nugar.kernels import sowing

    for _ in range(12):
        game = nugar.new_game(KALAH)
        while game.outcome is None:
            on = sowing.seeds_on_board(4, game.state)
            if on <= REACH:
                got = agent.analyse(game)
                exact = solver.solve(game)
                assert got.score == exact.value, game.position_text()
                best = solver.best_actions(game.state, exact.value)
                assert game.move_to_action(got.move) in best, game.position_text()
                checked += 1
            elif on <= REACH + 3:
                record = endgame.endgames_for(game)
                assert record.kind == eg.EG_DATABASE and record.reach == REACH
                _, _, probes = _search(game, record, 3)
                above += probes > 0
                assert game.move_to_action(deeper.analyse(game).move) in game.legal_actions()
            game.push_action(rng.choice(game.legal_actions()))
    assert checked > 30 and above > 0


def test_kalah_level_8_falls_back_on_the_probing_search() -> None:
    """Level 8 of Kalah and Dracala falls back on a search that probes the databases."""
    from nugar.ai.agents import SOLVER_FALLBACK, LevelAgent
    from nugar.ai.alphabeta import AlphaBetaAgent

    fallback = LevelAgent(8)._fallback_agent()
    assert SOLVER_FALLBACK.endswith("probe=1")
    assert isinstance(fallback, AlphaBetaAgent) and fallback.options.probe == 1


def test_kalah_level_8_without_the_solvers_databases_searches_with_the_small_ones(
        kalah_root: Path, data_dir: Callable[[Path], None]) -> None:
    """Level 8 of a Kalah board whose perfect play needs databases not built (no time
    limit: it does not wait for the solver) searches, and its search probes the databases
    that are built: near the end its score is the exact value."""
    from nugar.ai.agents import LevelAgent
    from nugar.kernels import sowing

    data_dir(kalah_root)
    text = "kalah(pits=4,seeds=5)"          # 40 seeds: the solver wants its databases
    agent = LevelAgent(8)
    solver = Solver(text, max_memory_mb=8, db_seeds=0)
    rng = random.Random(9)
    checked = 0
    for _ in range(4):
        game = nugar.new_game(text)
        while game.outcome is None and sowing.seeds_on_board(4, game.state) > REACH:
            game.push_action(rng.choice(game.legal_actions()))
        if game.outcome is None:
            got = agent.analyse(game, Limits(depth=2))
            assert got.score == solver.solve(game).value, game.position_text()
            checked += 1
    assert checked > 0
