"""The FIBS formula and Glicko-2 against hand-computed values from their published texts."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boardgammon.ratings import FibsRating, GlickoRating, RatingError, fibs, glicko

ratings = st.floats(800, 2400)
lengths = st.integers(1, 25)


def test_fibs_upset_probability_by_hand():
    # D = 200, n = 7: 10^(200·√7/2000) = 10^0.264575 = 1.838972; 1/(1 + 1.838972) = 0.352240.
    assert fibs.win_probability(1500, 1700, 7) == pytest.approx(0.352240, abs=1e-6)
    assert fibs.win_probability(1700, 1500, 7) == pytest.approx(0.647760, abs=1e-6)


def test_fibs_favourites_batting_average_table():
    # The table "batting average for favorite to maintain his rating" (rec.games.backgammon,
    # bkgm.com rgb view+45), rows 100 and 400 points apart, lengths 1, 5 and 11.
    assert round(fibs.win_probability(1600, 1500, 1), 3) == 0.529
    assert round(fibs.win_probability(1600, 1500, 5), 3) == 0.564
    assert round(fibs.win_probability(1900, 1500, 11), 3) == 0.822


def test_fibs_update_by_hand():
    # The underdog (1500, new: K = 5) beats 1700 (experience 500: K = 1) over 7 points:
    # P = 1 − 0.352240 = 0.647760; winner +4·5·√7·P = +34.2762, loser −4·1·√7·P = −6.8552.
    winner, loser = fibs.update(FibsRating(1500, 0), FibsRating(1700, 500), 7)
    assert winner.rating == pytest.approx(1534.2762, abs=1e-4)
    assert loser.rating == pytest.approx(1693.1448, abs=1e-4)
    assert (winner.experience, loser.experience) == (7, 507)


def test_fibs_experience_factor():
    assert [fibs.experience_factor(e) for e in (0, 100, 250, 400, 1000)] == [5, 4, 2.5, 1, 1]


@given(ratings, ratings, lengths)
def test_fibs_is_zero_sum_between_experienced_players(a, b, n):
    winner, loser = fibs.update(FibsRating(a, 400), FibsRating(b, 900), n)
    assert winner.rating - a == pytest.approx(b - loser.rating)
    assert 0 < winner.rating - a < 4 * math.sqrt(n)


@given(ratings, ratings, lengths)
def test_fibs_probabilities_of_both_sides_add_to_one(a, b, n):
    assert fibs.win_probability(a, b, n) + fibs.win_probability(b, a, n) == pytest.approx(1)


def test_glicko2_matches_glickmans_worked_example():
    # glicko2.pdf: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300 (τ = 0.5):
    # r' = 1464.06, RD' = 151.52, σ' = 0.05999.
    player = GlickoRating(1500, 200, 0.06)
    after = glicko.rate(
        player,
        [
            glicko.Result(GlickoRating(1400, 30), 1),
            glicko.Result(GlickoRating(1550, 100), 0),
            glicko.Result(GlickoRating(1700, 300), 0),
        ],
    )
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=1e-5)


def test_glicko2_length_scale_is_the_fibs_slope():
    # With no deviation left, the prediction is the FIBS formula's at every length.
    sure = 1e-9
    for n in (1, 3, 7, 25):
        a, b = GlickoRating(1700, sure), GlickoRating(1500, sure)
        assert glicko.win_probability(a, b, n) == pytest.approx(fibs.win_probability(1700, 1500, n))
    assert glicko.length_scale(25) == 1.0


def test_glicko2_a_longer_match_moves_more_and_narrows_more():
    a, b = GlickoRating(1500, 120), GlickoRating(1500, 120)
    short, _ = glicko.update(a, b, 1)
    long, _ = glicko.update(a, b, 11)
    assert 1500 < short.rating < long.rating
    assert long.deviation < short.deviation < 120 * 1.01


def test_glicko2_a_quiet_period_widens_the_deviation():
    after = glicko.rate(GlickoRating(1600, 50, 0.06), [])
    assert after.rating == 1600
    assert after.deviation == pytest.approx(math.hypot(50, 0.06 * glicko.SCALE))


@given(ratings, st.floats(30, 350), ratings, st.floats(30, 350), lengths)
def test_glicko2_winner_rises_loser_falls(a, rda, b, rdb, n):
    winner, loser = glicko.update(GlickoRating(a, rda), GlickoRating(b, rdb), n)
    assert winner.rating > a and loser.rating < b


def test_bad_input_is_refused():
    with pytest.raises(RatingError, match="at least 1 point"):
        fibs.win_probability(1500, 1500, 0)
    with pytest.raises(RatingError, match="at least 1 point"):
        glicko.update(GlickoRating(), GlickoRating(), 0)
    with pytest.raises(RatingError, match="above 0"):
        glicko.rate(GlickoRating(1500, 0), [])
