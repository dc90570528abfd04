"""One online game's play, apart from HTTP and storage: seats, offers, takebacks, endings and
the computer's turns.

A :class:`GameSession` holds the :class:`~nugar.rules.Game` (the only judge of the rules and
the only record of how the game ended: a resignation, an agreed draw, an adjudication or a
loss on time is applied to the game itself), the mode (against the AI, between two people
by link, hot-seat), the pending offers and the computer player. Every change runs under the
session's ``asyncio.Lock``, and is then handed to ``commit(event_type, data)``, which stores
and announces it (the server's :class:`~.rooms.Room` does that) and returns the public state.
Nothing here imports FastAPI: the tests drive sessions directly, with a fake computer player.

A stored game is its rule set, its move texts and its imposed ending (:func:`ending_of`),
which :func:`restore` applies again after the moves. A game *aborted* because a player did
not make his first move in time (:mod:`.clocks`), or never made it before the game was left
idle for good (:meth:`GameSession.expire`), has no result at all, so it is no ending of
the game's rules: the session alone holds it (``GameSession.aborted``, the player who did not
move) and it is stored as the ending ``{"termination": "aborted", "player": p}``, which
:func:`restore` leaves off the game and :func:`aborted_by` reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ..ai.agents import DEFAULT_LEVEL
from ..errors import IllegalMoveError, InvalidMoveError
from ..rules import Game, Move, Outcome, Termination, new_game

if TYPE_CHECKING:
    from ..ai import Agent, Analysis, Limits
    from ..warmup import Warmup

T = TypeVar("T")

log = logging.getLogger("nugar.server")

MODES = ("ai", "friend", "hotseat")
OFFER_KINDS = ("draw", "takeback")
OFFER_ACTIONS = ("offer", "accept", "decline", "cancel")
#: most moves a stored or created game may hold (guards memory and replay time)
MAX_MOVES = 5000

#: stores and announces one change (an event type and its data); returns the public state
Commit = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
#: how the refusal of a move expecting a version this process has not seen yet begins
AHEAD = "this server has not seen version"
#: the reason (``state["reason"]``, the stored ``reason``) of an aborted game; its result is
#: ``*`` (none, as in a record of a game without one)
ABORTED = "aborted"


class ApiError(Exception):
    """A refused request: HTTP status, a short machine code and a sentence for people."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail


def rematch_id(game_id: str, ply: int) -> str:
    """The id of the rematch of game ``game_id`` ended after ``ply`` moves (16 hex digits,
    like every game id; :mod:`.rematch`)."""
    return hashlib.sha256(f"nugar rematch {game_id} {ply}".encode()).hexdigest()[:16]


# --- endings as stored -------------------------------------------------------------------------
def ending_of(game: Game) -> dict[str, Any] | None:
    """The ending imposed on ``game`` (a resignation, an agreed draw, an adjudication, a loss on
    time) as stored next to its moves: ``{"termination": "resigned", "winner": 1}``; ``None``
    while the game runs or when its rules ended it (the moves say so themselves)."""
    outcome = game.outcome
    if outcome is None or outcome.termination.by_rules:
        return None
    return {"termination": str(outcome.termination), "winner": outcome.winner}


def impose(game: Game, outcome: Outcome) -> None:
    """Apply an ending that the rules do not decide to the running ``game``."""
    t, winner = outcome.termination, outcome.winner
    if t is Termination.AGREEMENT:
        game.agree_draw()
    elif t is Termination.ADJUDICATION:
        game.adjudicate(winner)
    elif t is Termination.RESIGNATION and winner in (1, 2):
        game.resign(3 - winner)
    elif t is Termination.TIME and winner in (1, 2):
        game.lose_on_time(3 - winner)
    elif t is Termination.TIME and winner is None:
        game.draw_on_time()
    else:
        raise IllegalMoveError(f"{outcome} is not an ending a player or an arbiter imposes")


def aborted_by(ending: dict[str, Any] | None) -> int | None:
    """The player who did not make his first move, if the stored ``ending`` is an abort."""
    if not ending or ending.get("termination") != ABORTED:
        return None
    player = ending.get("player")
    if player not in (1, 2):
        raise ValueError(f"the stored ending {ending!r} names no player 1 or 2")
    return int(player)


