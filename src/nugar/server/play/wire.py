"""JSON made once per change: the answer to a move and the event every listener gets.

A change's update (:meth:`~.room.Room.update`) is the answer to the request that made it and
the ``update`` of the event sent to each of the game's websocket listeners. Encoding it once,
when it is made, spares one encoding per answer and one per listener: :class:`Encoded` is the
dict with its JSON text kept beside it, and :func:`event_message` builds an event's text
around the update's text. The text is exactly what ``json.dumps`` of the dict gives with the
server's settings (:func:`dumps`), so the bytes a client receives are the same either way.
"""

from __future__ import annotations

import json
from typing import Any

#: the encoder of :func:`dumps`, made once (``json.dumps`` with settings makes one a call)
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    """The server's JSON: compact, UTF-8 as it is, no NaN (what FastAPI's answers use)."""
    return _ENCODER.encode(value)


class Encoded(dict[str, Any]):
    """A message (or an answer) and its JSON text, made together; neither is changed after."""

    __slots__ = ("text",)

    def __init__(self, value: dict[str, Any], text: str | None = None) -> None:
        super().__init__(value)
        self.text: str = dumps(value) if text is None else text


def event_message(etype: str, version: int, data: dict[str, Any],
                  update: Encoded | None) -> Encoded:
    """The websocket event ``{"type", "v", "data", "update"}`` of a change, its text built
    around the update's own text (``update`` ``None``: an event the last one of a run
    completes)."""
    message = {"type": etype, "v": version, "data": data, "update": update}
    head = dumps({"type": etype, "v": version, "data": data})
    tail = "null" if update is None else update.text
    return Encoded(message, f'{head[:-1]},"update":{tail}}}')


def text_of(message: dict[str, Any]) -> str:
    """The JSON text of ``message``: the one made with it, else encoded now."""
    return message.text if isinstance(message, Encoded) else dumps(message)
