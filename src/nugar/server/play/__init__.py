"""Play: the online games themselves, apart from HTTP.

A game's session (``session.py``: seats, offers, takebacks, endings, the computer's turns),
its room (``room.py``: the cached row, the session and the listeners) and the hub that keeps
the rooms of a server and stores, then announces, each change (``rooms.py``); following what
other processes store (``follow.py``, ``listen.py``); the clocks (``clocks.py``), rematches
(``rematch.py``) and the lobby's open challenges (``lobby.py``, ``lobby_caps.py``); the JSON of
a change made once (``wire.py``), the board drawn (``render.py``) and the replays of records
and past positions (``replays.py``).
"""
