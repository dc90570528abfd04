"""Glicko-2 ratings (nugar.server.ratings): Glickman's worked example, properties of one-game
rating periods, and the refusal of bad input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nugar.server.ratings import (
    DRAW,
    LOSS,
    SCALE,
    WIN,
    Rating,
    idle,
    rate_game,
    update,
)

PAPER_GAMES = [(1400, 30, WIN), (1550, 100, LOSS), (1700, 300, LOSS)]


def test_glickman_worked_example() -> None:
    """1500/200/0.06 against 1400/30 (win), 1550/100 and 1700/300 (losses): the paper's
    1464.06 / 151.52 / 0.05999 at its decimals (it converts figures it rounded on the
    Glicko-2 scale, -0.2069 and 0.8722, so the rating is within one of its last digit)."""
    new = update(Rating(1500, 200, 0.06), PAPER_GAMES)
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.deviation / SCALE, 4) == 0.8722
    assert abs(new.rating - 1464.06) <= 0.01
    assert abs(new.deviation - 151.52) <= 0.005
    assert abs(new.volatility - 0.05999) <= 0.00001
    assert round(SCALE * -0.2069 + 1500, 2) == 1464.06


def test_defaults_and_display() -> None:
    new = Rating()
    assert (new.rating, new.deviation, new.volatility) == (1500, 350, 0.06)
    assert new.provisional and new.display == "1500?"
    assert not Rating(1612.4, 110).provisional and Rating(1612.4, 110).display == "1612"
    assert Rating(1612.6, 110.01).display == "1613?"


def test_idle_period_grows_deviation_only() -> None:
    before = Rating(1700, 80, 0.06)
    after = idle(before)
    assert after.rating == 1700 and after.volatility == 0.06
    assert after.deviation == pytest.approx(SCALE * math.sqrt((80 / SCALE) ** 2 + 0.06**2))
    assert update(before, []) == after


def test_rate_game_rates_each_against_the_other() -> None:
    a, b = Rating(1600, 120, 0.06), Rating(1450, 250, 0.07)
    new_a, new_b = rate_game(a, b, DRAW)
    assert new_a == update(a, [(1450, 250, DRAW)])
    assert new_b == update(b, [(1600, 120, DRAW)])
    # a draw between unequal players moves the stronger one down and the weaker one up
    assert new_a.rating < a.rating and new_b.rating > b.rating


ratings = st.floats(500, 2500)
deviations = st.floats(30, 350)
volatilities = st.floats(0.03, 0.09)
scores = st.sampled_from([WIN, DRAW, LOSS])


@given(ratings, deviations, volatilities, ratings, deviations)
def test_a_win_never_lowers_a_loss_never_raises(r: float, d: float, s: float, o: float,
                                                 od: float) -> None:
    me = Rating(r, d, s)
    assert update(me, [(o, od, WIN)]).rating >= r
    assert update(me, [(o, od, LOSS)]).rating <= r


@given(ratings, deviations, volatilities, ratings, deviations, scores)
def test_a_game_narrows_the_deviation(r: float, d: float, s: float, o: float, od: float,
                                      score: float) -> None:
    """A game always leaves the deviation below what the same period without the game would
    (at the new volatility); and where the result tells something (a player not yet
    established, an opponent within 400 points), below the deviation before the game."""
    new = update(Rating(r, d, s), [(o, od, score)])
    assert new.deviation < idle(Rating(r, d, new.volatility)).deviation
    if d >= 110 and abs(r - o) <= 400:
        assert new.deviation < d


@given(ratings, deviations, volatilities, ratings, deviations, scores)
def test_mirrored_outcomes_are_symmetric(r: float, d: float, s: float, o: float, od: float,
                                         score: float) -> None:
    """Mirroring both ratings about 1500 and the score about a draw mirrors the change."""
    new = update(Rating(r, d, s), [(o, od, score)])
    mirror = update(Rating(3000 - r, d, s), [(3000 - o, od, 1 - score)])
    assert new.rating - r == pytest.approx(-(mirror.rating - (3000 - r)), abs=1e-6)
    assert new.deviation == pytest.approx(mirror.deviation)
    assert new.volatility == pytest.approx(mirror.volatility)


@given(ratings, deviations, volatilities, deviations)
def test_equal_players_draw_keeps_ratings(r: float, d: float, s: float, od: float) -> None:
    assert update(Rating(r, d, s), [(r, od, DRAW)]).rating == pytest.approx(r)


@pytest.mark.parametrize(("args", "message"), [
    ((1500, 0, 0.06), "deviation must be above 0"),
    ((1500, -5, 0.06), "deviation must be above 0"),
    ((1500, 350, 0), "volatility must be above 0"),
    ((math.nan, 350, 0.06), "rating must be a finite number"),
    ((1500, math.inf, 0.06), "deviation must be a finite number"),
    (("1500", 350, 0.06), "rating must be a finite number"),
    ((True, 350, 0.06), "rating must be a finite number"),
])
def test_bad_ratings_rejected(args: tuple[object, object, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Rating(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize(("results", "message"), [
    ([(1500, 350, 2)], r"result 0's score must be 0 \(loss\), 0.5 \(draw\) or 1 \(win\)"),
    ([(1500, 350, -0.5)], "result 0's score must be"),
    ([(1500, 350, WIN), (1500, 0, WIN)], "result 1's opponent deviation must be above 0"),
    ([(1500, 350)], r"result 0 must be \(opponent rating, opponent deviation, score\)"),
    ([(math.nan, 350, WIN)], "result 0's opponent rating must be a finite number"),
])
def test_bad_results_rejected(results: list[tuple[float, ...]], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        update(Rating(), results)  # type: ignore[arg-type]


def test_bad_player_and_tau_rejected() -> None:
    with pytest.raises(ValueError, match="player must be a Rating"):
        update((1500, 350, 0.06), [(1500, 350, WIN)])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="tau must be above 0"):
        update(Rating(), [(1500, 350, WIN)], tau=0)
    with pytest.raises(ValueError, match="score must be"):
        rate_game(Rating(), Rating(), 3)
