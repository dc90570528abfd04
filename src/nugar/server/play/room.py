"""One game's room: the cache of its stored row, its session and its websocket listeners.

A :class:`Room` holds what this process knows of one stored game: the row last read or
written (``row``), the :class:`~.session.GameSession` that decides the game's changes, its
clocks, and the queues of its websocket listeners (:class:`Listener`). It is the session's
owner (:class:`~.session.SessionOwner`): a change the session decides is handed to the
``save`` the room was built with (the :class:`~.rooms.Hub` stores and announces it), and a
session that finds the stored game newer asks the room's ``refresh`` (the Hub's follower,
:mod:`.follow`) to bring it up to date.

What a change answers, and what listeners get, is an *update* (:meth:`Room.update`): the new
version, the status, the board and the legal moves, and only the moves and turns that changed
since a base version (``moves_from``/``new_moves``, ``turns_from``/``new_turns``), never the
whole history; the full state (:meth:`Room.state`) is the update from version 0.
"""

from __future__ import annotations

import asyncio
import bisect
import hmac
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from ...i18n import Text
from ...rules import Game, Move
from ..clients import CLIENT, account_key
from ..errors import ApiError
from ..storage.store import GameRow, StoredEvent, hash_key
from ..work.ai_pool import AiPool
from .clocks import Clock
from .render import board_data
from .session import GameSession, aborted_by, impose, rematch_id, restore, stored_outcome

#: most events waiting for one websocket listener; one more drops it (it resyncs on reconnect)
LISTENER_QUEUE = 64
#: most moves whose sowings a state carries (the page animates no longer run of moves)
SOWN_PLIES = 12
#: secrets a room remembers as opening a seat (a game has at most three: two seats, hot-seat)
KNOWN_KEYS = 4


class Listener:
    """One websocket's queue of a game's events, bounded to ``limit`` events.

    An event that finds the queue full is not queued: the listener is marked ``dropped``
    (its socket is then closed and the client reconnects with ``?since=``), so a client that
    stops reading pins at most ``limit`` events.
    """

    def __init__(self, limit: int = LISTENER_QUEUE) -> None:
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=limit)
        self.dropped = asyncio.Event()

    def offer(self, message: dict[str, Any]) -> bool:
        """Queue ``message``; ``False`` (and ``dropped`` set) when the queue is full."""
        if self.dropped.is_set():
            return False
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.dropped.set()
            return False
        return True


