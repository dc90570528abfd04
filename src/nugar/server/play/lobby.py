"""The lobby: open challenges that anyone may accept with one click.

A challenge names the rules, the time control (:mod:`.clocks`) and the colour its creator
plays (``first``, ``second`` or ``random``, drawn when it is accepted). Its creator gets a
secret key; accepting it creates a game between two people by link (mode ``friend``), gives
the accepter the other seat, and tells the creator (on his lobby websocket, or when he asks
with his key) where his seat is. A challenge is listed on the home page unless it is private;
either way its link (``/?challenge=ID``) lets a friend accept it. A challenge made to a bot
(``target``: the bot's account) is never listed: the bot hears of it on its event stream
(:mod:`.routes_bot`), and only it may accept or decline it (:meth:`Lobby.decline`).

The challenges live in the database (the table ``nugar_challenges`` of :mod:`.store`), so
every server process sees the same lobby: a challenge posted on one worker is listed and
accepted through any other. Each change is one transaction; on PostgreSQL it also sends
``NOTIFY nugar_events, 'lobby'`` (:data:`~.store.LOBBY_NOTE`, the channel the games use),
which every process hears (:mod:`.listen`) and passes to its lobby websockets; on SQLite (one
process) the change wakes them directly. Accepting is one conditional ``UPDATE`` (``taken_at =
0`` still): of two accepters, on any workers, exactly one changes the row and wins; the other
is told ``already_accepted``. The creator's seat in the game opens with his challenge key
itself (the game stores its hash, as for every seat), so no secret is stored for him to find.

Memory and the table stay bounded whatever clients send: at most :data:`MAX_CHALLENGES` open
challenges (more is ``503 lobby_full``; checked and inserted under one lock: a PostgreSQL
advisory lock across processes), at most as many accepted ones kept for their creators, each
for :data:`TAKEN_KEEP` seconds, and at most :data:`MAX_WATCHERS` lobby websockets per process.
A challenge lives while its creator is present (a lobby websocket open with its key, on any
process: each process marks its present creators as seen every :data:`SWEEP_EVERY` seconds;
or a request with its key) within the last :data:`LEAVE_GRACE` seconds, and at most
:data:`MAX_AGE` seconds.

Nothing here imports FastAPI: :mod:`.routes_lobby` serves it. The methods that read or write
the database block (the routes run them in a thread); :meth:`Lobby.changed` and
:meth:`Lobby.snapshot` are for the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import random
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, and_, delete, func, insert, select, text, update
from sqlalchemy.engine import Connection

from ...errors import RulesError
from ...i18n import Text
from ...rules import PRESETS, parse_rules
from ..errors import ApiError, reason
from ..ratings import Rating
from ..storage.store import (
    CHANNEL,
    LOBBY_NOTE,
    Store,
    accounts_table,
    challenges_table,
    hash_key,
    new_key,
    ratings_table,
)
from . import rated as rated_rules
from .clocks import TimeControl

#: most open challenges at once, server-wide
MAX_CHALLENGES = 100
#: most lobby websockets at once (per process)
MAX_WATCHERS = 200
#: seconds a challenge stays open after its creator was last present
LEAVE_GRACE = 30.0
#: the longest a challenge stays open, in seconds, present creator or not
MAX_AGE = 3600.0
#: seconds an accepted challenge's game is kept for its creator to find
TAKEN_KEEP = 120.0
#: how often (seconds) the lobby drops expired challenges and marks present creators seen
SWEEP_EVERY = 5.0
COLOURS = ("first", "second", "random")
#: the PostgreSQL advisory lock taken by the lobby's writes (any number: "nugar" in ASCII)
_LOCK_ID = 0x6E75676172

log = logging.getLogger("nugar.server")
_t = challenges_table
_NOTIFY = text("SELECT pg_notify(:channel, :payload)")
_LOCK = text("SELECT pg_advisory_xact_lock(:id)")


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
    taken_at: float = 0.0  # when it was accepted (0: open)
    account: int | None = None  # the creator's account, if signed in
    rated: bool = False         # the game made is rated (both players signed in)
    by: str | None = None       # the signed-in creator's name (as listed)
    rating: str | None = None   # his rating in the challenge's preset, as shown ("1500?")
    target: int | None = None   # the bot account it is made to, if any
    by_bot: bool = False        # the creator is a bot

    def view(self) -> dict[str, Any]:
        """The public view: no secrets."""
        return {"id": self.id, "rules": self.rules, "game": self.game,
                "clock": None if self.control is None else self.control.text,
                "clock_text": "no clock" if self.control is None else self.control.describe(),
                "colour": self.colour, "public": self.public, "created": round(self.created),
                "open": not self.taken_at, "rated": self.rated, "by": self.by,
                "rating": self.rating, "bot": self.by_bot, "to_bot": self.target is not None}

    def owned_by(self, key: str | None) -> bool:
        return bool(key) and len(key or "") <= 200 and hmac.compare_digest(
            hash_key(key or ""), self.owner)

    def seat_for_owner(self, key: str) -> dict[str, Any] | None:
        """Where the creator (whose challenge key is ``key``) plays once it was accepted:
        game id, seat and the key that opens it (his challenge key)."""
        if self.game_id is None:
            return None
        return {"game": self.game_id, "seat": self.owner_seat, "key": key}


@dataclass(frozen=True)
class Snapshot:
    """The lobby as read at one version: the challenges, the public listing and a digest of
    the listed challenges (a socket keeps only the digest of what it last sent)."""

    version: int
    challenges: list[Challenge]
    listing: dict[str, Any]
    digest: str


def _named() -> Select[Any]:
    """The challenges with their signed-in creators' names and ratings in their presets."""
    return (select(_t, accounts_table.c.username, accounts_table.c.bot.label("by_bot"),
                   ratings_table.c.rating,
                   ratings_table.c.deviation, ratings_table.c.volatility)
            .outerjoin(accounts_table, accounts_table.c.id == _t.c.account)
            .outerjoin(ratings_table, and_(ratings_table.c.account_id == _t.c.account,
                                           ratings_table.c.preset == _t.c.rules)))


