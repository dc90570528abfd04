"""The computer's turns in a game against the AI, and the hints it gives.

The computer is one more player of the game: it thinks on a copy of the game, without the
game's lock (requests and spectators do not wait for it), in the server's shared AI pool
(:class:`~.ai_pool.AiPool`), and then sends its move to the game's authority like any
request (:meth:`.room.Room.act`), decided by :func:`computer_move`, stored, then published.
If the game changed while it thought, the decision is dropped and, if the computer is still
to move, made again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from ...ai.agents import DEFAULT_LEVEL
from ...i18n import Text
from ...rules import Move
from ..errors import ApiError
from ..storage.store import log_failure
from ..work.ai_pool import AiBusy
from .session import Change, GameSession, seat_of_request

if TYPE_CHECKING:
    from ...ai import Analysis
    from ..work.ai_pool import AiPool

log = logging.getLogger("nugar.server")

#: tries the computer gets when the engine refuses its move, before a random legal move
AI_TRIES = 3


class Table(Protocol):
    """What the computer needs of its game's authority (the :class:`~.room.Room`)."""

    session: GameSession
    lock: asyncio.Lock
    closed: bool
    stale: bool

    async def refresh(self) -> bool:
        """Bring the game to what is stored (another process changed it)."""

    async def act(self, decide: Callable[[GameSession], Change | None], *,
                  current: bool = True) -> Any:
        """Decide, store and publish one change; ``None`` if ``decide`` found none."""


def computer_move(session: GameSession, move: Move, seen: list[Move],
                  fallback: bool) -> Change | None:
    """The computer's ``move``, decided on the game when its moves were ``seen``: the change
    ``move`` (marked ``ai``), or ``None`` if the game changed meanwhile or the computer is no
    longer to move. ``fallback``: the engine refused its moves too often, a random legal move
    is played instead. A move the engine refuses raises its ``ValueError`` (the game is left
    as it was)."""
    game = session.game
    if not session.ai_to_move() or game.move_stack != seen:
        return None
    if fallback:
        move = random.choice(game.legal_moves())
        log.error("AI level %s: %d moves refused, playing the random legal move %s",
                  session.ai_level, AI_TRIES, move)
    mover, before = game.to_move, game.ply
    game.play(move)
    return Change("move", session.move_data(mover, before, ai=True))


class ComputerTurns:
    """The computer of one game (``table``, its authority), thinking in ``pool``."""

    def __init__(self, table: Table, pool: AiPool) -> None:
        self.table = table
        self.pool = pool  # where the computer thinks, shared by all games
        self.task: asyncio.Task[None] | None = None
        self._name = object()  # names this game to the pool (its agents reset for it)

    @property
    def thinking(self) -> bool:
        """Whether the computer's turn is under way."""
        return self.task is not None and not self.task.done()

    def schedule(self) -> None:
        """Start the computer's turn (in a task) if it is to move and is not thinking yet."""
        if self.table.closed or not self.table.session.ai_to_move() or self.thinking:
            return
        self.task = asyncio.create_task(self._turns())

    async def wait(self) -> None:
        """Wait until the computer's turn under way (if any) is over."""
        task = self.task
        if task is not None:
            await asyncio.wait({task})

    async def close(self) -> None:
        """Stop the computer's turn, if one runs."""
        task = self.task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def hint(self, seat: int | None) -> dict[str, Any]:
        """A suggested move for the player to move, from an agent as strong as the opponent
        (hot-seat: the default level)."""
        session = self.table.session
        seat = seat_of_request(seat)
        if session.mode == "friend":
            raise ApiError("no_hints", Text(
                "hints are for games against the AI or hot-seat",
                domain="web"))
        session.require_running()
        game = session.game.copy()
        if seat not in (0, game.to_move):
            raise ApiError("not_your_turn", Text(
                "a hint is given to the player to move",
                domain="web"))
        level = session.ai_level or DEFAULT_LEVEL
        analysis: Analysis = await self.pool.run(
            self._name, level, game, lambda agent, g, limits: agent.analyse(g, limits))
        return {"move": str(analysis.move), "score": analysis.score, "depth": analysis.depth,
                "pv": [str(m) for m in analysis.pv]}

    async def _turns(self) -> None:
        """The computer's turns, until it is no longer to move."""
        table = self.table
        refused = 0  # moves of the computer the engine refused in this position
        try:
            while True:
                if table.stale:
                    await table.refresh()  # another process stored a newer game: look at it
                async with table.lock:
                    session = table.session
                    if table.closed or not session.ai_to_move():
                        return
                    level = session.ai_level or DEFAULT_LEVEL
                    snapshot = session.game.copy()
                    seen = list(session.game.move_stack)
                try:
                    move = await self.pool.run(self._name, level, snapshot.copy(),
                                               lambda agent, g, limits: agent.choose(g, limits),
                                               must=True)
                except (AiBusy, asyncio.CancelledError):
                    raise
                except Exception:
                    # a failing agent must not stall the game: fall back to a legal move
                    log.exception("AI level %s failed", level)
                    move = random.choice(snapshot.legal_moves())
                fallback = refused >= AI_TRIES
                try:
                    await table.act(functools.partial(computer_move, move=move, seen=seen,
                                                      fallback=fallback), current=False)
                except ApiError as exc:
                    if exc.code != "stale_room":
                        raise
                    # another process stored the game meanwhile: look again at what is stored
                    await table.refresh()
                    continue
                except ValueError as exc:
                    refused += 1
                    log.error("AI level %s chose %s, which the engine refuses (%s); try %d of "
                              "%d", level, move, exc, refused, AI_TRIES)
                    continue
                refused = 0  # played, or dropped: the game changed while it thought
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log_failure("the computer's turn", exc)
