"""A signed-in player's progress in the lessons, kept with the account.

The Learn pages (``static/learn.js``) keep a player's progress in the browser
(``localStorage``); signed in, they also keep it here, one row of
``store.lesson_progress_table`` per account and lesson: the indices of the steps done and
the step last shown. The page merges the two (the steps done in either) and writes the
merged progress back, so it follows the player from browser to browser. A ``PUT`` replaces
a lesson's row (forgetting a lesson's progress writes it empty). The functions here block
(the routes run them in a worker thread); :mod:`.routes_lessons` checks the lesson and the
indices against the package's lessons before writing.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from ..storage.store import Store, lesson_progress_table

_t = lesson_progress_table


def _view(row: Any) -> dict[str, Any]:
    try:
        done = sorted({int(i) for i in json.loads(row.done)})
    except (ValueError, TypeError):  # a row not written by this module: nothing done
        done = []
    return {"done": done, "at": row.at, "updated": row.updated}


def progress_of(store: Store, account_id: int) -> dict[str, dict[str, Any]]:
    """The account's progress: ``{lesson: {done: [step indices], at, updated}}``."""
    with store.engine.connect() as conn:
        rows = conn.execute(select(_t).where(_t.c.account_id == account_id)
                            .order_by(_t.c.lesson)).all()
    return {row.lesson: _view(row) for row in rows}


def save_progress(store: Store, account_id: int, lesson: str, done: list[int],
                  at: int | None, now: float | None = None) -> dict[str, Any]:
    """Replace the account's progress in ``lesson``; answers it as stored."""
    values = {"done": json.dumps(sorted(set(done))), "at": at,
              "updated": time.time() if now is None else now}
    for _ in range(2):  # a row inserted meanwhile by another request: updated the 2nd time
        try:
            with store.engine.begin() as conn:
                changed = conn.execute(update(_t).where(_t.c.account_id == account_id)
                                       .where(_t.c.lesson == lesson).values(**values))
                if changed.rowcount == 0:
                    conn.execute(insert(_t).values(account_id=account_id, lesson=lesson,
                                                   **values))
            break
        except IntegrityError:
            continue
    return {"done": sorted(set(done)), "at": at, "updated": values["updated"]}


def forget_account(conn: Any, account_id: int) -> None:
    """Delete an account's progress (in the transaction deleting the account)."""
    conn.execute(delete(_t).where(_t.c.account_id == account_id))
