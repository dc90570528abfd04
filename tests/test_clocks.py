"""Clocks: time controls, the clock arithmetic, who may still win when a flag falls (per
family), and the server's clocks (stamped by the server, a fallen flag noticed by requests and
by the watcher, stored with the game)."""

from __future__ import annotations

import asyncio
import types
from concurrent.futures import Future
from pathlib import Path

import pytest

from nugar import Outcome, Termination, from_position, new_game, record
from nugar.rules import Game, Move
from nugar.server.errors import ApiError, status_of
from nugar.server.play.clocks import Clock, ClockError, TimeControl, check_clocks
from nugar.server.play.endings import restore
from nugar.server.play.room import Listener
from nugar.server.play.rooms import Hub
from nugar.server.storage import store as store_module
from nugar.server.storage.store import Store
from nugar.server.work.ai_pool import AiPool

# --- time controls ------------------------------------------------------------------------------


@pytest.mark.parametrize("text,kind,base,inc,back,pgn", [
    ("5+3", "fischer", 300.0, 3.0, "5+3", "300+3"),
    (" 0.05+0 ", "fischer", 3.0, 0.0, "0.05+0", "3+0"),
    ("90+30", "fischer", 5400.0, 30.0, "90+30", "5400+30"),
    ("3d", "days", 259200.0, 0.0, "3d", "1/259200"),
])
def test_time_controls_read_and_write(text: str, kind: str, base: float, inc: float,
                                      back: str, pgn: str) -> None:
    tc = TimeControl.parse(text)
    assert tc == TimeControl(kind, base, inc)  # type: ignore[arg-type]
    assert tc.text == back and tc.pgn == pgn and TimeControl.parse(tc.text) == tc


def test_time_controls_in_words() -> None:
    controls = [TimeControl.parse(t) for t in ("5+3", "0.05+0", "1.5+0", "1d", "7d")]
    words = [tc.describe() for tc in controls if tc is not None]
    assert words == ["5 min + 3 s per move", "3 s + 0 s per move", "1.5 min + 0 s per move",
                     "1 day per move", "7 days per move"]


@pytest.mark.parametrize("text", [None, "", "none", "NONE"])
def test_no_time_control(text: str | None) -> None:
    assert TimeControl.parse(text) is None


@pytest.mark.parametrize("text", ["5", "5+", "+3", "601+0", "0+0", "0.001+0", "5+181", "0d",
                                  "31d", "5m", "x" * 100, "-1+2", "1e3+0"])
def test_bad_time_controls_say_what_is_allowed(text: str) -> None:
    with pytest.raises(ClockError, match="allowed: none; M\\+I"):
        TimeControl.parse(text)


# --- the arithmetic -----------------------------------------------------------------------------


def test_fischer_clock_charges_the_mover_and_adds_the_increment() -> None:
    clock = Clock.new(TimeControl("fischer", 60.0, 2.0))
    clock.settle(1, 100.0, moved=False)       # an offer before the first move: no clock runs
    assert clock.running is None and clock.deadline() is None
    clock.settle(2, 110.0, moved=True)        # the first move starts the clocks, uncharged
    assert clock.left == [60.0, 60.0] and clock.running == 2 and clock.deadline() == 170.0
    assert clock.remaining(2, 125.0) == 45.0 and clock.remaining(1, 125.0) == 60.0
    clock.settle(1, 125.0, moved=True)        # second took 15 s: 45 left, +2
    assert clock.left == [60.0, 47.0] and clock.running == 1
    clock.settle(1, 130.0, moved=True)        # a bonus step: the same turn goes on, no increment
    assert clock.left == [55.0, 47.0] and clock.running == 1
    clock.settle(2, 131.0, moved=True)
    assert clock.left == [56.0, 47.0]
    clock.settle(1, 141.0, moved=False)       # a takeback: the time spent is charged, no bonus
    assert clock.left == [56.0, 37.0] and clock.running == 1
    assert clock.fallen(196.9) is None and clock.fallen(197.0) == 1
    assert clock.remaining(1, 500.0) == 0.0
    clock.settle(None, 150.0, moved=False)    # the game ended: no clock runs
    assert clock.running is None and clock.fallen(10_000.0) is None
    assert Clock.from_json(clock.to_json()) == clock


def test_correspondence_clock_gives_each_turn_its_days() -> None:
    day = 86400.0
    clock = Clock.new(TimeControl("days", 2 * day))
    clock.settle(2, 0.0, moved=True)
    clock.settle(1, 1.5 * day, moved=True)
    assert clock.left == [2 * day, 2 * day] and clock.deadline() == 3.5 * day
    assert clock.fallen(3.5 * day - 1) is None and clock.fallen(3.5 * day) == 1


