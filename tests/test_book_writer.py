"""``python -m nugar.ai.book_writer``: writes the opening book where it is told, never into the
installed package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from nugar import new_game, parse_rules
from nugar.ai.book import (
    BOOK_DEPTHS,
    BOOK_RULES,
    BOOK_SEEDS,
    FORMAT,
    line_positions,
    opening_positions,
    position_text,
    seeds_on_board,
)
from nugar.ai.book_writer import main
from nugar.rules.sowing import SowingGame
from nugar.solver import kernels as solver_kernels
from nugar.solver.core import Solver

SMALL = "dracala(pits=3,seeds=2)"  # solved in a blink: a whole book in well under a second


def package_files() -> dict[str, tuple[int, int]]:
    """Every file of the installed ``nugar.ai`` package (which holds the shipped book) with
    its size and mtime."""
    root = Path(str(resources.files("nugar.ai")))
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*") if p.is_file() and p.suffix != ".pyc"}


def test_the_books_depths_are_its_rule_sets_ai_profiles() -> None:
    """The shipped book covers Dracala to four decisions, Kalah(6, 4) to three and then the
    perfect player's lines down to 42 seeds: what the profiles of its rule sets say."""
    assert BOOK_DEPTHS == {"dracala": 4, "dracala(leftovers=last_capturer)": 4, "kalah": 3}
    assert BOOK_SEEDS == {"kalah": 42}
    assert tuple(BOOK_DEPTHS) == BOOK_RULES
    assert all(BOOK_DEPTHS[text] == parse_rules(text).ai_profile.book_depth
               for text in BOOK_RULES)


def test_book_is_written_to_the_given_path_only(tmp_path: Path) -> None:
    before = package_files()
    out = tmp_path / "book.json"
    assert main(["--output", str(out), "--rules", SMALL, "--depth", "2", "--memory", "8"]) == 0
    assert package_files() == before  # nothing written into the package
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["depth"] == {SMALL: 2}
    games = opening_positions(SMALL, 2)
    assert [e["position"] for e in data["entries"]] == \
        [position_text(g.params, g.state) for g in games]
    assert {e["rules"] for e in data["entries"]} == {SMALL}
    start = data["entries"][0]
    assert start["result"] in ("win", "draw", "loss") and start["best"]
    assert sum(start["final"]) <= 12


def test_book_holds_the_perfect_players_lines_down_to_the_seeds_given(tmp_path: Path) -> None:
    # --seeds N: beyond the --depth positions, every position at which the perfect player,
    # playing the book's own steps, is to move with at least N seeds on the board
    rules = "kalah(pits=3,seeds=3)"
    out = tmp_path / "book.json"
    assert main(["--output", str(out), "--rules", rules, "--depth", "1", "--seeds", "13",
                 "--memory", "8"]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["depth"] == {rules: 1} and data["seeds"] == {rules: 13}
    entries = {e["position"]: e for e in data["entries"]}
    inner = [position_text(g.params, g.state) for g in opening_positions(rules, 1)]
    lines = line_positions(rules, 13,
                           lambda g: entries[position_text(g.params, g.state)]["pv"][0])
    line_texts = [position_text(g.params, g.state) for g in lines]
    assert set(line_texts) - set(inner)  # the lines reach beyond the first decision
    assert list(entries) == inner + [t for t in line_texts if t not in inner]
    solver = Solver(rules, max_memory_mb=8)
    for game in lines:  # each stored value and first step is the solver's
        entry = entries[position_text(game.params, game.state)]
        assert seeds_on_board(game) >= 13 and entry["pv"][0] in game.legal_actions()
        assert entry["value"] == solver.value(game.state)
        child = game.copy()
        child.push_action(entry["pv"][0])
        v = solver.value(child.state) if child.outcome is None else \
            int(solver_kernels.terminal_value(child.params, child.state))
        assert (v if child.to_move == game.to_move else -v) == entry["value"]


def test_line_positions_are_every_decision_of_the_player_down_to_the_seeds() -> None:
    # against a plain recursive walk: the player takes his lowest legal step, the opponent
    # any; both sides, positions with at least 12 seeds on the board
    rules = "kalah(pits=3,seeds=3)"
    found = line_positions(rules, 12, lambda g: min(g.legal_actions()))
    want: set[str] = set()

    def walk(game: SowingGame, me: int) -> None:
        if game.is_over or seeds_on_board(game) < 12:
            return
        steps = game.legal_actions()
        if game.to_move == me:
            want.add(position_text(game.params, game.state))
            steps = [min(steps)]
        for step in steps:
            child = game.copy()
            child.push_action(step)
            assert isinstance(child, SowingGame)
            walk(child, me)

    for me in (1, 2):
        start = new_game(rules)
        assert isinstance(start, SowingGame)
        walk(start, me)
    texts = [position_text(g.params, g.state) for g in found]
    assert len(texts) == len(set(texts)) and set(texts) == want and len(want) > 10
    assert line_positions(rules, 19, lambda g: 0) == []  # 18 seeds: nothing that rich


@pytest.mark.parametrize(("args", "message"), [
    ([], "the following arguments are required: --output"),
    (["--output", "{tmp}/b.json", "--rules", "dara"], "'dara' is not a sowing game"),
    (["--output", "{tmp}/b.json", "--rules", "nosuch"], "--rules 'nosuch': unknown preset"),
    (["--output", "{tmp}/missing/b.json"], "must be a file in an existing directory"),
    (["--output", "{tmp}"], "must be a file in an existing directory"),
    (["--output", "{tmp}/b.json", "--depth", "-1"], "--depth must be 0..8, got -1"),
    (["--output", "{tmp}/b.json", "--seeds", "-1"], "--seeds must be 0 or more, got -1"),
])
def test_bad_arguments_get_one_clear_line(args: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([a.format(tmp=tmp_path) for a in args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "b.json").exists()


def test_module_entry_point_writes_relative_to_the_current_directory(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONWARNINGS": "ignore::RuntimeWarning"}
    run = subprocess.run([sys.executable, "-m", "nugar.ai.book_writer", "-o", "mine.json",
                          "--rules", SMALL, "--depth", "0", "--memory", "8"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "wrote mine.json" in run.stderr
    assert json.loads((tmp_path / "mine.json").read_text(encoding="utf-8"))["depth"] == {SMALL: 0}