#: stores and announces one change of a room's session (the room, the event type and its
#: data); returns the public state
Save = Callable[["Room", str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: brings a room to the stored game when another process changed it; ``True`` if it changed
Refresh = Callable[["Room"], Awaitable[bool]]


class Room:
    """A live game: its stored row, its session, and the queues of its websocket listeners.

    ``save(room, event_type, data)`` stores and announces each change of the session,
    ``refresh(room)`` brings the room to the stored game, ``now()`` is the server's time; the
    computer thinks in ``pool``. The room is its session's owner
    (:class:`~.session.SessionOwner`).
    """

    def __init__(self, row: GameRow, game: Game, pool: AiPool, *, save: Save,
                 refresh: Refresh, now: Callable[[], float] = time.time) -> None:
        self.row = row  # first: the session reads the stored moves from it
        self.listeners: set[Listener] = set()
        self.clock = Clock.from_json(row.clock)  # None: a game without a time control
        self.now = now
        self._save = save
        self._refresh = refresh
        # the session reaches its room through a weak proxy: a room and its session hold no
        # cycle, so an evicted room is freed at once, not at the next full garbage collection
        # (the room always outlives its session: it holds it)
        self.session = GameSession(game, row.mode, weakref.proxy(self), pool,
                                   ai_seat=row.ai_seat, ai_level=row.ai_level,
                                   offers=row.offers, aborted=aborted_by(row.ending),
                                   rated=row.rated)
        self.session.auto_pass = self.clock is not None  # a forced pass takes no time
        #: the newest stored version heard of (from another process): above ``row.version``,
        #: the room is refreshed before its next use
        self.known = row.version
        #: the full state of ``row.version``, computed once per version (:meth:`state`)
        self._view: dict[str, Any] | None = None
        #: the game's turns kept as it grows (:meth:`_turns_now`): the turns, each turn's
        #: ``{player, text, n}`` and the number of moves after it, for the stored move texts
        #: ``_turns_of`` (a new game, or moves taken back, starts them again)
        self._turns: list[tuple[int, list[Move]]] = []
        self._turn_views: list[dict[str, Any]] = []
        self._turn_ends: list[int] = []
        self._turns_of: list[str] = []
        #: secrets known to open a seat, and the seat (:meth:`seat_of`)
        self._seats: dict[str, int] = {}
        #: the rule set's text, game, family and player names (:meth:`_compute_state`)
        self._named: tuple[str, str, str, tuple[str, str]] | None = None
        #: the text of each action code met (the rule set's moves do not change)
        self._action_texts: dict[int, str] = {}
        #: a task following the versions other processes stored (:meth:`.follow.Follower.heard`)
        self.following: asyncio.Task[None] | None = None
        #: events of newer versions heard with their announcement (version -> event)
        self.heard_events: dict[int, StoredEvent] = {}

    @property
    def stale(self) -> bool:
        """Whether another process stored a newer version than this room holds."""
        return self.known > self.row.version

    # --- the session's owner (:class:`~.session.SessionOwner`) -------------------------------
    async def commit(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store and announce the session's change (``save``); returns the update."""
        return await self._save(self, etype, data)

    def version(self) -> int:
        return self.row.version

    def stored_moves(self) -> list[str]:
        return self.row.moves

    def is_stale(self) -> bool:
        return self.stale

    async def resync(self) -> bool:
        return await self._refresh(self)

    def apply_row(self, row: GameRow) -> None:
        """Bring the room to the stored ``row`` (a newer version written elsewhere): the new
        moves are played on the cached game when they extend it, otherwise the stored game
        is replayed; the clocks are the stored ones. Called with the session's lock held."""
        if row.version == self.row.version:
            return
        try:
            clock = Clock.from_json(row.clock)
            aborted = aborted_by(row.ending)
        except (ValueError, TypeError, KeyError) as exc:
            raise ApiError("corrupt_game", Text(
                "the stored clock of game {id} does not read: {exc}",
                domain="web", id=row.id, exc=exc)) from None
        session = self.session
        game = session.game
        cached = self.row.moves
        if (game.outcome is None and self.row.ending is None and len(row.moves) >= len(cached)
                and row.moves[:len(cached)] == cached
                and [str(m) for m in game.move_stack] == cached):
            try:
                for text in row.moves[len(cached):]:
                    game.play(text)
                if row.ending and aborted is None:
                    impose(game, stored_outcome(row.ending))
            except ValueError:
                game = restore(row.rules, row.moves, row.ending)
        else:
            game = restore(row.rules, row.moves, row.ending)
        if (row.key_hash_1, row.key_hash_2) != (self.row.key_hash_1, self.row.key_hash_2):
            self._seats.clear()  # never so far: a game's secrets are made with it
        self.row = row  # first: the session reads the stored moves from it
        self.clock = clock
        session.reset(game, row.offers, aborted)
        self.known = max(self.known, row.version)
        self._view = None

    def took(self, row: GameRow, game: Game) -> None:
        """Take ``row`` as the stored game, whose game is ``game``: the session's own, with the
        row's new moves played on it (:meth:`.follow.Follower.heard` moves). Called with the
        session's lock held."""
        self.row = row  # first: the session reads the stored moves from it
        self.session.reset(game, row.offers)
        self._view = None

    def announce(self, message: dict[str, Any]) -> None:
        """Queue ``message`` for every listener, dropping those whose queue is full."""
        for listener in list(self.listeners):
            if not listener.offer(message):
                self.listeners.discard(listener)

    # --- reading ----------------------------------------------------------------------------
    def unseen(self, seat: int | None) -> list[int] | None:
        """The seats a request opening ``seat`` (:meth:`seat_of`) shows to be open that the
        clock does not know yet (``None``: none; a game without a clock needs none)."""
        clock = self.clock
        if clock is None or seat is None or clock.ready:
            return None
        seats = [p for p in ((1, 2) if seat == 0 else (seat,)) if not clock.seen[p - 1]]
        return seats or None

    def player_of(self, key: str | None) -> int | None:
        """:meth:`seat_of` for a request that plays the seat (a move, an offer, a
        resignation, an undo, a hint): in a rated game a seat held by an account is played
        only with that account's session as well (the request's client,
        :data:`~..clients.CLIENT`), so a seat key left in a browser after signing out, or
        copied from it, plays nothing: ``401 signed_out``."""
        seat = self.seat_of(key)
        row = self.row
        if seat in (1, 2) and row.rated:
            holder = row.account_1 if seat == 1 else row.account_2
            if holder is not None and CLIENT.get() != account_key(holder):
                raise ApiError("signed_out", Text(
                    "a seat of a rated game is played signed in as its player",
                    domain="web"))
        return seat

    def seat_of(self, key: str | None) -> int | None:
        """The seat a secret opens: 1, 2, 0 for a hot-seat key (both seats), else ``None``.
        The secrets that opened a seat are remembered (at most :data:`KNOWN_KEYS`), so a
        player's every move does not hash his secret again; any other key is hashed and
        compared as always."""
        if not key or len(key) > 200:
            return None
        seat = self._seats.get(key)
        if seat is not None:
            return seat
        seat = self._seat_by_hash(key)
        if seat is not None:
            if len(self._seats) >= KNOWN_KEYS:
                self._seats.clear()
            self._seats[key] = seat
        return seat

    def _seat_by_hash(self, key: str) -> int | None:
        digest = hash_key(key)
        one = self.row.key_hash_1 or ""
        two = self.row.key_hash_2 or ""
        match_one = hmac.compare_digest(digest, one) if one else False
        match_two = hmac.compare_digest(digest, two) if two else False
        if match_one and match_two:
            return 0
        if match_one:
            return 1
        if match_two:
            return 2
        return None

    def state(self, history: bool = True) -> dict[str, Any]:
        """The public view of the game (no secrets): everything a client draws. It is
        computed once per version and shared by every answer and listener (do not change
        it); ``history=False`` leaves out ``moves`` and ``turns``."""
        view = self._view
        if view is None or view["v"] != self.row.version:
            view = self._view = self._compute_state()
        if self.clock is not None:  # the time left changes between versions: read it now
            view = {**view, "clock": self.clock.view(self.now())}
        if history:
            return view
        return {k: v for k, v in view.items() if k not in ("moves", "turns")}

    def update(self, base: int, moves_from: int,
               old_turns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        """What changed since version ``base``, whose moves agree with the current ones on
        the first ``moves_from``: the status fields of :meth:`state` (version, whose turn,
        result, score, legal moves, offers, board), ``new_moves`` (the moves
        from ``moves_from`` on) and ``new_turns`` (the turns from ``turns_from`` on: the turn
        holding move ``moves_from`` is sent again, since it may have grown). A client at a
        version from ``base`` up to ``v`` merges it; one below ``base`` asks
        ``GET /api/games/{id}?since=V`` (or sends the websocket ``sync``). Given the turns
        of version ``base`` (``old_turns``), only the turns that differ are sent."""
        full = self.state()
        if base <= 0:
            return {**full, "base": 0}
        moves_from = max(0, min(moves_from, full["ply"]))
        turns_from = 0
        if old_turns is not None:
            new_turns = full["turns"]
            limit = min(len(old_turns), len(new_turns))
            while turns_from < limit and (old_turns[turns_from] is new_turns[turns_from]
                                          or old_turns[turns_from] == new_turns[turns_from]):
                turns_from += 1  # the turns a change did not touch are the same objects
        else:  # a turn that ended before moves_from cannot have changed
            turns_from = bisect.bisect_left(self._turn_ends, moves_from)
        out = {k: v for k, v in full.items() if k not in NOT_IN_UPDATES}
        out.update(base=base, moves_from=moves_from, new_moves=full["moves"][moves_from:],
                   turns_from=turns_from, new_turns=full["turns"][turns_from:])
        return out

    def _compute_state(self) -> dict[str, Any]:
        session = self.session
        game = session.game
        outcome = game.outcome
        aborted = session.aborted
        over = session.over
        ply = game.ply
        turns = self._turns_now(game)
        last_turn = turns[-1][1] if turns else []
        legal = [] if over else self._legal_texts(game)
        named = self._named
        if named is None:  # what names the game never changes
            named = self._named = (game.rules.text, game.rules.game, game.rules.family,
                                   (game.player_name(1), game.player_name(2)))
        out: dict[str, Any] = {
            "id": self.row.id,
            "v": self.row.version,
            "base": 0,
            "rules": named[0],
            "game": named[1],
            "family": named[2],
            "players": list(named[3]),
            "misere": game.rules.misere,  # the smaller store wins (the page's result text)
            "mode": session.mode,
            "ai_level": session.ai_level,
            "ai_seat": session.ai_seat,
            "to_move": None if over else game.to_move,
            "over": over,
            # an aborted game has no result (``*``) and no winner
            "result": session.result,
            "winner": None if outcome is None else outcome.winner,
            "reason": session.reason,
            "aborted": aborted,  # the player who did not make his first move in time
            "early": session.early_abort,  # a rated game ended too early to rate
            "score": list(game.score),
            "legal": legal,
            "last_move": str(last_turn[-1]) if last_turn else None,
            "last_turn": [str(m) for m in last_turn],
            "last_mover": turns[-1][0] if turns else None,
            "offers": session.offers,
            # the rematch offered after the game (:mod:`.rematch`), if one was
            "rematch": (rematch_id(self.row.id, len(self.row.moves))
                        if "rematch" in session.offers else None),
            "ply": ply,
            "clock": None if self.clock is None else self.clock.view(self.now()),
            "board": board_data(game),  # the page draws it (static/board.js): no SVG here
            # what the moves of the last two turns sowed, seed by seed (the page animates
            # them; empty for a game whose moves sow nothing)
            "sowings": [s.as_json() for s in game.sowings(
                min(SOWN_PLIES, sum(len(moves) for _, moves in turns[-2:])))],
        }
        out["turns"] = list(self._turn_views)  # a copy: a view is never changed after
        out["moves"] = self.row.moves  # the stored texts of the game's moves (never changed)
        return out

    def _legal_texts(self, game: Game) -> list[str]:
        """The texts of the legal moves, each action's text made once per room."""
        known = self._action_texts
        out = []
        for action in game.legal_actions():
            text = known.get(action)
            if text is None:
                text = known[action] = str(game.action_to_move(action))
            out.append(text)
        return out

    def _turns_now(self, game: Game) -> list[tuple[int, list[Move]]]:
        """The game's turns, with ``_turn_views`` and ``_turn_ends`` brought up to date: only
        the turns a change touched are made again when the stored moves extend those of the
        last call (the usual move), all of them otherwise."""
        texts = self.row.moves  # the stored texts of the moves: str() of each
        exact = len(texts) == game.ply  # a turn's text joins the stored texts when they agree
        done = len(self._turns_of)
        if not (exact and done <= len(texts) and texts[:done] == self._turns_of):
            self._turns, self._turn_views, self._turn_ends, done = [], [], [], 0
        turns = self._turns
        first = game.extend_turns(turns, done)
        views, ends = self._turn_views, self._turn_ends
        del views[first:], ends[first:]
        start = ends[-1] if ends else 0
        joiner = game.descriptor.turn_joiner
        for player, ms in turns[first:]:
            end = start + len(ms)
            text = (joiner.join(texts[start:end]) if exact
                    else game.descriptor.join_turn(ms))
            views.append({"player": player, "text": text, "n": len(ms)})
            ends.append(end)
            start = end
        self._turns_of = list(texts) if exact else []
        return turns


#: the fields of a state that never change in a game (not repeated in updates)
STATIC = frozenset({"id", "rules", "game", "family", "players", "misere", "mode", "ai_level",
                    "ai_seat"})
#: what an update leaves out: the fields that never change and the whole history
NOT_IN_UPDATES = STATIC | {"moves", "turns"}
