"""Reading the ratings back: a player's ratings, games and rating history, a game's rating
changes, and the leaderboard of a preset. Bots (:attr:`.accounts.Account.bot`) are rated
like everyone, with people and with bots, and labelled (``bot``) wherever a player is named,
but never listed on the leaderboard, which is the people's.

The ratings are written by the store's writer in the transaction of a rated game's last
move (:meth:`.store.Store._rate`); everything here only reads. Blocking database calls: the
routes run them in a worker thread.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, or_, select

from ...i18n import Text
from ..errors import ApiError
from ..ratings import PROVISIONAL_DEVIATION, Rating
from ..storage.store import (
    Store,
    accounts_table,
    games_table,
    rating_changes_table,
    ratings_table,
)
from .accounts import DELETED_NAME

#: games per page of a player's list
PAGE = 20
#: the most rated games of one preset a player's history gives (the graph's points)
MAX_HISTORY = 500
#: the most players a leaderboard lists
LEADERBOARD = 100

_a = accounts_table
_g = games_table
_r = ratings_table
_c = rating_changes_table


def rating_json(rating: Rating, games: int) -> dict[str, Any]:
    """A rating as the API gives it."""
    return {"rating": round(rating.rating, 2), "deviation": round(rating.deviation, 2),
            "volatility": round(rating.volatility, 6), "games": games,
            "provisional": rating.provisional, "display": rating.display}


def ratings_of(store: Store, account_id: int) -> dict[str, dict[str, Any]]:
    """An account's ratings by preset (only the presets it played rated games of)."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(_r).where(_r.c.account_id == account_id)
                            .where(_r.c.games > 0).order_by(_r.c.preset)).all()
    return {r.preset: rating_json(Rating(r.rating, r.deviation, r.volatility), r.games)
            for r in rows}


def game_ratings(store: Store, game_id: str, accounts: tuple[int | None, int | None],
                 preset: str) -> dict[str, Any]:
    """The ratings of a rated game's players: ``{"1": {display, rating, change}, ...}``,
    where ``change`` is what the game did (``None`` until it ended), and the ratings are
    those from before the game once it ended, the current ones before."""
    with store.engine.connect() as conn:
        changes = {r.seat: r for r in conn.execute(
            select(_c).where(_c.c.game_id == game_id)).all()}
        now = {r.account_id: r for r in conn.execute(
            select(_r).where(_r.c.preset == preset)
            .where(_r.c.account_id.in_([a for a in accounts if a is not None]))).all()}
    out: dict[str, Any] = {}
    for seat, account in ((1, accounts[0]), (2, accounts[1])):
        if account is None:
            out[str(seat)] = None
            continue
        change = changes.get(seat)
        if change is not None:
            before = Rating(change.rating_before, change.deviation_before)
            after = Rating(change.rating_after, change.deviation_after,
                           change.volatility_after)
            out[str(seat)] = {"rating": round(before.rating, 2), "display": before.display,
                              "change": round(after.rating - before.rating, 2),
                              "after": after.display}
        else:
            row = now.get(account)
            current = Rating() if row is None else Rating(row.rating, row.deviation,
                                                          row.volatility)
            out[str(seat)] = {"rating": round(current.rating, 2),
                              "display": current.display, "change": None, "after": None}
    return out


def game_players(store: Store, game_id: str) -> dict[str, Any] | None:
    """``GET /api/games/{id}/players``: the name on each seat (``None``: nobody signed in
    holds it; "deleted player"), whether the game is rated and, if so, both players'
    ratings and what the game changed (:func:`game_ratings`); ``None``: no such game."""
    with store.engine.connect() as conn:
        row = conn.execute(select(_g.c.account_1, _g.c.account_2, _g.c.rated, _g.c.rules)
                           .where(_g.c.id == game_id)).first()
    if row is None:
        return None
    accounts = (row.account_1, row.account_2)
    names = names_of(store, {a for a in accounts if a is not None})
    bots = _bots(store, {a for a in accounts if a is not None})
    out: dict[str, Any] = {
        "players": {str(seat): None if a is None else names[a]
                    for seat, a in ((1, accounts[0]), (2, accounts[1]))},
        "bots": {str(seat): a is not None and a in bots
                 for seat, a in ((1, accounts[0]), (2, accounts[1]))},
        "rated": bool(row.rated)}
    if row.rated:
        out["ratings"] = game_ratings(store, game_id, accounts, row.rules)
    return out


def bot_named(store: Store, username: str) -> int:
    """The account id of the bot named ``username``; 404 ``unknown_player`` when no bot
    has that name (a challenge is made to a bot only)."""
    with store.engine.connect() as conn:
        row = conn.execute(select(_a.c.id).where(_a.c.name_key == username[:40].lower())
                           .where(_a.c.bot == 1)).first()
    if row is None:
        raise ApiError("unknown_player", Text(
            "no bot is named {username!r}", domain="web", username=username[:40]))
    return int(row.id)


