"""Property tests of the sowing engine over random games and random rule sets.

Every game is checked step by step against a deliberately naive reference written from the
text of the rules page (one seed at a time, every step of Dracala played out to rate it), and the
usual invariants are checked on the way: undo restores the exact state, every legal move's
text parses back to it, seeds are conserved, nobody moves after the end, games end. A
``NUMBA_DISABLE_JIT=1`` subprocess checks that the kernels give the same answers as plain
Python.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nugar
from nugar import Move
from nugar.kernels import dispatch as D
from nugar.kernels import sowing as K
from nugar.rules.sowing import SowingGame
from rule_sets import of_family
from sowing_rule_texts import rule_texts

MAX_STEPS = 20_000


# --- the reference ---------------------------------------------------------------------------
@dataclass
class Reference:
    """Kalah and Dracala the slow and obvious way (rules page, "Sowing family"), every option
    on its own: the capture duty and misère too."""

    pits: int
    skip_origin: bool
    single: bool
    mover_empty: bool
    leftovers: str
    capture_duty: bool
    misere: bool
    cells: list[int]
    to_move: int = 1
    first_done: bool = False
    last_capturer: int = 0
    outcome: tuple[int | None, str] | None = None

    @classmethod
    def start(cls, game: SowingGame) -> Reference:
        o = game.options
        return cls(o.pits, o.skip_origin, o.empty_capture == "single", o.end == "mover_empty",
                   o.leftovers, o.capture_duty == "maximal", o.misere,
                   ([o.seeds] * o.pits + [0]) * 2)

    def base(self, player: int) -> int:
        return 0 if player == 1 else self.pits + 1

    def sow(self, hole: int) -> tuple[list[int], int, bool]:
        """Cells after sowing from the mover's ``hole`` (1-based), its captures, bonus."""
        p = self.pits
        cells = list(self.cells)
        own = self.base(self.to_move)
        store = own + p
        opp_store = self.base(3 - self.to_move) + p
        origin = own + hole - 1
        seeds, cells[origin] = cells[origin], 0
        pos = origin
        while seeds:
            pos = (pos + 1) % (2 * p + 2)
            if pos == opp_store or (self.skip_origin and pos == origin):
                continue
            cells[pos] += 1
            seeds -= 1
        if own <= pos < store and cells[pos] == 1:
            facing = 2 * p - pos
            if cells[facing] > 0:
                cells[store] += cells[facing] + 1
                cells[facing] = cells[pos] = 0
            elif self.single:
                cells[store] += 1
                cells[pos] = 0
        return cells, cells[store] - self.cells[store], pos == store

    def legal(self) -> list[int]:
        if self.outcome is not None:
            return []
        own = self.base(self.to_move)
        holes = [h for h in range(1, self.pits + 1) if self.cells[own + h - 1] > 0]
        if not self.capture_duty:
            return holes
        rated = {h: self.sow(h)[1:] for h in holes}
        best = max(c for c, _ in rated.values())
        holes = [h for h in holes if rated[h][0] == best]
        bonus = [h for h in holes if rated[h][1]]
        if bonus and self.first_done:
            return [max(bonus)]
        return holes

    def play(self, hole: int) -> None:
        p = self.pits
        mover = self.to_move
        self.cells, captures, bonus = self.sow(hole)
        self.first_done = True
        if captures:
            self.last_capturer = mover
        if not bonus:
            self.to_move = 3 - mover
        total = sum(self.cells)
        stores = [self.cells[p], self.cells[2 * p + 1]]
        if self.misere:
            for player in (1, 2):
                if 2 * stores[player - 1] > total:
                    self.outcome = (3 - player, "majority")
                    return
        sides = [sum(self.cells[0:p]), sum(self.cells[p + 1:2 * p + 1])]
        if self.mover_empty:
            ended = sides[self.to_move - 1] == 0
        else:
            ended = 0 in sides
        if not ended:
            return
        if self.leftovers == "owner":
            stores = [stores[0] + sides[0], stores[1] + sides[1]]
        else:
            taker = mover
            if self.leftovers == "last_capturer" and self.last_capturer:
                taker = self.last_capturer
            stores[taker - 1] += sides[0] + sides[1]
        self.cells = [0] * p + [stores[0]] + [0] * p + [stores[1]]
        if self.misere:
            if 2 * stores[0] > total:
                self.outcome = (2, "majority")
            elif 2 * stores[1] > total:
                self.outcome = (1, "majority")
            else:
                self.outcome = (None, "empty_side")
        else:
            winner = None if stores[0] == stores[1] else (1 if stores[0] > stores[1] else 2)
            self.outcome = (winner, "empty_side")


#: the sowing rule sets of the shared list (tests/rule_sets.py)
NAMED = st.sampled_from(of_family("sowing"))


def play_checked(rules: str, seed: int) -> SowingGame:
    """A random game checked against the reference and the invariants at every step."""
    rng = random.Random(seed)
    game = nugar.new_game(rules)
    assert isinstance(game, SowingGame)
    ref = Reference.start(game)
    total = sum(ref.cells)
    for step in range(MAX_STEPS):
        holes1, holes2 = game.holes
        assert [*holes1, game.stores[0], *holes2, game.stores[1]] == ref.cells
        assert sum(ref.cells) == total
        assert game.key == K.compute_key(game.params, game.state)
        expected = None if ref.outcome is None else nugar.Outcome(*ref.outcome)
        assert game.outcome == expected
        legal = game.legal_moves()
        assert [m.hole for m in legal] == ref.legal()
        if game.is_over:
            assert legal == []
            return game
        assert game.to_move == ref.to_move
        for move in legal:
            assert game.parse_move(str(move)) == move == Move.parse(str(move))
        move = rng.choice(legal)
        if step % 5 == 0:  # undo restores the exact state and history
            state, turns, caps = game.state.copy(), game.turns(), game.turn_captures()
            game.play(move)
            assert game.undo() == move
            assert np.array_equal(game.state, state)
            assert game.turns() == turns and game.turn_captures() == caps
        game.play(str(move))
        ref.play(move.hole)
    raise AssertionError(f"{rules}: no end after {MAX_STEPS} steps")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_texts(), seed=st.integers(0, 2**32))
