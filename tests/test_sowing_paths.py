"""What a sowing move sowed, seed by seed (``Game.sowings``): the path the web page draws.

The path is read from the kernel's sowing (``rules/sowing.py``, ``_lap``); these tests hold it
to the rules as the rules pages state them: seeds go one by one counterclockwise from the
emptied hole, the mover's store included and the opponent's left out (and the emptied hole
itself under ``skip_origin``), and what the board shows afterwards is the sowing plus what a
capture (or the game's end) then took.
"""

from __future__ import annotations

import random

import pytest

import nugar
from nugar.rules.sowing import SowingGame
from random_play import random_game
from rule_sets import of_family


def next_cell(cell: int, pits: int, player: int, origin: int, skip_origin: bool) -> int:
    """The cell after ``cell`` on the ring, as the rules say it (the opponent's store and,
    under skip_origin, the emptied hole passed over)."""
    n = 2 * pits + 2
    other_store = 2 * pits + 1 if player == 1 else pits
    cell = (cell + 1) % n
    while cell == other_store or (skip_origin and cell == origin):
        cell = (cell + 1) % n
    return cell


def cells_of(board: dict[str, list[int]]) -> list[int]:
    return [*board["holes"][0], board["stores"][0], *board["holes"][1], board["stores"][1]]


def test_a_kalah_opening_sows_into_the_store() -> None:
    game = nugar.new_game("kalah")
    game.play("3")
    (sown,) = game.sowings(1)
    assert (sown.ply, sown.player, sown.start, sown.path, sown.taken) == (0, 1, 2, (3, 4, 5, 6),
                                                                         ())
    assert sown.after == (4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0)
    assert game.sowings(0) == [] and len(game.sowings(9)) == 1


def test_a_lap_passes_the_opponents_store() -> None:
    game = nugar.new_game("kalah(pits=2,seeds=9)")
    game.play("1")  # nine seeds round a board of six cells, the second player's store skipped
    (sown,) = game.sowings(1)
    assert sown.path == (1, 2, 3, 4, 0, 1, 2, 3, 4)
    assert 5 not in sown.path


def test_a_capture_is_taken() -> None:
    game = SowingGame.from_position("kalah", [1, 0, 4, 4, 4, 4], [4, 4, 4, 4, 4, 4], (7, 0))
    game.play("1")  # the seed falls into the empty hole 2, facing the second player's hole 5
    (sown,) = game.sowings(1)
    assert sown.path == (1,)
    assert set(sown.taken) == {1, 7 + 6 - 2}
    assert sown.after[6] == 7 + 1 + 4  # the sown seed and the four facing it


@pytest.mark.parametrize("rules", of_family("sowing"))
def test_every_sowing_follows_the_rules(rules: str) -> None:
    for seed in range(3):
        game = random_game(rules, seed, moves=random.Random(seed).randint(5, 60))
        history = nugar.new_game(rules)
        sowings = game.sowings(game.ply)
        assert [s.ply for s in sowings] == list(range(game.ply))
        pits = game.rules.options.pits
        skip = game.rules.options.skip_origin
        for move, sown in zip(game.move_stack, sowings, strict=True):
            before = cells_of(history.descriptor.parts.board(history).as_json())
            assert sown.player == history.to_move
            assert sown.start == (move.hole - 1 if sown.player == 1 else pits + move.hole)
            assert len(sown.path) == before[sown.start]  # every seed of the hole, one a cell
            cell = sown.start
            for to in sown.path:
                cell = next_cell(cell, pits, sown.player, sown.start, skip)
                assert to == cell
            history.play(move)
            after = cells_of(history.descriptor.parts.board(history).as_json())
            assert list(sown.after) == after
            counts = list(before)
            counts[sown.start] = 0
            for to in sown.path:
                counts[to] += 1
            for c in range(2 * pits + 2):  # a cell not taken holds what the sowing left
                if c not in sown.taken:
                    assert after[c] >= counts[c]
                else:
                    assert after[c] < counts[c]
            assert sum(after) == sum(before)


def test_an_alignment_game_sows_nothing() -> None:
    game = nugar.new_game("dara")
    game.play(game.legal_moves()[0])
    assert game.sowings(1) == []
