"""Puzzle ratings: each attempt a Glicko-2 game between the player and the puzzle.

As lichess rates its puzzles, a signed-in player's first attempt at a puzzle is one rated
game (:func:`nugar.server.ratings.rate_game`) between his puzzle rating for that rule set
and the puzzle's: a right answer wins, a wrong one loses, and both ratings move. A puzzle
starts from the rating it was mined with (:class:`nugar.puzzles.Puzzle`'s ``rating``, the
engine ladder's) at deviation :data:`PUZZLE_DEVIATION`; its row is written at its first
rated attempt. A later attempt at the same puzzle, and every attempt in streak mode, is
judged but rates nothing; streak mode keeps the player's run of right answers instead.

The tables are ``store.puzzle_players_table``, ``puzzle_ratings_table`` and
``puzzle_attempts_table``. The functions block (the routes run them in a worker thread).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ...puzzles import Puzzle
from ..ratings import LOSS, WIN, Rating, rate_game
from ..storage.store import (
    Store,
    puzzle_attempts_table,
    puzzle_players_table,
    puzzle_ratings_table,
)

#: the deviation a puzzle starts with: its mined rating is an estimate, not a guess
PUZZLE_DEVIATION = 150.0

_players = puzzle_players_table
_puzzles = puzzle_ratings_table
_attempts = puzzle_attempts_table


@dataclass(frozen=True)
class Outcome:
    """What an attempt did: ``rated`` when it was the player's first at the puzzle (not in
    streak mode); the ratings before and after (the player's and the puzzle's; ``None``
    when not rated); the streak after it (streak mode)."""

    rated: bool
    player_before: Rating | None
    player_after: Rating | None
    puzzle_after: Rating | None
    streak: int | None
    streak_best: int | None

    def to_json(self) -> dict[str, Any]:
        def said(r: Rating | None) -> dict[str, Any] | None:
            return None if r is None else {"rating": round(r.rating, 1),
                                           "deviation": round(r.deviation, 1),
                                           "display": r.display}
        return {"rated": self.rated, "rating_before": said(self.player_before),
                "rating": said(self.player_after), "puzzle_rating": said(self.puzzle_after),
                "streak": self.streak, "streak_best": self.streak_best}


def _rating(row: Any) -> Rating:
    return Rating(row.rating, row.deviation, row.volatility)


def player_of(store: Store, account_id: int, rules: str) -> dict[str, Any]:
    """The player's puzzle standing in ``rules``: ``{rating, deviation, display, attempts,
    solved, streak, streak_best}`` (a new player's rating 1500? when he has none)."""
    with store.engine.connect() as conn:
        row = conn.execute(select(_players).where(_players.c.account_id == account_id)
                           .where(_players.c.rules == rules)).first()
    r = Rating() if row is None else _rating(row)
    return {"rules": rules, "rating": round(r.rating, 1), "deviation": round(r.deviation, 1),
            "display": r.display, "attempts": 0 if row is None else row.attempts,
            "solved": 0 if row is None else row.solved,
            "streak": 0 if row is None else row.streak,
            "streak_best": 0 if row is None else row.streak_best}


def standings_of(store: Store, account_id: int) -> list[dict[str, Any]]:
    """The player's puzzle standing in every rule set he has tried."""
    with store.engine.connect() as conn:
        rules = conn.execute(select(_players.c.rules).where(_players.c.account_id == account_id)
                             .order_by(_players.c.rules)).scalars().all()
    return [player_of(store, account_id, r) for r in rules]


def attempted(store: Store, account_id: int, rules: str) -> set[str]:
    """The ids of the puzzles of ``rules`` the player has attempted."""
    with store.engine.connect() as conn:
        return set(conn.execute(select(_attempts.c.puzzle_id)
                                .where(_attempts.c.account_id == account_id)
                                .where(_attempts.c.rules == rules)).scalars().all())


def puzzle_rating(store: Store, puzzle: Puzzle) -> tuple[Rating, int, int]:
    """The puzzle's rating now, with its rated attempts and how many of them were right."""
    with store.engine.connect() as conn:
        row = conn.execute(select(_puzzles).where(_puzzles.c.puzzle_id == puzzle.id)).first()
    if row is None:
        return Rating(float(puzzle.rating), PUZZLE_DEVIATION), 0, 0
    return _rating(row), row.attempts, row.solved


def record(store: Store, account_id: int, puzzle: Puzzle, won: bool, streak: bool,
           now: float | None = None) -> Outcome:
    """Keep a final attempt (right or wrong) of a signed-in player and rate it when it is
    his first at the puzzle and not in streak mode."""
    now = time.time() if now is None else now
    for _ in range(2):  # a row inserted meanwhile by another request: read again
        try:
            with store.engine.begin() as conn:
                return _record(conn, account_id, puzzle, won, streak, now)
        except IntegrityError:
            continue
    return Outcome(False, None, None, None, None, None)


def _record(conn: Any, account_id: int, puzzle: Puzzle, won: bool, streak: bool,
            now: float) -> Outcome:
    prow = conn.execute(select(_players).where(_players.c.account_id == account_id)
                        .where(_players.c.rules == puzzle.rules)).first()
    if prow is None:
        fresh = Rating()
        conn.execute(insert(_players).values(
            account_id=account_id, rules=puzzle.rules, rating=fresh.rating,
            deviation=fresh.deviation, volatility=fresh.volatility, attempts=0, solved=0,
            streak=0, streak_best=0, updated=now))
        prow = conn.execute(select(_players).where(_players.c.account_id == account_id)
                            .where(_players.c.rules == puzzle.rules)).first()
    first = conn.execute(select(_attempts.c.won).where(_attempts.c.account_id == account_id)
                         .where(_attempts.c.puzzle_id == puzzle.id)).first() is None
    where = (_players.c.account_id == account_id, _players.c.rules == puzzle.rules)
    if streak:
        run = prow.streak + 1 if won else 0
        best = max(prow.streak_best, run)
        conn.execute(update(_players).where(*where).values(streak=run, streak_best=best,
                                                            updated=now))
        if first:
            conn.execute(insert(_attempts).values(
                account_id=account_id, puzzle_id=puzzle.id, rules=puzzle.rules,
                won=int(won), rating_before=None, rating_after=None, at=now))
        return Outcome(False, None, None, None, run, best)
    if not first:
        return Outcome(False, None, None, None, None, None)
    before = _rating(prow)
    qrow = conn.execute(select(_puzzles).where(_puzzles.c.puzzle_id == puzzle.id)).first()
    pz = Rating(float(puzzle.rating), PUZZLE_DEVIATION) if qrow is None else _rating(qrow)
    after, pz_after = rate_game(before, pz, WIN if won else LOSS)
    conn.execute(insert(_attempts).values(
        account_id=account_id, puzzle_id=puzzle.id, rules=puzzle.rules, won=int(won),
        rating_before=before.rating, rating_after=after.rating, at=now))
    conn.execute(update(_players).where(*where).values(
        rating=after.rating, deviation=after.deviation, volatility=after.volatility,
        attempts=prow.attempts + 1, solved=prow.solved + int(won), updated=now))
    values = {"rating": pz_after.rating, "deviation": pz_after.deviation,
              "volatility": pz_after.volatility, "updated": now}
    if qrow is None:
        conn.execute(insert(_puzzles).values(puzzle_id=puzzle.id, attempts=1,
                                             solved=int(won), **values))
    else:
        conn.execute(update(_puzzles).where(_puzzles.c.puzzle_id == puzzle.id).values(
            attempts=qrow.attempts + 1, solved=qrow.solved + int(won), **values))
    return Outcome(True, before, after, pz_after, None, None)


def forget_account(conn: Any, account_id: int) -> None:
    """Delete an account's puzzle ratings and attempts (in the transaction deleting the
    account); the puzzles keep the ratings its attempts gave them."""
    conn.execute(delete(_players).where(_players.c.account_id == account_id))
    conn.execute(delete(_attempts).where(_attempts.c.account_id == account_id))
