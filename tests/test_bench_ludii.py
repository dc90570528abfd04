"""The Ludii-free parts of ``benchmarks/bench_ludii.py`` (Kalah level 8 against Ludii's AI):
reading which Ludii site is which hole, translating moves, and the game loop with its checks,
played against ``fake_ludii_bridge.py``, a test double of the Java bridge that speaks its
protocol with nugar's own rules and random moves (no claim about Ludii's play)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import nugar
from benchmark_scripts import load_script
from nugar.rules.base import Move

HERE = Path(__file__).resolve().parent
FAKE = HERE / "fake_ludii_bridge.py"


bench = load_script("bench_ludii")

#: Ludii's numbering of Kalah's sites (its "Kalah.lud": the second player's store first, the
#: first player's holes along the bottom row, his store last, the top row right to left)
LUDII_HOLES = {1: (1, 2, 3, 4, 5, 6), 2: (12, 11, 10, 9, 8, 7)}
LUDII_STORES = {1: 13, 2: 0}


@pytest.fixture()
def fake() -> Iterator[Callable[..., Any]]:
    """Starts the double of the bridge with the options given; stopped after the test."""
    bridges: list[Any] = []

    def start(*options: str) -> Any:
        bridge = bench.Bridge([sys.executable, str(FAKE), *options])
        bridges.append(bridge)
        return bridge

    yield start
    for bridge in bridges:
        bridge.close()


def test_the_layout_is_read_from_the_seeds_each_first_move_sows(fake: Callable[..., Any]) -> None:
    layout = bench.infer_layout(fake())
    assert layout.holes == LUDII_HOLES and layout.stores == LUDII_STORES
    shuffled = bench.infer_layout(fake("--shuffle", "5"))
    assert sorted([*shuffled.holes[1], *shuffled.holes[2], *shuffled.stores.values()]) \
        == list(range(14))
    assert shuffled != layout


def test_moves_translate_both_ways_and_positions_compare_site_by_site() -> None:
    layout = bench.Layout(LUDII_HOLES, LUDII_STORES)
    for player in (1, 2):
        for hole in range(1, 7):
            assert layout.hole_of(player, layout.site_of(player, hole)) == hole
    assert layout.site_of(2, 1) == 12  # the second player's left is the board's right
    with pytest.raises(bench.LudiiError, match="not a hole of player 1"):
        layout.hole_of(1, 12)
    game = nugar.new_game(bench.RULES)
    game.push(Move.sow(3))  # four seeds from hole 3: holes 4 to 6 and the store
    assert layout.counts_of(game) == (0, 4, 4, 0, 5, 5, 5, 4, 4, 4, 4, 4, 4, 1)


def test_a_match_against_the_fake_bridge_replays_every_game(fake: Callable[..., Any]) -> None:
    score = bench.play_match(fake("--shuffle", "2"), "level:3", 4, 0.05, 4, seed=1)
    assert score.games == 4 and score.wins + score.draws + score.losses == 4
    assert score.score >= 0.5  # level 3 searches; the double plays at random


def test_openings_are_random_running_lines() -> None:
    lines = bench.openings(5, 4, seed=3)
    assert len(lines) == 5 and all(len(line) == 4 for line in lines)
    assert lines == bench.openings(5, 4, seed=3) and len({tuple(x) for x in lines}) > 1


def test_an_illegal_move_of_the_other_side_stops_the_match(fake: Callable[..., Any]) -> None:
    with pytest.raises(bench.LudiiError, match=r"which nugar finds illegal|not a hole"):
        bench.play_match(fake("--illegal", "2"), "level:1", 2, 0.05, 2, seed=1)


def test_a_different_position_stops_the_match(fake: Callable[..., Any]) -> None:
    with pytest.raises(bench.LudiiError, match="seeds by site"):
        bench.play_match(fake("--miscount", "4"), "level:1", 2, 0.05, 2, seed=1)


def test_a_bridge_that_stops_is_reported_with_its_message(tmp_path: Path) -> None:
    script = tmp_path / "broken.py"
    script.write_text("import sys\nprint('no Ludii here', file=sys.stderr)\n")
    with pytest.raises(bench.LudiiError, match="no Ludii here"):
        bench.Bridge([sys.executable, str(script)])
