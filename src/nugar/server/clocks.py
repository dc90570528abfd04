"""Clocks of online games: time controls, the arithmetic of a game's clock, and the watcher
that lets a flag fall when nobody is asking.

A time control is one of three (:meth:`TimeControl.parse`):

- ``none``: no clock (the default);
- ``M+I``: Fischer, ``M`` minutes for the whole game (a decimal, e.g. ``0.5`` for 30 s) and
  ``I`` seconds added to the mover's clock after each of his turns, e.g. ``5+3``;
- ``Nd``: correspondence, ``N`` days for each turn (the time left does not carry over).

The server alone keeps time: each change to a game is stamped with the server's time, and the
:class:`Clock` stored with the game holds both players' time left and when the running clock
last started (seconds since the epoch), so it survives a restart (the time the server was down
counts against the player to move). The clocks start with the game's first move; from then
on the clock of the player to move runs until the turn passes to the other player. A turn of
several moves (a capture after a three, a sowing bonus step) is one turn of the clock.

A flag falls when the running clock reaches zero: noticed by any request on the game
(:func:`flag_if_due`, called when a room is fetched) or, for a game nobody asks about, by
:func:`watch_clocks`, which asks the store for games past their deadline. The player whose
flag fell loses on time, or draws when the opponent could not possibly win
(``Game.time_out``, by the family's ``Game.can_win``).

With several server processes on one database every process runs the watcher and may find
the same overdue game; the flag is an ordinary change, written only if the stored version is
still the one it was decided on (the store's compare-and-set), so exactly one process stores
it; the others find the game changed, reload it and see it over.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from .session import GameSession
    from .store import Store

log = logging.getLogger("nugar.server")

#: bounds of a time control: minutes of a Fischer clock, its increment, days per turn
MAX_MINUTES = 600.0
MIN_SECONDS = 1.0
MAX_INCREMENT = 180.0
MAX_DAYS = 30
#: how often (seconds) :func:`watch_clocks` asks the store for games past their deadline
WATCH_EVERY = 1.0
#: most overdue games one look of the watcher handles (the next look takes the rest)
WATCH_BATCH = 200

_FISCHER = re.compile(r"^([0-9]{1,3}(?:\.[0-9]{1,3})?)\+([0-9]{1,3})$")
_DAYS = re.compile(r"^([0-9]{1,2})d$")
_ALLOWED = ("none; M+I: M minutes for the game (a decimal such as 0.5 allowed, at most "
            f"{MAX_MINUTES:g}) and I seconds added per turn (0..{MAX_INCREMENT:g}), e.g. 5+3; "
            f"Nd: N days per turn (1..{MAX_DAYS}), e.g. 3d")


class ClockError(ValueError):
    """A time control text that is not one (the message says what is allowed)."""


@dataclass(frozen=True)
class TimeControl:
    """A game's time control: ``fischer`` (``base`` seconds for the game, ``increment``
    seconds added after each turn) or ``days`` (``base`` seconds for each turn)."""

    kind: Literal["fischer", "days"]
    base: float
    increment: float = 0.0

    @classmethod
    def parse(cls, text: str | None) -> TimeControl | None:
        """The time control a text names; ``None`` for ``none`` (or an empty text).

        >>> TimeControl.parse("5+3")
        TimeControl(kind='fischer', base=300.0, increment=3.0)
        >>> TimeControl.parse("3d").text, TimeControl.parse("0.05+0").base
        ('3d', 3.0)
        """
        if text is None:
            return None
        if not isinstance(text, str):
            raise ClockError(f"a time control is a text, not {type(text).__name__}; "
                             f"allowed: {_ALLOWED}")
        t = text.strip().lower()
        if t in ("", "none", "-"):
            return None
        m = _FISCHER.match(t)
        if m:
            minutes, inc = float(m.group(1)), float(m.group(2))
            if not MIN_SECONDS <= minutes * 60 <= MAX_MINUTES * 60 or inc > MAX_INCREMENT:
                raise ClockError(f"time control {text!r} is out of range; allowed: {_ALLOWED}")
            return cls("fischer", round(minutes * 60, 3), inc)
        m = _DAYS.match(t)
        if m:
            days = int(m.group(1))
            if not 1 <= days <= MAX_DAYS:
                raise ClockError(f"time control {text!r} is out of range; allowed: {_ALLOWED}")
            return cls("days", days * 86400.0)
        raise ClockError(f"{text[:40]!r} is not a time control; allowed: {_ALLOWED}")

    @property
    def text(self) -> str:
        """The control as :meth:`parse` reads it: ``5+3``, ``0.5+0``, ``3d``."""
        if self.kind == "days":
            return f"{round(self.base / 86400)}d"
        return f"{self.base / 60:g}+{self.increment:g}"

    @property
    def pgn(self) -> str:
        """The control as a record's ``TimeControl`` tag writes it (the PGN convention):
        ``300+3`` (seconds and increment), or ``1/259200`` (one move in so many seconds)."""
        if self.kind == "days":
            return f"1/{self.base:g}"
        return f"{self.base:g}+{self.increment:g}"

    def describe(self) -> str:
        """Words for people: ``5 min + 3 s per move``, ``3 days per move``."""
        if self.kind == "days":
            days = round(self.base / 86400)
            return f"{days} day{'s' if days != 1 else ''} per move"
        base = f"{self.base:g} s" if self.base < 60 else f"{self.base / 60:g} min"
        return f"{base} + {self.increment:g} s per move"


def parse_time_control(text: str | None) -> TimeControl | None:
    """:meth:`TimeControl.parse`."""
    return TimeControl.parse(text)


@dataclass
class Clock:
    """Both players' time under one :class:`TimeControl`.

    ``left[p - 1]`` is player ``p``'s time left (seconds) when his clock last stopped or,
    for the running clock, at ``since``; ``running`` is the player whose clock runs (``None``
    before the first move and once the game is over).
    """

    control: TimeControl
    left: list[float] = field(default_factory=list)
    running: int | None = None
    since: float = 0.0
    started: bool = False

    @classmethod
    def new(cls, control: TimeControl) -> Clock:
        return cls(control, [control.base, control.base])

    # --- reading ----------------------------------------------------------------------------
    def remaining(self, player: int, now: float) -> float:
        """Player ``player``'s time left at ``now`` (never below zero)."""
        left = self.left[player - 1]
        if self.running == player:
            left -= max(0.0, now - self.since)
        return max(0.0, left)

    def deadline(self) -> float | None:
        """When the running clock reaches zero (seconds since the epoch); ``None`` when none
        runs."""
        if self.running is None:
            return None
        return self.since + self.left[self.running - 1]

    def fallen(self, now: float) -> int | None:
        """The player whose flag has fallen at ``now``, if any."""
        if self.running is not None and self.remaining(self.running, now) <= 0.0:
            return self.running
        return None

    def view(self, now: float) -> dict[str, Any]:
        """What a client shows: the control, both players' time left at ``now`` (seconds),
        the player whose clock runs and the server's time (it counts down from there)."""
        return {"control": self.control.text, "kind": self.control.kind,
                "describe": self.control.describe(),
                "left": [round(self.remaining(1, now), 3), round(self.remaining(2, now), 3)],
                "running": self.running, "now": round(now, 3)}

    # --- changes ----------------------------------------------------------------------------
    def settle(self, to_move: int | None, now: float, moved: bool) -> None:
        """Stamp a change to the game at ``now``: the running clock is charged the time since
        it started; after a move that passed the turn, its player gets the increment
        (Fischer) or a fresh turn's time (days); then the clock of ``to_move`` (``None``: the
        game is over) runs. Until the first move (``moved``) no clock runs. A clock that
        went below zero stays at zero: a move stamped after the deadline is only possible
        when it was received before it (the flag is checked first)."""
        prev = self.running
        if prev is not None:
            spent = max(0.0, now - self.since)
            self.left[prev - 1] = max(0.0, self.left[prev - 1] - spent)
        if not self.started:
            if not moved:
                self.since = now
                return
            self.started = True
        elif moved and prev is not None and to_move != prev:
            if self.control.kind == "days":
                self.left[prev - 1] = self.control.base
            else:
                self.left[prev - 1] += self.control.increment
        self.running = to_move
        self.since = now

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"control": self.control.text, "left": [round(x, 3) for x in self.left],
                "running": self.running, "since": round(self.since, 3),
                "started": self.started}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Clock | None:
        """The clock stored as :meth:`to_json`; ``None`` for a game without one. A stored
        clock that does not read raises ``ValueError`` (the game is then refused as
        corrupt)."""
        if data is None:
            return None
        control = TimeControl.parse(str(data["control"]))
        if control is None:
            return None
        left = [float(x) for x in data["left"]]
        running = data.get("running")
        if len(left) != 2 or not all(math.isfinite(x) and x >= 0 for x in left) \
                or running not in (None, 1, 2):
            raise ValueError(f"the stored clock {data!r} does not read")
        return cls(control, left, running, float(data["since"]), bool(data.get("started")))


