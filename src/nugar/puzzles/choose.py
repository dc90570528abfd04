"""Which puzzle comes next: near the player's rating, the day's puzzle, a streak's next.

All three choose among a rule set's puzzles sorted by their mined rating (as
:func:`nugar.puzzles.shipped` gives them) and are plain functions of their arguments, so a
server with several workers chooses alike in each.
"""

from __future__ import annotations

import bisect
import datetime
import hashlib
import random
from collections.abc import Collection, Sequence

from .model import Puzzle

#: how far from the wanted rating a choice first looks; it widens until something is left
WINDOW = 150
#: the rating a streak starts at and what each puzzle right adds
STREAK_START, STREAK_STEP = 1000, 50
#: the ratings the day's puzzle is chosen among (neither the easiest nor the hardest)
DAILY_BAND = (1200, 1800)


def near(puzzles: Sequence[Puzzle], rating: float, rng: random.Random,
         skip: Collection[str] = ()) -> Puzzle | None:
    """A puzzle chosen at random among those rated within :data:`WINDOW` of ``rating`` (the
    window doubling until one is left), not one of ``skip``; ``None`` when all are."""
    ratings = [p.rating for p in puzzles]
    window = WINDOW
    while True:
        lo = bisect.bisect_left(ratings, rating - window)
        hi = bisect.bisect_right(ratings, rating + window)
        left = [p for p in puzzles[lo:hi] if p.id not in skip]
        if left:
            return rng.choice(left)
        if lo == 0 and hi == len(puzzles):
            return None
        window *= 2


def daily(puzzles: Sequence[Puzzle], day: datetime.date) -> Puzzle | None:
    """The puzzle of ``day`` (UTC) for these puzzles: the same for everyone all day, chosen
    by a hash of the date among those rated in :data:`DAILY_BAND` (all, if none is)."""
    if not puzzles:
        return None
    band = [p for p in puzzles if DAILY_BAND[0] <= p.rating <= DAILY_BAND[1]] or list(puzzles)
    digest = hashlib.sha256(f"{day.isoformat()} {band[0].rules}".encode()).digest()
    return band[int.from_bytes(digest[:8], "big") % len(band)]


def streak_rating(streak: int) -> int:
    """The rating of a streak's next puzzle after ``streak`` right in a row."""
    return STREAK_START + STREAK_STEP * max(0, streak)
