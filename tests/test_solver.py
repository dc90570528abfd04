"""The exact solver against a plain exhaustive minimax written over the public Game API.

The minimax below shares nothing with the solver: no kernel call, no table, no bonus-step
bookkeeping (it keeps one fixed point of view, player 1, and lets ``to_move`` say who picks).
"""

from __future__ import annotations

import json
import random

import pytest

from nugar import new_game
from nugar.ai.base import Limits
from nugar.ai.perfect import PerfectAgent
from nugar.cli.solve import main as solve_main
from nugar.rules.sowing import SowingGame
from nugar.solver import Progress, SolveAborted, Solver, SolverError, solve
from solver_oracle import Value, minimax, random_position


def solver_value_for_first(game: SowingGame, solution_margin: int, result: str) -> Value:
    """The solver's answer turned into player 1's (result, tie-break)."""
    sign = 1 if game.to_move == 1 else -1
    margin1 = sign * solution_margin
    if not game.rules.misere:
        return (0, margin1)
    r = {"win": 1, "draw": 0, "loss": -1}[result] * sign
    return (r, -margin1)


SMALL_BOARDS = [
    "kalah(pits=1,seeds=1)", "kalah(pits=1,seeds=3)", "kalah(pits=2,seeds=1)",
    "kalah(pits=2,seeds=2)", "kalah(pits=2,seeds=3)", "kalah(pits=3,seeds=1)",
    "kalah(pits=3,seeds=2)",
    "kalah(pits=2,seeds=2,empty_capture=single)", "kalah(pits=3,seeds=2,empty_capture=single)",
    "kalah(pits=2,seeds=3,skip_origin=on)", "kalah(pits=3,seeds=1,end=mover_empty)",
    "kalah(pits=2,seeds=3,leftovers=last_capturer)",
    "dracala(pits=2,seeds=2)", "dracala(pits=3,seeds=2)", "dracala(pits=3,seeds=3)",
    "dracala(pits=3,seeds=3,leftovers=last_capturer)", "dracala(pits=4,seeds=2)",
    # the two Dracala options one at a time: the capture duty under the Kalah objective, and
    # misère with every step legal
    "kalah(pits=3,seeds=2,capture_duty=maximal)", "kalah(pits=3,seeds=3,capture_duty=maximal)",
    "kalah(pits=3,seeds=2,misere=on)", "kalah(pits=2,seeds=3,misere=on,leftovers=last_mover)",
]


@pytest.mark.parametrize("rules", SMALL_BOARDS)
def test_start_value_agrees_with_minimax(rules: str) -> None:
    game = new_game(rules)
    assert isinstance(game, SowingGame)
    s = solve(game, max_memory_mb=4)
    assert solver_value_for_first(game, s.margin, s.result) == minimax(game)


@pytest.mark.parametrize("rules,on_board,seed", [
    ("dracala", 10, 1), ("dracala", 10, 2), ("dracala", 10, 3),
    ("dracala(leftovers=last_capturer)", 10, 4), ("dracala(leftovers=last_capturer)", 10, 5),
    ("kalah", 7, 6), ("kalah", 7, 7), ("kalah(empty_capture=single)", 7, 8),
])
def test_late_positions_agree_with_minimax(rules: str, on_board: int, seed: int) -> None:
    game = random_position(rules, on_board, seed)
    s = solve(game, max_memory_mb=4)
    assert solver_value_for_first(game, s.margin, s.result) == minimax(game)


def test_principal_variation_replays_to_the_solved_score() -> None:
    for rules in ("kalah(pits=3,seeds=3)", "dracala(pits=4,seeds=3)"):
        game = new_game(rules)
        s = solve(game, max_memory_mb=4)
        for turn in s.pv_turns:
            game.play(turn)
        assert game.outcome is not None
        assert game.score == s.final
        assert [str(m) for m in game.move_stack] == [str(m) for m in s.pv]
        mover_won = game.outcome.winner == s.to_move
        assert s.result == ("draw" if game.outcome.winner is None
                            else "win" if mover_won else "loss")


def test_margin_and_result_come_from_the_player_to_move() -> None:
    game = new_game("kalah(pits=3,seeds=2)")
    first = solve(game, max_memory_mb=4)
    game.push_action(game.legal_actions()[0])
    if game.to_move == 2:
        after = solve(game, max_memory_mb=4)
        assert after.to_move == 2
        # player 2's best after any first step is at least minus player 1's best overall
        assert after.margin >= -first.margin