def test_a_late_move_leaves_the_clock_at_zero_not_below() -> None:
    clock = Clock.new(TimeControl("fischer", 10.0, 1.0))
    clock.settle(2, 0.0, moved=True)
    clock.settle(1, 12.0, moved=True)
    assert clock.left == [10.0, 1.0]


@pytest.mark.parametrize("data", [
    {"control": "5+3", "left": [1.0], "running": None, "since": 0},
    {"control": "5+3", "left": [1.0, -2.0], "running": None, "since": 0},
    {"control": "5+3", "left": [1.0, 2.0], "running": 3, "since": 0},
    {"control": "5 minutes", "left": [1.0, 2.0], "running": None, "since": 0},
])
def test_a_stored_clock_that_does_not_read_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Clock.from_json(data)


# --- who can still win (the draw on a fallen flag), per family ----------------------------------


def test_alignment_needs_three_pieces_to_win() -> None:
    # loss_at=1: two pieces are still in play, but two pieces never make a three
    game = from_position("dara(loss_at=1) ....../....../..bb../...www/...... b")
    assert not game.can_win(1) and game.can_win(2)
    assert game.time_out(2) == Outcome(None, Termination.TIME)  # first could not have won
    game.undo()
    assert game.time_out(1) == Outcome(2, Termination.TIME)
    # pieces in hand count: one on the board and two in hand may still make a three
    assert from_position("dara(loss_at=1) ....../....../..b.../...www/...... b hand=2,0"
                         ).can_win(1)
    # blocked=lose: two pieces may still hem the opponent in, so no draw
    assert from_position("dara(loss_at=1,blocked=lose) ....../....../..bb../...www/...... b"
                         ).can_win(1)
    # a board without a row or column of three: nobody ever captures
    tiny = new_game("dara(rows=2,cols=2,pieces=2,loss_at=0,drop_limit=none)")
    assert not tiny.can_win(1) and not tiny.can_win(2)
    assert new_game("dala").can_win(1) and new_game("dara").can_win(2)


def test_kalah_cannot_be_won_against_half_of_the_seeds_in_the_other_store() -> None:
    game = from_position("kalah 0,0,0,0,1,1:24/0,0,0,0,1,1:20 s")
    assert game.can_win(1) and not game.can_win(2)  # 24 of 48 already in the first store
    assert game.time_out(1) == Outcome(None, Termination.TIME)
    assert from_position("kalah 0,0,0,0,1,1:23/0,0,0,0,2,1:20 s").can_win(2)
    assert new_game("kalah").can_win(1) and new_game("kalah").can_win(2)


def test_dracala_cannot_be_won_with_half_of_the_seeds_in_ones_own_store() -> None:
    # misere: the bigger store loses, so 36 of 72 in one's own store can win no more
    game = from_position("dracala 0,0,0,0,1,1:36/0,0,0,0,1,1:32 s")
    assert not game.can_win(1) and game.can_win(2)
    assert game.time_out(2) == Outcome(None, Termination.TIME)
    game.undo()
    assert game.time_out(1) == Outcome(2, Termination.TIME)


def test_a_finished_game_is_won_only_by_its_winner() -> None:
    game = new_game("kalah")
    game.resign(1)
    assert game.can_win(2) and not game.can_win(1)


def test_a_draw_on_time_survives_records_and_the_server_s_store() -> None:
    game = from_position("kalah 0,0,0,0,1,1:24/0,0,0,0,1,1:20 s")
    game.time_out(1)
    assert game.position_text().endswith("result=1/2-1/2:time")
    restored = restore("kalah", [], {"termination": "time", "winner": None})
    assert restored.outcome == Outcome(None, Termination.TIME)
    # a record: a drawn flag is read where a player could no longer win (two pieces each)
    drawn = record.load_one('[Rules "dara(loss_at=1,pieces=2)"]\n[Result "1/2-1/2"]\n'
                            '[Termination "time"]\n\n1. c3 d4 1/2-1/2')
    assert drawn.game.outcome == Outcome(None, Termination.TIME)


# --- the server's clocks ------------------------------------------------------------------------