# --- a fallen flag -----------------------------------------------------------------------------
class Room(Protocol):
    """What a fallen flag needs of a game's room (:class:`~.rooms.Room`)."""

    clock: Clock | None
    session: GameSession


class Hub(Protocol):
    """What the watcher needs of the server's rooms (:class:`~.rooms.Hub`)."""

    store: Store
    clock: Callable[[], float]

    async def room(self, game_id: str, fresh: bool = False) -> Any:
        """The room of a game (fetching it lets its flag fall); ``fresh``: checked against
        the stored version first."""


async def flag_if_due(room: Room, now: Callable[[], float] = time.time) -> bool:
    """If the running clock of the room's game has run out, end the game on time (the event
    ``flag``, stored and announced like any change); ``True`` if this call did."""
    clock = room.clock
    if clock is None or clock.fallen(now()) is None or room.session.game.outcome is not None:
        return False

    def still_due() -> int | None:
        c = room.clock
        return None if c is None else c.fallen(now())

    return await room.session.time_out(still_due)


async def check_clocks(hub: Hub) -> list[str]:
    """Let the flag fall in each unfinished game whose stored deadline has passed; returns
    the ids looked at. A game that cannot be loaded is logged and skipped."""
    ids = await asyncio.to_thread(hub.store.due_clocks, hub.clock(), WATCH_BATCH)
    for gid in ids:
        try:
            await hub.room(gid, fresh=True)  # fetching a room lets its flag fall (Hub.room)
        except Exception as exc:
            log.warning("cannot check the clock of game %s: %s", gid, exc)
    return ids


async def watch_clocks(hub: Hub, every: float = WATCH_EVERY) -> None:
    """Forever: :func:`check_clocks` every ``every`` seconds (a background task of the app),
    so a player who goes silent still loses on time. A failing look is logged and the next
    one runs."""
    while True:
        await asyncio.sleep(every)
        try:
            await check_clocks(hub)
        except Exception:
            log.exception("checking the clocks failed")