def _account_by_name(store: Store, username: str) -> tuple[int, str] | None:
    with store.engine.connect() as conn:
        row = conn.execute(select(_a.c.id, _a.c.username)
                           .where(_a.c.name_key == username.lower())).first()
    return None if row is None else (row.id, row.username)


def _bots(store: Store, ids: set[int]) -> set[int]:
    """Which of these accounts are bots."""
    if not ids:
        return set()
    with store.engine.connect() as conn:
        rows = conn.execute(select(_a.c.id).where(_a.c.id.in_(ids))
                            .where(_a.c.bot == 1)).all()
    return {r.id for r in rows}


def names_of(store: Store, ids: set[int]) -> dict[int, str]:
    """The user names of accounts by id (a deleted one: "deleted player")."""
    if not ids:
        return {}
    with store.engine.connect() as conn:
        rows = conn.execute(select(_a.c.id, _a.c.username).where(_a.c.id.in_(ids))).all()
    found = {r.id: r.username or DELETED_NAME for r in rows}
    return {i: found.get(i, DELETED_NAME) for i in ids}


def _outcome(result: str | None, seat: int) -> str | None:
    """``win``, ``loss``, ``draw`` or ``aborted`` for the player of ``seat``."""
    if result == "1/2-1/2":
        return "draw"
    if result in ("1-0", "0-1"):
        return "win" if (result == "1-0") == (seat == 1) else "loss"
    return None if result is None else "aborted"


def player(store: Store, username: str, page: int = 1) -> dict[str, Any] | None:
    """``GET /api/players/{username}``: the player's ratings, his finished games (newest
    first, :data:`PAGE` a page) and his rating history per preset; ``None``: no such
    player."""
    found = _account_by_name(store, username)
    if found is None:
        return None
    account_id, name = found
    mine = or_(_g.c.account_1 == account_id, _g.c.account_2 == account_id)
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(_g.c.id, _g.c.rules, _g.c.mode, _g.c.ai_level, _g.c.ai_seat,
                   _g.c.account_1, _g.c.account_2, _g.c.result, _g.c.updated, _g.c.rated,
                   _c.c.rating_before, _c.c.rating_after)
            .outerjoin(_c, and_(_c.c.game_id == _g.c.id, _c.c.account_id == account_id))
            .where(mine).where(_g.c.result.is_not(None))
            .order_by(_g.c.updated.desc(), _g.c.id)
            .offset((page - 1) * PAGE).limit(PAGE + 1)).all()
        history_rows = conn.execute(
            select(_c.c.preset, _c.c.game_id, _c.c.ended, _c.c.rating_after,
                   _c.c.deviation_after)
            .where(_c.c.account_id == account_id)
            .order_by(_c.c.ended.desc()).limit(MAX_HISTORY)).all()
    more = len(rows) > PAGE
    rows = rows[:PAGE]
    others = {r.account_2 if r.account_1 == account_id else r.account_1 for r in rows}
    names = names_of(store, {o for o in others if o is not None})
    bots = _bots(store, {o for o in others if o is not None} | {account_id})
    games = []
    for r in rows:
        seat = 1 if r.account_1 == account_id else 2
        other = r.account_2 if seat == 1 else r.account_1
        if r.mode == "ai":
            opponent = f"nugar AI level {r.ai_level}"
        elif other is not None:
            opponent = names[other]
        else:
            opponent = None
        games.append({
            "id": r.id, "rules": r.rules, "opponent": opponent, "rated": bool(r.rated),
            "opponent_bot": other is not None and other in bots,
            "result": _outcome(r.result, seat), "score": r.result,
            "rating_change": None if r.rating_after is None
            else round(r.rating_after - r.rating_before, 2),
            "ended": r.updated})
    history: dict[str, list[dict[str, Any]]] = {}
    for h in reversed(history_rows):
        history.setdefault(h.preset, []).append({
            "game": h.game_id, "ended": h.ended, "rating": round(h.rating_after, 2),
            "deviation": round(h.deviation_after, 2)})
    return {"username": name, "bot": account_id in bots,
            "ratings": ratings_of(store, account_id), "games": games,
            "page": page, "more": more, "history": history}


def leaderboard(store: Store, preset: str, limit: int = LEADERBOARD) -> list[dict[str, Any]]:
    """The best players of a preset whose rating is no longer provisional, best first."""
    with store.engine.connect() as conn:
        rows = conn.execute(
            select(_a.c.username, _r.c.rating, _r.c.deviation, _r.c.volatility, _r.c.games)
            .join(_a, _a.c.id == _r.c.account_id)
            .where(_r.c.preset == preset).where(_r.c.games > 0)
            .where(_r.c.deviation <= PROVISIONAL_DEVIATION)
            .where(_a.c.username.is_not(None))
            .where(or_(_a.c.bot.is_(None), _a.c.bot != 1))  # the people's board: no bots
            .order_by(_r.c.rating.desc(), _a.c.name_key).limit(limit)).all()
    return [{"rank": i + 1, "username": r.username,
             **rating_json(Rating(r.rating, r.deviation, r.volatility), r.games)}
            for i, r in enumerate(rows)]
