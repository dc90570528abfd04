"""Kalah endgame databases (``nugar.solver.db``) against plain exhaustive search.

The reference values come from the plain Python minimax of ``test_solver.py`` (no kernels,
no table) on every position of tiny boards, and from the solver without a database on
random positions of larger ones; solves with and without a database must agree.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from nugar import new_game
from nugar.cli.solve import main as solve_main
from nugar.kernels.common import HEADER, ST_TO_MOVE
from nugar.rules.options import parse_rules
from nugar.rules.sowing import SowingGame
from nugar.solver import Solver, SolverError, solve
from nugar.solver.core import auto_db_seeds
from nugar.solver.db import UNKNOWN, EndgameDB, binomials, db_index, entries, supported
from solver_oracle import minimax, random_position, vectors


def on_board(game: SowingGame) -> int:
    return sum(map(sum, game.holes))


def db_margin(db: EndgameDB, game: SowingGame) -> int:
    """The database's final margin for the player to move."""
    s1, s2 = game.score
    own = s1 - s2 if game.to_move == 1 else s2 - s1
    return own + db.value(game.state)


@pytest.mark.parametrize("pits,k", [(1, 7), (2, 6), (3, 5)])
def test_index_is_a_bijection_onto_the_array(pits: int, k: int) -> None:
    db = EndgameDB(parse_rules(f"kalah(pits={pits},seeds=1)"), 0)
    binom = binomials(pits, k)
    seen: list[int] = []
    state = new_game(db.rules).state.copy()  # type: ignore[attr-defined]
    for n in range(k + 1):
        for vec in vectors(2 * pits, n):
            for to_move in (1, 2):
                state[:] = 0
                state[ST_TO_MOVE] = to_move
                mine, theirs = (0, pits + 1) if to_move == 1 else (pits + 1, 0)
                for i in range(pits):
                    state[HEADER + mine + i] = vec[i]
                    state[HEADER + theirs + i] = vec[pits + i]
                index = db_index(db.params, binom, state, n)
                if to_move == 1:
                    seen.append(index)
                else:
                    assert index == seen[-1]  # the same entry for either player to move
    assert seen == list(range(entries(pits, k)))  # dense, in the build's order


TINY = [
    ("kalah(pits=1,seeds=1)", 6),
    ("kalah(pits=2,seeds=1)", 6),
    ("kalah(pits=3,seeds=1)", 5),
    ("kalah(pits=2,seeds=1,empty_capture=single)", 6),
    ("kalah(pits=3,seeds=1,empty_capture=single)", 5),
    ("kalah(pits=2,seeds=1,skip_origin=on)", 6),
    ("kalah(pits=3,seeds=1,skip_origin=on,empty_capture=single)", 4),
    ("kalah(pits=2,seeds=1,end=mover_empty)", 6),
    ("kalah(pits=3,seeds=1,end=mover_empty)", 4),
    ("kalah(pits=2,seeds=1,leftovers=last_mover)", 6),
    ("kalah(pits=3,seeds=1,leftovers=last_mover,end=mover_empty)", 4),
]


@pytest.mark.parametrize("rules,k", TINY)
def test_every_position_of_tiny_boards_matches_minimax(rules: str, k: int) -> None:
    db = EndgameDB(parse_rules(rules), k)
    assert db.table is not None and not (db.table == UNKNOWN).any()
    pits = db.pits
    checked = 0
    for n in range(1, k + 1):
        for vec in vectors(2 * pits, n):
            for to_move, stores in ((1, (0, 0)), (2, (3, 1))):
                holes = [list(vec[:pits]), list(vec[pits:])]
                if to_move == 2:
                    holes.reverse()
                game = SowingGame.from_position(rules, holes[0], holes[1], stores, to_move)
                if game.outcome is not None:
                    continue
                first = minimax(game)[1]  # player 1's final margin
                assert db_margin(db, game) == (first if to_move == 1 else -first), (vec, to_move)
                checked += 1
    assert checked > 0


@pytest.mark.parametrize("rules,seed", [
    ("kalah", 1), ("kalah", 2), ("kalah(empty_capture=single)", 3),
    ("kalah(skip_origin=on)", 4), ("kalah(end=mover_empty)", 5),
    ("kalah(pits=5,seeds=5,leftovers=last_mover)", 6),
])
def test_random_positions_match_the_solver_without_database(rules: str, seed: int) -> None:
    db = EndgameDB(parse_rules(rules), 10)
    plain = Solver(rules, max_memory_mb=8, db_seeds=0)
    rng = random.Random(seed)
    for k in range(8):
        game = random_position(rules, rng.randint(4, 10), seed * 100 + k)
        if game.outcome is not None:
            continue
        assert db_margin(db, game) == plain.solve(game).margin
        if k < 3 and on_board(game) <= 8:  # and the plain Python minimax
            first = minimax(game)[1]
            assert db_margin(db, game) == (first if game.to_move == 1 else -first)


