"""The web app's game sessions without HTTP or a database: offers, takebacks, the computer's
turns and endings, with a computer player that plays the first legal move."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from nugar import Outcome, Termination, new_game, record
from nugar.ai import Agent, Analysis, Limits
from nugar.rules import Game
from nugar.server.session import (
    ApiError,
    GameSession,
    ending_of,
    impose,
    restore,
    stored_outcome,
)


class FirstMove(Agent):
    """Plays the first legal move; ``gate`` (if set) must open before it answers."""

    spec = "first"

    def __init__(self, gate: threading.Event | None = None, fail: bool = False) -> None:
        self.gate = gate
        self.fail = fail
        self.calls = 0

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        self.calls += 1
        if self.gate is not None:
            assert self.gate.wait(10)
        if self.fail:
            raise RuntimeError("the agent broke")
        moves = game.legal_moves()
        return Analysis(moves[0], 0.0, 1, 1, [moves[0]])


class FakeComputer:
    """A computer player with no compiling and one :class:`FirstMove` agent."""

    def __init__(self, agent: FirstMove | None = None) -> None:
        self.the_agent = agent or FirstMove()
        self.prepared: list[int] = []

    def prepare(self, game: Game, level: int) -> None:
        self.prepared.append(level)

    def agent(self, level: int) -> Agent:
        return self.the_agent

    def limits(self) -> Limits:
        return Limits(time=0.01)


class Journal:
    """Stands in for the store: records each committed event with the game's moves then."""

    def __init__(self, session_game: Callable[[], Game]) -> None:
        self.game = session_game
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.fail = False

    async def __call__(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        if self.fail:
            raise RuntimeError("the database is gone")
        self.events.append((etype, data))
        return {"moves": [str(m) for m in self.game().move_stack]}

    def types(self) -> list[str]:
        return [t for t, _ in self.events]


def make(rules: str = "dara", mode: str = "friend", *, ai_seat: int | None = None,
         computer: FakeComputer | None = None) -> tuple[GameSession, Journal]:
    game = new_game(rules)
    journal = Journal(lambda: game)
    session = GameSession(game, mode, journal, computer or FakeComputer(), ai_seat=ai_seat,
                          ai_level=1 if mode == "ai" else None)
    return session, journal


def run(coro: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(coro())


@contextlib.contextmanager
def refused(code: str) -> Iterator[None]:
    """Expect the block to be refused with the :class:`ApiError` of ``code``."""
    with pytest.raises(ApiError) as info:
        yield
    assert info.value.code == code, info.value.detail


# --- offers ------------------------------------------------------------------------------------
def test_draw_offer_decline_cancel_and_accept() -> None:
    async def go() -> None:
        s, journal = make()
        with refused("no_offer"):
            await s.offer(1, "draw", "accept")
        await s.offer(1, "draw", "offer")
        assert s.offers == {"draw": 1}
        with refused("already_offered"):
            await s.offer(1, "draw", "offer")
        with refused("not_yours"):
            await s.offer(1, "draw", "decline")  # one cannot decline one's own offer
        with refused("not_yours"):
            await s.offer(2, "draw", "cancel")  # nor cancel the other's
        await s.offer(2, "draw", "decline")
        assert s.offers == {} and s.outcome is None
        await s.offer(2, "draw", "offer")
        await s.offer(2, "draw", "cancel")
        await s.offer(1, "draw", "offer")
        await s.move(1, "c3")  # a move withdraws every offer
        assert s.offers == {}
        await s.offer(2, "draw", "offer")
        await s.offer(1, "draw", "offer")  # both offered: that is agreement
        assert s.game.outcome == Outcome(None, Termination.AGREEMENT)
        assert journal.types() == ["offer", "decline", "offer", "cancel", "offer", "move",
                                   "offer", "draw"]
        with refused("game_over"):
            await s.offer(1, "takeback", "offer")

    run(go)


def test_offers_are_refused_where_they_do_not_apply() -> None:
    async def go() -> None:
        s, _ = make(mode="ai", ai_seat=2)
        with refused("no_offers"):
            await s.offer(1, "draw", "offer")
        with refused("unknown_offer"):
            await s.offer(1, "bribe", "offer")
        with refused("bad_action"):
            await s.offer(1, "draw", "insist")
        with refused("bad_key"):
            await s.offer(None, "draw", "offer")  # a spectator may not act
        await s.close()

    run(go)


def test_hot_seat_draw_is_agreed_at_once() -> None:
    async def go() -> None:
        s, journal = make("kalah", "hotseat")
        await s.offer(0, "draw", "offer")
        assert s.game.outcome == Outcome(None, "agreement")
        assert journal.events == [("draw", {"agreed": True})]

    run(go)


# --- takebacks -----------------------------------------------------------------------------------
def test_accepted_takeback_goes_back_to_the_askers_turn() -> None:
    async def go() -> None:
        s, journal = make("kalah")
        with refused("nothing_to_undo"):
            await s.offer(2, "takeback", "offer")  # North has not moved yet
        await s.move(1, "3")   # South sows into the store: a bonus step
        await s.move(1, "1")
        await s.move(2, "2")
        with refused("ask_takeback"):
            await s.undo(1)  # between people, undo is an offer
        await s.offer(1, "takeback", "offer")
        await s.offer(2, "takeback", "accept")
        assert s.game.move_stack == [] and s.game.to_move == 1
        assert journal.events[-1] == ("takeback", {"moves": ["3", "1", "2"], "by": 1})
        assert s.offers == {}

    run(go)


def test_hot_seat_undo_takes_back_one_turn_but_not_a_resignation() -> None:
    async def go() -> None:
        s, _ = make("dara", "hotseat")
        with refused("nothing_to_undo"):
            await s.undo(0)
        await s.move(0, "c3")
        await s.move(0, "d4")
        await s.undo(0)
        assert [str(m) for m in s.game.move_stack] == ["c3"] and s.game.to_move == 2
        await s.resign(0)  # the player to move resigns
        assert s.game.outcome == Outcome(1, "resigned")
        with refused("game_over"):
            await s.undo(0)

    run(go)


# --- the computer's turns ------------------------------------------------------------------------
def test_the_computer_moves_first_and_replies_and_undo_takes_both_back() -> None:
    async def go() -> None:
        computer = FakeComputer()
        s, journal = make("dara", "ai", ai_seat=1, computer=computer)
        s.schedule_ai()
        await s.wait_ai()
        first = new_game("dara").legal_moves()[0]
        assert s.game.move_stack == [first] and s.game.to_move == 2
        assert journal.events == [("move", {"player": 1, "moves": [str(first)], "ai": True})]
        assert computer.prepared == [1]
        with refused("not_your_turn"):
            await s.move(1, "d4")
        reply = s.game.legal_moves()[-1]
        await s.move(2, str(reply))  # the computer's reply is scheduled at once
        await s.wait_ai()
        assert len(s.game.move_stack) == 3 and s.game.to_move == 2
        await s.undo(2)
        # the person's turn and the computer's reply after it are gone
        assert s.game.move_stack == [first] and s.game.to_move == 2
        assert journal.types() == ["move", "move", "move", "undo"]
        await s.wait_ai()
        assert len(s.game.move_stack) == 1  # the computer does not move for the person

    run(go)


def test_undo_before_the_person_moved_is_refused() -> None:
    async def go() -> None:
        s, _ = make("kalah", "ai", ai_seat=1)
        s.schedule_ai()
        await s.wait_ai()
        moves = s.game.move_stack
        with refused("nothing_to_undo"):
            await s.undo(2)
        assert s.game.move_stack == moves

    run(go)


def test_a_request_waits_while_the_computer_thinks() -> None:
    async def go() -> None:
        gate = threading.Event()
        s, journal = make("dara", "ai", ai_seat=1, computer=FakeComputer(FirstMove(gate)))
        s.schedule_ai()
        await asyncio.sleep(0.05)
        assert s.busy
        resign = asyncio.create_task(s.resign(2))
        await asyncio.sleep(0.05)
        assert not resign.done() and journal.events == []  # the lock holds it back
        gate.set()
        await resign
        assert journal.types() == ["move", "resign"]
        assert s.game.outcome == Outcome(1, "resigned")

    run(go)


def test_a_failing_agent_still_plays_a_legal_move() -> None:
    async def go() -> None:
        s, journal = make("kalah", "ai", ai_seat=1, computer=FakeComputer(FirstMove(fail=True)))
        s.schedule_ai()
        await s.wait_ai()
        assert journal.types() and journal.types()[0] == "move"
        assert s.game.move_stack

    run(go)


def test_a_change_that_cannot_be_stored_stops_the_session() -> None:
    async def go() -> None:
        s, journal = make("dara", "ai", ai_seat=2)
        journal.fail = True
        with pytest.raises(RuntimeError, match="database"):
            await s.move(1, "c3")
        assert s.closed and not s.ai_to_move()
        await s.wait_ai()
        assert journal.events == [] and s.ai_task is None  # the computer did not go on

    run(go)


def test_no_computer_turn_after_the_end() -> None:
    async def go() -> None:
        s, journal = make("dara", "ai", ai_seat=2)
        await s.resign(1)
        s.schedule_ai()
        assert s.ai_task is None
        with refused("game_over"):
            await s.move(1, "c3")
        with refused("game_over"):
            await s.hint(1)
        assert journal.types() == ["resign"]

    run(go)


def test_hint_from_the_computer() -> None:
    async def go() -> None:
        s, journal = make("kalah", "hotseat")
        hint = await s.hint(0)
        assert hint["move"] == str(new_game("kalah").legal_moves()[0]) and hint["depth"] == 1
        f, _ = make("kalah", "friend")
        with refused("no_hints"):
            await f.hint(1)
        assert journal.events == []

    run(go)


# --- endings -------------------------------------------------------------------------------------
def test_endings_belong_to_the_game_and_are_stored_beside_the_moves() -> None:
    async def go() -> None:
        s, _ = make("dara")
        await s.move(1, "c3")
        assert s.ending is None
        await s.resign(1)
        assert s.game.outcome == Outcome(2, Termination.RESIGNATION)
        assert s.ending == {"termination": "resigned", "winner": 2}
        again = restore("dara", ["c3"], s.ending)
        assert again.outcome == s.game.outcome and again.move_stack == s.game.move_stack
        assert '[Termination "resigned"]' in record.dumps(again)

    run(go)


@pytest.mark.parametrize("outcome", [
    Outcome(None, "agreement"), Outcome(1, "resigned"), Outcome(2, "time"),
    Outcome(None, "adjudication"), Outcome(1, "adjudication"),
])
def test_every_imposed_ending_is_stored_and_restored(outcome: Outcome) -> None:
    game = new_game("kalah")
    game.play("1")
    impose(game, outcome)
    assert game.outcome == outcome
    ending = ending_of(game)
    assert ending is not None and stored_outcome(ending) == outcome
    assert restore("kalah", ["1"], ending).outcome == outcome


def test_endings_written_before_the_game_owned_them_are_read() -> None:
    assert stored_outcome({"resigned": 2}) == Outcome(1, "resigned")
    assert stored_outcome({"agreement": True}) == Outcome(None, "agreement")
    assert restore("dara", ["c3"], {"agreement": True}).outcome == Outcome(None, "agreement")


def test_rule_endings_are_not_stored_and_bad_endings_are_refused() -> None:
    game = new_game("kalah(pits=1,seeds=1)")
    game.play("1")
    assert game.outcome is not None and game.outcome.termination.by_rules
    assert ending_of(game) is None
    with pytest.raises(ValueError, match="not an ending a player or an arbiter imposes"):
        impose(new_game("dara"), Outcome(1, "pieces"))
    with refused("corrupt_game"):
        restore("dara", [], {"termination": "pieces", "winner": 1})
    with refused("corrupt_game"):
        restore("dara", [], {"surrender": True})
    with refused("corrupt_game"):
        restore("dara", ["c3", "c3"], None)