def test_json_and_text_output() -> None:
    s = solve("kalah(pits=2,seeds=2)", max_memory_mb=2)
    data = s.to_json()
    assert set(data) >= {"result", "margin", "final", "pv", "nodes", "seconds"}
    assert data["final"][0] - data["final"][1] == data["margin"]  # player 1 is to move
    assert str(s).startswith("kalah(pits=2,seeds=2): South to move")
    assert f"final stores South {s.final[0]} : North {s.final[1]}" in str(s)


def test_finished_game_is_its_own_value() -> None:
    # player 1's side is empty: the game is over and player 2 keeps his last seed (owner)
    game = SowingGame.from_position("kalah(pits=2,seeds=2)", [0, 0], [1, 0], (4, 3))
    assert game.outcome is not None and game.score == (4, 4)
    s = solve(game, max_memory_mb=2)
    assert (s.result, s.margin, s.final, s.pv, s.nodes) == ("draw", 0, (4, 4), [], 0)


def test_tiny_table_still_exact() -> None:
    # Kalah(4,3) meets far more positions than a 1 MB table (65,536 slots) holds
    rules = "kalah(pits=4,seeds=3)"
    small = Solver(rules, max_memory_mb=1)
    assert small.memory_bytes <= 2**20
    s_small = small.solve()
    s_big = solve(rules, max_memory_mb=64)
    assert (s_small.value, s_small.final) == (s_big.value, s_big.final)


def test_node_limit_aborts_and_the_table_stays_sound() -> None:
    solver = Solver("kalah(pits=4,seeds=3)", max_memory_mb=8)
    with pytest.raises(SolveAborted):
        solver.solve(max_nodes=100)
    assert solver.snapshot(0.0).nodes <= 100  # one budget for all the searches of a solve
    assert solver.solve().value == solve("kalah(pits=4,seeds=3)", max_memory_mb=8).value


def test_progress_is_reported() -> None:
    seen: list[Progress] = []
    solve("kalah(pits=4,seeds=4)", max_memory_mb=64, progress=seen.append)
    # the callback runs about once a second; a run that finishes first reports nothing
    for p in seen:
        assert p.nodes > 0 and 0 <= p.hit_rate <= 1 and p.table_size > 0


def test_bad_input_is_refused_clearly() -> None:
    with pytest.raises(SolverError, match="sowing games"):
        solve("dara")
    with pytest.raises(SolverError, match="sowing games"):
        solve("dala(quiet_limit=off)")
    with pytest.raises(SolverError, match="max_memory_mb"):
        Solver("kalah", max_memory_mb=0)
    with pytest.raises(SolverError, match="at most 255"):
        Solver("kalah(pits=6,seeds=30)")
    with pytest.raises(SolverError, match="this solver is for"):
        Solver("kalah(pits=2,seeds=2)").solve(new_game("kalah"))


@pytest.mark.parametrize("rules,seed", [("kalah(pits=3,seeds=3)", 11), ("dracala", 12),
                                        ("dracala(pits=4,seeds=4)", 13)])
def test_perfect_agent_picks_an_optimal_step(rules: str, seed: int) -> None:
    agent = PerfectAgent(memory=8)
    for k in range(3):
        game = random_position(rules, 10, seed * 10 + k)
        if game.outcome is not None:
            continue
        best = minimax(game)
        analysis = agent.analyse(game)
        game.play(analysis.move)
        assert minimax(game) == best
        assert analysis.depth == len(analysis.pv) >= 1


def test_perfect_agent_refuses_alignment_and_ended_games() -> None:
    agent = PerfectAgent(memory=2)
    with pytest.raises(SolverError, match="sowing games"):
        agent.analyse(new_game("dara"))
    over = SowingGame.from_position("kalah(pits=2,seeds=2)", [0, 0], [1, 0], (4, 3))
    with pytest.raises(ValueError, match="game is over"):
        agent.analyse(over)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert solve_main(["kalah(pits=3,seeds=2)", "1", "--json", "--memory", "4"]) == 0
    data = json.loads(capsys.readouterr().out)
    game = new_game("kalah(pits=3,seeds=2)")
    game.play("1")
    expected = solve(game, max_memory_mb=4)
    assert (data["result"], data["margin"], data["final"], data["pv"]) == (
        expected.result, expected.margin, list(expected.final), expected.pv_turns)