class FakeTime:
    """The hub's and the store's clock, moved by hand."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.now = 1_800_000_000.0
        monkeypatch.setattr(store_module, "time", types.SimpleNamespace(time=self))

    def __call__(self) -> float:
        return self.now


async def open_both(hub: Hub, gid: str, keys: dict[str, str]) -> None:
    """Both players open their links of a game by link (what their pages do first): only
    then do its timers run."""
    for key in keys.values():
        await hub.open_seat(gid, key)


def test_the_server_stamps_moves_and_a_request_lets_the_flag_fall(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def run() -> None:
        room, keys = await hub.create("dara", "friend", None, None,
                                      TimeControl.parse("1+2"))
        gid = room.row.id
        await open_both(hub, gid, keys)
        state = room.state()
        assert state["clock"]["left"] == [60.0, 60.0] and state["clock"]["running"] is None
        now.now += 20  # the first move is not charged (its own timer allows 30 s)
        await hub.move(gid, keys["1"], "c3")
        now.now += 10
        state = await hub.move(gid, keys["2"], "d4")
        assert state["clock"]["left"] == [60.0, 52.0] and state["clock"]["running"] == 1
        listener = Listener()
        room.listeners.add(listener)
        now.now += 59.9
        assert (await hub.room(gid)).state()["over"] is False
        now.now += 0.1  # the first player's minute is up: the next request notices it
        with pytest.raises(ApiError) as refused:
            await hub.move(gid, keys["1"], "e3")
        assert refused.value.code == "game_over"
        heard = listener.queue.get_nowait()
        assert heard["type"] == "flag" and heard["data"] == {
            "player": 1, "termination": "time", "winner": 2}
        assert heard["update"]["result"] == "0-1" and heard["update"]["reason"] == "time"
        assert heard["update"]["clock"]["running"] is None
        row = store.load(gid)
        assert row is not None and row.ending == {"termination": "time", "winner": 2}
        assert row.deadline is None and store.due_clocks(now.now + 1e6, 10) == []

    asyncio.run(run())
    store.close()


def test_a_failed_write_leaves_the_clocks_and_another_server_s_stamp_is_read_back(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change whose write fails changes no clock (it was stamped on a copy); a change
    stored by another server (a second hub on the same database) is read back with the
    clocks that server stamped, and only one of two servers stores a flag."""
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub, other = Hub(store, clock=now), Hub(store, clock=now)

    def fail(row: object, ev: object) -> Future[None]:
        refused: Future[None] = Future()
        refused.set_exception(OSError("disk I/O error"))
        return refused

    async def run() -> None:
        room, keys = await hub.create("dara", "friend", None, None, TimeControl.parse("1+2"))
        gid = room.row.id
        await open_both(hub, gid, keys)
        await hub.move(gid, keys["1"], "c3")
        stored = room.row.clock
        now.now += 10
        store.write = lambda row, ev: asyncio.wrap_future(fail(row, ev))  # type: ignore[method-assign]
        with pytest.raises(ApiError) as refused:
            await hub.move(gid, keys["2"], "d4")
        del store.write  # the class's own again
        assert refused.value.code == "storage_failed"
        assert room.clock is not None and room.clock.to_json() == stored == room.row.clock
        # the other server plays the move 5 s later: 15 s charged, 2 s added
        now.now += 5
        await other.move(gid, keys["2"], "d4")
        hub.heard(gid, 5)  # what PostgreSQL's announcement does
        state = (await hub.room(gid)).state()
        assert state["v"] == 5 and state["clock"]["left"] == [60.0, 47.0]
        assert state["clock"]["running"] == 1
        # the first player's minute runs out: both servers notice; one flag is stored
        now.now += 61
        await asyncio.gather(hub.room(gid), other.room(gid))
        journal = store.events_since(gid, 0, 100)
        assert [e.type for e in journal] == ["created", "opened", "opened", "move", "move",
                                             "flag"]
        for h in (hub, other):
            assert (await h.room(gid, fresh=True)).state()["result"] == "0-1"
        await hub.close()
        await other.close()

    asyncio.run(run())
    store.close()


