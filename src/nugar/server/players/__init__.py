"""Players: accounts and what is kept with them.

Names, passwords, sessions and the limits on signing in (``accounts.py``), the ratings read
back (``standings.py``) and the progress in the lessons (``lesson_progress.py``). The Glicko-2
arithmetic itself is :mod:`nugar.server.ratings`, below the storage, because the store rates a
game in the transaction of its last change.
"""