def test_cli_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert solve_main(["dara"]) == 2
    err = capsys.readouterr().err
    assert "sowing games" in err and err.count("\n") == 1
    assert solve_main(["nosuchgame"]) == 2
    assert "nosuchgame" in capsys.readouterr().err
    assert solve_main(["kalah(pits=2,seeds=2)", "7"]) == 2
    assert "turn 1" in capsys.readouterr().err
    assert solve_main(["kalah(pits=2,seeds=2)", "--memory", "0"]) == 2
    assert "memory" in capsys.readouterr().err


def test_shipped_book_is_consistent() -> None:
    from nugar.ai.book import (
        BOOK_DEPTHS,
        BOOK_RULES,
        BOOK_SEEDS,
        line_positions,
        load,
        opening_positions,
        position_text,
    )
    from nugar.solver import kernels as S

    book = load()
    assert {rules for rules, _ in book} == set(BOOK_RULES)
    for rules in BOOK_RULES:
        game = new_game(rules)
        assert isinstance(game, SowingGame)
        entry = book[(rules, position_text(game.params, game.state))]
        assert entry["pv"][0] in entry["best"]
        for action in entry["pv"]:  # the line is legal and ends with the stored score
            assert action in game.legal_actions()
            game.push_action(action)
        assert game.outcome is not None and list(game.score) == entry["final"]
        # the book holds exactly the positions up to its depth for the rule set, and those
        # the perfect player meets following the book's steps down to BOOK_SEEDS seeds
        positions = opening_positions(rules)
        depth_max = max(len(g.move_stack) for g in positions)

        def step(g: SowingGame, rules: str = rules) -> int:
            key = (rules, position_text(g.params, g.state))
            assert key in book, f"the book lacks {key} on the perfect player's lines"
            return int(book[key]["pv"][0])

        seeds = BOOK_SEEDS.get(rules, 0)
        texts = {position_text(g.params, g.state) for g in positions}
        lines = line_positions(rules, seeds, step) if seeds else []
        positions += [g for g in lines if position_text(g.params, g.state) not in texts]
        assert {(rules, position_text(g.params, g.state)) for g in positions} == \
            {key for key in book if key[0] == rules}
        swindle = game.rules.misere  # Dracala's level 8 swindles; Kalah's entries have none
        inner = {position_text(g.params, g.state)
                 for g in opening_positions(rules, BOOK_DEPTHS[rules] - 1)}
        for g in positions:  # each stored line and swindle step is legal where it is stored
            text = position_text(g.params, g.state)
            e = book[(rules, text)]
            line = g.copy()
            for action in e["pv"]:
                assert action in line.legal_actions()
                line.push_action(action)
            assert e["length"] >= len(e["pv"])
            assert ("swindle" in e) == swindle
            if swindle:
                assert e["swindle"] in g.legal_actions()
            # short of the last decision: the value of every step, agreeing with the
            # entries of the children (negated where the turn passes) and with the value
            assert ("steps" in e) == (text in inner)
            if "steps" not in e:
                continue
            assert [a for a, _ in e["steps"]] == g.legal_actions()
            for action, value in e["steps"]:
                child = g.copy()
                child.push_action(action)
                if child.outcome is not None:
                    v = int(S.terminal_value(child.params, child.state))
                else:
                    v = book[(rules, position_text(child.params, child.state))]["value"]
                assert value == (v if child.to_move == g.to_move else -v)
            assert max(v for _, v in e["steps"]) == e["value"]
            assert dict(e["steps"])[e["pv"][0]] == e["value"]
        assert depth_max == BOOK_DEPTHS[rules]
    # the stored best first step of Dracala really keeps the stored value (about 2 s)
    game = new_game("dracala")
    entry = book[("dracala", "6,6,6,6,6,6|0|6,6,6,6,6,6|0|1|0|0")]
    game.push_action(entry["best"][0])
    after = Solver("dracala", max_memory_mb=64).solve(game)
    assert after.to_move == 2 and after.value == -entry["value"]


def test_book_holds_the_published_kalah_6_4_values() -> None:
    # standard Kalah(6, 4) (empty_capture=none): the first player wins by 8 starting with
    # hole 3 (a bonus step) and then 6; every first step's value as in docs/solving.md
    from nugar.ai.book import load

    start = load()[("kalah", "4,4,4,4,4,4|0|4,4,4,4,4,4|0|1|0|0")]
    assert start["value"] == 8 and start["final"] == [28, 20] and start["best"] == [2]
    assert start["pv"][:2] == [2, 5]
    assert [v for _, v in start["steps"]] == [-14, -10, 8, -2, -8, 4]


