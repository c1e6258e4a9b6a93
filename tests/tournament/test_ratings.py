"""The Bradley–Terry fit on synthetic results from known Elo ratings."""
import math

import numpy as np
import pytest

from plyground.errors import UsageError
from plyground.play.ratings import Results, fit_ratings
from plyground.play.stats import expected_score
from plyground.play.stats import elo_from_score

TRUE = {"anchor": 0.0, "b": 120.0, "c": 300.0, "d": 550.0}


def simulate(rng, games_per_pair, draw_rate, true=TRUE):
    """Round robin from the Elo model: E(score) follows the logistic curve; draws replace wins and losses."""
    names = list(true)
    results = Results(names)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = expected_score(true[a] - true[b])
            d = min(draw_rate, 2 * min(p, 1 - p))
            wins, draws, losses = rng.multinomial(games_per_pair, [p - d / 2, d, 1 - p - d / 2])
            results.add(a, b, 1.0, wins)
            results.add(a, b, 0.5, draws)
            results.add(a, b, 0.0, losses)
    return results


def test_recovers_known_ratings_within_their_intervals():
    results = simulate(np.random.default_rng(11), 400, draw_rate=0.3)
    ratings = fit_ratings(results, "anchor", relative_to="anchor").by_name()
    for name, elo in TRUE.items():
        r = ratings[name]
        assert r.lower <= elo <= r.upper, (name, r)
        assert r.elo == pytest.approx(elo, abs=45)
        assert r.games == 1200
    assert ratings["d"].upper - ratings["d"].lower < 150


def test_the_anchor_is_zero_and_moving_it_shifts_everyone_equally():
    results = simulate(np.random.default_rng(3), 100, draw_rate=0.2)
    by_anchor = fit_ratings(results, "anchor", relative_to="anchor").by_name()
    by_c = fit_ratings(results, "c", relative_to="anchor").by_name()
    assert by_anchor["anchor"].elo == 0 and (by_anchor["anchor"].lower, by_anchor["anchor"].upper) == (0, 0)
    assert by_c["c"].elo == 0 and (by_c["c"].lower, by_c["c"].upper) == (0, 0)
    shift = by_anchor["c"].elo
    for name in TRUE:
        assert by_c[name].elo == pytest.approx(by_anchor[name].elo - shift, abs=1e-6)
    assert [p.name for p in fit_ratings(results, "c").players] == ["d", "c", "b", "anchor"]
    # Relative to the pool, the anchor has an interval too, and the anchor does not change any width.
    pool_a, pool_c = fit_ratings(results, "anchor").by_name(), fit_ratings(results, "c").by_name()
    assert pool_a["anchor"].elo == 0 and pool_a["anchor"].lower < 0 < pool_a["anchor"].upper
    for name in TRUE:
        assert pool_c[name].upper - pool_c[name].lower == pytest.approx(
            pool_a[name].upper - pool_a[name].lower, rel=1e-6)


# The percentile bootstrap is known to under-cover a little with few games per pairing.
@pytest.mark.parametrize("method, relative_to, draw_rate, lowest", [
    ("curvature", "anchor", 0.0, 0.9), ("curvature", "anchor", 0.5, 0.9), ("bootstrap", "anchor", 0.5, 0.85),
    ("curvature", "pool", 0.3, 0.9), ("bootstrap", "pool", 0.3, 0.85)])
def test_interval_coverage_is_roughly_95_percent(method, relative_to, draw_rate, lowest):
    """Anchor: each interval should hold the true difference to the anchor; pool: to the true pool average."""
    rng = np.random.default_rng(2024)
    true_mean = np.mean(list(TRUE.values()))
    covered = total = 0
    for rep in range(120):
        ratings = fit_ratings(simulate(rng, 40, draw_rate), "anchor", method=method, relative_to=relative_to,
                              bootstrap=200, seed=rep)
        fitted_mean = np.mean([p.elo for p in ratings.players])
        for p in ratings.players:
            if relative_to == "anchor" and p.name != "anchor":
                covered += p.lower <= TRUE[p.name] <= p.upper
                total += 1
            elif relative_to == "pool":
                covered += p.lower - fitted_mean <= TRUE[p.name] - true_mean <= p.upper - fitted_mean
                total += 1
    assert lowest <= covered / total <= 0.99, covered / total


