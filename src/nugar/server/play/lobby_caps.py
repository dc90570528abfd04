"""The lobby's share per client address: a bound on the open challenges one address keeps.

The lobby holds at most :data:`~.lobby.MAX_CHALLENGES` open challenges server-wide; one
address posting them all (and keeping them alive by polling with their keys) left every
other client with ``503 lobby_full``. :class:`CappedLobby` is the lobby with, in front of
each post, a count of the challenges the posting address (:data:`~.clients.CLIENT`) has
still open: at ``per_client`` (:data:`CHALLENGES_PER_CLIENT`) it refuses the post with
``429 too_many_challenges``. The addresses' challenges are remembered in this process: at
most ``per_client`` ids per address, pruned to those still open at the address's next post,
and at most :data:`~.clients.MAX_ADDRESSES` addresses (the longest unheard of forgotten
first); with several worker processes the bound is therefore per address and process.
A signed-in poster is counted by its account, not its address (the client key of
:mod:`.clients`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from ...i18n import Text
from ..clients import CLIENT, MAX_ADDRESSES, named
from ..config import DEFAULTS
from ..errors import ApiError
from .lobby import Challenge, Lobby

#: the open challenges one client address may have (``--challenges-per-client``)
CHALLENGES_PER_CLIENT = DEFAULTS.challenges_per_client


class CappedLobby(Lobby):
    """A :class:`~.lobby.Lobby` whose posts are bounded per client address (see the
    module's text)."""

    def __init__(self, *args: Any, per_client: int = CHALLENGES_PER_CLIENT,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.per_client = per_client
        #: client address -> the ids of its challenges that may still be open
        self.posted: OrderedDict[str, list[str]] = OrderedDict()
        self._posting = threading.Lock()  # one address's count and post are not split

    def post(self, *args: Any, **kwargs: Any) -> tuple[Challenge, str]:
        """:meth:`.Lobby.post`, refused with ``too_many_challenges`` while the posting
        address has ``per_client`` challenges open (runs in a worker thread, which carries
        the request's :data:`~.clients.CLIENT`)."""
        with self._posting:
            return self._post(CLIENT.get(), *args, **kwargs)

    def _post(self, client: str, *args: Any, **kwargs: Any) -> tuple[Challenge, str]:
        mine = self.posted.pop(client, [])
        if mine:
            still = set(self.open_ids())
            mine = [cid for cid in mine if cid in still]
        if len(mine) >= self.per_client:
            self.posted[client] = mine
            raise ApiError("too_many_challenges", Text.plural(
                "{named} has {count} open challenge, the most it may have; cancel it or wait "
                "for it to be accepted", "{named} has {count} open challenges, the most it may "
                "have; cancel one or wait for it to be accepted", len(mine),
                domain="web", named=named(client), count=len(mine)))
        challenge, key = super().post(*args, **kwargs)
        self.posted[client] = [*mine, challenge.id]
        while len(self.posted) > MAX_ADDRESSES:
            self.posted.popitem(last=False)
        return challenge, key
