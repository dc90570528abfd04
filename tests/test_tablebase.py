"""Dara and Dala endgame tablebases (``nugar.solver.tablebase``), checked without the builder.

Tiny tables are built (small boards, ``loss_at`` lowered so that few pieces are an endgame)
and their entries are checked through the public ``Game`` API alone: every position's value
and distances agree with those one turn later, and on a 3x3 board with a plain exhaustive
search over every position.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

import nugar
from nugar.cli.solve import main as solve_main
from nugar.rules.base import Game
from nugar.solver import tablebase as tb


def _text(rules: str, rows: int, cols: int, black: set[int], white: set[int],
          to_move: str) -> str:
    grid = "/".join("".join("b" if r * cols + c in black else "w" if r * cols + c in white
                            else "." for c in range(cols)) for r in range(rows))
    return f"{rules} {grid} {to_move} hand=0,0"


def _random_position(rng: random.Random, rules: str, rows: int, cols: int, m: int,
                     o: int) -> Game:
    squares = rng.sample(range(rows * cols), m + o)
    black, white = set(squares[:m]), set(squares[m:])
    if rng.random() < 0.5:
        return nugar.from_position(_text(rules, rows, cols, black, white, "b"))
    return nugar.from_position(_text(rules, rows, cols, white, black, "w"))


def _turns(game: Game) -> list[tuple[Game, bool]]:
    """Every turn of ``game`` through the Game API: the position after it and whether it
    captured."""
    me = game.to_move
    out = []
    for move in game.legal_moves():
        after = game.copy()
        after.play(move)
        if after.outcome is None and after.to_move == me:   # a capture is owed
            for cap in after.legal_moves():
                done = after.copy()
                done.play(cap)
                out.append((done, True))
        else:
            out.append((after, False))
    return out


def _expected(base: tb.Tablebase, game: Game) -> tuple[int, int, int]:
    """(value, plies, to_capture) from the entries one turn later, by their definition."""
    me = game.to_move
    wins: list[tuple[int, int]] = []
    losses: list[tuple[int, int]] = []
    draw = False
    for child, captured in _turns(game):
        if child.outcome is not None:
            if child.outcome.winner is None:
                draw = True
            elif child.outcome.winner == me:
                wins.append((1, 1))
            else:
                losses.append((1, 1))
            continue
        e = base.probe(child)
        assert e is not None
        if e.value < 0:
            wins.append((e.plies + 1, 1 if captured else e.to_capture + 1))
        elif e.value > 0:
            losses.append((e.plies + 1, 1 if captured else e.to_capture + 1))
        else:
            draw = True
    if wins:
        return 1, min(w[0] for w in wins), min(w[1] for w in wins)
    if draw:
        return 0, 0, 0
    return -1, max(x[0] for x in losses), max(x[1] for x in losses)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tb")


SMALL = [
    ("dara(rows=3,cols=3,loss_at=1)", 3, 3, 5),
    ("dara(rows=3,cols=3,loss_at=1,blocked=lose,protect_threes=off)", 3, 3, 5),
    ("dala(rows=2,cols=4,loss_at=1)", 2, 4, 5),
]


@pytest.mark.parametrize(("rules", "rows", "cols", "pieces"), SMALL)
def test_against_exhaustive_search(root: Path, rules: str, rows: int, cols: int,
                                   pieces: int) -> None:
    """Every position of every material against a plain search over the Game API."""
    rule_set = nugar.parse_rules(rules)
    tb.build(rule_set, pieces, root=root)
    base = tb.Tablebase(rule_set, root)
    n = rows * cols
    nodes: dict[str, Game] = {}
    for m, o in base.geo.materials(pieces):
        for black in _subsets(n, m):
            for white in _subsets(n, o):
                if black & white:
                    continue
                for to_move, sides in (("b", (black, white)), ("w", (white, black))):
                    g = nugar.from_position(_text(rules, rows, cols, *sides, to_move))
                    if g.outcome is None:
                        nodes[_key(g)] = g
    succ = {k: [(_key(c), c.outcome, c.to_move) for c, _ in _turns(g)]
            for k, g in nodes.items()}
    value: dict[str, tuple[int, int]] = {}
    level = 0
    while True:
        level += 1
        new: dict[str, tuple[int, int]] = {}
        for k, moves in succ.items():
            if k in value:
                continue
            me = nodes[k].to_move
            win = False
            all_won = True   # every turn leads to a win of the opponent
            longest = 0
            for child, outcome, _ in moves:
                if outcome is not None:
                    if outcome.winner == me and level == 1:
                        win = True
                    if outcome.winner == me or outcome.winner is None:
                        all_won = False
                    continue
                known = value.get(child)
                if known is not None and known[0] < 0 and known[1] == level - 1:
                    win = True
                if known is None or known[0] < 0:
                    all_won = False
                else:
                    longest = max(longest, known[1] + 1)
            if win:
                new[k] = (1, level)
            elif all_won and longest == level:
                new[k] = (-1, level)
        if not new and level > 1:
            break
        value.update(new)
    assert any(v[0] > 0 and v[1] > 1 for v in value.values())
    checked = 0
    for k, g in nodes.items():
        e = base.probe(g)
        assert e is not None
        want = value.get(k, (0, 0))
        assert (e.value, e.plies) == want, k
        checked += 1
    assert checked == len(nodes) > 500


def _key(game: Game) -> str:
    """The board and the player to move of a position text (not its counters)."""
    return " ".join(game.position_text().split()[1:3])


def _subsets(n: int, k: int) -> list[set[int]]:
    from itertools import combinations
    return [set(c) for c in combinations(range(n), k)]


@pytest.mark.parametrize(("rules", "rows", "cols", "m", "o"), [
    ("dara(rows=4,cols=5,loss_at=1)", 4, 5, 3, 2),
    ("dara(rows=4,cols=5,loss_at=1)", 4, 5, 2, 3),
    ("dala(rows=4,cols=4,loss_at=1)", 4, 4, 3, 2),
    ("dala(rows=4,cols=4,loss_at=1)", 4, 4, 3, 3),
])
def test_one_turn_later(root: Path, rules: str, rows: int, cols: int, m: int, o: int) -> None:
    """Random positions: value and distances agree with the entries one turn later."""
    rule_set = nugar.parse_rules(rules)
    tb.build(rule_set, m + o, root=root)
    base = tb.Tablebase(rule_set, root)
    rng = random.Random(f"{rules} {m} {o}")
    seen = {1: 0, 0: 0, -1: 0}
    for _ in range(150):
        game = _random_position(rng, rules, rows, cols, m, o)
        if game.outcome is not None:
            continue
        e = base.probe(game)
        assert e is not None
        assert (e.value, e.plies, e.to_capture) == _expected(base, game), \
            game.position_text()
        seen[e.value] += 1
    assert seen[1] + seen[-1] > 0


def test_symmetric_positions_agree(root: Path) -> None:
    """A position and its mirror images have the same entry and the same number of turns."""
    rules = "dala(rows=4,cols=4,loss_at=1)"
    base = tb.Tablebase(nugar.parse_rules(rules), root)
    tb.build(base.rules, 5, root=root)
    perms = tb.symmetries(4, 4)
    assert len(perms) == 8 and len(tb.symmetries(5, 6)) == 4
    rng = random.Random(5)
    for _ in range(50):
        squares = rng.sample(range(16), 5)
        black, white = set(squares[:3]), set(squares[3:])
        entries = set()
        for p in perms:
            g = nugar.from_position(_text(rules, 4, 4, {p[s] for s in black},
                                          {p[s] for s in white}, "b"))
            entries.add((base.probe(g), len(g.legal_moves())))
        assert len(entries) == 1


def test_refusals(root: Path) -> None:
    with pytest.raises(tb.TablebaseError, match="no_return"):
        tb.Tablebase(nugar.parse_rules("dara-sheet"), root)
    with pytest.raises(tb.TablebaseError, match="alignment"):
        tb.Tablebase(nugar.parse_rules("kalah"), root)
    base = tb.Tablebase(nugar.parse_rules("dara(rows=4,cols=4,loss_at=1)"), root)
    assert base.probe(nugar.new_game("dara(rows=4,cols=4,loss_at=1)")) is None


def test_files_checked_and_resumed(tmp_path: Path) -> None:
    rules = nugar.parse_rules("dara(rows=3,cols=4,loss_at=1)")
    first = tb.build(rules, 5, root=tmp_path)
    assert [r.status for r in first] == ["built", "built"]
    again = tb.build(rules, 5, root=tmp_path)
    assert [r.status for r in again] == ["kept", "kept"]
    path = tb.table_path(tb.tb_directory(rules, tmp_path), 3, 2)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    assert tb.read_table(tb.Geometry(rules), path.parent, 3, 2) is None
    assert [r.status for r in tb.build(rules, 5, root=tmp_path)] == ["kept", "built"]


def test_cli_build_and_position(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rules = "dara(rows=4,cols=4,loss_at=1)"
    assert solve_main([rules, "--build-tb", "5", "--db-dir", str(tmp_path), "--quiet"]) == 0
    capsys.readouterr()
    text = _text(rules, 4, 4, {0, 1, 5}, {10, 15}, "b")
    assert solve_main([rules, "--position", text, "--json", "--db-dir", str(tmp_path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"value", "plies", "to_capture", "best"}
    best = out["best"][0]
    assert (best["value"], best["plies"]) == (out["value"], out["plies"])
    game = nugar.from_position(text)
    assert len(out["best"]) >= len(game.legal_moves())
    for choice in out["best"]:
        game.copy().play(choice["move"])
    lines = tmp_path / "positions.txt"
    lines.write_text(f"{text}\n{rules} ..../..../..../.... b hand=0,0\nnonsense\n")
    assert solve_main([rules, "--positions", str(lines), "--db-dir", str(tmp_path)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[0] == out and "error" in rows[1] and "error" in rows[2] and len(rows) == 3
    from nugar.cli.main import main as nugar_main

    assert nugar_main(["analyse", "dara", "--exact", "--json"]) == 1   # pieces in hand
    assert "not a tablebase position" in capsys.readouterr().err
    small = "dara(rows=4,cols=4,loss_at=1,pieces=3)"
    tb.build(nugar.parse_rules(small), 6)           # in the user's data folder
    turns = ["a1", "d4", "b2", "c3", "a3", "d2"]
    assert nugar_main(["analyse", small, *turns, "--exact", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    game = nugar.new_game(small)
    for t in turns:
        game.play(t)
    e = tb.Tablebase(nugar.parse_rules(small)).probe(game)
    assert e is not None and (out["value"], out["plies"]) == (e.value, e.plies)
    assert solve_main(["dara-sheet", "--position", "dara-sheet ....../....../....../"
                       "....../..bbb. w hand=0,0", "--json"]) == 2


@pytest.mark.skipif(not os.environ.get("NUGAR_TB_CHECK"),
                    reason="set NUGAR_TB_CHECK=RULES:PIECES:COUNT:DIR to check tables built "
                           "under DIR")
def test_built_tables_one_turn_later() -> None:
    """The tables built on disk (``nugar solve RULES --build-tb PIECES --db-dir DIR``):
    COUNT random positions of each material agree with the entries one turn later."""
    text, pieces, count, folder = os.environ["NUGAR_TB_CHECK"].split(":")
    base = tb.Tablebase(nugar.parse_rules(text), Path(folder))
    rows, cols = base.geo.rows, base.geo.cols
    for m, o in base.geo.materials(int(pieces)):
        rng = random.Random(f"{text} {m} {o}")
        seen = {1: 0, 0: 0, -1: 0}
        for _ in range(int(count)):
            game = _random_position(rng, text, rows, cols, m, o)
            if game.outcome is not None:
                continue
            e = base.probe(game)
            assert e is not None, f"no table of {m} against {o}"
            assert (e.value, e.plies, e.to_capture) == _expected(base, game), \
                game.position_text()
            seen[e.value] += 1
        print(f"{text} {m} against {o}: {seen}")


def test_level_8_converts_wins_and_holds_draws() -> None:
    """Level 8 plays the tables' decisions where they are built (the user's data folder):
    from won positions it wins, within the plies the tables give, against level 8 (which
    resists as long as the tables allow); from drawn positions it never loses."""
    from nugar.ai import make_agent

    rules, rows, cols = "dara(rows=4,cols=4,loss_at=1,quiet_limit=30)", 4, 4
    tb.build(nugar.parse_rules(rules), 6)
    base = tb.Tablebase(nugar.parse_rules(rules))
    agent = make_agent("level:8")
    rng = random.Random(8)
    done = {1: 0, 0: 0}
    for _ in range(2000):
        if min(done.values()) >= 8:
            break
        game = _random_position(rng, rules, rows, cols, 3, 3)
        e = base.probe(game)
        if e is None or e.value < 0 or done[e.value] >= 8:
            continue
        me = game.to_move
        turns = 0
        while game.outcome is None and turns < 40:
            mover = game.to_move
            game.play(agent.choose(game))
            turns += game.to_move != mover
        if e.value > 0:
            assert game.outcome is not None and game.outcome.winner == me, game.position_text()
            assert turns <= e.plies
        else:
            assert game.outcome is None or game.outcome.winner != 3 - me
        done[e.value] += 1
    assert min(done.values()) >= 8


def test_plain_python_builds_the_same_tables(tmp_path: Path) -> None:
    """With numba off (``NUMBA_DISABLE_JIT=1``) the compiled parts run as plain Python and
    write the same files."""
    import subprocess
    import sys

    rules = "dara(rows=3,cols=3,loss_at=1)"
    code = (f"from pathlib import Path; import nugar; from nugar.solver import tablebase as tb; "
            f"tb.build(nugar.parse_rules({rules!r}), 5, root=Path({str(tmp_path / 'py')!r}))")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=300)
    tb.build(nugar.parse_rules(rules), 5, root=tmp_path / "jit")
    for name in ("m2-2.tb", "m3-2.tb", "m2-3.tb"):
        folder = tb.rules_key(nugar.parse_rules(rules))
        assert (tmp_path / "py" / "tablebase" / folder / name).read_bytes() == \
            (tmp_path / "jit" / "tablebase" / folder / name).read_bytes()