def test_without_a_prior_two_players_get_the_elo_of_their_score():
    results = Results(["a", "b"])
    results.add("a", "b", 1.0, 30)
    results.add("a", "b", 0.5, 20)
    results.add("a", "b", 0.0, 10)
    a = fit_ratings(results, "b", prior_draws=0).by_name()["a"]
    assert a.elo == pytest.approx(elo_from_score(40 / 60), abs=0.01)
    assert a.score == pytest.approx(40 / 60)


def test_a_perfect_score_stays_finite_and_is_clearly_ahead():
    results = Results(["random", "strong"])
    results.add("strong", "random", 1.0, 20)
    for method in ("curvature", "bootstrap"):
        strong = fit_ratings(results, "random", method=method, relative_to="anchor").by_name()["strong"]
        # One virtual draw: 20.5 points from 21 games.
        assert strong.elo == pytest.approx(elo_from_score(20.5 / 21), abs=0.5)
        assert math.isfinite(strong.lower) and math.isfinite(strong.upper)
        assert 0 < strong.lower <= strong.elo <= strong.upper
        assert strong.los_next > 0.99
    with pytest.raises(UsageError, match="with no prior draws the ratings have no finite maximum: random"):
        fit_ratings(results, "random", prior_draws=0)
    # More virtual draws pull harder; more games weigh more than the prior.
    assert fit_ratings(results, "random", prior_draws=4).by_name()["strong"].elo < strong.elo
    results.add("strong", "random", 1.0, 180)
    assert fit_ratings(results, "random").by_name()["strong"].elo > strong.elo + 300


def test_two_players_who_always_beat_the_anchor_are_separated_by_their_own_games():
    """Perfect scores against the anchor make anchor-relative intervals wide; pool-relative ones still
    separate two players whose head-to-head games are clear."""
    results = Results(["random", "m100", "m1000"])
    results.add("m100", "random", 1.0, 40)
    results.add("m1000", "random", 1.0, 40)
    results.add("m1000", "m100", 1.0, 37)
    results.add("m1000", "m100", 0.5, 2)
    results.add("m1000", "m100", 0.0, 1)
    pool = fit_ratings(results, "random").by_name()
    anchor = fit_ratings(results, "random", relative_to="anchor").by_name()
    assert pool["m1000"].elo == anchor["m1000"].elo > pool["m100"].elo > 0
    assert anchor["m1000"].lower < anchor["m100"].upper                       # overlapping
    assert pool["m1000"].lower > pool["m100"].upper > pool["m100"].lower > pool["random"].upper
    assert pool["m1000"].los_next > 0.999


def test_likelihood_of_superiority_between_neighbours():
    rng = np.random.default_rng(5)
    close = simulate(rng, 30, 0.3, true={"x": 0.0, "y": 0.0})
    far = simulate(rng, 200, 0.3, true={"x": 0.0, "y": 300.0})
    assert 0.02 < fit_ratings(close, "x").players[0].los_next < 0.98
    top = fit_ratings(far, "x").players[0]
    assert top.name == "y" and top.los_next > 0.999
    assert fit_ratings(far, "x").players[-1].los_next is None


def test_a_player_without_games_is_listed_unrated():
    results = Results(["a", "b", "lonely"])
    results.add("a", "b", 1.0, 3)
    results.add("a", "b", 0.0, 1)
    ratings = fit_ratings(results, "a")
    lonely = ratings.by_name()["lonely"]
    assert lonely.elo is None and lonely.games == 0
    assert ratings.players[-1].name == "lonely"


def test_bad_arguments_are_named():
    results = Results(["a", "b"])
    with pytest.raises(UsageError, match="unknown interval method 'wild'; valid: curvature, bootstrap"):
        fit_ratings(results, method="wild")
    with pytest.raises(UsageError, match="unknown interval reference 'moon'; valid: pool, anchor"):
        fit_ratings(results, relative_to="moon")
    with pytest.raises(UsageError, match="unknown player 'zed'; players: a, b"):
        fit_ratings(results, "zed")
    with pytest.raises(UsageError, match="distinct"):
        Results(["a", "a"])
