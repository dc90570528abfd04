"""Replay Ludii's random Kalah games (``fixtures/ludii/kalah.jsonl.gz``): the player to move
and the set of legal moves must agree at every decision, and the result and score at the end.
"""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest

import nugar
from fixtures_path import fixture

FIXTURE = fixture("ludii", "kalah.jsonl.gz")


def load_games() -> list[dict[str, Any]]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


GAMES = load_games()


def test_fixture_is_there() -> None:
    assert len(GAMES) == 50
    assert {g["rules"] for g in GAMES} == {"kalah(end=mover_empty)"}


@pytest.mark.parametrize("index", range(len(GAMES)))
def test_replay(index: int) -> None:
    record = GAMES[index]
    game = nugar.new_game(record["rules"])
    for number, decision in enumerate(record["decisions"]):
        where = f"game {index}, decision {number}"
        assert not game.is_over, where
        assert game.to_move == decision["mover"], where
        assert sorted(str(m) for m in game.legal_moves()) == sorted(decision["legal"]), where
        game.play(decision["played"])
    assert game.is_over
    assert game.result == record["result"]
    assert list(game.score) == record["score"]
    assert game.outcome is not None and game.outcome.reason == "empty_side"