def stored_outcome(ending: dict[str, Any]) -> Outcome:
    """The imposed ending a stored ``ending`` describes; the forms written before endings
    belonged to the game, ``{"resigned": 2}`` and ``{"agreement": true}``, are read too."""
    if "termination" in ending:
        winner = ending.get("winner")
        return Outcome(None if winner is None else int(winner), str(ending["termination"]))
    if "resigned" in ending:
        return Outcome(3 - int(ending["resigned"]), Termination.RESIGNATION)
    if ending.get("agreement"):
        return Outcome(None, Termination.AGREEMENT)
    raise ValueError(f"unknown ending {ending!r}")


def restore(rules: str, moves: list[str], ending: dict[str, Any] | None) -> Game:
    """Rebuild a stored game: its moves in order, each checked by the engine, then its
    imposed ending (an abort is not one: the game stays as its moves left it). A game that
    does not replay is ``ApiError`` 409 ``corrupt_game``."""
    game = new_game(rules)
    for i, text in enumerate(moves):
        try:
            game.play(Move.parse(text))
        except ValueError as exc:
            raise ApiError(409, "corrupt_game",
                           f"stored move {i + 1} ({text!r}) cannot be replayed: {exc}") from None
    if ending:
        try:
            if aborted_by(ending) is None:
                impose(game, stored_outcome(ending))
        except ValueError as exc:
            raise ApiError(409, "corrupt_game",
                           f"the stored ending {ending!r} cannot be applied: {exc}") from None
    return game


# --- the computer player -------------------------------------------------------------------------
class ComputerPlayer(Protocol):
    """What a session asks of the computer: nugar's agents (:class:`Agents`), or a fake."""

    def prepare(self, game: Game, level: int) -> None:
        """Block until the player of ``level`` can decide in ``game`` (compiling, at first)."""

    def agent(self, level: int) -> Agent:
        """A new agent of ``level``: search agents keep tables, so each game gets its own."""

    def limits(self) -> Limits:
        """What one decision may spend."""


class Agents:
    """The computer player of the server: nugar's levels, ``ai_time`` seconds a decision, and
    the process's compiling (``nugar.warmup``): a first decision waits for its part. Its
    search agents get a transposition table of ``table`` MB."""

    def __init__(self, ai_time: float = 1.0, warmup: Warmup | None = None,
                 table: float = 64.0) -> None:
        from ..warmup import WARMUP

        self.ai_time = ai_time
        self.warmup = WARMUP if warmup is None else warmup
        self.table = table

    def prepare(self, game: Game, level: int) -> None:
        from ..warmup import steps_for

        steps = steps_for(game.rules, [f"level:{level}"])
        self.warmup.add(steps)
        self.warmup.wait(steps=steps)

    def agent(self, level: int) -> Agent:
        from ..ai.agents import LevelAgent

        return LevelAgent(level, table=self.table)

    def limits(self) -> Limits:
        from ..ai import Limits

        return Limits(time=self.ai_time)


