"""The web app's game sessions without HTTP or a database: offers, takebacks, the computer's
turns and endings, with a computer player that plays the first legal move.

Each request goes the one way the server's do (:meth:`nugar.server.play.room.Room.act`): the
session decides it, a journal stands in for the store, then it is published; so a change
that cannot be stored is rolled back, and the computer's moves come back as requests."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any

import pytest

from fake_ai import FakeComputer, FirstMove
from nugar import Outcome, Termination, new_game, record
from nugar.ai import Agent, Analysis, Limits
from nugar.rules import Game, Move
from nugar.server.errors import ApiError, status_of
from nugar.server.play import offers, timing
from nugar.server.play.computer import AI_TRIES
from nugar.server.play.endings import ending_of, impose, restore, stored_outcome
from nugar.server.play.rated import too_early_to_rate, turns_made
from nugar.server.play.room import Room, Stored
from nugar.server.play.session import Change, GameSession, move_text
from nugar.server.storage.store import GameRow
from nugar.server.work.ai_pool import AiBusy, AiPool


class Journal:
    """Stands in for the store (a room's ``write``): records each change with the game's
    moves then; ``fail`` makes the next writes fail as a lost database would."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []
        self.fail = False

    async def __call__(self, room: Room, change: Change) -> Stored:
        if self.fail:
            raise RuntimeError("the database is gone")
        self.events.append((change.type, change.data))
        session = room.session
        row = copy.copy(room.row)
        row.moves = [str(m) for m in session.game.move_stack]
        row.ending, row.offers, row.version = session.ending, dict(session.offers), row.version + 1
        return Stored(row, room.clock)

    def types(self) -> list[str]:
        return [t for t, _ in self.events]

    def version(self) -> int:
        return len(self.events) + 1  # the game was created as version 1


async def _never_stale(room: Room) -> bool:
    return False


class Play:
    """One game's room over a :class:`Journal`, asked what the Hub asks of it."""

    def __init__(self, rules: str, mode: str, pool: AiPool, *, ai_seat: int | None = None,
                 ai_level: int | None = None, rated: bool = False) -> None:
        self.journal = Journal()
        row = GameRow(id="0123456789abcdef", rules=rules, mode=mode, ai_level=ai_level,
                      ai_seat=ai_seat, key_hash_1=None, key_hash_2=None, moves=[], ending=None,
                      offers={}, result=None, reason=None, version=1, rated=rated)
        self.room = Room(row, new_game(rules), pool, write=self.journal, refresh=_never_stale)

    @property
    def session(self) -> GameSession:
        return self.room.session

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def result(self) -> str | None:
        return self.session.result

    @property
    def reason(self) -> str | None:
        return self.session.reason

    @property
    def aborted(self) -> int | None:
        return self.session.aborted

    @property
    def over(self) -> bool:
        return self.session.over

    async def _request(self, decide: Callable[[GameSession], Change]) -> dict[str, Any]:
        update = await self.room.act(decide)
        assert update is not None
        return update

    async def move(self, seat: int | None, text: str) -> dict[str, Any]:
        text = move_text(text)
        return await self._request(lambda s: s.move(seat, text, None, self.room.row.version))

    async def undo(self, seat: int | None) -> dict[str, Any]:
        return await self._request(lambda s: s.undo(seat))

    async def offer(self, seat: int | None, kind: str, action: str) -> dict[str, Any]:
        return await self._request(lambda s: offers.offer(s, seat, kind, action))

    async def resign(self, seat: int | None) -> dict[str, Any]:
        return await self._request(lambda s: s.resign(seat))

    async def hint(self, seat: int | None) -> dict[str, Any]:
        return await self.room.computer.hint(seat)

    async def time_out(self, fallen: Callable[[], int | None]) -> bool:
        """The flag of ``fallen()`` falls, as the clocks' watcher has it
        (:func:`~nugar.server.play.clocks.flag_if_due`)."""
        done = await self.room.act(lambda s: timing.flag(s, fallen()), current=False)
        return done is not None

    async def expire(self, version: int) -> bool:
        """The game found idle at ``version`` is closed (:meth:`.rooms.Hub.expire_idle`)."""
        done = await self.room.act(lambda s: timing.expire(s, version, self.room.row.version),
                                   current=False)
        return done is not None

    def schedule_ai(self) -> None:
        self.room.computer.schedule()

    async def wait_ai(self) -> None:
        await self.room.computer.wait()

    async def close(self) -> None:
        await self.room.computer.close()


def make(rules: str = "dara", mode: str = "friend", *, ai_seat: int | None = None,
         computer: FakeComputer | None = None, rated: bool = False) -> tuple[Play, Journal]:
    play = Play(rules, mode, AiPool(computer or FakeComputer()), ai_seat=ai_seat,
                ai_level=1 if mode == "ai" else None, rated=rated)
    return play, play.journal


def run(coro: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(coro())


@contextlib.contextmanager
def refused(code: str) -> Iterator[None]:
    """Expect the block to be refused with the :class:`ApiError` of ``code``."""
    with pytest.raises(ApiError) as info:
        yield
    assert info.value.code == code, info.value.detail


# --- the one way of a change ------------------------------------------------------------------
def test_a_decision_is_a_plain_function_that_returns_the_change() -> None:
    """The session decides without awaiting or storing anything: the change it returns is
    the event, numbered only when the room stores it."""
    session = GameSession(new_game("dara"), "friend")
    change = session.move(1, "c3", None, 1)
    assert change == Change("move", {"player": 1, "moves": ["c3"]})
    assert [str(m) for m in session.game.move_stack] == ["c3"]
    assert offers.offer(session, 2, "draw", "offer") == Change("offer", {"kind": "draw",
                                                                         "by": 2})
    session.rollback()  # nothing was stored: back to the new game
    assert session.game.move_stack == [] and session.offers == {}
    with refused("stale_version"):
        session.move(1, "c3", 1, 2)


def test_a_change_is_published_only_once_stored_and_with_its_stored_version() -> None:
    from nugar.server.play.room import Listener

    async def go() -> None:
        s, journal = make("dara")
        listener = Listener()
        s.room.listeners.add(listener)
        journal.fail = True
        with pytest.raises(RuntimeError):
            await s.move(1, "c3")
        assert listener.queue.empty() and s.room.row.version == 1  # nothing was stored
        journal.fail = False
        update = await s.move(1, "d4")
        event = listener.queue.get_nowait()
        assert event["type"] == "move" and event["v"] == update["v"] == 2
        assert event["data"] == {"player": 1, "moves": ["d4"]} and event["update"] is update

    run(go)


# --- offers ------------------------------------------------------------------------------------
def test_draw_offer_decline_cancel_and_accept() -> None:
    async def go() -> None:
        s, journal = make()
        with refused("no_offer"):
            await s.offer(1, "draw", "accept")
        await s.offer(1, "draw", "offer")
        assert s.session.offers == {"draw": 1}
        with refused("already_offered"):
            await s.offer(1, "draw", "offer")
        with refused("not_yours"):
            await s.offer(1, "draw", "decline")  # one cannot decline one's own offer
        with refused("not_yours"):
            await s.offer(2, "draw", "cancel")  # nor cancel the other's
        await s.offer(2, "draw", "decline")
        assert s.session.offers == {} and s.session.outcome is None
        await s.offer(2, "draw", "offer")
        await s.offer(2, "draw", "cancel")
        await s.offer(1, "draw", "offer")
        await s.move(1, "c3")  # a move withdraws every offer
        assert s.session.offers == {}
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
        assert s.session.offers == {}

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


def test_a_resign_while_the_computer_thinks_is_answered_at_once_and_drops_its_move() -> None:
    async def go() -> None:
        gate = threading.Event()
        agent = FirstMove(gate)
        s, journal = make("dara", "ai", ai_seat=1, computer=FakeComputer(agent))
        s.schedule_ai()
        await asyncio.sleep(0.05)
        assert s.room.busy and agent.calls == 1  # the computer is thinking, without the lock
        # the resignation does not wait for the think
        await asyncio.wait_for(s.resign(2), 1.0)
        assert journal.types() == ["resign"] and s.game.outcome == Outcome(1, "resigned")
        gate.set()
        await s.wait_ai()
        # the move decided before the resignation is dropped, not played
        assert journal.types() == ["resign"] and s.game.move_stack == []

    run(go)


def test_a_decision_on_a_changed_game_is_dropped_and_made_again() -> None:
    async def go() -> None:
        gate = threading.Event()
        agent = FirstMove(gate)
        s, journal = make("kalah", "hotseat", computer=FakeComputer(agent))
        s.session.mode, s.session.ai_seat = "ai", 2  # the person (South) plays first; then
        s.session.ai_level = 1  # the computer
        await s.move(1, "3")  # ends in the store: South moves again, no AI yet
        await s.move(1, "1")
        assert s.game.to_move == 2 and s.room.computer.task is not None
        await asyncio.sleep(0.05)
        assert agent.calls == 1  # thinking on the position after "1"
        await asyncio.wait_for(s.undo(1), 1.0)  # back to South's turn before "1"
        await s.move(1, "2")  # a different position, the computer to move again
        gate.set()
        await s.wait_ai()
        # the first decision was for a position that no longer exists: thought again
        assert agent.calls >= 2
        ai_moves = [d["moves"] for t, d in journal.events if d.get("ai")]
        assert len(ai_moves) == 1
        # "3" and "1" were one turn of South's, taken back together
        assert [str(m) for m in s.game.move_stack][:2] == ["2", ai_moves[0][0]]

    run(go)


class Illegal(FirstMove):
    """Answers with a move the engine refuses, ``bad`` times, then plays properly."""

    def __init__(self, bad: int) -> None:
        super().__init__()
        self.bad = bad

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        self.calls += 1
        if self.calls <= self.bad:
            wrong = Move.parse("9")  # kalah has holes 1..6
            return Analysis(wrong, 0.0, 1, 1, [wrong])
        return super().analyse(game, limits)


@pytest.mark.parametrize("bad", [1, 50])
def test_a_refused_ai_move_is_retried_then_replaced_by_a_random_one(
        bad: int, caplog: pytest.LogCaptureFixture) -> None:
    async def go() -> None:
        agent = Illegal(bad)
        s, journal = make("kalah", "ai", ai_seat=1, computer=FakeComputer(agent))
        s.schedule_ai()
        await asyncio.wait_for(s.wait_ai(), 5.0)
        assert journal.types()[:1] == ["move"] and s.game.move_stack  # never stuck
        if bad == 1:  # the second try is the agent's own move
            assert agent.calls >= 2 and str(s.game.move_stack[0]) == "1"
        else:  # AI_TRIES refusals, then a random legal move, at each decision of the AI's
            # turn (a random step into the store earns a bonus step: another decision)
            decisions = len(s.game.turn_list()[0][1])
            assert agent.calls == (AI_TRIES + 1) * decisions
        assert "refuses" in caplog.text

    run(go)


# --- the AI pool ---------------------------------------------------------------------------------
class Counting(FakeComputer):
    """Builds a new agent at each ``agent()`` call and counts them and their resets."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        super().__init__()
        self.built: list[Resettable] = []
        self.gate = gate

    def agent(self, level: int) -> Agent:
        self.built.append(Resettable(self.gate))
        return self.built[-1]


class Resettable(FirstMove):
    def __init__(self, gate: threading.Event | None = None) -> None:
        super().__init__(gate)
        self.resets = 0

    def reset(self) -> None:
        self.resets += 1


def test_many_ai_games_share_the_pool_s_agents_reset_between_games() -> None:
    async def go() -> None:
        computer = Counting()
        pool = AiPool(computer, workers=2)
        for _ in range(12):
            s = Play("kalah", "ai", pool, ai_seat=1, ai_level=3)
            s.schedule_ai()
            await s.wait_ai()
            assert s.game.move_stack
            if s.game.to_move == 2:
                assert (await s.hint(2))["move"]  # hints come from the same pool
        assert 1 <= len(computer.built) <= 2 and pool.built == len(computer.built)
        assert sum(a.resets for a in computer.built) >= 11  # a fresh table for each game
        pool.close()

    run(go)


def test_a_full_queue_answers_ai_busy_and_hints_use_the_pool() -> None:
    async def go() -> None:
        gate = threading.Event()
        computer = Counting(gate)
        pool = AiPool(computer, workers=1, queue=1)
        sessions = []
        for _ in range(3):
            sessions.append(Play("kalah", "hotseat", pool))
        first = asyncio.create_task(sessions[0].hint(0))  # takes the only worker
        await asyncio.sleep(0.05)
        second = asyncio.create_task(sessions[1].hint(0))  # waits in the queue
        await asyncio.sleep(0.05)
        assert pool.waiting == 1
        with refused("ai_busy") as _:
            await sessions[2].hint(0)
        gate.set()
        assert (await first)["move"] == (await second)["move"] == "1"
        assert len(computer.built) == 1  # the hints were given by the pool's agent
        assert computer.built[0].calls == 2
        busy = AiBusy(3)
        assert status_of(busy) == 503 and busy.retry_after == 3
        pool.close()

    run(go)


def test_a_failing_agent_still_plays_a_legal_move() -> None:
    async def go() -> None:
        s, journal = make("kalah", "ai", ai_seat=1, computer=FakeComputer(FirstMove(fail=True)))
        s.schedule_ai()
        await s.wait_ai()
        assert journal.types() and journal.types()[0] == "move"
        assert s.game.move_stack

    run(go)


def test_a_change_that_cannot_be_stored_is_rolled_back() -> None:
    async def go() -> None:
        s, journal = make("dara", "ai", ai_seat=2)
        journal.fail = True
        with pytest.raises(RuntimeError, match="database"):
            await s.move(1, "c3")
        # the refused move is gone from the game: the person is to move again, not the AI
        assert s.game.move_stack == [] and not s.session.ai_to_move()
        await s.wait_ai()
        assert journal.events == [] and s.room.computer.task is None  # the computer did not go on
        journal.fail = False
        await s.move(1, "d4")
        await s.wait_ai()
        assert str(s.game.move_stack[0]) == "d4"
        assert journal.events[0] == ("move", {"player": 1, "moves": ["d4"]})

    run(go)


def test_no_computer_turn_after_the_end() -> None:
    async def go() -> None:
        s, journal = make("dara", "ai", ai_seat=2)
        await s.resign(1)
        s.schedule_ai()
        assert s.room.computer.task is None
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
        assert s.session.ending is None
        await s.resign(1)
        assert s.game.outcome == Outcome(2, Termination.RESIGNATION)
        assert s.session.ending == {"termination": "resigned", "winner": 2}
        again = restore("dara", ["c3"], s.session.ending)
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


def test_the_server_s_agents_search_with_the_table_size_asked_for() -> None:
    from nugar.ai.agents import LevelAgent
    from nugar.server.work.ai_pool import Agents

    agent = Agents(table=16).agent(8)
    assert isinstance(agent, LevelAgent)
    assert "table=16" in agent.agent_for(new_game("dara")).spec
    # Kalah's level 8 is the perfect player: its solver's table and the search it falls
    # back on both within the size asked for
    assert "memory=16" in agent.agent_for(new_game("kalah")).spec
    assert "table=16" in agent._fallback_agent().spec
    weak = Agents(table=16).agent(2).agent_for(new_game("kalah"))  # no table: unchanged
    assert weak.spec == "greedy:noise=0.73"


class Scripted(Agent):
    """Plays the given moves in order (the computer's side of a scripted game)."""

    spec = "scripted"

    def __init__(self, moves: list[str]) -> None:
        self.moves = list(moves)

    def analyse(self, game: Game, limits: Limits | None = None) -> Analysis:
        move = Move.parse(self.moves.pop(0))
        return Analysis(move, 0.0, 1, 1, [move])


def test_the_computer_s_move_carries_the_forced_pass_that_follows_it() -> None:
    """With ``auto_pass`` (a timed game), the computer's move that leaves the person only a
    pass is stored with that pass, as one change: ``{player, moves, ai, passed}``."""
    async def go() -> None:
        agent = Scripted(["d1", "a1", "a1-b1"])  # the first player's part of the blocking line
        s, journal = make("dara(rows=1,cols=5,pieces=2,loss_at=0)", "ai", ai_seat=1,
                          computer=FakeComputer(agent))
        s.session.auto_pass = True
        s.schedule_ai()
        for move in ("e1", "c1"):
            await s.wait_ai()
            await s.move(2, move)
        await s.wait_ai()
        ai_events = [d for t, d in journal.events if t == "move" and d.get("ai")]
        assert ai_events[:3] == [{"player": 1, "moves": ["d1"], "ai": True},
                                 {"player": 1, "moves": ["a1"], "ai": True},
                                 {"player": 1, "moves": ["a1-b1", "pass"], "ai": True,
                                  "passed": [2]}]
        # (then the script is spent: the computer falls back to a legal move of its own)
        assert [str(m) for m in s.game.move_stack][:6] == ["d1", "e1", "a1", "c1", "a1-b1",
                                                           "pass"]

    run(go)


# --- rated games ended too early (nugar.server.play.rated) -------------------------------------
async def _turns(s: Play, each: int) -> None:
    """Play the first legal move until each player has completed ``each`` turns."""
    while min(turns_made(s.game)) < each:
        player = s.game.to_move
        await s.move(player, str(s.game.legal_moves()[0]))


def test_turns_made_counts_whole_turns_a_bonus_step_and_a_capture_included() -> None:
    kalah = new_game("kalah")
    kalah.play("3")  # the last seed in the store: the same player sows again
    assert turns_made(kalah) == (0, 0)
    kalah.play("6")
    assert turns_made(kalah) == (1, 0)
    kalah.play("1")
    assert turns_made(kalah) == (1, 1)
    assert too_early_to_rate(kalah)


@pytest.mark.parametrize("rated, turns, ends", [
    (True, 0, "abort"), (True, 1, "abort"), (True, 2, "resign"), (False, 0, "resign")])
def test_a_rated_game_resigned_before_two_turns_each_is_aborted(rated: bool, turns: int,
                                                                ends: str) -> None:
    async def go() -> None:
        s, journal = make(rated=rated)
        await _turns(s, turns)
        await s.resign(2)
        assert journal.types()[-1] == ends
        if ends == "abort":  # no result, no winner: nothing for the ratings
            assert journal.events[-1][1]["early"] == "resigned"
            assert (s.result, s.reason, s.aborted, s.over) == ("*", "aborted", 2, True)
            assert s.game.outcome is None
        else:
            assert s.result == "1-0"
    run(go)


def test_a_rated_game_lost_on_time_before_two_turns_each_is_aborted() -> None:
    async def go() -> None:
        s, journal = make(rated=True)
        await _turns(s, 1)
        assert await s.time_out(lambda: s.game.to_move)
        assert journal.types()[-1] == "abort" and journal.events[-1][1]["early"] == "time"
        assert s.result == "*"
        s, journal = make(rated=True)
        await _turns(s, 2)
        assert await s.time_out(lambda: s.game.to_move)
        assert journal.types()[-1] == "flag" and s.result in ("1-0", "0-1", "1/2-1/2")
    run(go)


def test_a_rated_game_left_for_good_is_lost_by_the_player_who_left() -> None:
    async def go() -> None:
        s, journal = make(rated=True)
        await _turns(s, 2)
        left = s.game.to_move
        assert await s.expire(journal.version())
        assert journal.events[-1] == ("expired", {"termination": "adjudication",
                                                  "winner": 3 - left, "left": left})
        assert s.game.outcome is not None and s.game.outcome.winner == 3 - left
        # too early: aborted; and an unrated game still expires as a draw
        s, journal = make(rated=True)
        await _turns(s, 1)
        assert await s.expire(journal.version())
        assert journal.types()[-1] == "abort" and journal.events[-1][1]["early"] == "expired"
        s, journal = make()
        await _turns(s, 2)
        assert await s.expire(journal.version())
        assert journal.events[-1][1]["winner"] is None and s.result == "1/2-1/2"
    run(go)