@pytest.mark.parametrize("rules", [
    "kalah(pits=4,seeds=2)", "kalah(pits=3,seeds=4,empty_capture=single)",
    "kalah(pits=4,seeds=2,skip_origin=on)", "kalah(pits=3,seeds=3,end=mover_empty)",
    "kalah(pits=3,seeds=3,leftovers=last_mover)",
])
def test_solves_with_and_without_database_agree(rules: str) -> None:
    plain = solve(rules, max_memory_mb=8, db_seeds=0)
    assert plain.db_hits == 0 and plain.db_seeds == 0
    total = sum(map(sum, new_game(rules).holes))  # type: ignore[attr-defined]
    for k in (3, 8, total - 1, total):
        s = solve(rules, max_memory_mb=8, db_seeds=k)
        assert (s.value, s.result, s.margin) == (plain.value, plain.result, plain.margin)
        assert s.db_seeds == k and s.db_hits > 0


def test_late_position_solved_through_the_database() -> None:
    game = random_position("kalah", 20, 7)
    plain = solve(game, max_memory_mb=16, db_seeds=0)
    with_db = solve(game, max_memory_mb=16, db_seeds=10)
    assert with_db.value == plain.value and with_db.db_hits > 0
    for turn in with_db.pv_turns:  # the principal variation still replays to its score
        game.play(turn)
    assert game.score == with_db.final


def test_unsupported_rules_get_no_database() -> None:
    for rules in ("dracala", "kalah(leftovers=last_capturer)", "dracala(pits=3,seeds=2)"):
        assert not supported(parse_rules(rules))
        assert auto_db_seeds(parse_rules(rules)) == 0
        assert Solver(rules, max_memory_mb=1).db_seeds == 0
        with pytest.raises(SolverError, match="no endgame database"):
            Solver(rules, max_memory_mb=1, db_seeds=4)
    with pytest.raises(SolverError, match="db_seeds"):
        Solver("kalah", max_memory_mb=1, db_seeds=-1)
    assert auto_db_seeds(parse_rules("kalah(pits=2,seeds=2)")) == 0  # too small to pay


def test_database_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    rules = parse_rules("kalah(pits=3,seeds=3,empty_capture=single)")
    built = EndgameDB(rules, 8, cache=True)
    assert built.loaded_from is None
    files = list((tmp_path / "nugar").glob("*.npy"))
    assert len(files) == 1 and not list((tmp_path / "nugar").glob("*.tmp"))
    again = EndgameDB(parse_rules("kalah(pits=3,seeds=5,empty_capture=single)"), 8, cache=True)
    assert again.loaded_from == files[0]  # the seeds per hole play no part
    assert built.table is not None and again.table is not None
    assert np.array_equal(built.table, again.table)
    other = EndgameDB(parse_rules("kalah(pits=3,seeds=3)"), 8, cache=True)
    assert other.loaded_from is None  # another option: another database


def test_cli_db_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert solve_main(["kalah(pits=3,seeds=3)", "--json", "--memory", "4",
                       "--db-seeds", "6"]) == 0
    data = json.loads(capsys.readouterr().out)
    plain = solve("kalah(pits=3,seeds=3)", max_memory_mb=4, db_seeds=0)
    assert (data["value"], data["db_seeds"]) == (plain.value, 6) and data["db_hits"] > 0
    assert solve_main(["kalah(pits=3,seeds=3)", "--db-seeds", "-2"]) == 2
    assert "db-seeds" in capsys.readouterr().err
    assert solve_main(["dracala", "--db-seeds", "4"]) == 2
    assert "no endgame database" in capsys.readouterr().err


def test_every_level_has_a_value_for_each_position() -> None:
    db = EndgameDB(parse_rules("kalah(pits=4,seeds=2)"), 7)
    assert db.table is not None
    assert db.nbytes == entries(4, 7) == db.table.shape[0]
    assert int(np.abs(db.table.astype(np.int64)).max()) <= 7
    assert not (db.table == UNKNOWN).any()