class AiBusy(ApiError):
    """Every worker of the AI pool is busy and its queue is full: HTTP 503 ``ai_busy``, with
    ``Retry-After``."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(503, "ai_busy", "the computer is busy with other games; try again in "
                         f"{retry_after} s")
        self.retry_after = retry_after


class _Worker:
    """One agent of the pool, with what it was last used for."""

    def __init__(self) -> None:
        self.agent: Agent | None = None
        self.key: tuple[int, str] | None = None  # (level, rules' AI profile) it was built for
        self.owner: object | None = None  # the game whose positions its tables hold
        self.built = 0  # agents built for this worker (tests check the bound)


class AiPool:
    """The computer's only place to think: ``workers`` agents, each deciding in a thread of
    the pool's own executor (never the default one the database uses), and a queue of at
    most ``queue`` waiting requests. A hint asked for while the queue is full is refused
    (:class:`AiBusy`); the computer's own turns always queue (one per game at most).

    A worker keeps its agent while it serves the same level and game family, and resets it
    (``reset()``: its tables forgotten) before a position of another game, so nothing leaks
    between games and memory stays within ``workers`` agents' tables. It also stands for its
    ``computer`` (:class:`ComputerPlayer`), so a :class:`~.rooms.Hub` takes either."""

    def __init__(self, computer: ComputerPlayer, workers: int = 1, queue: int = 8) -> None:
        if workers < 1 or queue < 0:
            raise ValueError(f"an AI pool needs 1 or more workers and a queue of 0 or more, "
                             f"not {workers} and {queue}")
        self.computer = computer
        self.workers = [_Worker() for _ in range(workers)]
        self.queue = queue
        self._free = list(self.workers)
        self._waiting: deque[asyncio.Future[_Worker]] = deque()
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="nugar-ai")

    @classmethod
    def of(cls, computer: ComputerPlayer | AiPool) -> AiPool:
        """``computer`` itself if it is a pool, else the one pool shared by its sessions."""
        if isinstance(computer, AiPool):
            return computer
        pool = getattr(computer, "_nugar_ai_pool", None)
        if not isinstance(pool, AiPool):
            pool = cls(computer)
            setattr(computer, "_nugar_ai_pool", pool)  # noqa: B010 (any player object)
        return pool

    # it stands for its computer player
    def prepare(self, game: Game, level: int) -> None:
        self.computer.prepare(game, level)

    def agent(self, level: int) -> Agent:
        return self.computer.agent(level)

    def limits(self) -> Limits:
        return self.computer.limits()

    @property
    def built(self) -> int:
        """How many agents the pool has built so far."""
        return sum(w.built for w in self.workers)

    @property
    def waiting(self) -> int:
        """Requests queued for a worker."""
        return sum(1 for f in self._waiting if not f.done())

    async def _acquire(self, must: bool) -> _Worker:
        if self._free:
            return self._free.pop()
        if not must and self.waiting >= self.queue:
            raise AiBusy(retry_after=max(1, round(self.computer.limits().time or 1.0)))
        waiter: asyncio.Future[_Worker] = asyncio.get_running_loop().create_future()
        self._waiting.append(waiter)
        try:
            return await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self._release(waiter.result())  # handed over just as it was cancelled
            raise

    def _release(self, worker: _Worker) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self._free.append(worker)

    def _ready(self, worker: _Worker, owner: object, level: int, game: Game) -> Agent:
        """The worker's agent for ``level``, made ready for a position of ``owner``'s game
        (in the AI thread: building and resetting tables is work too)."""
        self.computer.prepare(game, level)
        key = (level, game.rules.ai_profile.name)
        if worker.agent is None or worker.key != key:
            worker.agent = None  # the old agent and its tables go before the new one comes
            worker.agent = self.computer.agent(level)
            worker.key, worker.owner = key, owner
            worker.built += 1
        elif worker.owner is not owner:
            reset = getattr(worker.agent, "reset", None)
            if callable(reset):
                reset()
            worker.owner = owner
        return worker.agent

    async def run(self, owner: object, level: int, game: Game,
                  job: Callable[[Agent, Game, Limits], T], *, must: bool = False) -> T:
        """``job(agent, game, limits)`` in a worker's thread, for ``owner``'s game (a copy
        the caller does not touch meanwhile); :class:`AiBusy` if the queue is full, unless
        ``must``. If the caller is cancelled, the worker returns to the pool when its thread
        is done."""
        worker = await self._acquire(must)
        limits = self.computer.limits()

        def work() -> T:
            return job(self._ready(worker, owner, level, game), game, limits)

        future = asyncio.get_running_loop().run_in_executor(self._executor, work)
        try:
            return await asyncio.shield(future)
        finally:
            if future.done():
                self._release(worker)
            else:
                future.add_done_callback(lambda _f: self._release(worker))

    def close(self) -> None:
        """Stop the threads once their work is done (the server is stopping)."""
        self._executor.shutdown(wait=False, cancel_futures=True)


#: tries the computer gets when the engine refuses its move, before a random legal move
AI_TRIES = 3


# --- the session -------------------------------------------------------------------------------
class GameSession:
    """One game being played: see the module's text. ``seat`` arguments are the seat a
    request's secret opened: 1 or 2, 0 for the hot-seat key (both seats), ``None`` for no
    seat (a spectator, who may not act: ``ApiError`` 403 ``bad_key``)."""

    def __init__(self, game: Game, mode: str, commit: Commit, computer: ComputerPlayer, *,
                 ai_seat: int | None = None, ai_level: int | None = None,
                 offers: dict[str, int] | None = None, aborted: int | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"mode {mode!r} is unknown; allowed: {', '.join(MODES)}")
        self.game = game
        self.mode = mode
        self.ai_seat = ai_seat
        self.ai_level = ai_level
        #: pending offers: kind (``draw``, ``takeback``) -> the seat that made it
        self.offers: dict[str, int] = dict(offers or {})
        #: the player whose missing first move aborted the game (``None``: not aborted)
        self.aborted = aborted
        #: play a forced pass for the player to move at once (the owner sets it for a timed
        #: game: a forced pass is a turn taken with no time used, :mod:`.clocks`)
        self.auto_pass = False
        self.commit = commit
        self.computer = computer
        self.lock = asyncio.Lock()
        self.ai_task: asyncio.Task[None] | None = None
        self.pool = AiPool.of(computer)  # where the computer thinks, shared by all games
        self._ai_owner = object()  # names this game to the pool (its agents reset for it)
        #: set when the stored game may differ from this session's (the owner dropped it and
        #: reloads the game): a request that then gets the lock is refused as ``stale_room``
        self.closed = False
        #: the last stored state (moves, imposed ending, offers): a change whose write fails
        #: is rolled back to it, so the session never holds a move that was not stored
        self._stored = self._snapshot()
        #: the stored version of the game (the owner sets it: the room's row version)
        self.version: Callable[[], int] = lambda: 0
        #: whether the stored game is known to be newer than this session's (the owner sets
        #: it): a request then gets ``stale_room`` and the owner refreshes and retries it
        self.is_stale: Callable[[], bool] = lambda: False
        #: the stored texts of the game's moves (the owner sets it; spares writing out every
        #: move after each change)
        self.stored_moves: Callable[[], list[str]] | None = None
        #: brings the game to what is stored when another process changed it (the owner
        #: sets it); ``True`` if something changed
        self.resync: Callable[[], Awaitable[bool]] | None = None

    # --- reading ----------------------------------------------------------------------------
    @property
    def outcome(self) -> Outcome | None:
        return self.game.outcome

    @property
    def ending(self) -> dict[str, Any] | None:
        """The imposed ending as stored (:func:`ending_of`), or the abort."""
        if self.aborted is not None:
            return {"termination": ABORTED, "player": self.aborted}
        return ending_of(self.game)

    @property
    def over(self) -> bool:
        """Whether the game has ended (by its rules or an imposed ending) or was aborted."""
        return self.aborted is not None or self.game.outcome is not None

    @property
    def result(self) -> str | None:
        """The result as shown and stored: ``1-0``, ``0-1``, ``1/2-1/2``, ``*`` for an aborted
        game (none), ``None`` while the game runs."""
        if self.aborted is not None:
            return "*"
        outcome = self.game.outcome
        return None if outcome is None else outcome.result

    @property
    def reason(self) -> str | None:
        """Why the game ended (a ``Termination`` word, or :data:`ABORTED`); ``None`` while
        it runs."""
        if self.aborted is not None:
            return ABORTED
        outcome = self.game.outcome
        return None if outcome is None else str(outcome.reason)

    @property
    def busy(self) -> bool:
        """Whether a change is under way or the computer is thinking."""
        return self.lock.locked() or (self.ai_task is not None and not self.ai_task.done())

    def ai_to_move(self) -> bool:
        """Whether the computer is to move now."""
        return (self.mode == "ai" and not self.closed and not self.over
                and self.game.to_move == self.ai_seat)

    # --- changes ----------------------------------------------------------------------------
    def _snapshot(self) -> tuple[list[str], dict[str, Any] | None, dict[str, int]]:
        owner = getattr(self, "stored_moves", None)  # unset while __init__ runs
        moves = owner() if owner is not None else None
        if moves is None or len(moves) != self.game.ply:
            moves = [str(m) for m in self.game.move_stack]
        return moves, self.ending, dict(self.offers)

    def reset(self, game: Game, offers: dict[str, int], aborted: int | None = None) -> None:
        """Take ``game``, ``offers`` and the abort as the stored state (the owner reloaded
        them)."""
        self.game = game
        self.offers = dict(offers)
        self.aborted = aborted
        self._stored = self._snapshot()

    async def _commit(self, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        """Store and announce a change already applied to the game; if that fails, put the
        game and offers back as last stored and re-raise."""
        try:
            state = await self.commit(etype, data)
        except BaseException:
            self._rollback()
            raise
        self._stored = self._snapshot()
        return state

    def _rollback(self) -> None:
        """Back to the last stored state: moves added since are taken back one by one (a
        refused move costs no replay); any other change replays the stored game."""
        moves, ending, offers = self._stored
        self.offers = offers
        self.aborted = aborted_by(ending)
        if self.aborted is not None:
            ending = None  # the game itself holds no abort
        game = self.game
        now = [str(m) for m in game.move_stack]
        if ending is None and len(now) >= len(moves) and now[:len(moves)] == moves:
            try:
                if game.outcome is not None and not game.outcome.termination.by_rules:
                    game.undo()  # the ending imposed by the refused change
                while len(game.move_stack) > len(moves):
                    game.undo()
                if game.outcome is None or game.outcome.termination.by_rules:
                    return
            except ValueError:
                pass
        try:
            self.game = restore(self.game.rules.text, moves, ending)
        except Exception:  # cannot happen for a game that was stored; be safe anyway
            log.exception("rolling back a failed change failed")
            self.closed = True

    def _check_current(self) -> None:
        """Refuse a request that waited on the lock of a session its owner has dropped, or
        of one that is known to be behind the stored game."""
        if self.closed or self.is_stale():
            raise ApiError(503, "stale_room", "the game was reloaded while this request "
                           "waited; nothing was changed, try again")

    @staticmethod
    def _seat(seat: int | None) -> int:
        if seat is None:
            raise ApiError(403, "bad_key",
                           "this secret does not open a seat of this game; spectators cannot "
                           "act")
        return seat

    def _require_running(self) -> None:
        if self.aborted is not None:
            raise ApiError(409, "game_over", "the game was aborted: "
                           f"{self.game.player_name(self.aborted)} did not move")
        outcome = self.game.outcome
        if outcome is not None:
            raise ApiError(409, "game_over", f"the game is over ({outcome})")

    async def move(self, seat: int | None, text: str, expect: int | None = None
                   ) -> dict[str, Any]:
        """Play a move or a whole turn for the player of ``seat``; with ``expect``, only if
        the stored game is at that version (else 409 ``stale_version``)."""
        if not isinstance(text, str) or not text.strip() or len(text) > 64:
            raise ApiError(422, "bad_move", "a move is a short text such as 'c3', 'c3-c4xe5' "
                           "or '4'")
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            if expect is not None:
                current = self.version()
                if expect > current:  # another process stored it: the owner refreshes
                    raise ApiError(503, "stale_room", f"{AHEAD} {expect} of the game (it "
                                   f"has {current}); try again")
                if expect != current:
                    raise ApiError(409, "stale_version",
                                   f"the game is at version {current}, not {expect}: get what "
                                   f"changed (GET /api/games/{{id}}?since={expect}) and decide "
                                   "again")
            self._require_running()
            game = self.game
            mover = game.to_move
            if seat not in (0, mover):
                raise ApiError(409, "not_your_turn",
                               f"it is {game.player_name(mover)}'s turn, not "
                               f"{game.player_name(seat)}'s")
            if game.ply >= MAX_MOVES:
                raise ApiError(409, "too_long", f"a game may hold at most {MAX_MOVES} moves")
            before = game.ply
            try:
                game.play(text)
            except InvalidMoveError as exc:
                raise ApiError(422, "invalid_move", str(exc)) from None
            except IllegalMoveError as exc:
                raise ApiError(409, "illegal_move", str(exc)) from None
            except ValueError as exc:  # any other refusal by the engine names its reason
                raise ApiError(422, "invalid_move", str(exc)) from None
            data = self._move_data(mover, before)
            self.offers = {}
            state = await self._commit("move", data)
        self.schedule_ai()
        return state

    def _move_data(self, mover: int, before: int, **extra: Any) -> dict[str, Any]:
        """The event data of a move of ``mover`` just played (the game's moves from ``before``
        on), after the forced passes that follow it (:meth:`_forced_passes`), which are
        moves of the same change: ``{player, moves, **extra, passed?}``."""
        passed = self._forced_passes()
        data: dict[str, Any] = {"player": mover,
                                "moves": [str(m) for m in self.game.move_stack[before:]],
                                **extra}
        if passed:
            data["passed"] = passed
        return data

    def _forced_passes(self) -> list[int]:
        """With ``auto_pass``: while the player to move has no legal move but a pass, play it
        for him; returns the players who passed (the move list holds their passes)."""
        passed: list[int] = []
        game = self.game
        while len(passed) < 2 and self._forced():
            passed.append(game.to_move)
            game.play(Move.pass_())
        return passed

    def _forced(self) -> bool:
        """With ``auto_pass``: whether the player to move could only pass (a position that
        :meth:`_forced_passes` never leaves: an undo goes back past it)."""
        game = self.game
        if not self.auto_pass or game.outcome is not None:
            return False
        legal = game.legal_moves()
        return len(legal) == 1 and legal[0].kind == "pass"

    async def undo(self, seat: int | None) -> dict[str, Any]:
        """Take back moves: against the AI, back to the person's previous turn (with the
        computer's replies); hot-seat, one turn. Between people, offer a takeback instead."""
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            if self.mode == "friend":
                raise ApiError(409, "ask_takeback",
                               "between two people, offer a takeback instead of undoing")
            outcome = self.game.outcome
            if outcome is not None and not outcome.termination.by_rules:
                raise ApiError(409, "game_over", f"the game is over ({outcome})")
            if self.aborted is not None:
                raise ApiError(409, "game_over", "the game was aborted")
            game = self.game
            if self.mode == "ai":
                try:
                    undone = game.undo_to_turn_of(seat)
                    while self._forced():  # back to a turn of his that was not a pass
                        undone[:0] = game.undo_to_turn_of(seat)
                except IllegalMoveError:
                    self._rollback()  # a forced pass was his only turn: nothing is undone
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet") from None
            else:
                if not game.move_stack:
                    raise ApiError(409, "nothing_to_undo", "no move has been played")
                undone = game.undo_turn()
                while self._forced() and game.move_stack:  # the pass goes with its cause
                    undone[:0] = game.undo_turn()
            self.offers = {}
            state = await self._commit("undo", {"moves": [str(m) for m in undone]})
        self.schedule_ai()
        return state

    async def offer(self, seat: int | None, kind: str, action: str) -> dict[str, Any]:
        """Draw and takeback offers: ``offer``, ``accept``, ``decline`` (or ``cancel``)."""
        if kind not in OFFER_KINDS:
            raise ApiError(404, "unknown_offer", f"offers are draw or takeback, not {kind!r}")
        if action not in OFFER_ACTIONS:
            raise ApiError(422, "bad_action",
                           f"action must be offer, accept, decline or cancel, not {action!r}")
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            self._require_running()
            if self.mode != "friend":
                if kind == "draw" and self.mode == "hotseat" and action in ("offer", "accept"):
                    # both players sit at the same screen: an offer is already agreed
                    return await self._agree_draw()
                raise ApiError(409, "no_offers", "offers are made between two people playing "
                               "by link" + ("; against the AI use undo" if self.mode == "ai"
                                            else ""))
            pending = self.offers.get(kind)
            if action == "offer":
                if pending == seat:
                    raise ApiError(409, "already_offered", f"you already offered a {kind}")
                if pending is not None:
                    action = "accept"  # both offered: that is agreement
                elif kind == "takeback" and not any(p == seat for p, _ in
                                                    self.game.turn_list()):
                    raise ApiError(409, "nothing_to_undo", "you have not moved yet")
                else:
                    self.offers = {**self.offers, kind: seat}
                    return await self._commit("offer", {"kind": kind, "by": seat})
            if action in ("decline", "cancel"):
                if pending is None:
                    raise ApiError(409, "no_offer", f"there is no {kind} offer to {action}")
                if (action == "cancel") != (pending == seat):
                    raise ApiError(409, "not_yours", "only the player who made an offer may "
                                   "cancel it, and only the other may decline it")
                self.offers = {k: v for k, v in self.offers.items() if k != kind}
                return await self._commit(action, {"kind": kind, "by": seat})
            # accept
            if pending is None or pending == seat:
                raise ApiError(409, "no_offer", f"there is no {kind} offer from your opponent")
            if kind == "draw":
                return await self._agree_draw()
            try:
                undone = self.game.undo_to_turn_of(pending)
                while self._forced():  # back to a turn of his that was not a pass
                    undone[:0] = self.game.undo_to_turn_of(pending)
            except IllegalMoveError:
                self._rollback()  # a forced pass was his only turn: nothing is taken back
                raise ApiError(409, "nothing_to_undo",
                               "the player who asked has not moved yet") from None
            self.offers = {}
            return await self._commit("takeback", {"moves": [str(m) for m in undone],
                                                   "by": pending})

    async def _agree_draw(self) -> dict[str, Any]:
        self.game.agree_draw()
        self.offers = {}
        return await self._commit("draw", {"agreed": True})

    async def resign(self, seat: int | None) -> dict[str, Any]:
        """The player of ``seat`` resigns (hot-seat: the player to move)."""
        async with self.lock:
            self._check_current()
            seat = self._seat(seat)
            self._require_running()
            player = self.game.to_move if seat == 0 else seat
            self.game.resign(player)
            self.offers = {}
            return await self._commit("resign", {"player": player})

    async def note_rematch(self, seat: int, game_id: str) -> dict[str, Any] | None:
        """Record and announce (event ``rematch``) that the player of ``seat`` asked for a
        rematch, the game ``game_id`` (:mod:`.rematch`); ``None`` if one was already asked
        for. It is kept as the pending offer ``rematch``, the seat that asked."""
        async with self.lock:
            self._check_current()
            if "rematch" in self.offers:
                return None
            self.offers = {**self.offers, "rematch": seat}
            return await self._commit("rematch", {"game": game_id, "by": seat})

    def missing_first_move(self) -> int | None:
        """The player an abort of this game names, if some player has not made his first
        move (a pass counts as a move): the player to move when he has not moved yet (his
        first move was due), else the other one (who never got to move); ``None`` once both
        players have moved. Every mode alike: the computer's seat too."""
        game = self.game
        if game.has_moved(1) and game.has_moved(2):
            return None
        to_move = game.to_move
        return 3 - to_move if game.has_moved(to_move) else to_move

    async def expire(self, version: int, current: Callable[[], int]) -> bool:
        """Close a game nobody played for too long. A game in which some player never made
        his first move (:meth:`missing_first_move`) never got going: it is *aborted* as the
        first-move timer aborts one (no result, the event ``abort`` with ``expired: true``);
        a game both players have moved in is an adjudicated draw (the event ``expired``).
        ``current()`` is the stored version under the lock; if it is no longer ``version``
        (someone acted meanwhile) or the game is over, nothing is done and ``False`` is
        returned."""
        async with self.lock:
            if self.closed or current() != version or self.over:
                return False
            self.offers = {}
            player = self.missing_first_move()
            if player is not None:
                await self._abort(player, expired=True)
                return True
            self.game.adjudicate(None)
            await self._commit("expired", {"termination": "adjudication", "winner": None})
            return True

    async def time_out(self, fallen: Callable[[], int | None]) -> bool:
        """End the game on time if ``fallen()``, asked under the lock, names the player whose
        flag has fallen: a loss, or a draw when the opponent could not win
        (``Game.time_out``), stored and announced as the event ``flag``. ``False`` (nothing
        done) if the game is over or no flag has fallen."""
        return await self._end_if(fallen, self._flag)

    async def _flag(self, player: int) -> None:
        """End the game on ``player``'s time (the event ``flag``). Called with the lock held."""
        outcome = self.game.time_out(player)
        self.offers = {}
        await self._commit("flag", {"player": player, "termination": "time",
                                    "winner": outcome.winner})

    async def abort(self, overdue: Callable[[], int | None]) -> bool:
        """Abort the game if ``overdue()``, asked under the lock, names a player whose first
        move is overdue (:mod:`.clocks`): no result, no winner, stored and announced as the
        event ``abort``. ``False`` (nothing done) if the game is over or no move is
        overdue."""
        return await self._end_if(overdue, self._abort)

    async def _end_if(self, due: Callable[[], int | None],
                      end: Callable[[int], Awaitable[None]]) -> bool:
        """Under the lock: ``end(player)`` if the game runs and ``due()`` names a player;
        ``True`` if it did."""
        async with self.lock:
            if self.closed or self.over:
                return False
            player = due()
            if player is None:
                return False
            await end(player)
            return True

    async def _abort(self, player: int, **extra: Any) -> None:
        """Abort the game, naming ``player`` (who did not make his first move): no result,
        stored and announced as the event ``abort``. Called with the lock held."""
        self.aborted = player
        self.offers = {}
        await self._commit("abort", {"player": player, "termination": ABORTED,
                                     "winner": None, **extra})

    async def note_open(self, unseen: Callable[[], list[int] | None]) -> bool:
        """Store and announce (event ``opened``, ``{seats}``) that the seats ``unseen()``,
        asked under the lock, have been opened (:meth:`.rooms.Hub.open_seat`); ``False``
        (nothing done) if there are none or the game is over."""
        async with self.lock:
            self._check_current()
            if self.over:
                return False
            seats = unseen()
            if not seats:
                return False
            await self._commit("opened", {"seats": seats})
            return True

    # --- the computer -------------------------------------------------------------------------
    async def hint(self, seat: int | None) -> dict[str, Any]:
        """A suggested move for the player to move, from an agent as strong as the opponent
        (hot-seat: the default level)."""
        seat = self._seat(seat)
        if self.mode == "friend":
            raise ApiError(409, "no_hints", "hints are for games against the AI or hot-seat")
        self._require_running()
        game = self.game.copy()
        if seat not in (0, game.to_move):
            raise ApiError(409, "not_your_turn", "a hint is given to the player to move")
        level = self.ai_level or DEFAULT_LEVEL
        analysis: Analysis = await self.pool.run(
            self._ai_owner, level, game, lambda agent, g, limits: agent.analyse(g, limits))
        return {"move": str(analysis.move), "score": analysis.score, "depth": analysis.depth,
                "pv": [str(m) for m in analysis.pv]}

    def schedule_ai(self) -> None:
        """Start the computer's turn (in a task) if it is to move and is not thinking yet."""
        if not self.ai_to_move():
            return
        if self.ai_task is not None and not self.ai_task.done():
            return
        self.ai_task = asyncio.create_task(self._ai_turns())

    async def wait_ai(self) -> None:
        """Wait until the computer's turn under way (if any) is over."""
        task = self.ai_task
        if task is not None:
            await asyncio.wait({task})

    async def _ai_turns(self) -> None:
        """The computer's turns: each decided on a copy of the game without the lock (so
        requests and spectators do not wait for it), then played under the lock only if the
        game has not changed meanwhile; otherwise the decision is dropped and, if the computer
        is still to move, made again."""
        level = self.ai_level or DEFAULT_LEVEL
        refused = 0  # moves of the computer the engine refused in this position
        try:
            while True:
                if self.is_stale() and self.resync is not None:
                    await self.resync()  # another process stored a newer game: look at it
                async with self.lock:
                    if not self.ai_to_move():
                        return
                    snapshot = self.game.copy()
                    seen = list(self.game.move_stack)
                try:
                    move = await self.pool.run(self._ai_owner, level, snapshot.copy(),
                                               lambda agent, g, limits: agent.choose(g, limits),
                                               must=True)
                except (AiBusy, asyncio.CancelledError):
                    raise
                except Exception:
                    # a failing agent must not stall the game: fall back to a legal move
                    log.exception("AI level %s failed", level)
                    move = random.choice(snapshot.legal_moves())
                async with self.lock:
                    if not self.ai_to_move() or self.game.move_stack != seen:
                        refused = 0
                        continue  # the game changed while the computer thought
                    game = self.game
                    mover = game.to_move
                    if refused >= AI_TRIES:
                        move = random.choice(game.legal_moves())
                        log.error("AI level %s: %d moves refused, playing the random legal "
                                  "move %s", level, refused, move)
                    before = game.ply
                    try:
                        game.play(move)
                    except ValueError as exc:
                        refused += 1
                        log.error("AI level %s chose %s, which the engine refuses (%s); "
                                  "try %d of %d", level, move, exc, refused, AI_TRIES)
                        continue
                    refused = 0
                    data = self._move_data(mover, before, ai=True)
                    try:
                        await self._commit("move", data)
                    except ApiError as exc:
                        if exc.code != "stale_room" or self.resync is None:
                            raise
                        stale = True
                    else:
                        stale = False
                if stale and self.resync is not None:
                    # another process stored the game meanwhile: look again at what is stored
                    await self.resync()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("the computer's turn failed")

    async def close(self) -> None:
        """Stop the computer's turn, if one runs."""
        task = self.ai_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
