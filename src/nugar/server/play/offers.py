"""The offers of a game between two people: draws and takebacks, offered, accepted, declined
or cancelled, and the rematch asked for after the game.

Each is a decision over a :class:`~.session.GameSession` (see there): it checks the request,
applies it (an accepted draw ends the game, an accepted takeback takes the moves back) and
returns the :class:`~.session.Change` to store, or refuses with an
:class:`~.errors.ApiError`.
"""

from __future__ import annotations

from ...i18n import Text
from ..errors import ApiError
from .session import Change, GameSession, seat_of_request

OFFER_KINDS = ("draw", "takeback")
OFFER_ACTIONS = ("offer", "accept", "decline", "cancel")
#: the offers' kinds and actions as a refusal's sentence says them (translated with it)
_WORDS = {"draw": Text("draw", domain="web"), "takeback": Text("takeback", domain="web"),
          "offer": Text("offer", domain="web"), "accept": Text("accept", domain="web"),
          "decline": Text("decline", domain="web"), "cancel": Text("cancel", domain="web")}


def offer(session: GameSession, seat: int | None, kind: str, action: str) -> Change:
    """Draw and takeback offers: ``offer``, ``accept``, ``decline`` (or ``cancel``)."""
    if kind not in OFFER_KINDS:
        raise ApiError("unknown_offer", Text(
            "offers are draw or takeback, not {kind!r}",
            domain="web", kind=kind))
    if action not in OFFER_ACTIONS:
        raise ApiError("bad_action", Text(
            "action must be offer, accept, decline or cancel, not {action!r}",
            domain="web", action=action))
    seat = seat_of_request(seat)
    session.require_running()
    if session.mode != "friend":
        if kind == "draw" and session.mode == "hotseat" and action in ("offer", "accept"):
            # both players sit at the same screen: an offer is already agreed
            return _agree_draw(session)
        raise ApiError("no_offers", Text(
            "offers are made between two people playing by link; against the AI use "
            "undo", domain="web") if session.mode == "ai" else Text(
            "offers are made between two people playing by link", domain="web"))
    pending = session.offers.get(kind)
    if action == "offer":
        if pending == seat:
            raise ApiError("already_offered", Text(
                "you already offered a {kind}", domain="web", kind=_WORDS[kind]))
        if pending is not None:
            action = "accept"  # both offered: that is agreement
        elif kind == "takeback" and not any(p == seat for p, _ in session.game.turn_list()):
            raise ApiError("nothing_to_undo", Text("you have not moved yet", domain="web"))
        else:
            session.offers = {**session.offers, kind: seat}
            return Change("offer", {"kind": kind, "by": seat})
    if action in ("decline", "cancel"):
        if pending is None:
            raise ApiError("no_offer", Text(
                "there is no {kind} offer to {action}", domain="web",
                kind=_WORDS[kind], action=_WORDS[action]))
        if (action == "cancel") != (pending == seat):
            raise ApiError("not_yours", Text(
                "only the player who made an offer may cancel it, and only the other may "
                "decline it",
                domain="web"))
        session.offers = {k: v for k, v in session.offers.items() if k != kind}
        return Change(action, {"kind": kind, "by": seat})
    # accept
    if pending is None or pending == seat:
        raise ApiError("no_offer", Text(
            "there is no {kind} offer from your opponent", domain="web",
            kind=_WORDS[kind]))
    if kind == "draw":
        return _agree_draw(session)
    undone = session.undo_to_turn_of(
        pending, Text("the player who asked has not moved yet", domain="web"))
    session.offers = {}
    return Change("takeback", {"moves": [str(m) for m in undone], "by": pending})


def _agree_draw(session: GameSession) -> Change:
    session.game.agree_draw()
    session.offers = {}
    return Change("draw", {"agreed": True})


def rematch_asked(session: GameSession, seat: int, game_id: str) -> Change | None:
    """The player of ``seat`` asked for a rematch, the game ``game_id`` (:mod:`.rematch`): the
    change ``rematch``, kept as the pending offer ``rematch`` (the seat that asked); ``None``
    if one was already asked for."""
    if "rematch" in session.offers:
        return None
    session.offers = {**session.offers, "rematch": seat}
    return Change("rematch", {"game": game_id, "by": seat})