def _challenge(row: Any) -> Challenge:
    """A challenge from its row (with its creator's name and rating where the query joined
    them: :meth:`Lobby.challenges`)."""
    m = row._mapping
    rating = None
    if m.get("username") is not None:
        rating = (Rating() if m.get("rating") is None
                  else Rating(m["rating"], m["deviation"], m["volatility"])).display
    return Challenge(row.id, row.rules, row.game, TimeControl.parse(row.clock), row.colour,
                     bool(row.public), row.owner, row.created, row.seen, row.game_id,
                     row.owner_seat, row.taken_at, row.account, bool(row.rated),
                     m.get("username"), rating, row.target, bool(m.get("by_bot")))


def made_to(account: int, challenges: list[Challenge]) -> list[Challenge]:
    """The open challenges (of ``challenges``) made to the bot ``account``."""
    return [c for c in challenges if c.target == account and not c.taken_at]


class LobbyWatchers:
    """This process's websockets watching the lobby, at most ``max_watchers``, and waking
    them when the lobby changes (:meth:`heard`, from any thread)."""

    def __init__(self, max_watchers: int = MAX_WATCHERS) -> None:
        self.max_watchers = max_watchers
        #: lobby websockets open here, and those per creator (by the hash of the key given)
        self.watchers = 0
        self.present: dict[str, int] = {}
        #: bumped whenever the lobby changed (here, or heard from another process)
        self.version = 0
        self._changed = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None

    def _bind(self) -> None:
        """Remember the event loop (called from it) that wakes the websockets."""
        with contextlib.suppress(RuntimeError):
            self._loop = asyncio.get_running_loop()

    def _bump(self) -> None:
        self.version += 1
        old, self._changed = self._changed, asyncio.Event()
        old.set()

    def heard(self) -> None:
        """The lobby changed (announced by a process, maybe this one): wake the websockets.
        Safe from any thread."""
        loop = self._loop
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None or running is loop:
            self._bump()
        elif not loop.is_closed():
            loop.call_soon_threadsafe(self._bump)

    async def changed(self, version: int, timeout: float) -> bool:
        """Wait until the lobby is past ``version`` (``True``) or ``timeout`` seconds pass."""
        self._bind()
        if self.version != version:
            return True
        try:
            await asyncio.wait_for(self._changed.wait(), timeout)
        except TimeoutError:
            return False
        return True

    def attach(self, key: str | None) -> str | None:
        """A lobby websocket opens (with a creator's key, or none); ``503 lobby_busy`` beyond
        :data:`MAX_WATCHERS`. Returns what :meth:`detach` needs. (In memory: the creator's
        presence reaches the database with :meth:`mark_seen` and each :meth:`sweep`.)"""
        self._bind()
        if self.watchers >= self.max_watchers:
            raise ApiError("lobby_busy", Text(
                "too many people are watching the lobby; try again in a minute",
                domain="web"))
        self.watchers += 1
        if not key or len(key) > 200:
            return None
        owner = hash_key(key)
        self.present[owner] = self.present.get(owner, 0) + 1
        return owner

    def detach(self, owner: str | None) -> None:
        """A lobby websocket closed; when it was its creator's last one here, the caller
        runs :meth:`mark_seen` (in a thread): the grace starts then."""
        self.watchers -= 1
        if owner is None:
            return
        count = self.present.get(owner, 0) - 1
        if count > 0:
            self.present[owner] = count
        else:
            self.present.pop(owner, None)


