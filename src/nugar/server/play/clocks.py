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
several moves (a capture after a three, a sowing bonus step) is one turn of the clock. Each
completed turn earns the increment (the Fischer rule, as on lichess): a forced pass (a player
without a legal move under ``blocked=pass``) is played by the server for him at once, in the
same change as the move that blocked him, and counts as his turn, taken with no time used.

The first move of each player has its own timer (as on lichess): a player who does not make
his first move within :data:`FIRST_MOVE` seconds (or the whole clock, if it is shorter; the
turn's days in a correspondence game) from when it became his turn *aborts* the game: no
result, no winner (the event ``abort``, :meth:`Clock.abort_due`). The computer's seat has no
such timer. Until his first move a player cannot lose on time: the abort comes first.

A game between two people played by link waits for both: each human seat is *seen* once a
request carrying its secret arrives (the page announces its seat when it opens,
``POST /api/games/{id}/open``; a move counts too), and until both seats are seen
(:attr:`Clock.ready`) no timer and no clock runs, so nothing can abort or flag the game.
The first-move timer of a player therefore starts at the later of his turn starting and
the game becoming ready (:meth:`Clock.see`). Seats of the computer, of a hot-seat game
and of a lobby game (both players are there when the challenge is accepted) are seen from
the start.

A flag falls when the running clock reaches zero (a first move is overdue likewise): noticed
by any request on the game (:func:`flag_if_due`, called when a room is fetched) or, for a
game nobody asks about, by :func:`watch_clocks`, which asks the store for games past their
deadline. The player whose flag fell loses on time, or draws when the opponent could not
possibly win (``Game.time_out``, by the family's ``Game.can_win``).

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ..config import DEFAULTS
from ..storage.store import log_failure
from . import timing

if TYPE_CHECKING:
    from ..storage.store import Store
    from .session import Change, GameSession

log = logging.getLogger("nugar.server")

#: bounds of a time control: minutes of a Fischer clock, its increment, days per turn
MAX_MINUTES = 600.0
MIN_SECONDS = 1.0
MAX_INCREMENT = 180.0
MAX_DAYS = 30
#: seconds a player has for his first move before the game is aborted (at most his clock)
FIRST_MOVE = 30.0
#: how often (seconds) :func:`watch_clocks` asks the store for games past their deadline
WATCH_EVERY = DEFAULTS.clock_every
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


@dataclass
class Clock:
    """Both players' time under one :class:`TimeControl`.

    ``left[p - 1]`` is player ``p``'s time left (seconds) when his clock last stopped or,
    for the running clock, at ``since``; ``running`` is the player whose clock runs (``None``
    before the first move and once the game is over). ``played[p - 1]``: whether player ``p``
    has made his first move; ``awaiting``: the player whose first move the first-move timer
    waits for (``None`` when none), since ``opened``; ``seen[p - 1]``: whether player
    ``p``'s seat has been opened (nothing runs until both have been: :attr:`ready`).
    """

    control: TimeControl
    left: list[float] = field(default_factory=list)
    running: int | None = None
    since: float = 0.0
    started: bool = False
    played: list[bool] = field(default_factory=lambda: [False, False])
    awaiting: int | None = None
    opened: float = 0.0
    seen: list[bool] = field(default_factory=lambda: [True, True])

    @classmethod
    def new(cls, control: TimeControl, now: float = 0.0, awaiting: int | None = None,
            seen: Sequence[bool] = (True, True)) -> Clock:
        """Full clocks at ``now``; ``awaiting``: the player whose first move is timed from
        ``now`` (the first player, unless he is the computer); ``seen``: which seats count
        as opened already (a game by link: neither, until its players open their links)."""
        return cls(control, [control.base, control.base], since=now, awaiting=awaiting,
                   opened=now, seen=[bool(x) for x in seen])

    # --- reading ----------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Whether both seats have been opened: before, no timer and no clock runs."""
        return self.seen[0] and self.seen[1]

    @property
    def first_limit(self) -> float:
        """Seconds a player has for his first move: :data:`FIRST_MOVE`, or the whole clock
        if it is shorter; a correspondence turn's days."""
        if self.control.kind == "days":
            return self.control.base
        return min(FIRST_MOVE, self.control.base)

    def remaining(self, player: int, now: float) -> float:
        """Player ``player``'s time left at ``now`` (never below zero)."""
        left = self.left[player - 1]
        if self.running == player and self.ready:
            left -= max(0.0, now - self.since)
        return max(0.0, left)

    def first_remaining(self, now: float) -> float | None:
        """Seconds left at ``now`` for the awaited first move; ``None`` when none is awaited
        or the timer has not started (a seat not opened yet)."""
        if self.awaiting is None or not self.ready:
            return None
        return max(0.0, self.opened + self.first_limit - now)

    def deadline(self) -> float | None:
        """When the next flag falls or the awaited first move is overdue (seconds since the
        epoch); ``None`` when neither can happen (a seat not opened yet: nothing runs)."""
        if not self.ready:
            return None
        times = []
        if self.running is not None and self.running != self.awaiting:
            times.append(self.since + self.left[self.running - 1])
        if self.awaiting is not None:
            times.append(self.opened + self.first_limit)
        return min(times) if times else None

    def fallen(self, now: float) -> int | None:
        """The player whose flag has fallen at ``now``, if any (never one whose first move
        is awaited: his game is aborted instead)."""
        if (self.running is not None and self.running != self.awaiting and self.ready
                and self.remaining(self.running, now) <= 0.0):
            return self.running
        return None

    def abort_due(self, now: float) -> int | None:
        """The player whose first move is overdue at ``now`` (the game is aborted), if any."""
        left = self.first_remaining(now)
        return self.awaiting if left is not None and left <= 0.0 else None

    def view(self, now: float) -> dict[str, Any]:
        """What a client shows: the control, both players' time left at ``now`` (seconds),
        the player whose clock runs, the server's time (it counts down from there) and, while
        a first move is awaited, whose (``first``) and the seconds left for it
        (``first_left``; ``None`` until the timer starts); ``waiting``: the players whose
        seat has not been opened yet (while it is not empty, nothing runs)."""
        first_left = self.first_remaining(now)
        return {"control": self.control.text, "kind": self.control.kind,
                "describe": self.control.describe(),
                "left": [round(self.remaining(1, now), 3), round(self.remaining(2, now), 3)],
                "running": self.running, "now": round(now, 3), "first": self.awaiting,
                "first_left": None if first_left is None else round(first_left, 3),
                "waiting": [p for p in (1, 2) if not self.seen[p - 1]]}

    # --- changes ----------------------------------------------------------------------------
    def settle(self, to_move: int | None, now: float, moved: bool,
               passed: Sequence[int] = ()) -> None:
        """Stamp a change to the game at ``now``: the running clock is charged the time since
        it started; each turn the change completed earns its player the increment (Fischer)
        or a fresh turn's time (days): the mover's, when the turn left him or a forced pass
        followed, and each forced pass (``passed``: the players whose pass the server played
        in this change; no time of theirs ran); then the clock of ``to_move`` (``None``: the
        game is over) runs. Until the first move (``moved``) no clock runs. A clock that
        went below zero stays at zero: a move stamped after the deadline is only possible
        when it was received before it (the flag is checked first). Before both seats are
        opened (:attr:`ready`) no time is charged."""
        prev = self.running
        if prev is not None and self.ready:
            spent = max(0.0, now - self.since)
            self.left[prev - 1] = max(0.0, self.left[prev - 1] - spent)
        if not self.started:
            if not moved:
                self.since = now
                return
            self.started = True
        elif moved and prev is not None:
            ended = ([prev] if to_move != prev or passed else []) + list(passed)
            for p in ended:
                if self.control.kind == "days":
                    self.left[p - 1] = self.control.base
                else:
                    self.left[p - 1] += self.control.increment
        self.running = to_move
        self.since = now

    def wait_for(self, player: int | None, now: float) -> None:
        """Time ``player``'s first move from ``now`` (``None``: no first move is awaited); the
        timer of a player already awaited goes on from when it started."""
        if player != self.awaiting:
            self.awaiting = player
            self.opened = now

    def see(self, seats: Sequence[int], now: float) -> bool:
        """Note at ``now`` that the seats ``seats`` (1, 2) have been opened; ``True`` if one
        was not yet. When that makes the game :attr:`ready`, the awaited first move is timed
        from ``now`` and the running clock (only ever the clock of a player before his first
        move) starts from ``now``."""
        was = self.ready
        changed = False
        for p in seats:
            if p in (1, 2) and not self.seen[p - 1]:
                self.seen[p - 1] = True
                changed = True
        if self.ready and not was:
            self.opened = now
            self.since = now
        return changed

    # --- storage ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {"control": self.control.text, "left": [round(x, 3) for x in self.left],
                "running": self.running, "since": round(self.since, 3),
                "started": self.started, "played": list(self.played),
                "awaiting": self.awaiting, "opened": round(self.opened, 3),
                "seen": list(self.seen)}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Clock | None:
        """The clock stored as :meth:`to_json`; ``None`` for a game without one. A stored
        clock that does not read raises ``ValueError`` (the game is then refused as
        corrupt). A clock stored before first moves were timed reads with none awaited; one
        stored before seats were noted reads with both seats opened."""
        if data is None:
            return None
        control = TimeControl.parse(str(data["control"]))
        if control is None:
            return None
        left = [float(x) for x in data["left"]]
        running = data.get("running")
        awaiting = data.get("awaiting")
        started = bool(data.get("started"))
        played = [bool(x) for x in data.get("played", [started, started])]
        seen = [bool(x) for x in data.get("seen", [True, True])]
        if len(left) != 2 or not all(math.isfinite(x) and x >= 0 for x in left) \
                or running not in (None, 1, 2) or awaiting not in (None, 1, 2) \
                or len(played) != 2 or len(seen) != 2:
            raise ValueError(f"the stored clock {data!r} does not read")
        return cls(control, left, running, float(data["since"]), started, played, awaiting,
                   float(data.get("opened", 0.0)), seen)


# --- a fallen flag -----------------------------------------------------------------------------
class Room(Protocol):
    """What a fallen flag needs of a game's room (:class:`~.room.Room`)."""

    clock: Clock | None
    session: GameSession

    async def act(self, decide: Callable[[GameSession], Change | None], *,
                  current: bool = True) -> Any:
        """Decide, store and publish one change (:meth:`.room.Room.act`)."""


class Hub(Protocol):
    """What the watcher needs of the server's rooms (:class:`~.rooms.Hub`)."""

    store: Store
    clock: Callable[[], float]

    async def room(self, game_id: str, fresh: bool = False) -> Any:
        """The room of a game (fetching it lets its flag fall); ``fresh``: checked against
        the stored version first."""


async def flag_if_due(room: Room, now: Callable[[], float] = time.time) -> bool:
    """If the awaited first move of the room's game is overdue, abort the game (the event
    ``abort``); else if its running clock has run out, end the game on time (the event
    ``flag``); each is stored and announced like any change. ``True`` if this call did."""
    clock = room.clock
    if clock is None or room.session.over:
        return False
    t = now()
    if clock.abort_due(t) is not None:
        def overdue() -> int | None:
            c = room.clock
            return None if c is None else c.abort_due(now())

        return await room.act(lambda s: timing.abort(s, overdue()), current=False) is not None
    if clock.fallen(t) is None:
        return False

    def still_due() -> int | None:
        c = room.clock
        return None if c is None else c.fallen(now())

    return await room.act(lambda s: timing.flag(s, still_due()), current=False) is not None


async def check_clocks(hub: Hub) -> list[str]:
    """Let the flag fall (or abort the game whose first move is overdue) in each unfinished
    game whose stored deadline has passed; returns the ids looked at. A game that cannot be
    loaded is logged and skipped."""
    ids = await asyncio.to_thread(hub.store.due_clocks, hub.clock(), WATCH_BATCH)
    for gid in ids:
        try:
            await hub.room(gid, fresh=True)  # fetching a room lets its flag fall (Hub.room)
        except Exception as exc:
            log.warning("cannot check the clock of game %s: %s", gid, exc)
    return ids


async def watch_clocks(hub: Hub, every: float = WATCH_EVERY) -> None:
    """Forever: :func:`check_clocks` every ``every`` seconds (a background task of the app),
    so a player who goes silent still loses on time (or, before his first move, his game
    is aborted). A failing look is logged and the next
    one runs."""
    while True:
        await asyncio.sleep(every)
        try:
            await check_clocks(hub)
        except Exception as exc:
            log_failure("checking the clocks", exc)
