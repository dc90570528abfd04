"""Replay the random games Ludii played (``fixtures/ludii/dara*.jsonl.gz``): at every decision
the player to move and the set of legal moves must be Ludii's, and so must the result."""

from __future__ import annotations

from typing import Any

import pytest

import nugar
from fixtures_path import ludii_games

GAMES = [(name, i, game) for name in ("dara", "dara-niger")
         for i, game in enumerate(ludii_games(name))]


@pytest.mark.parametrize(("name", "index", "record"), GAMES,
                         ids=[f"{name}-{i}" for name, i, _ in GAMES])
def test_replay_matches_ludii(name: str, index: int, record: dict[str, Any]) -> None:
    game = nugar.new_game(record["rules"])
    assert game.rules.name == name
    for ply, decision in enumerate(record["decisions"]):
        assert game.outcome is None, f"game ended early at decision {ply}"
        assert game.to_move == decision["mover"], f"mover differs at decision {ply}"
        legal = {str(m) for m in game.legal_moves()}
        assert legal == set(decision["legal"]), (
            f"decision {ply}: extra {sorted(legal - set(decision['legal']))}, "
            f"missing {sorted(set(decision['legal']) - legal)}")
        game.play(decision["played"])
        if decision.get("forfeit"):
            assert game.to_move != decision["mover"]
    assert game.result == record["result"]
    assert game.outcome is not None and game.outcome.reason == "pieces"
