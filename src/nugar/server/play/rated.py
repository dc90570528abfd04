"""The rules that keep ratings honest: what a rated game must be before its end counts, and
how many rated games one account may start.

Two accounts of one person could move a rating at will: one resigns at once, game after game,
and the other gains some 16 points each time (1500 to 1904 in 25 games measured against a
local server before these rules). Three rules, as lichess has them in spirit, close that:

* **Too early to rate.** A rated game that ends by a resignation, a fallen flag or being left
  (:func:`.timing.expire`) before *each* player has completed
  :data:`MIN_TURNS` turns is *aborted*: no result, no winner, no rating change (the event
  ``abort`` with ``early`` naming how it would have ended). Endings by the rules themselves
  and agreed draws are kept: the moves decided them. A forced pass counts as a turn.
* **Pairs.** At most :data:`PAIR_PER_DAY` rated games between the same two accounts start in
  any 24 hours (either colour; aborted games do not count): past that the lobby refuses the
  rated challenge (``429 rated_limit``) and an unrated one is still welcome.
* **New accounts.** An account younger than :data:`NEW_ACCOUNT_DAYS` days starts at most
  :data:`NEW_PER_HOUR` rated games in any hour, posted or accepted.

A rated challenge without a time control gets :data:`DEFAULT_CONTROL`, a correspondence
clock (days per turn): a rated game always has a clock, so a player who leaves loses on time
instead of the game expiring as a draw (:mod:`.clocks`).

The counts are read from the games table inside the lobby's transaction, so they hold across
every server process sharing one database. docs/server.md ("Ratings") says the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.engine import Connection

from ...i18n import Text
from ...rules.base import Game
from ..errors import ApiError
from ..storage.store import accounts_table, games_table
from .endings import ABORTED

#: turns each player must have completed before a resignation, a fallen flag or an
#: abandoned game counts for the ratings
MIN_TURNS = 2
#: most rated games started between the same two accounts in any 24 hours
PAIR_PER_DAY = 10
#: an account younger than this many days is new ...
NEW_ACCOUNT_DAYS = 7.0
#: ... and starts at most this many rated games in any hour
NEW_PER_HOUR = 5
#: the time control a rated challenge posted without one gets: days per turn
DEFAULT_CONTROL = "3d"

_DAY = 86400.0
_HOUR = 3600.0


def turns_made(game: Game) -> tuple[int, int]:
    """The turns players 1 and 2 have completed in ``game`` (a forced pass is a turn; the
    turn being played, whose player is still to move, is not complete)."""
    made = [0, 0]
    turns = game.turn_list()
    for i, (player, _moves) in enumerate(turns):
        complete = i < len(turns) - 1 or game.to_move != player or game.is_over
        made[player - 1] += complete
    return made[0], made[1]


def too_early_to_rate(game: Game) -> bool:
    """Whether a rated ``game`` ending now by a resignation, a flag or being left is aborted
    instead (some player has completed fewer than :data:`MIN_TURNS` turns)."""
    return min(turns_made(game)) < MIN_TURNS


def _counted(since: float) -> ColumnElement[bool]:
    g = games_table.c
    return and_(g.rated == 1, g.created >= int(since),
                or_(g.reason.is_(None), g.reason != ABORTED))


def check_may_start(conn: Connection, accounts: Sequence[int], now: float) -> None:
    """Refuse (``429 rated_limit``) a rated game between ``accounts`` (one account: a
    challenge being posted; two: one being accepted) that one of the limits above forbids.
    Reads in ``conn``'s transaction."""
    g = games_table.c
    if len(accounts) == 2:
        a, b = accounts
        pair = or_(and_(g.account_1 == a, g.account_2 == b),
                   and_(g.account_1 == b, g.account_2 == a))
        played = conn.execute(select(func.count()).select_from(games_table)
                              .where(_counted(now - _DAY)).where(pair)).scalar_one()
        if played >= PAIR_PER_DAY:
            raise ApiError("rated_limit", Text(
                "these two players have reached the limit of rated games between them in 24 "
                "hours ({count}); play this one unrated, or later",
                domain="web", count=PAIR_PER_DAY))
    young = conn.execute(select(accounts_table.c.id).where(
        accounts_table.c.id.in_(list(accounts)),
        accounts_table.c.created > now - NEW_ACCOUNT_DAYS * _DAY)).scalars().all()
    for account in young:
        started = conn.execute(select(func.count()).select_from(games_table)
                               .where(_counted(now - _HOUR))
                               .where(or_(g.account_1 == account, g.account_2 == account))
                               ).scalar_one()
        if started >= NEW_PER_HOUR:
            days = round(NEW_ACCOUNT_DAYS)
            raise ApiError("rated_limit", Text.plural(
                "a new account (younger than {days} day) has reached its limit of rated games "
                "an hour ({count}); play this one unrated, or later",
                "a new account (younger than {days} days) has reached its limit of rated games "
                "an hour ({count}); play this one unrated, or later", days,
                domain="web", days=days, count=NEW_PER_HOUR))