def test_perfect_agent_plays_the_kalah_book_without_databases() -> None:
    # no endgame database in this test's data directory: a solve of these positions would
    # take minutes, so an answer within a millisecond comes from the book
    from nugar.ai.book import load, opening_positions, position_text

    book = load()
    agent = PerfectAgent(memory=2)
    positions = opening_positions("kalah")
    rng = random.Random(8)
    for game in [positions[0], *rng.sample(positions, 20)]:
        e = book[("kalah", position_text(game.params, game.state))]
        a = agent.analyse(game, Limits(time=0.001))
        assert a.move.hole - 1 == e["pv"][0] and a.nodes == 0 and a.score == e["value"]
        assert a.depth == e["length"]


def test_swindler_uses_a_kalah_entry_only_where_it_wins(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    # a book entry without a swindle step (Kalah's) serves perfect:swindle=1 in a won
    # position only; elsewhere the swindler solves for itself. The entries below name a
    # deliberately bad step, so the step played shows where it came from.
    from nugar.ai import book as B

    rules = "kalah(pits=3,seeds=2)"
    game = new_game(rules)
    assert isinstance(game, SowingGame)
    text = B.position_text(game.params, game.state)
    best = Solver(rules, max_memory_mb=4).solve(game).pv[0].hole - 1
    bad = next(a for a in game.legal_actions() if a != best)
    for result, from_book in (("win", True), ("loss", False)):
        entry = {"rules": rules, "position": text, "value": 0, "result": result,
                 "length": 1, "pv": [bad]}
        monkeypatch.setattr(B, "load", lambda entry=entry: {(rules, text): entry})
        played = PerfectAgent(memory=4, swindle=1).analyse(game).move.hole - 1
        assert played == (bad if from_book else best)
        assert PerfectAgent(memory=4).analyse(game).move.hole - 1 == bad  # plain: the book


def test_analyse_exact_answers_kalah_6_4_from_the_book(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    assert solve_main(["kalah", "--steps", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["book"] is True and out["nodes"] == 0 and out["value"] == 8
    assert [(r["step"], r["value"], r["bonus"]) for r in out["steps"]] == \
        [(1, -14, False), (2, -10, False), (3, 8, True), (4, -2, False), (5, -8, False),
         (6, 4, False)]
    assert solve_main(["kalah", "3", "--steps"]) == 0  # after the bonus step: still the book
    text = capsys.readouterr().out
    assert "from the opening book" in text and "hole 6: win by 8" in text
    # --no-book solves instead (Dracala's start: half a second), to the book's values
    assert solve_main(["dracala", "--steps", "--json"]) == 0
    booked = json.loads(capsys.readouterr().out)
    assert solve_main(["dracala", "--steps", "--json", "--no-book"]) == 0
    solved = json.loads(capsys.readouterr().out)
    assert booked["book"] and not solved["book"] and solved["nodes"] > 0
    assert [r["value"] for r in booked["steps"]] == [r["value"] for r in solved["steps"]]


def test_move_order_keeps_small_searches_small() -> None:
    # the order (table step, bonus steps, captures, then the hole nearest the store) decides
    # the size of the search, not its value: before the last tie-break was added these
    # took 866,297 and 8,291,326 positions
    kalah = Solver("kalah(pits=5,seeds=3)", max_memory_mb=64, db_seeds=0, disk_db=False).solve()
    assert kalah.value == 6 and kalah.nodes < 200_000
    dracala = Solver("dracala", max_memory_mb=64).solve()
    assert dracala.nodes < 1_000_000


def test_book_entries_agree_with_a_fresh_solver() -> None:
    # a sample of positions two to four decisions in: stored value, first step of the line,
    # and the swindle step all check out against a solver with an empty table
    from nugar.ai.book import load, opening_positions, position_text

    book = load()
    positions = [g for g in opening_positions("dracala") if len(g.move_stack) >= 2]
    judge = Solver("dracala", max_memory_mb=64)
    rng = random.Random(4)
    for game in rng.sample(positions, 12):
        entry = book[("dracala", position_text(game.params, game.state))]
        assert judge.value(game.state) == entry["value"]
        result = judge.result_of(game.state, entry["value"])
        for step in (entry["pv"][0], entry["swindle"]):
            child = game.copy()
            child.push_action(step)
            if child.outcome is not None:
                continue
            r = judge.result(child.state)
            assert (r if child.to_move == game.to_move else -r) == result  # keeps the result
        child = game.copy()
        child.push_action(entry["pv"][0])
        if child.outcome is None:  # the line's first step keeps the exact value
            v = judge.value(child.state)
            assert (v if child.to_move == game.to_move else -v) == entry["value"]


def test_perfect_agent_plays_the_book_in_the_opening() -> None:
    from nugar.ai.book import load, position_text

    book = load()
    entry = book[("dracala", "6,6,6,6,6,6|0|6,6,6,6,6,6|0|1|0|0")]
    analysis = PerfectAgent(memory=2).analyse(new_game("dracala"))
    assert analysis.move.hole - 1 in entry["best"]
    assert analysis.nodes == 0 and analysis.score == entry["value"]
    # four decisions in, under a time limit far too short to solve: still the book's steps,
    # the swindle's where it differs
    plain, sly = PerfectAgent(memory=2), PerfectAgent(memory=2, swindle=1)
    differ = 0
    for seed in range(40):
        game = new_game("dracala")
        rng = random.Random(seed)
        for _ in range(rng.randint(1, 4)):
            game.push_action(rng.choice(game.legal_actions()))
        if game.outcome is not None:
            continue
        assert isinstance(game, SowingGame)
        e = book[("dracala", position_text(game.params, game.state))]
        a, b = plain.analyse(game, Limits(time=0.001)), sly.analyse(game, Limits(time=0.001))
        assert a.move.hole - 1 == e["pv"][0] and b.move.hole - 1 == e["swindle"]
        assert a.nodes == 0 and a.score == e["value"] and a.depth == e["length"]
        differ += e["swindle"] != e["pv"][0]
    assert differ > 0


def test_register_adds_the_solve_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from nugar.cli.solve import register

    parser = argparse.ArgumentParser(prog="nugar")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["solve", "dracala(pits=3,seeds=2)", "--quiet"])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    expected = solve("dracala(pits=3,seeds=2)", max_memory_mb=4)
    assert str(expected) in out and " ".join(expected.pv_turns) in out


def test_perfect_agent_specs() -> None:
    from nugar.ai import make_agent
    from nugar.ai.perfect import PerfectOptions

    agent = make_agent("perfect:memory=8")
    assert isinstance(agent, PerfectAgent)
    assert agent.options == PerfectOptions(memory=8) and agent.spec == "perfect:memory=8"
    assert make_agent("perfect").spec == PerfectAgent().spec == "perfect"
    assert PerfectAgent(memory=8).spec == "perfect:memory=8"
    with pytest.raises(ValueError, match=r"memory must be 1\.\."):
        make_agent("perfect:memory=0")
    with pytest.raises(ValueError, match="allowed: memory"):
        make_agent("perfect:depth=3")
    with pytest.raises(ValueError, match="allowed: memory"):
        PerfectAgent(depth=3)


def test_perfect_agent_time_limit_is_a_safety_net() -> None:
    from nugar.ai.base import Limits

    game = new_game("kalah(pits=5,seeds=4)")  # about ten million positions: not in 0.05 s
    analysis = PerfectAgent(memory=8).analyse(game, Limits(time=0.05))
    assert analysis.depth == 0 and analysis.score is None
    assert analysis.move in game.legal_moves()


def test_plain_python_kernels_give_the_same_search() -> None:
    import os
    import subprocess
    import sys

    code = ("import json; from nugar.solver import solve; "
            "print(json.dumps([solve(r, max_memory_mb=1).to_json() for r in "
            "('kalah(pits=3,seeds=2)', 'dracala(pits=3,seeds=3,leftovers=last_capturer)')]))")
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True, timeout=120).stdout
    plain = json.loads(out)
    for data, rules in zip(plain, ("kalah(pits=3,seeds=2)",
                                   "dracala(pits=3,seeds=3,leftovers=last_capturer)"),
                           strict=True):
        compiled = solve(rules, max_memory_mb=1).to_json()
        for key in ("result", "margin", "final", "pv", "value", "nodes", "table_used"):
            assert data[key] == compiled[key]


def result_for_mover(game: SowingGame) -> int:
    """The exact result (1 win, 0 draw, -1 loss) for the player to move, by minimax."""
    result, tie_break = minimax(game)
    r = result if game.rules.misere else (tie_break > 0) - (tie_break < 0)
    return r if game.to_move == 1 else -r


@pytest.mark.parametrize("rules", ["kalah(pits=3,seeds=2)", "dracala(pits=3,seeds=3)",
                                   "dracala(pits=4,seeds=2)"])
def test_result_agrees_with_minimax(rules: str) -> None:
    solver = Solver(rules, max_memory_mb=4)
    seen = set()
    for seed in range(12):
        game = random_position(rules, 9, seed)
        expected = result_for_mover(game) if game.outcome is None else None
        if expected is None:  # a finished game: the result of its final scores
            continue
        assert solver.result(game.state) == expected
        seen.add(expected)
    assert len(seen) >= 2  # the positions are not all of one kind


def test_swindle_keeps_the_result_and_leaves_the_opponent_a_way_to_err() -> None:
    # mid-game positions of full Dracala: on smaller boards nearly every step is forced
    rules = "dracala"
    plain, sly = PerfectAgent(memory=32), PerfectAgent(memory=32, swindle=1)
    judge = Solver(rules, max_memory_mb=32)

    def result_of_mover(game: SowingGame, mover: int) -> int:
        r = {"win": 1, "draw": 0, "loss": -1}[judge.solve(game).result] \
            if game.outcome is None else (0 if game.outcome.winner is None else
                                          1 if game.outcome.winner == game.to_move else -1)
        return r if game.to_move == mover else -r

    changed = 0
    for seed in range(150):
        game = random_position(rules, 28, seed)
        if game.outcome is None and len(game.legal_actions()) > 1:
            me, before = game.to_move, result_of_mover(game, game.to_move)
            move, usual = sly.analyse(game).move, plain.analyse(game).move
            child = game.copy()
            child.play(move)
            assert result_of_mover(child, me) == before  # never gives ground
            if before == 1:
                assert move == usual  # a won game is played as ever
            if move != usual:
                changed += 1
                assert child.to_move != me
                mistakes = []
                for reply in child.legal_actions():
                    after = child.copy()
                    after.push_action(reply)
                    mistakes.append(result_of_mover(after, me) > before)
                assert any(mistakes)
    assert changed > 0


def test_swindle_option() -> None:
    from nugar.ai import make_agent

    assert isinstance(sly := make_agent("perfect:swindle=1"), PerfectAgent) and sly.swindle
    assert PerfectAgent(swindle=1).spec == "perfect:swindle=1"
    assert not PerfectAgent().swindle
    with pytest.raises(ValueError, match=r"swindle must be 0\.\.1, not True"):
        PerfectAgent(swindle=True)  # a number 0 or 1, as in the spec text
    with pytest.raises(ValueError, match=r"swindle must be 0\.\.1, not 2"):
        make_agent("perfect:swindle=2")


def test_the_solver_imports_nothing_of_the_agents() -> None:
    """The solver sits below ``nugar.ai``: importing it (and solving) loads no agent module;
    the player built on it is ``nugar.ai.perfect``."""
    import subprocess
    import sys

    code = ("import sys; import nugar.solver; "
            "nugar.solver.solve('kalah(pits=2,seeds=1)', max_memory_mb=1); "
            "print(sorted(m for m in sys.modules if m.startswith('nugar.ai')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout
    assert out.strip() == "[]"


def test_book_answers_do_not_wait_for_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    # opening the solver checks the databases on disk (about a second for Kalah's); the
    # book's answers come at once and the solver opens in the background meanwhile
    import threading

    release = threading.Event()
    opened: list[int] = []
    real = Solver

    def held(*args: object, **kwargs: object) -> Solver:
        release.wait(30)
        opened.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("nugar.ai.perfect.Solver", held)
    agent = PerfectAgent(memory=2)
    game = new_game("dracala")
    answer = agent.analyse(game)  # from the book while the solver is still held
    assert answer.nodes == 0 and opened == []
    release.set()
    solver = agent.solver_for(game)  # the first solve waits for the opening, once
    assert opened == [1] and isinstance(solver, real) and agent.solver_for(game) is solver
    # the opening thread also ran the search for one node (loading the compiled search)
    assert int(solver.stats[0]) == 1


def test_first_guess_changes_the_work_not_the_value() -> None:
    solver = Solver("kalah(pits=4,seeds=4)", max_memory_mb=8)
    values = []
    for guess in (-40, -3, 0, 2, 9, 40):
        solver.clear()
        values.append(solver.value(solver.start_state, guess=guess))
    assert values == [2] * 6
    assert Solver("kalah(pits=4,seeds=4)", max_memory_mb=8).solve(guess=30).margin == 2
