"""The analysis of a Dara game that reaches the endgame tablebases: every position the tables
cover is exact from them (the entry of ``Tablebase.probe``, the value on the scale of a forced
result), its marks are exact (a blunder exactly where the turn changed the tables' result),
in the analyser and in the JSON of the web API."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

import nugar
from nugar.ai.analysis import WIN_CAP, WIN_SCORE, GameAnalyser, PlyAnalysis, analyse_game
from nugar.record import dumps
from nugar.rules import Game
from nugar.server import create_app
from nugar.server.config import ServerConfig
from nugar.solver import tablebase as tb

#: 3 pieces a side on a 4x4 board: once all are dropped, every position is in the 6-piece
#: tables (a quiet limit of its own: the analyser's tables are looked up by this text)
RULES = "dara(rows=4,cols=4,loss_at=1,pieces=3,quiet_limit=40)"
NODES = 500


def _game(seed: int, turns: int = 40) -> Game:
    rng = random.Random(seed)
    game = nugar.new_game(RULES)
    while not game.is_over and len(game.turn_list()) < turns:
        game.play(rng.choice(game.legal_moves()))
    return game


def _positions(game: Game) -> list[Game]:
    """The start and the position after each turn."""
    line = nugar.new_game(RULES)
    out = [line.copy()]
    for _, moves in game.turn_list():
        for m in moves:
            line.play(m)
        out.append(line.copy())
    return out


def _result(game: Game) -> int | None:
    """A finished game's result for the first player (``None``: running)."""
    if game.outcome is None:
        return None
    return 0 if game.outcome.winner is None else 1 if game.outcome.winner == 1 else -1


def _check(plies: list[PlyAnalysis], game: Game, base: tb.Tablebase) -> int:
    """Every ply against the tables' entries; the number of plies they cover."""
    positions = _positions(game)
    assert len(plies) == len(positions)
    covered = 0
    results: list[int | None] = []
    for p, pos in zip(plies, positions, strict=True):
        e = base.probe(pos)
        if e is None:
            assert p.tablebase is None
            results.append(_result(pos))
            continue
        covered += 1
        me = pos.to_move
        assert p.tablebase == {"to_move": me, "value": e.value, "plies": e.plies,
                               "to_capture": e.to_capture}
        sign = 1 if me == 1 else -1
        assert p.eval == (0.0 if e.value == 0 else sign * e.value * (WIN_SCORE - e.plies))
        results.append(sign * e.value)
    for k, p in enumerate(plies[1:], start=1):
        before, after = results[k - 1], results[k]
        if plies[k - 1].tablebase is None or (after is None):
            continue
        # both exact: the mark is exactly the change of the tables' result for the mover
        assert p.exact
        sign = 1 if p.player == 1 else -1
        drop = max(0, sign * (before - after))  # type: ignore[operator]
        assert p.loss == (0.0 if p.move == p.best else WIN_CAP * drop), p
        assert (p.mark == "blunder") == (drop > 0 and p.move != p.best)
        assert p.mark in (None, "blunder")
        if p.move == p.best:
            assert drop == 0   # the tables' best turn keeps the result
    return covered


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tb-analysis")
    tb.build(nugar.parse_rules(RULES), 6, root=folder)
    return folder


def test_the_analyser_reads_the_tables(root: Path) -> None:
    base = tb.Tablebase(nugar.parse_rules(RULES), root)
    covered = blunders = 0
    for seed in range(4):
        game = _game(seed)
        plies = GameAnalyser(game, nodes=NODES, tablebase=base).run()
        covered += _check(plies, game, base)
        blunders += sum(p.mark == "blunder" and p.tablebase is not None for p in plies)
        # the drops are the search's; the tables cover every position after them
        assert all(p.tablebase is None and not p.exact for p in plies[:6])
        assert all(p.tablebase is not None for p in plies[6:] if not _positions(game)[p.ply]
                   .is_over)
        # each line read from the tables is a line of legal turns, the best turn first
        for p in plies[7:]:
            if plies[p.ply - 1].tablebase is not None:
                assert p.pv and p.pv[0] == p.best
    assert covered > 100 and blunders > 0


def test_the_web_analysis_shows_the_tables(root: Path, db_url: str) -> None:
    """The server reads the tables built under the user's data folder (``NUGAR_DATA_DIR``):
    its JSON holds every covered position's entry, equal to ``Tablebase.probe``."""
    rules = nugar.parse_rules(RULES)
    tb.build(rules, 6)   # in the user's data folder, before the server's first probe
    base = tb.Tablebase(rules)
    game = _game(5)
    cfg = ServerConfig(db_url, ai_time=0.05, rate=None, work_rate=None, analysis_nodes=NODES)
    with TestClient(create_app(cfg)) as c:
        r = c.post("/api/replay/analysis", json={"record": dumps(game)})
        assert r.status_code == 202, r.text
        key = r.json()["id"]
        end = time.monotonic() + 120
        data: dict[str, Any] = {}
        while time.monotonic() < end:
            data = c.get(f"/api/replay/analysis/{key}").json()
            if data["done"]:
                break
            time.sleep(0.05)
    assert data["done"], data
    assert data["plies"] == [p.to_json() for p in analyse_game(game, nodes=NODES)]
    plies = [PlyAnalysis(**p) for p in data["plies"]]
    assert _check(plies, game, base) > 10
    assert any(p["tablebase"] is not None and p["exact"] for p in data["plies"])
