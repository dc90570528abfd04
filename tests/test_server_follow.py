"""Following the stored journal (``nugar.server.play.follow``): the one check that the journal read
between two versions is continuous with what a room holds, and the answers that rest on it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from sqlalchemy import delete

from nugar.server.play.follow import continuous, moves_from_events
from nugar.server.play.rooms import Hub
from nugar.server.storage.store import Store, StoredEvent, events_table


def _journal(*versions: int) -> list[StoredEvent]:
    return [StoredEvent(v, "move", {"player": 1, "moves": ["1"]}) for v in versions]


def test_a_journal_with_every_version_in_order_is_continuous() -> None:
    assert continuous(_journal(4, 5, 6), 3, 6)
    assert continuous(_journal(2), 1, 2)
    assert continuous([], 6, 6)  # nothing changed, nothing missing


@pytest.mark.parametrize("versions", [(5, 6), (4, 6), (4, 5), ()])
def test_a_journal_with_a_gap_is_not(versions: tuple[int, ...]) -> None:
    """A version missing at the start, in the middle or at the end (or all of them)."""
    assert not continuous(_journal(*versions), 3, 6)


@pytest.mark.parametrize("versions", [(4, 5, 6, 7), (4, 5, 5, 6), (4, 6, 5), (1, 2, 3)])
def test_a_rewritten_history_is_not(versions: tuple[int, ...]) -> None:
    """A journal that goes past the room's version, repeats one, is out of order, or is not
    the one after the base: what it says changed cannot be sent as what the room holds."""
    assert not continuous(_journal(*versions), 3, 6)


def test_moves_from_events_finds_the_moves_every_version_shares() -> None:
    events = [StoredEvent(2, "move", {"moves": ["a", "b"]}),
              StoredEvent(3, "undo", {"moves": ["b"]}),
              StoredEvent(4, "move", {"moves": ["c"]})]
    assert moves_from_events(2, events) == 0  # the base (version 1) had no move
    assert moves_from_events(2, events[1:]) == 1  # "a" was there throughout, "b" was not
    assert moves_from_events(2, events[2:]) == 1


def test_a_gap_in_the_journal_makes_catch_up_and_changes_send_the_full_state(
        tmp_path: Path) -> None:
    """Both answers of what a client missed use the same check: with a version missing from
    the stored journal, each sends the whole state instead of the events."""
    async def go() -> None:
        store = Store(f"sqlite:///{tmp_path}/games.db")
        hub = Hub(store)
        room, keys = await hub.create("kalah", "hotseat", None, None)
        gid = room.row.id
        for move in ("1", "2", "3"):
            if room.session.over:
                break
            await hub.move(gid, keys["0"], move)
        current = room.row.version
        assert current >= 3
        caught = await hub.catch_up(room, 1)
        assert [m["type"] for m in caught][-1] != "sync"
        assert "new_moves" in await hub.changes(gid, 1)
        with store.engine.begin() as conn:  # lose version 2 from the journal
            conn.execute(delete(events_table).where(events_table.c.game_id == gid)
                         .where(events_table.c.version == 2))
        caught = await hub.catch_up(room, 1)
        assert [m["type"] for m in caught] == ["sync"] and caught[0]["v"] == current
        full = await hub.changes(gid, 1)
        assert "moves" in full and full["v"] == current
        assert "new_moves" in await hub.changes(gid, 2)  # after the gap: the events again
        await hub.close()
        store.close()

    asyncio.run(go())
