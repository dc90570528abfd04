"""The request and answer models the routes share: a strictly read body (``Body``, whole
numbers written ``3`` or ``3.0``), a seat's key and a move (``KeyBody``, ``MoveBody``, which
the fast lane reads too), every refusal's body (``ErrorBody``) and a state sent as JSON
without a second pass (``answer``). A route's own models stay with the route.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi.responses import JSONResponse
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def answer(state: dict[str, Any]) -> JSONResponse:
    """``state`` as the JSON response itself: a state or an update holds only JSON values, so
    FastAPI's validation and conversion of a returned dict (a pass over every field) are
    skipped; the routes still declare their answer as an object (``response_model``) for the
    API schema."""
    return JSONResponse(state)


def _whole(value: object) -> object:
    """A JSON number with no fraction (``38801.0``) as the whole number it is: JSON Schema's
    ``integer``, which the API schema states, takes it, so the server does too. Anything else
    is left to the strict check (``true``, ``"2"`` and ``1.5`` are still refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: a whole number in a request body, written ``3`` or ``3.0`` (:func:`_whole`)
Whole = Annotated[int, BeforeValidator(_whole)]


class Body(BaseModel):
    """A request body, read strictly: JSON ``true`` is not the seat 1, nor ``"2"`` the level 2."""

    model_config = ConfigDict(strict=True)


class KeyBody(Body):
    key: str = Field("", max_length=200, description="the secret of your seat")


class MoveBody(KeyBody):
    move: str = Field(..., max_length=64,
                      description="a move or a whole turn: c3, c3-c4xe5, 4, 1-6")
    v: Whole | None = Field(None, ge=1, description="the version of the game the move was "
                          "decided on: played only if the game is still at it (else 409 "
                          "stale_version), so a repeated request cannot play twice")


class ErrorBody(BaseModel):
    """Every refusal's body (a 4xx status; the middleware writes it)."""

    error: str = Field(..., description="a short machine code, e.g. bad_rules, not_found")
    detail: str = Field(..., description="what was wrong and what is allowed")