class Lobby(LobbyWatchers):
    """The challenges of the lobby in ``store``, and this process's websockets watching them
    (:class:`LobbyWatchers`)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time, *,
                 max_challenges: int = MAX_CHALLENGES, max_watchers: int = MAX_WATCHERS,
                 grace: float = LEAVE_GRACE, max_age: float = MAX_AGE,
                 keep: float = TAKEN_KEEP) -> None:
        super().__init__(max_watchers)
        self.store = store
        self.clock = clock
        self.max_challenges = max_challenges
        self.grace = grace
        self.max_age = max_age
        self.keep = keep
        self._lock = threading.Lock()  # this process's writes, one at a time
        self._cache: Snapshot | None = None
        self._reading: asyncio.Lock | None = None

    # --- changes ----------------------------------------------------------------------------
    def _write(self, conn: Connection) -> None:
        """Start a write: one at a time here, and across processes on PostgreSQL."""
        if self.store.shared:
            conn.execute(_LOCK, {"id": _LOCK_ID})

    def _announce(self, conn: Connection) -> None:
        """Inside a write's transaction: tell every process once it is committed."""
        if self.store.shared:
            conn.execute(_NOTIFY, {"channel": CHANNEL, "payload": LOBBY_NOTE})

    def _read(self, conn: Connection, cid: str) -> Challenge | None:
        if not (isinstance(cid, str) and cid.isascii() and cid.isalnum() and len(cid) <= 16):
            return None  # never an id (and nothing a database could choke on, such as NUL)
        row = conn.execute(_named().where(_t.c.id == cid)).first()
        return None if row is None else _challenge(row)

    @staticmethod
    def _unknown(cid: str) -> ApiError:
        return ApiError("unknown_challenge", Text(
            "no open challenge {cid!r}: it was accepted, cancelled or has expired",
            domain="web", cid=str(cid)[:20]))

    def post(self, rules: str, control: TimeControl | None, colour: str = "random",
             public: bool = True, account: int | None = None,
             rated: bool = False, target: int | None = None) -> tuple[Challenge, str]:
        """Open a challenge; returns it and its creator's key. ``503 lobby_full`` when
        :data:`MAX_CHALLENGES` are open. ``account``: the creator's, if signed in; a
        ``rated`` one needs it (401 ``signed_out``) and a preset's name exactly (422
        ``bad_rules``: the ratings are per preset). ``target``: the bot account it is made
        to (never listed)."""
        if rated and account is None:
            raise ApiError("signed_out", Text("sign in to post a rated challenge", domain="web"))
        if rated and rules not in PRESETS:
            raise ApiError("bad_rules", Text(
                "a rated challenge plays a preset exactly, without options: {presets}",
                domain="web", presets=', '.join(PRESETS)))
        if colour not in COLOURS:
            raise ApiError("bad_colour", Text(
                "colour must be first, second or random, not {colour!r}",
                domain="web", colour=str(colour)[:20]))
        try:
            rule_set = parse_rules(rules)
        except RulesError as exc:
            raise ApiError("bad_rules", reason(exc)) from None
        if rated and control is None:  # a rated game always has a clock (:mod:`.rated`)
            control = TimeControl.parse(rated_rules.DEFAULT_CONTROL)
        self.sweep()
        now = self.clock()
        key = new_key()
        challenge = Challenge(secrets.token_hex(6), rule_set.text, rule_set.game, control,
                              colour, public and target is None, hash_key(key), now, now,
                              account=account, rated=rated, target=target)
        with self._lock, self.store.engine.begin() as conn:
            self._write(conn)
            if rated and account is not None:
                rated_rules.check_may_start(conn, [account], time.time())
            count = conn.execute(select(func.count()).select_from(_t)
                                 .where(_t.c.taken_at == 0)).scalar_one()
            if count >= self.max_challenges:
                raise ApiError("lobby_full", Text.plural(
                    "the lobby holds {max_challenges} open challenge, the most it takes; accept "
                    "one, or try again later", "the lobby holds {max_challenges} open "
                    "challenges, the most it takes; accept one, or try again later",
                    self.max_challenges, domain="web", max_challenges=self.max_challenges))
            conn.execute(insert(_t).values(
                id=challenge.id, rules=challenge.rules, game=challenge.game,
                clock=None if control is None else control.text, colour=colour,
                public=int(challenge.public), owner=challenge.owner, created=now, seen=now,
                taken_at=0.0, account=account, rated=1 if rated else None, target=target))
            self._announce(conn)
        self.heard()
        return challenge, key

    def get(self, cid: str, key: str | None = None) -> Challenge:
        """An open or just accepted challenge (``404 unknown_challenge`` otherwise); a
        request with its creator's key counts as the creator being present."""
        with self.store.engine.connect() as conn:
            challenge = self._read(conn, cid)
        if challenge is None:
            raise self._unknown(cid)
        if challenge.owned_by(key) and not challenge.taken_at:
            self._seen([challenge.owner])
        return challenge

    def take(self, cid: str, key: str | None = None,
             account: int | None = None) -> Challenge:
        """Reserve an open challenge for the one accepting it (the creator cannot): one
        conditional update, so of any number of accepters on any processes exactly one gets
        it (the others: ``409 already_accepted``); :meth:`taken_by` or :meth:`release`
        follows. A rated one only for a signed-in ``account`` (401 ``signed_out``) other
        than the creator's."""
        now = self.clock()
        with self._lock, self.store.engine.begin() as conn:
            challenge = self._read(conn, cid)
            if challenge is None:
                raise self._unknown(cid)
            if challenge.rated and account is None:
                raise ApiError("signed_out", Text(
                    "sign in to accept a rated challenge",
                    domain="web"))
            if challenge.target is not None and account != challenge.target:
                raise ApiError("not_yours", Text(
                    "this challenge was made to a bot: only that bot may accept it",
                    domain="web"))
            if challenge.owned_by(key) or (challenge.rated and account == challenge.account):
                raise ApiError("own_challenge", Text(
                    "this is your own challenge; wait for someone to accept it, or cancel it",
                    domain="web"))
            if challenge.rated and account is not None and challenge.account is not None:
                rated_rules.check_may_start(conn, [challenge.account, account], time.time())
            done = conn.execute(update(_t).where(_t.c.id == cid).where(_t.c.taken_at == 0)
                                .values(taken_at=now))
            if done.rowcount != 1:
                raise ApiError("already_accepted", Text(
                    "someone else accepted this challenge first",
                    domain="web"))
            # accepted ones kept for their creators: the oldest beyond the bound go
            old = (select(_t.c.seq).where(_t.c.taken_at > 0).order_by(_t.c.taken_at.desc())
                   .offset(self.max_challenges))
            conn.execute(delete(_t).where(_t.c.seq.in_(old.scalar_subquery())))
            self._announce(conn)
        challenge.taken_at = now
        self.heard()
        return challenge

    def release(self, challenge: Challenge) -> None:
        """Put back a challenge whose game could not be made (dropped if the lobby filled up
        meanwhile)."""
        with self._lock, self.store.engine.begin() as conn:
            self._write(conn)
            count = conn.execute(select(func.count()).select_from(_t)
                                 .where(_t.c.taken_at == 0)).scalar_one()
            mine = _t.c.id == challenge.id
            if count < self.max_challenges:
                conn.execute(update(_t).where(mine).where(_t.c.game_id.is_(None))
                             .values(taken_at=0.0, seen=self.clock()))
            else:
                conn.execute(delete(_t).where(mine))
            self._announce(conn)
        challenge.taken_at = 0.0
        self.heard()

    def taken_by(self, challenge: Challenge, game_id: str, owner_seat: int) -> None:
        """Record the game made for an accepted challenge, for its creator to find."""
        now = self.clock()
        with self.store.engine.begin() as conn:
            conn.execute(update(_t).where(_t.c.id == challenge.id)
                         .values(game_id=game_id, owner_seat=owner_seat, taken_at=now))
            self._announce(conn)
        challenge.game_id, challenge.owner_seat, challenge.taken_at = game_id, owner_seat, now
        self.heard()

    def cancel(self, cid: str, key: str | None) -> None:
        with self._lock, self.store.engine.begin() as conn:
            challenge = self._read(conn, cid)
            if challenge is None:
                raise self._unknown(cid)
            if not challenge.owned_by(key):
                raise ApiError("bad_key", Text(
                    "only the creator of a challenge may cancel it",
                    domain="web"))
            done = conn.execute(delete(_t).where(_t.c.id == cid).where(_t.c.taken_at == 0))
            if done.rowcount != 1:
                raise ApiError("already_accepted", Text(
                    "the challenge was accepted already",
                    domain="web"))
            self._announce(conn)
        self.heard()

    def decline(self, cid: str, account: int) -> None:
        """The bot a challenge was made to declines it (403 ``not_yours`` for anyone else)."""
        with self._lock, self.store.engine.begin() as conn:
            challenge = self._read(conn, cid)
            if challenge is None or challenge.taken_at:
                raise self._unknown(cid)
            if challenge.target != account:
                raise ApiError("not_yours", Text(
                    "only the bot a challenge was made to may decline it", domain="web"))
            conn.execute(delete(_t).where(_t.c.id == cid).where(_t.c.taken_at == 0))
            self._announce(conn)
        self.heard()

    @staticmethod
    def seats(colour: str) -> int:
        """The creator's seat for a colour (``random``: drawn now)."""
        if colour == "first":
            return 1
        if colour == "second":
            return 2
        return random.choice((1, 2))

    # --- presence and expiry ----------------------------------------------------------------
    def _seen(self, owners: Sequence[str]) -> None:
        """The creators with these key hashes are present now: their open challenges stay."""
        if not owners:
            return
        with self.store.engine.begin() as conn:
            conn.execute(update(_t).where(_t.c.owner.in_(list(owners)))
                         .where(_t.c.taken_at == 0).values(seen=self.clock()))

    def mark_seen(self, owner: str | None) -> None:
        """The creator with this key hash came or left: his open challenges were seen now."""
        if owner is not None:
            self._seen([owner])

    def sweep(self) -> bool:
        """Mark the creators present here as seen now; then drop the challenges whose
        creator was last seen more than :data:`LEAVE_GRACE` seconds ago or that are older
        than :data:`MAX_AGE`, and accepted ones older than :data:`TAKEN_KEEP`; ``True`` if
        any went."""
        self._seen(list(self.present.copy()))  # copied at once: the event loop changes it
        now = self.clock()
        with self._lock, self.store.engine.begin() as conn:
            gone = conn.execute(delete(_t).where(_t.c.taken_at == 0).where(
                (_t.c.created < now - self.max_age) | (_t.c.seen < now - self.grace)))
            old = conn.execute(delete(_t).where(_t.c.taken_at > 0)
                               .where(_t.c.taken_at < now - self.keep))
            if gone.rowcount:
                self._announce(conn)
        if old.rowcount or gone.rowcount:
            self._cache = None
        if gone.rowcount:
            self.heard()
        return bool(gone.rowcount)

    async def sweep_forever(self, every: float = SWEEP_EVERY) -> None:
        """:meth:`sweep` every ``every`` seconds (a background task of the app)."""
        self._bind()
        while True:
            await asyncio.sleep(every)
            try:
                await asyncio.to_thread(self.sweep)
            except Exception as exc:  # the database may be away for a while: try again
                log.warning("sweeping the lobby failed: %s", exc)

    # --- reading ----------------------------------------------------------------------------
    def challenges(self) -> list[Challenge]:
        """Every challenge stored (open and kept accepted ones: at most twice
        :data:`MAX_CHALLENGES`), in the order posted."""
        with self.store.engine.connect() as conn:
            rows = conn.execute(_named().order_by(_t.c.seq)).all()
        return [_challenge(r) for r in rows]

    async def snapshot(self) -> Snapshot:
        """:meth:`challenges` and their :meth:`listing`, read once per version of the lobby
        and shared by every websocket of this process."""
        self._bind()
        if self._reading is None:
            self._reading = asyncio.Lock()
        async with self._reading:
            version = self.version
            cache = self._cache
            if cache is None or cache.version != version:
                found = await asyncio.to_thread(self.challenges)
                listing = self.listing(found)
                digest = hashlib.sha256(json.dumps(listing["challenges"]).encode()).hexdigest()
                cache = self._cache = Snapshot(version, found, listing, digest)
            return cache

    def listing(self, challenges: list[Challenge] | None = None) -> dict[str, Any]:
        """The public open challenges, newest first (of ``challenges``, else as stored)."""
        found = self.challenges() if challenges is None else challenges
        return {"type": "lobby", "v": self.version,
                "challenges": [c.view() for c in reversed(found)
                               if c.public and not c.taken_at],
                "max": self.max_challenges}

    def accepted_for(self, owner: str | None, challenges: list[Challenge] | None = None
                     ) -> list[Challenge]:
        """The accepted challenges of the creator with this key hash (their game made)."""
        if owner is None:
            return []
        found = self.challenges() if challenges is None else challenges
        return [c for c in found if c.owner == owner and c.game_id is not None]

    def open_ids(self) -> list[str]:
        """The ids of the open challenges, public or not, in the order posted."""
        return [c.id for c in self.challenges() if not c.taken_at]