def test_the_watcher_flags_a_silent_player_and_clocks_survive_a_restart(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def first() -> tuple[str, str, str]:
        a, ka = await hub.create("kalah", "friend", None, None, TimeControl.parse("0.5+0"))
        b, kb = await hub.create("kalah", "friend", None, None, TimeControl.parse("0.5+0"))
        await open_both(hub, a.row.id, ka)
        await open_both(hub, b.row.id, kb)
        await hub.move(a.row.id, ka["1"], "1")
        await hub.move(a.row.id, ka["2"], "2")  # both made their first move: no abort
        await hub.move(b.row.id, kb["1"], "1")
        now.now += 5
        await hub.move(b.row.id, kb["2"], "2")
        return a.row.id, b.row.id, kb["1"]

    a, b, key_b = asyncio.run(first())
    store.close()
    # a restart: a new store and hub on the same database, 20 s later
    now.now += 20
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def second() -> None:
        room_b = await hub.room(b)
        clock = room_b.state()["clock"]
        assert clock["left"] == [10.0, 25.0] and clock["running"] == 1
        assert await check_clocks(hub) == []
        now.now += 6  # a: the first player silent for 31 s of his 30
        assert await check_clocks(hub) == [a]
        state_a = (await hub.room(a)).state()
        assert state_a["over"] and state_a["winner"] == 2 and state_a["reason"] == "time"
        assert not room_b.state()["over"]
        await hub.move(b, key_b, "2")  # 4 s of the first player's 10 s left
        assert room_b.state()["clock"]["left"] == [4.0, 25.0]

    asyncio.run(second())
    store.close()


def test_a_flag_against_a_player_who_cannot_win_is_a_draw(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def run() -> None:
        room, keys = await hub.create("dara(loss_at=1,pieces=2)", "hotseat", None, None,
                                      TimeControl.parse("0.1+0"))
        gid = room.row.id
        await hub.move(gid, keys["0"], "c3")  # two pieces each: nobody can ever win
        await hub.move(gid, keys["0"], "d4")  # (first moves made: a flag, not an abort)
        now.now += 7
        assert await check_clocks(hub) == [gid]
        state = room.state()
        assert state["over"] and state["winner"] is None and state["reason"] == "time"
        assert state["result"] == "1/2-1/2"

    asyncio.run(run())
    store.close()


def test_clocks_through_the_api(client: object) -> None:
    from fastapi.testclient import TestClient

    assert isinstance(client, TestClient)
    made = client.post("/api/games", json={"rules": "dara", "mode": "hotseat", "clock": "3d"})
    assert made.status_code == 201
    clock = made.json()["state"]["clock"]
    assert clock["control"] == "3d" and clock["kind"] == "days"
    assert clock["describe"] == "3 days per move" and clock["left"] == [259200.0, 259200.0]
    gid = made.json()["id"]
    record_text = client.get(f"/api/games/{gid}/record").text
    assert '[TimeControl "1/259200"]' in record_text
    assert client.post("/api/games", json={"mode": "hotseat"}).json()["state"]["clock"] is None
    bad = client.post("/api/games", json={"mode": "hotseat", "clock": "5 minutes"})
    assert bad.status_code == 422 and bad.json()["error"] == "bad_clock"
    assert "allowed: none; M+I" in bad.json()["detail"]


def test_an_old_database_gets_the_clock_columns(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE nugar_games (id VARCHAR(32) PRIMARY KEY, rules TEXT NOT NULL, "
                "mode VARCHAR(16) NOT NULL, ai_level INTEGER, ai_seat INTEGER, "
                "key_hash_1 VARCHAR(64), key_hash_2 VARCHAR(64), moves TEXT NOT NULL, "
                "ending TEXT, offers TEXT NOT NULL, result VARCHAR(8), reason VARCHAR(16), "
                "version INTEGER NOT NULL, created INTEGER NOT NULL, "
                "updated INTEGER NOT NULL)")
    con.execute("INSERT INTO nugar_games VALUES ('abc', 'dara', 'hotseat', NULL, NULL, 'x', "
                "'x', '[]', NULL, '{}', NULL, NULL, 1, 0, 0)")
    con.commit()
    con.close()
    store = Store(f"sqlite:///{path}")
    row = store.load("abc")
    assert row is not None and row.clock is None and row.deadline is None
    assert store.due_clocks(2e9, 5) == []
    store.close()


def test_the_computer_s_turns_run_its_clock_and_its_flag_falls_while_it_thinks(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from fake_ai import FakeComputer, FirstMove

    now = FakeTime(monkeypatch)
    gate = threading.Event()
    store = Store(db_url)
    hub = Hub(store, AiPool(FakeComputer(FirstMove(gate))), clock=now)

    async def run() -> None:
        room, keys = await hub.create("kalah", "ai", 1, 1, TimeControl.parse("0.5+1"))
        gid = room.row.id
        await hub.move(gid, keys["1"], "1")  # the computer (second) is to move: its clock runs
        assert room.state()["clock"]["running"] == 2
        now.now += 10
        gate.set()
        await room.computer.wait()
        clock = room.state()["clock"]
        assert clock["left"] == [30.0, 21.0] and clock["running"] == 1  # 10 s spent, +1
        gate.clear()
        passing = [m for m in room.session.game.legal_moves()
                   if _after(room.session.game, m).to_move == 2]  # no bonus step
        await hub.move(gid, keys["1"], str(passing[0]))
        assert room.state()["clock"]["running"] == 2
        now.now += 22  # the computer thinks past its 21 s
        assert await check_clocks(hub) == [gid]
        state = room.state()
        assert state["over"] and state["winner"] == 1 and state["reason"] == "time"
        gate.set()
        await room.computer.wait()  # its late decision is dropped
        assert room.state()["ply"] == state["ply"]
        await hub.close()

    asyncio.run(run())
    store.close()


def _after(game: Game, move: Move) -> Game:
    copy = game.copy()
    copy.play(move)
    return copy


# --- forced passes: a turn of the passing player, taken at once ----------------------------------

#: a 1x5 board with two pieces each: after these moves the second player is blocked
BLOCKING = "dara(rows=1,cols=5,pieces=2,loss_at=0)"
TO_BLOCK = ["d1", "e1", "a1", "c1"]  # then the first player's a1-b1 leaves the second only "pass"


def test_every_completed_turn_earns_the_increment_a_forced_pass_too() -> None:
    clock = Clock.new(TimeControl("fischer", 60.0, 2.0))
    clock.settle(2, 0.0, moved=True)
    clock.settle(1, 5.0, moved=True)                  # the second's turn: 5 s, +2
    assert clock.left == [60.0, 57.0]
    clock.settle(1, 15.0, moved=True, passed=[2])     # the first's turn (10 s, +2) and the
    assert clock.left == [52.0, 59.0]                 # second's forced pass (no time, +2)
    assert clock.running == 1 and clock.since == 15.0
    days = Clock.new(TimeControl("days", 100.0))
    days.settle(2, 0.0, moved=True)
    days.settle(1, 30.0, moved=True)
    days.settle(1, 90.0, moved=True, passed=[2])      # a fresh turn's time for both
    assert days.left == [100.0, 100.0] and days.deadline() == 190.0


def test_a_forced_pass_is_played_by_the_server_with_no_time_used(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def run() -> None:
        room, keys = await hub.create(BLOCKING, "friend", None, None, TimeControl.parse("1+2"))
        gid = room.row.id
        await open_both(hub, gid, keys)
        for i, move in enumerate(TO_BLOCK):
            now.now += 1
            await hub.move(gid, keys[str(i % 2 + 1)], move)
        assert room.state()["clock"]["left"] == [61.0, 62.0]  # 1 s a turn, +2 (not the first)
        listener = Listener()
        room.listeners.add(listener)
        now.now += 4
        state = await hub.move(gid, keys["1"], "a1-b1")  # the second is blocked: he passes
        assert state["to_move"] == 1 and state["legal"] == ["b1-a1"]
        assert state["new_turns"][-2:] == [{"player": 1, "text": "a1-b1", "n": 1},
                                           {"player": 2, "text": "pass", "n": 1}]
        # the first's turn: 4 s, +2; the second's pass: no time, +2; the first's clock runs
        assert state["clock"]["left"] == [59.0, 64.0] and state["clock"]["running"] == 1
        heard = listener.queue.get_nowait()
        assert heard["data"] == {"player": 1, "moves": ["a1-b1", "pass"], "passed": [2]}
        now.now += 3
        state = await hub.move(gid, keys["1"], "b1-a1")
        assert state["clock"]["left"] == [58.0, 64.0] and state["clock"]["running"] == 2
        row = store.load(gid)
        assert row is not None and row.moves == [*TO_BLOCK, "a1-b1", "pass", "b1-a1"]
        await hub.close()

    asyncio.run(run())
    store.close()


def test_an_undo_goes_back_past_a_forced_pass_and_untimed_games_pass_by_hand(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def run() -> None:
        timed, key = await hub.create(BLOCKING, "hotseat", None, None, TimeControl.parse("1+0"))
        for move in [*TO_BLOCK, "a1-b1"]:
            await hub.move(timed.row.id, key["0"], move)
        assert [str(m) for m in timed.session.game.move_stack][-2:] == ["a1-b1", "pass"]
        state = await hub.undo(timed.row.id, key["0"])  # the pass goes with the move
        assert state["ply"] == 4 and state["to_move"] == 1 and "a1-b1" in state["legal"]
        untimed, key = await hub.create(BLOCKING, "hotseat", None, None)
        for move in [*TO_BLOCK, "a1-b1"]:
            state = await hub.move(untimed.row.id, key["0"], move)
        assert state["to_move"] == 2 and state["legal"] == ["pass"]
        await hub.close()

    asyncio.run(run())
    store.close()


# --- the first move's timer: a game nobody starts is aborted ------------------------------------


def test_first_move_timer_arithmetic() -> None:
    assert Clock.new(TimeControl("fischer", 300.0, 3.0)).first_limit == 30.0
    assert Clock.new(TimeControl("fischer", 3.0, 0.0)).first_limit == 3.0  # the whole clock
    assert Clock.new(TimeControl("days", 86400.0)).first_limit == 86400.0
    clock = Clock.new(TimeControl("fischer", 60.0, 0.0), now=100.0, awaiting=1)
    assert clock.deadline() == 130.0 and clock.first_remaining(110.0) == 20.0
    assert clock.abort_due(129.9) is None and clock.abort_due(130.0) == 1
    clock.settle(2, 110.0, moved=True)
    clock.wait_for(2, 110.0)
    clock.wait_for(2, 120.0)  # still the same wait: it goes on from 110
    assert clock.deadline() == 140.0
    assert clock.fallen(1000.0) is None and clock.abort_due(140.0) == 2  # no flag, an abort
    assert clock.view(115.0)["first"] == 2 and clock.view(115.0)["first_left"] == 25.0
    assert Clock.from_json(clock.to_json()) == clock
    old = Clock.from_json({"control": "1+0", "left": [60, 50], "running": 1, "since": 5,
                           "started": True})  # stored before first moves were timed
    assert old is not None and old.awaiting is None and old.played == [True, True]


def test_a_player_who_never_moves_aborts_the_game_and_it_stays_aborted(
        db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def first() -> tuple[str, str, str]:
        a, ka = await hub.create("dara", "friend", None, None, TimeControl.parse("5+3"))
        b, kb = await hub.create("dara", "friend", None, None, TimeControl.parse("5+3"))
        await open_both(hub, a.row.id, ka)
        await open_both(hub, b.row.id, kb)
        assert a.state()["clock"]["first"] == 1 and a.state()["clock"]["first_left"] == 30.0
        now.now += 20
        await hub.offer(a.row.id, ka["2"], "draw", "offer")  # an offer does not reset it
        assert a.state()["clock"]["first_left"] == 10.0
        await hub.move(b.row.id, kb["1"], "c3")  # b: the second's first move is timed now
        assert b.state()["clock"]["first"] == 2 and b.state()["clock"]["first_left"] == 30.0
        now.now += 9.9
        assert await check_clocks(hub) == []
        now.now += 0.1
        listener = Listener()
        a.listeners.add(listener)
        assert await check_clocks(hub) == [a.row.id]
        heard = listener.queue.get_nowait()
        assert heard["type"] == "abort" and heard["data"] == {
            "player": 1, "termination": "aborted", "winner": None}
        state = heard["update"]
        assert state["over"] and state["result"] == "*" and state["winner"] is None
        assert state["reason"] == "aborted" and state["aborted"] == 1
        assert state["to_move"] is None and state["legal"] == [] and state["offers"] == {}
        with pytest.raises(ApiError) as refused:
            await hub.move(a.row.id, ka["1"], "c3")
        assert refused.value.code == "game_over" and "aborted" in refused.value.detail
        row = store.load(a.row.id)
        assert row is not None and row.result == "*" and row.reason == "aborted"
        assert row.ending == {"termination": "aborted", "player": 1} and row.deadline is None
        return a.row.id, b.row.id, kb["2"]

    a, b, key_b2 = asyncio.run(first())
    store.close()
    now.now += 5  # a restart: b's second player has 15 s left for his first move
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def second() -> None:
        room_a = await hub.room(a)
        assert room_a.state()["aborted"] == 1 and room_a.state()["result"] == "*"
        room_b = await hub.room(b)
        assert room_b.state()["clock"]["first_left"] == 15.0
        await hub.move(b, key_b2, "d4")  # in time: both have moved, the clocks run
        clock = room_b.state()["clock"]
        assert clock["first"] is None and clock["left"] == [300.0, 288.0]
        assert store.due_clocks(now.now + 1e6, 10) == [b]  # a is over: only b has a deadline
        await hub.close()

    asyncio.run(second())
    store.close()


def test_the_computer_s_first_move_is_not_timed_but_the_person_s_is(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from fake_ai import FakeComputer

    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, AiPool(FakeComputer()), clock=now)

    async def run() -> None:
        room, _keys = await hub.create("kalah", "ai", 1, 2, TimeControl.parse("0.05+0"))
        assert room.row.clock is not None and room.row.clock["awaiting"] is None
        await room.computer.wait()  # the computer (first) moved: the person's 3 s start
        assert room.state()["clock"]["first"] == 2
        now.now += 3
        assert await check_clocks(hub) == [room.row.id]
        assert room.state()["aborted"] == 2
        await hub.close()

    asyncio.run(run())
    store.close()


def test_the_record_of_an_aborted_game_claims_no_result(
        client: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from fastapi.testclient import TestClient

    assert isinstance(client, TestClient)
    now = FakeTime(monkeypatch)
    client.app.state.hub.clock = now  # the server's time source, moved by hand
    made = client.post("/api/games", json={"rules": "kalah", "mode": "friend",
                                           "clock": "0.02+0"})  # 1.2 s for the first move
    gid = made.json()["id"]
    for key in made.json()["keys"].values():  # both pages open: the timer starts
        assert client.post(f"/api/games/{gid}/open", json={"key": key}).status_code == 200
    now.now += 1.3  # past the first move's 1.2 s, without waiting for it
    state = client.get(f"/api/games/{gid}").json()
    assert state["over"] and state["reason"] == "aborted" and state["result"] == "*"
    text = client.get(f"/api/games/{gid}/record").text
    assert '[Result "*"]' in text and '[Aborted "South did not move"]' in text
    seat = made.json()["keys"]["1"]
    again = client.post(f"/api/games/{gid}/rematch", json={"key": seat})
    assert again.status_code == 200, again.text  # an aborted game may be played again


# --- a game by link waits for both players to open their links -----------------------------------


def test_seat_timer_arithmetic() -> None:
    clock = Clock.new(TimeControl("fischer", 300.0, 3.0), now=100.0, awaiting=1,
                      seen=(False, False))
    assert not clock.ready and clock.deadline() is None and clock.abort_due(1e9) is None
    assert clock.view(500.0)["waiting"] == [1, 2] and clock.view(500.0)["first_left"] is None
    assert clock.see([1], 200.0) and not clock.ready and clock.deadline() is None
    assert not clock.see([1], 250.0)  # seen once: nothing new
    clock.settle(2, 300.0, moved=True)  # the first player moves before his friend came
    clock.wait_for(2, 300.0)
    assert clock.deadline() is None and clock.remaining(2, 1e6) == 300.0
    assert clock.fallen(1e9) is None and clock.abort_due(1e9) is None
    assert clock.see([2], 1000.0) and clock.ready
    assert clock.deadline() == 1030.0 and clock.view(1010.0)["first_left"] == 20.0
    assert clock.view(1010.0)["waiting"] == []
    clock.settle(1, 1010.0, moved=True)  # his first move: 10 s charged (since he came)
    assert clock.left == [300.0, 293.0]
    assert Clock.from_json(clock.to_json()) == clock
    old = Clock.from_json({"control": "1+0", "left": [60, 60], "running": None, "since": 5,
                           "started": False, "awaiting": 1, "opened": 5})
    assert old is not None and old.ready and old.deadline() == 35.0  # stored before seats


def test_a_link_game_waits_for_its_late_second_player(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The creator opens his link at once; his friend opens his much later (in game b, not
    at all): nothing is aborted meanwhile, and the first-move timer starts when both seats
    are open; a seat opened again writes nothing."""
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def run() -> None:
        a, ka = await hub.create("dara", "friend", None, None, TimeControl.parse("5+3"))
        b, kb = await hub.create("dara", "friend", None, None, TimeControl.parse("0.05+0"))
        gid = a.row.id
        listener = Listener()
        a.listeners.add(listener)
        state = await hub.open_seat(gid, ka["1"])
        clock = state["clock"]
        assert clock["waiting"] == [2] and clock["first"] == 1 and clock["first_left"] is None
        heard = listener.queue.get_nowait()
        assert heard["type"] == "opened" and heard["data"] == {"seats": [1]}
        assert heard["update"]["clock"]["waiting"] == [2]
        await hub.open_seat(gid, ka["1"])  # the page reloaded: no second write
        assert a.row.version == 2 and listener.queue.empty()
        now.now += 100  # the creator copies the link and waits
        assert await check_clocks(hub) == [] and not a.state()["over"]
        await hub.move(gid, ka["1"], "c3")  # he may move first; nothing runs yet
        now.now += 3600
        assert await check_clocks(hub) == [] and not a.state()["over"]
        assert store.due_clocks(now.now + 1e6, 10) == []
        assert a.state()["clock"]["left"] == [300.0, 300.0]
        state = await hub.open_seat(gid, ka["2"])  # an hour late: his 30 s start now
        assert state["clock"]["waiting"] == [] and state["clock"]["first"] == 2
        assert state["clock"]["first_left"] == 30.0
        now.now += 29.9
        assert await check_clocks(hub) == []
        await hub.move(gid, ka["2"], "d4")
        assert a.state()["clock"]["left"] == [300.0, 300.0 - 29.9 + 3]
        assert [e.type for e in store.events_since(gid, 0, 100)] == [
            "created", "opened", "move", "opened", "move"]
        # b: nobody comes for a day, then both do; the 3 s first-move timer starts then
        now.now += 86400  # (a's first player lost on time meanwhile)
        assert await check_clocks(hub) == [gid] and not b.state()["over"]
        await hub.open_seat(b.row.id, kb["2"])
        await hub.open_seat(b.row.id, kb["1"])
        assert b.state()["clock"]["first_left"] == 3.0
        now.now += 3
        assert await check_clocks(hub) == [b.row.id] and b.state()["aborted"] == 1
        with pytest.raises(ApiError) as refused:
            await hub.open_seat(gid, "not a key")
        assert status_of(refused.value) == 403 and refused.value.code == "bad_key"
        await hub.close()

    asyncio.run(run())
    store.close()


def test_an_opened_seat_survives_a_restart_and_another_server_s_write(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, clock=now)

    async def first() -> tuple[str, dict[str, str]]:
        room, keys = await hub.create("kalah", "friend", None, None, TimeControl.parse("1+0"))
        await hub.open_seat(room.row.id, keys["1"])
        return room.row.id, keys

    gid, keys = asyncio.run(first())
    store.close()
    now.now += 600  # a restart ten minutes later: still waiting for the second player
    store = Store(db_url)
    hub, other = Hub(store, clock=now), Hub(store, clock=now)

    async def second() -> None:
        room = await hub.room(gid)
        assert room.state()["clock"]["waiting"] == [2] and not room.state()["over"]
        assert await check_clocks(hub) == []
        await other.room(gid)  # the other server holds the game too
        await hub.open_seat(gid, keys["2"])  # ... and does not hear this write
        now.now += 10
        # the second player's page reloads on the other server: its stale room would note
        # the seat again; the version compare-and-set refuses that write, the room is
        # brought to the stored game and nothing more is written: both seats are open,
        # the timer runs from 10 s ago
        state = await other.open_seat(gid, keys["2"])
        assert state["clock"]["waiting"] == [] and state["clock"]["first_left"] == 20.0
        assert [e.type for e in store.events_since(gid, 0, 100)] == [
            "created", "opened", "opened"]
        now.now += 20
        assert await check_clocks(other) == [gid]
        assert (await hub.room(gid, fresh=True)).state()["aborted"] == 1
        await hub.close()
        await other.close()

    asyncio.run(second())
    store.close()


def test_games_with_everybody_present_keep_their_timers(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hot-seat, against the computer, from the lobby (both players there when it is
    accepted): the first-move timer runs from the creation, as before; the rematch of a game
    by link waits for the player who did not ask for it."""
    from fake_ai import FakeComputer
    from nugar.server.play.rematch import rematch
    from nugar.server.storage.store import hash_key

    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, AiPool(FakeComputer()), clock=now)

    async def run() -> None:
        hot, hot_keys = await hub.create("dara", "hotseat", None, None, TimeControl.parse("5+3"))
        ai, _ = await hub.create("dara", "ai", 1, 1, TimeControl.parse("5+3"))
        lobby, _ = await hub.create("dara", "friend", None, None, TimeControl.parse("5+3"),
                                    seat_hash=(2, hash_key("challenge key")))
        rooms = (hot, ai, lobby)
        for room in rooms:
            clock = room.state()["clock"]
            assert clock["waiting"] == [] and clock["first"] == 1
            assert clock["first_left"] == 30.0
        now.now += 30
        assert sorted(await check_clocks(hub)) == sorted(r.row.id for r in rooms)
        assert all(r.state()["aborted"] == 1 for r in rooms)
        # rematches: hot-seat as before; the lobby's game waits for the player who left
        again = await rematch(hub, hot.row.id, hot_keys["0"])
        assert again["state"]["clock"]["waiting"] == []
        again = await rematch(hub, lobby.row.id, "challenge key")  # seat 2 asks: now 1
        assert again["seat"] == 1 and again["state"]["clock"]["waiting"] == [2]
        await hub.close()

    asyncio.run(run())
    store.close()


def test_a_link_game_whose_friend_never_comes_is_closed_by_the_idle_expiry(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """No timer runs while a timed game by link waits for its second player, so no flag or
    timer's abort ever ends it; the idle expiry (``--expire-days``) does: since nobody
    moved, it aborts the game (naming the first player, whose first move was due) rather
    than calling it a draw."""
    now = FakeTime(monkeypatch)
    store = Store(db_url)
    hub = Hub(store, expire_days=30, clock=now)

    async def run() -> None:
        room, keys = await hub.create("dara", "friend", None, None, TimeControl.parse("5+3"))
        gid = room.row.id
        await hub.open_seat(gid, keys["1"])
        now.now += 30 * 86400 - 1
        assert await check_clocks(hub) == [] and await hub.expire_idle() == []
        now.now += 2
        assert await hub.expire_idle() == [gid]
        row = store.load(gid)
        assert row is not None and row.ending == {"termination": "aborted", "player": 1}
        assert row.result == "*" and row.reason == "aborted" and row.deadline is None
        assert store.events_since(gid, 0, 9)[-1].type == "abort"
        await hub.close()

    asyncio.run(run())
    store.close()
