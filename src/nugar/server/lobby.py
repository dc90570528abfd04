"""The lobby: open challenges that anyone may accept with one click.

A challenge names the rules, the time control (:mod:`.clocks`) and the colour its creator
plays (``first``, ``second`` or ``random``, drawn when it is accepted). Its creator gets a
secret key; accepting it creates a game between two people by link (mode ``friend``), gives
the accepter the other seat, and tells the creator (on his lobby websocket, or when he asks
with his key) where his seat is. A challenge is listed on the home page unless it is private;
either way its link (``/?challenge=ID``) lets a friend accept it.

Memory stays bounded whatever clients send: at most :data:`MAX_CHALLENGES` open challenges
(more is ``503 lobby_full``), at most as many accepted ones kept for their creators, each for
:data:`TAKEN_KEEP` seconds, and at most :data:`MAX_WATCHERS` lobby websockets. A challenge lives
while its creator is present (a lobby websocket open with its key, or a request with its key
in the last :data:`LEAVE_GRACE` seconds) and at most :data:`MAX_AGE` seconds.

Nothing here imports FastAPI: :mod:`.routes_lobby` serves it.
"""

from __future__ import annotations

import asyncio
import hmac
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..errors import RulesError
from ..rules import parse_rules
from .clocks import TimeControl
from .session import ApiError
from .store import hash_key

#: most open challenges at once, server-wide
MAX_CHALLENGES = 100
#: most lobby websockets at once
MAX_WATCHERS = 200
#: seconds a challenge stays open after its creator was last present
LEAVE_GRACE = 30.0
#: the longest a challenge stays open, in seconds, present creator or not
MAX_AGE = 3600.0
#: seconds an accepted challenge's game is kept for its creator to find
TAKEN_KEEP = 120.0
#: how often (seconds) the lobby drops expired challenges when nothing else happens
SWEEP_EVERY = 5.0
COLOURS = ("first", "second", "random")


@dataclass
class Challenge:
    """One challenge: what it offers, who made it (the hash of his key) and, once accepted,
    the game and the creator's seat in it."""

    id: str
    rules: str
    game: str
    control: TimeControl | None
    colour: str
    public: bool
    owner: str
    created: float
    seen: float
    game_id: str | None = None
    owner_seat: int | None = None
    owner_key: str | None = None
    taken_at: float = 0.0  # when it was accepted (0: open)

    def view(self) -> dict[str, Any]:
        """The public view: no secrets."""
        return {"id": self.id, "rules": self.rules, "game": self.game,
                "clock": None if self.control is None else self.control.text,
                "clock_text": "no clock" if self.control is None else self.control.describe(),
                "colour": self.colour, "public": self.public, "created": round(self.created),
                "open": not self.taken_at}

    def owned_by(self, key: str | None) -> bool:
        return bool(key) and len(key or "") <= 200 and hmac.compare_digest(
            hash_key(key or ""), self.owner)

    def seat_for_owner(self) -> dict[str, Any] | None:
        """Where the creator plays once it was accepted: game id, seat and its key."""
        if self.game_id is None:
            return None
        return {"game": self.game_id, "seat": self.owner_seat, "key": self.owner_key}


