"""Players' ratings: the Glicko-2 system, as Mark Glickman defines it in "Example of the
Glicko-2 system" (http://www.glicko.net/glicko/glicko2.pdf).

Plain arithmetic over frozen dataclasses, with no web framework and no storage: the server
keeps one :class:`Rating` per account and preset and calls :func:`update` after each rated
game (each game is a rating period of its own, so the results list holds one game), or
:func:`idle` for a period in which a player had no game. The parameters are documented in
``docs/server.md`` ("Ratings").

The paper's worked example gives 1464.06, 151.52 and 0.05999: its figures are rounded on the
Glicko-2 scale (-0.2069, 0.8722) before they are converted back, and its volatility is cut at
five decimals; unrounded the rating is 1464.05 and the volatility 0.0599960:

>>> me = Rating(1500, 200, 0.06)
>>> new = update(me, [(1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)])
>>> f"{(new.rating - 1500) / SCALE:.4f} {new.deviation / SCALE:.4f} {new.volatility:.7f}"
'-0.2069 0.8722 0.0599960'
>>> Rating().display, new.display
('1500?', '1464?')
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: a new player's rating, deviation and volatility
START_RATING = 1500.0
START_DEVIATION = 350.0
START_VOLATILITY = 0.06
#: the system constant: how much the volatility may change in one period (Glickman advises
#: 0.3 to 1.2; smaller keeps volatilities steadier)
TAU = 0.5
#: ratings whose deviation is above this are shown provisional ("1500?")
PROVISIONAL_DEVIATION = 110.0
#: the factor between the Glicko scale (1500, 350) and the Glicko-2 scale (0, 2.01)
SCALE = 173.7178
#: the convergence tolerance of the volatility iteration (step 5 of the paper)
EPSILON = 0.000001

#: a game's score for the rated player: a win 1, a draw 0.5, a loss 0
WIN, DRAW, LOSS = 1.0, 0.5, 0.0


@dataclass(frozen=True)
class Rating:
    """One player's rating on the Glicko scale: ``rating`` (1500 for a new player),
    ``deviation`` (the uncertainty: 350 new, shrinking with games) and ``volatility`` (how
    erratic the results have been). Bad values raise ``ValueError``."""

    rating: float = START_RATING
    deviation: float = START_DEVIATION
    volatility: float = START_VOLATILITY

    def __post_init__(self) -> None:
        _number(self.rating, "rating")
        if not _number(self.deviation, "deviation") > 0:
            raise ValueError(f"deviation must be above 0, not {self.deviation!r}")
        if not _number(self.volatility, "volatility") > 0:
            raise ValueError(f"volatility must be above 0, not {self.volatility!r}")

    @property
    def provisional(self) -> bool:
        """Whether the rating is still too uncertain to be taken at its word (deviation
        over :data:`PROVISIONAL_DEVIATION`)."""
        return self.deviation > PROVISIONAL_DEVIATION

    @property
    def display(self) -> str:
        """The rating as players see it: rounded, with ``?`` when provisional (``1500?``)."""
        return f"{round(self.rating)}{'?' if self.provisional else ''}"


def _number(value: object, what: str) -> float:
    """``value`` as a finite float, else ``ValueError`` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, not {value!r}")
    return float(value)


def _g(phi: float) -> float:
    """How much a result against an opponent of deviation ``phi`` counts (1 when certain)."""
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    """The expected score against an opponent at ``mu_j`` with deviation ``phi_j``."""
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _new_volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility, the root of ``f`` found by the
    Illinois variant of regula falsi."""
    a = math.log(sigma * sigma)
    phi2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi2 - v - ex) / (2.0 * (phi2 + v + ex) ** 2)
                - (x - a) / (tau * tau))

    low = a
    if delta * delta > phi2 + v:
        high = math.log(delta * delta - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > EPSILON:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)


def _result(opponent: tuple[float, float, float], index: int) -> tuple[float, float, float]:
    """One checked (opponent rating, opponent deviation, score) triple."""
    if not isinstance(opponent, tuple | list) or len(opponent) != 3:
        raise ValueError(f"result {index} must be (opponent rating, opponent deviation, score), "
                         f"not {opponent!r}")
    rating = _number(opponent[0], f"result {index}'s opponent rating")
    deviation = _number(opponent[1], f"result {index}'s opponent deviation")
    if not deviation > 0:
        raise ValueError(f"result {index}'s opponent deviation must be above 0, not "
                         f"{opponent[1]!r}")
    score = _number(opponent[2], f"result {index}'s score")
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"result {index}'s score must be 0 (loss), 0.5 (draw) or 1 (win), "
                         f"not {opponent[2]!r}")
    return rating, deviation, score


def update(player: Rating, results: Iterable[tuple[float, float, float]], *,
           tau: float = TAU) -> Rating:
    """``player``'s rating after one rating period whose games are ``results``: for each
    game, the opponent's rating and deviation before the period and the player's score
    (:data:`WIN` 1, :data:`DRAW` 0.5, :data:`LOSS` 0). A period without games is
    :func:`idle`. Bad input raises ``ValueError``."""
    if not isinstance(player, Rating):
        raise ValueError(f"player must be a Rating, not {player!r}")
    if not _number(tau, "tau") > 0:
        raise ValueError(f"tau must be above 0, not {tau!r}")
    games = [_result(r, i) for i, r in enumerate(results)]
    if not games:
        return idle(player)
    # step 2: to the Glicko-2 scale
    mu = (player.rating - START_RATING) / SCALE
    phi = player.deviation / SCALE
    opponents = [((r - START_RATING) / SCALE, d / SCALE, s) for r, d, s in games]
    # steps 3 and 4: the estimated variance of the rating from the games alone, and the
    # estimated improvement
    inverse_v = 0.0
    sum_scores = 0.0
    for mu_j, phi_j, s in opponents:
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        sum_scores += g * (s - e)
    v = 1.0 / inverse_v
    delta = v * sum_scores
    # steps 5 to 7: the new volatility, the deviation grown by it, then narrowed by the games
    sigma = _new_volatility(phi, player.volatility, v, delta, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * sum_scores
    # step 8: back to the Glicko scale
    return Rating(SCALE * mu_new + START_RATING, SCALE * phi_new, sigma)


def idle(player: Rating) -> Rating:
    """``player``'s rating after a rating period without games: the rating and volatility
    stay, the deviation grows by the volatility (step 6 of the paper alone)."""
    if not isinstance(player, Rating):
        raise ValueError(f"player must be a Rating, not {player!r}")
    phi = player.deviation / SCALE
    return Rating(player.rating, SCALE * math.sqrt(phi * phi + player.volatility ** 2),
                  player.volatility)


def rate_game(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players' ratings after one game between them as a rating period of its own;
    ``score`` is the first player's (1 a win, 0.5 a draw, 0 a loss). Each is rated against
    the other's rating from before the game."""
    return (update(first, [(second.rating, second.deviation, score)]),
            update(second, [(first.rating, first.deviation, 1.0 - _number(score, "score"))]))