def test_random_rule_sets_match_the_reference(rules: str, seed: int) -> None:
    play_checked(rules, seed)


@settings(max_examples=60, deadline=None)
@given(rules=NAMED, seed=st.integers(0, 2**32))
def test_named_rule_sets_match_the_reference(rules: str, seed: int) -> None:
    game = play_checked(rules, seed)
    # the whole game replays from its turn texts, and the turn captures add up
    replay = nugar.new_game(rules)
    assert isinstance(replay, SowingGame)
    for turn in game.turns():
        replay.play(turn)
    assert np.array_equal(replay.state, game.state)
    assert len(game.turn_captures()) == len(game.turns())
    assert all(c >= 0 for c in game.turn_captures())


@settings(max_examples=60, deadline=None)
@given(rules=rule_texts(), data=st.data())
def test_random_positions_match_the_reference(rules: str, data: st.DataObject) -> None:
    """Hand-made positions with large counts (several laps) against the reference."""
    pits = nugar.parse_rules(rules).options.pits
    counts = st.lists(st.integers(0, 40), min_size=pits, max_size=pits)
    holes1 = data.draw(counts)
    holes2 = data.draw(counts)
    stores = (data.draw(st.integers(0, 30)), data.draw(st.integers(0, 30)))
    to_move = data.draw(st.sampled_from([1, 2]))
    game = SowingGame.from_position(rules, holes1, holes2, stores, to_move,
                                    first_step_done=data.draw(st.booleans()))
    if game.is_over:
        return
    ref = Reference.start(game)
    ref.cells = [*holes1, stores[0], *holes2, stores[1]]
    ref.to_move = to_move
    ref.first_done = bool(game.state[K.fields_start(game.params) + K.F_FIRST_DONE])
    assert [m.hole for m in game.legal_moves()] == ref.legal()
    assert game.step_captures() == [
        ref.sow(h)[1] if ref.cells[ref.base(to_move) + h - 1] else None
        for h in range(1, pits + 1)]
    for player in (1, 2):  # step_result rates the steps of either player
        other = Reference(**{**ref.__dict__, "to_move": player})
        for h in range(pits):
            if other.cells[other.base(player) + h]:
                _, captures, bonus = other.sow(h + 1)
                assert K.step_result(game.params, game.state, player, h) == (captures, bonus)
    for move in game.legal_moves():
        trial = game.copy()
        trial.play(move)
        branch = Reference(**{**ref.__dict__, "cells": list(ref.cells)})
        branch.play(move.hole)
        holes_a, holes_b = trial.holes
        assert [*holes_a, trial.stores[0], *holes_b, trial.stores[1]] == branch.cells
        assert trial.to_move == branch.to_move or trial.is_over
        expected = None if branch.outcome is None else nugar.Outcome(*branch.outcome)
        assert trial.outcome == expected


# --- compiled kernels -----------------------------------------------------------------------
AGREEMENT_RULES = of_family("sowing")

_PROBE = """
import json, sys
import numpy as np
import nugar
from nugar.kernels import dispatch as D
from nugar.kernels import sowing as K
out = []
for rules in json.loads(sys.argv[1]):
    game = nugar.new_game(rules)
    state = game.state.copy()
    outcome = D.play_random(D.FAM_SOWING, game.params, state, 12345, 10**6)
    caps = np.empty(game.pits, dtype=np.int64)
    bonus = np.empty(game.pits, dtype=np.int64)
    K.step_captures(game.params, game.state, caps, bonus)
    count = D.perft(D.FAM_SOWING, game.params, game.state, 3)
    out.append([int(outcome), [int(v) for v in state], int(count),
                [int(v) for v in caps], [int(v) for v in bonus]])
print(json.dumps(out))
"""


def test_compiled_and_pure_python_kernels_agree() -> None:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    arg = json.dumps(AGREEMENT_RULES)
    pure = json.loads(subprocess.run([sys.executable, "-c", _PROBE, arg], env=env, check=True,
                                     capture_output=True, text=True, timeout=300).stdout)
    scope: dict[str, object] = {}
    exec(_PROBE.split("print(")[0].replace("json.loads(sys.argv[1])", arg), scope)
    compiled = scope["out"]
    assert pure == compiled
    assert all(row[0] in (1, 2, 3) for row in pure)


@settings(max_examples=40, deadline=None)
@given(rules=rule_texts(), seed=st.integers(0, 2**40))
def test_random_playout_reaches_a_legal_end(rules: str, seed: int) -> None:
    game = nugar.new_game(rules)
    assert isinstance(game, SowingGame)
    state = game.state.copy()
    outcome = D.play_random(D.FAM_SOWING, game.params, state, seed, 10**6)  # in place
    assert outcome in (1, 2, 3) and state[1] == outcome
    p = game.pits
    assert state[5:5 + 2 * p + 2].sum() == 2 * p * game.options.seeds
    assert K.legal_actions(game.params, state, np.empty(p, dtype=np.int64)) == 0
    start = game.state.copy()
    assert D.random_playout(D.FAM_SOWING, game.params, start, seed, 10**6) == outcome  # on a copy
    assert np.array_equal(start, game.state)
