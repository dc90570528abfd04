"""Refusals of the game server, and the one table that turns them into HTTP statuses.

Whatever refuses a request (a game's session, the lobby, a clock, a route) raises an
:class:`ApiError` that says *what* went wrong: a short machine code and a sentence for
people. It knows nothing of HTTP. Only the writers of answers (the error handler of
:mod:`.middleware`, the fast lane, the websocket routes) ask :func:`status_of` for the status
to send, so every code is answered with the same status wherever it is raised, and a new code
is one line in :data:`STATUS`.
"""

from __future__ import annotations

from typing import Any

from ..i18n import Text


class ApiError(Exception):
    """A refused request: a short machine code (a key of :data:`STATUS`) and a sentence for
    people, answered as JSON ``{"error": code, "detail": detail}``. The sentence is a
    :class:`~nugar.i18n.Text` (domain ``web``, or the engine's own reason passed through), so
    the writers of answers can say it in the request's language (:func:`nugar.i18n.say`);
    the code stays English. It pickles (a job of the work pool's processes,
    :mod:`.work_pool`, raises it in another process)."""

    #: the seconds after which the same request may succeed (``Retry-After``), for the
    #: refusals that say it (the AI's pool full, too many attempts, too much work)
    retry_after: int | None = None

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail

    def with_detail(self, detail: str) -> ApiError:
        """The same refusal (its code, so its status, and its ``Retry-After``) with another
        sentence: the one said in a request's language."""
        said = ApiError.__new__(ApiError)  # not type(self): a subclass's own arguments differ
        Exception.__init__(said, detail)
        said.code, said.detail, said.retry_after = self.code, detail, self.retry_after
        return said

    def __reduce__(self) -> tuple[Any, ...]:
        # an exception pickles as ``type(self)(*self.args)``, which would lose the code
        return _unpickled, (type(self), self.args), self.__dict__


def _unpickled(cls: type[ApiError], args: tuple[Any, ...]) -> ApiError:
    """A refusal of class ``cls`` again, its attributes set after (:meth:`ApiError.__reduce__`)."""
    exc = cls.__new__(cls)
    Exception.__init__(exc, *args)
    return exc


#: the HTTP status of every refusal's code
STATUS: dict[str, int] = {
    # a request whose session cookie can be read two ways (:func:`.accounts.session_token`)
    "bad_cookie": 400,
    # a sign-in that names no account with that password; a request that needs one
    "bad_credentials": 401,
    "signed_out": 401,
    # an ``Authorization: Bearer`` token that is no bot's (unknown or revoked)
    "bad_token": 401,
    # a secret that opens no seat of the game, or a spectator acting
    "bad_key": 403,
    # a request made with the session cookie from another site (:mod:`.crosssite`)
    "cross_site": 403,
    # an account's password, asked again before a change, that is not its own
    "wrong_password": 403,
    # a bot's request by a person's account, or a person's by a bot's token
    "not_a_bot": 403,
    # something that does not exist
    "unknown_game": 404,
    "unknown_lesson": 404,
    "unknown_step": 404,
    "unknown_challenge": 404,
    "unknown_offer": 404,
    "unknown_analysis": 404,
    "unknown_player": 404,
    "unknown_token": 404,
    "unknown_puzzle": 404,
    # a pasted record that is a rated game still being played (:mod:`.work.analyses`)
    "game_in_play": 409,
    # a request the game's (or the lobby's) state refuses now
    "already_accepted": 409,
    "already_offered": 409,
    "ask_takeback": 409,
    "corrupt_game": 409,
    "game_over": 409,
    "game_running": 409,
    "name_taken": 409,
    "has_games": 409,
    "illegal_move": 409,
    "no_hints": 409,
    "no_offer": 409,
    "no_offers": 409,
    "not_your_turn": 409,
    "not_yours": 409,
    "nothing_to_undo": 409,
    "own_challenge": 409,
    "stale_version": 409,
    "too_long": 409,
    # a request that does not say something the server understands
    "bad_action": 422,
    "bad_clock": 422,
    "bad_colour": 422,
    "bad_language": 422,
    "bad_level": 422,
    "bad_mode": 422,
    "bad_password": 422,
    "bad_progress": 422,
    "bad_move": 422,
    "bad_ply": 422,
    "bad_record": 422,
    "bad_rules": 422,
    "bad_seat": 422,
    "bad_turn": 422,
    "bad_username": 422,
    "invalid_move": 422,
    # too much of one kind of work asked for at once: the same request may succeed later
    "analysis_busy": 429,
    # too many sign-in attempts for one user name or from one address (``Retry-After``)
    "too_many_attempts": 429,
    "too_much_work": 429,
    "too_many_challenges": 429,
    "too_many_tokens": 429,
    "too_many_streams": 429,
    # a rated game one of the rating's limits forbids (:mod:`.play.rated`): unrated is welcome
    "rated_limit": 429,
    # too many puzzles asked or attempts made by one client (``Retry-After``)
    "puzzle_limit": 429,
    # the server cannot do it now; the same request may succeed later
    "ai_busy": 503,
    "lobby_busy": 503,
    "lobby_full": 503,
    "sign_in_busy": 503,
    "stale_room": 503,
    "storage_failed": 503,
    # the process that ran an expensive request stopped under it (:mod:`.work_pool`)
    "work_failed": 503,
}


def reason(exc: BaseException) -> str:
    """The sentence of an error raised below the server (a rules or lesson error) as it
    carries it: its :class:`~nugar.i18n.Text` when it has one, so the refusal passing it on
    can still be translated, else its English text."""
    if len(exc.args) == 1 and isinstance(exc.args[0], Text):
        return exc.args[0]
    return str(exc)


def status_of(exc: ApiError) -> int:
    """The HTTP status answering the refusal ``exc`` (:data:`STATUS`)."""
    return STATUS[exc.code]