class Lobby:
    """The open challenges of one server and the websockets watching them."""

    def __init__(self, clock: Callable[[], float] = time.time, *,
                 max_challenges: int = MAX_CHALLENGES, max_watchers: int = MAX_WATCHERS,
                 grace: float = LEAVE_GRACE, max_age: float = MAX_AGE) -> None:
        self.clock = clock
        self.max_challenges = max_challenges
        self.max_watchers = max_watchers
        self.grace = grace
        self.max_age = max_age
        self.open: OrderedDict[str, Challenge] = OrderedDict()
        self.taken: OrderedDict[str, Challenge] = OrderedDict()
        #: lobby websockets open, and those per creator (by the hash of the key they gave)
        self.watchers = 0
        self.present: dict[str, int] = {}
        self.version = 0
        self._changed = asyncio.Event()

    # --- changes ----------------------------------------------------------------------------
    def _touch(self) -> None:
        self.version += 1
        old, self._changed = self._changed, asyncio.Event()
        old.set()

    async def changed(self, version: int, timeout: float) -> bool:
        """Wait until the lobby is past ``version`` (``True``) or ``timeout`` seconds pass."""
        if self.version != version:
            return True
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def post(self, rules: str, control: TimeControl | None, colour: str = "random",
             public: bool = True) -> tuple[Challenge, str]:
        """Open a challenge; returns it and its creator's key. ``503 lobby_full`` when
        :data:`MAX_CHALLENGES` are open."""
        if colour not in COLOURS:
            raise ApiError(422, "bad_colour", f"colour must be first, second or random, not "
                           f"{str(colour)[:20]!r}")
        try:
            rule_set = parse_rules(rules)
        except RulesError as exc:
            raise ApiError(422, "bad_rules", str(exc)) from None
        self.sweep()
        if len(self.open) >= self.max_challenges:
            raise ApiError(503, "lobby_full", f"the lobby holds {self.max_challenges} open "
                           "challenges, the most it takes; accept one, or try again later")
        now = self.clock()
        key = secrets.token_urlsafe(18)
        challenge = Challenge(secrets.token_hex(6), rule_set.text, rule_set.game, control,
                              colour, public, hash_key(key), now, now)
        self.open[challenge.id] = challenge
        self._touch()
        return challenge, key

    def get(self, cid: str, key: str | None = None) -> Challenge:
        """An open or just accepted challenge (``404 unknown_challenge`` otherwise); a
        request with its creator's key counts as the creator being present."""
        self.sweep()
        challenge = self.open.get(cid) or self.taken.get(cid)
        if challenge is None:
            raise ApiError(404, "unknown_challenge", f"no open challenge {str(cid)[:20]!r}: "
                           "it was accepted, cancelled or has expired")
        if challenge.owned_by(key):
            challenge.seen = self.clock()
        return challenge

    def take(self, cid: str, key: str | None = None) -> Challenge:
        """Reserve an open challenge for the one accepting it (the creator cannot), so no
        second accepter gets it; :meth:`taken_by` or :meth:`release` follows."""
        challenge = self.get(cid)
        if cid not in self.open:
            raise ApiError(409, "already_accepted", "someone else accepted this challenge "
                           "first")
        if challenge.owned_by(key):
            raise ApiError(409, "own_challenge", "this is your own challenge; wait for "
                           "someone to accept it, or cancel it")
        del self.open[cid]
        challenge.taken_at = self.clock()
        self._keep_taken(challenge)  # found by its creator while the game is being made
        return challenge

    def release(self, challenge: Challenge) -> None:
        """Put back a challenge whose game could not be made."""
        self.taken.pop(challenge.id, None)
        challenge.taken_at = 0.0
        if len(self.open) < self.max_challenges:
            self.open[challenge.id] = challenge
        self._touch()

    def _keep_taken(self, challenge: Challenge) -> None:
        self.taken[challenge.id] = challenge
        while len(self.taken) > self.max_challenges:
            self.taken.popitem(last=False)
        self._touch()

    def taken_by(self, challenge: Challenge, game_id: str, owner_seat: int,
                 owner_key: str) -> None:
        """Record the game made for an accepted challenge, for its creator to find."""
        challenge.game_id, challenge.owner_seat = game_id, owner_seat
        challenge.owner_key, challenge.taken_at = owner_key, self.clock()
        self._keep_taken(challenge)

    def cancel(self, cid: str, key: str | None) -> None:
        challenge = self.get(cid)
        if not challenge.owned_by(key):
            raise ApiError(403, "bad_key", "only the creator of a challenge may cancel it")
        if self.open.pop(cid, None) is None:
            raise ApiError(409, "already_accepted", "the challenge was accepted already")
        self._touch()

    @staticmethod
    def seats(colour: str) -> int:
        """The creator's seat for a colour (``random``: drawn now)."""
        if colour == "first":
            return 1
        if colour == "second":
            return 2
        return random.choice((1, 2))

    # --- presence and expiry ----------------------------------------------------------------
    def attach(self, key: str | None) -> str | None:
        """A lobby websocket opens (with a creator's key, or none); ``503 lobby_busy`` beyond
        :data:`MAX_WATCHERS`. Returns what :meth:`detach` needs."""
        if self.watchers >= self.max_watchers:
            raise ApiError(503, "lobby_busy", "too many people are watching the lobby; try "
                           "again in a minute")
        self.watchers += 1
        if not key or len(key) > 200:
            return None
        owner = hash_key(key)
        self.present[owner] = self.present.get(owner, 0) + 1
        return owner

    def detach(self, owner: str | None) -> None:
        self.watchers -= 1
        if owner is None:
            return
        left = self.present.get(owner, 0) - 1
        if left > 0:
            self.present[owner] = left
            return
        self.present.pop(owner, None)
        now = self.clock()
        for challenge in self.open.values():
            if challenge.owner == owner:
                challenge.seen = now  # the grace starts when the creator leaves

    def sweep(self) -> bool:
        """Drop the challenges whose creator left more than :data:`LEAVE_GRACE` seconds ago
        or that are older than :data:`MAX_AGE`, and accepted ones older than
        :data:`TAKEN_KEEP`; ``True`` if any went."""
        now = self.clock()
        gone = [cid for cid, c in self.open.items()
                if now - c.created > self.max_age
                or (c.owner not in self.present and now - c.seen > self.grace)]
        for cid in gone:
            del self.open[cid]
        old = [cid for cid, c in self.taken.items() if now - c.taken_at > TAKEN_KEEP]
        for cid in old:
            del self.taken[cid]
        if gone:
            self._touch()
        return bool(gone)

    async def sweep_forever(self, every: float = SWEEP_EVERY) -> None:
        """:meth:`sweep` every ``every`` seconds (a background task of the app)."""
        while True:
            await asyncio.sleep(every)
            self.sweep()

    # --- reading ----------------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        """The public open challenges, newest first."""
        return {"type": "lobby", "v": self.version,
                "challenges": [c.view() for c in reversed(self.open.values()) if c.public],
                "max": self.max_challenges}

    def accepted_for(self, owner: str | None) -> list[Challenge]:
        """The accepted challenges of the creator with this key hash (their game made)."""
        if owner is None:
            return []
        return [c for c in self.taken.values() if c.owner == owner and c.game_id is not None]
