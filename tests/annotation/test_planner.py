"""The study planner: seeded simulated campaigns under fixed and adaptive designs (no database)."""

import json

import numpy as np
import pandas as pd
import pytest

from annotation import planner
from annotation.planner import Adaptive, Fixed, PlanInput, RoundedNormal

UNANIMOUS = [0, 0, 0, 0, 0, 1.0]  # everyone answers 5
CONTESTED = [0.5, 0, 0, 0, 0, 0.5]  # half answer 0, half 5


def spread_items(n: int = 60, sigma: float = 1.0) -> PlanInput:
    """``n`` items with true scores spread over the scale, answers by the rounded-normal model."""
    return planner.from_means(np.linspace(0.3, 4.7, n), None, RoundedNormal(sigma))


def test_the_same_seed_gives_the_same_plan_and_another_seed_another():
    items, designs = spread_items(), [Fixed(3), Adaptive(2, 8, 1.0)]
    first = [r.as_dict(per_item=True) for r in planner.plan(items, designs, simulations=5, seed=7)]
    again = [r.as_dict(per_item=True) for r in planner.plan(items, designs, simulations=5, seed=7)]
    other = [r.as_dict(per_item=True) for r in planner.plan(items, designs, simulations=5, seed=8)]
    assert first == again
    assert first != other
    json.dumps(first)  # what a page or a command prints as it is


def test_a_fixed_design_uses_exactly_n_ratings_per_item():
    items = spread_items(25)
    [result] = planner.plan(items, [Fixed(4)], simulations=3)
    assert result.ratings == (100.0, 100.0, 100.0)
    assert (result.ratings_per_item == 4).all()


def test_an_adaptive_design_keeps_every_item_between_n_min_and_n_max():
    items = PlanInput(np.concatenate([[UNANIMOUS] * 5, spread_items().distribution]))
    for seed in range(5):
        [result] = planner.plan(items, [Adaptive(n_min=3, n_max=7, precision=2.3)], simulations=1, seed=seed)
        counts = result.ratings_per_item
        assert counts.min() == 3 and counts.max() == 7 and ((counts >= 3) & (counts <= 7)).all()
        assert result.ratings.mean == counts.sum()


def test_an_adaptive_design_stops_when_its_budget_is_spent():
    items = PlanInput(np.array([CONTESTED] * 20))
    [result] = planner.plan(items, [Adaptive(n_min=2, n_max=10, precision=0.5, budget=90)], simulations=4)
    assert result.ratings == (90.0, 90.0, 90.0)  # without the budget: 200
    [free] = planner.plan(items, [Adaptive(n_min=2, n_max=10, precision=0.5)], simulations=1)
    assert free.ratings.mean == 200


def test_the_ratings_beyond_n_min_go_to_the_widest_intervals():
    items = PlanInput(np.array([UNANIMOUS] * 5 + [CONTESTED] * 5))
    design = Adaptive(n_min=3, n_max=10, precision=0.05, budget=50)  # 20 ratings beyond n_min, no item closes
    [result] = planner.plan(items, [design], careless=0, simulations=50)
    assert result.ratings_per_item[:5].mean() < 3.5
    assert result.ratings_per_item[5:].mean() > 6.5


def test_a_budget_below_n_min_for_every_item_is_refused():
    with pytest.raises(ValueError, match="budget does not cover n_min"):
        planner.plan(spread_items(10), [Adaptive(n_min=3, budget=29)])


def test_unanimous_items_stop_at_n_min_and_contested_ones_go_to_n_max():
    items = PlanInput(np.array([UNANIMOUS] * 4 + [CONTESTED] * 4))
    # Six 5s give an interval 1.40 wide, under 1.5; 0s and 5s stay wider until ten (unless six in a row agree).
    [result] = planner.plan(items, [Adaptive(n_min=6, n_max=10, precision=1.5)], careless=0, simulations=100)
    assert (result.ratings_per_item[:4] == 6).all()
    assert (result.ratings_per_item[4:] > 9.5).all()


def test_the_power_is_the_false_positive_rate_without_a_correlation_and_grows_with_it():
    items, design = spread_items(60), [Fixed(5)]
    power = {r: planner.plan(items, design, r=r, simulations=400, seed=1)[0].power for r in (0.0, 0.3, 0.6)}
    assert 0.02 <= power[0.0] <= 0.09  # alpha = 0.05, give or take two standard errors of 400 simulations
    assert power[0.0] < power[0.3] < power[0.6]
    assert power[0.6] > 0.95


def test_the_error_of_the_item_means_shrinks_with_more_ratings():
    results = planner.plan(spread_items(), [Fixed(1), Fixed(4), Fixed(16)], careless=0, simulations=20)
    mae = [r.mae.mean for r in results]
    assert mae[0] > mae[1] > mae[2]
    assert 0.4 < mae[2] / mae[1] < 0.6  # 1 / sqrt(4): the error of a mean
    assert results[2].rmse < results[1].rmse


def test_careless_workers_lower_agreement():
    items = spread_items()
    careful, careless = (planner.plan(items, [Fixed(5)], careless=c, simulations=10)[0] for c in (0.0, 0.3))
    assert careless.alpha.mean < careful.alpha.mean
    assert careful.alpha.low <= careful.alpha.mean <= careful.alpha.high


def test_the_type_token_error_needs_types_and_shrinks_with_more_ratings():
    types = np.linspace(0.5, 4.5, 30)
    means = np.concatenate([types, np.repeat(types, 3) + np.tile([-0.3, 0.0, 0.3], 30)])
    type_of = np.concatenate([np.full(30, -1), np.repeat(np.arange(30), 3)])
    items = planner.from_means(means, ["type"] * 30 + ["token"] * 90, RoundedNormal(1.0), type_of=type_of)
    few, many = planner.plan(items, [Fixed(2), Fixed(20)], simulations=20)
    assert 0 <= many.type_token_error.mean < few.type_token_error.mean
    assert set(few.mae_by_class) == {"type", "token"}
    [untyped] = planner.plan(spread_items(), [Fixed(2)], simulations=2)
    assert untyped.type_token_error.mean is None and untyped.mae_by_class is None


def test_the_cost_is_the_ratings_times_the_pay():
    [result] = planner.plan(spread_items(10), [Fixed(3)], pay_per_rating=0.25, simulations=2)
    assert result.cost == pytest.approx(7.5)


def test_the_rounded_normal_keeps_the_mean_and_spreads_less_near_the_ends():
    distribution = RoundedNormal(1.2).probabilities([0.2, 2.5, 4.9])
    assert distribution @ planner.SCALE == pytest.approx([0.2, 2.5, 4.9], abs=1e-6)
    spread = distribution @ planner.SCALE**2 - (distribution @ planner.SCALE) ** 2
    assert spread[0] < spread[1] and spread[2] < spread[1]


def test_fit_spread_finds_the_noise_that_made_the_means():
    rng = np.random.default_rng(0)
    truth = rng.uniform(0.5, 4.5, 1000)  # the median of a few hundred scatters is coarse: means of 10 are tenths
    answers = RoundedNormal(1.0).probabilities(truth)
    ratings = np.array([[rng.choice(6, 10, p=row) for _ in range(3)] for row in answers])
    careless = rng.random(ratings.shape) < 0.1
    ratings = np.where(careless, rng.integers(0, 6, ratings.shape), ratings)
    fitted = planner.fit_spread(ratings.mean(axis=2), 10, careless=0.1, replicates=5)
    assert fitted.sigma == pytest.approx(1.0, abs=0.15)


def test_fit_spread_by_class_recovers_each_classs_own_noise():
    rng, known = np.random.default_rng(0), {"NC": 0.6, "PC": 1.4, "C": 0.8}
    groups, classes = [], []
    for name, sigma in known.items():  # 1000 compounds a class: the median of fewer scatters of tenths is coarse
        cumulative = np.cumsum(RoundedNormal(sigma).probabilities(rng.uniform(0.5, 4.5, 1000)), axis=1)[:, :-1]
        careful = (rng.random((1000, 3, 10, 1)) > cumulative[:, None, None, :]).sum(axis=-1)
        ratings = np.where(rng.random((1000, 3, 10)) < 0.1, rng.integers(0, 6, (1000, 3, 10)), careful)
        groups.append(ratings.mean(axis=2))
        classes += [name] * 1000
    fitted = planner.fit_spread_by_class(np.concatenate(groups), classes, 10, careless=0.1, replicates=5)
    assert set(fitted) == set(known)
    for name, sigma in known.items():
        assert fitted[name].sigma == pytest.approx(sigma, rel=0.15), name  # pooled, every class gets about 0.88
        assert not fitted[name].degenerate


def test_a_spread_per_class_spreads_each_item_by_its_class_and_says_when_a_fit_is_degenerate():
    per_class = {"NC": RoundedNormal(0.6), "PC": RoundedNormal(1.4)}
    items = planner.from_means([2.5, 2.5, 2.5], ["NC", "PC", "NC"], per_class)
    spread = items.distribution @ planner.SCALE**2 - items.means**2
    assert spread[1] > spread[0] == pytest.approx(spread[2])
    assert items.distribution[1] == pytest.approx(RoundedNormal(1.4).probabilities([2.5])[0])
    with pytest.raises(ValueError, match="every class a model"):
        planner.from_means([1.0, 2.0], ["NC", "C"], per_class)
    unanimous_sentences = np.repeat(np.linspace(0.5, 4.5, 30)[:, None], 3, axis=1)  # no scatter: careless explain all
    fitted = planner.fit_spread_by_class(unanimous_sentences, ["NC"] * 30, 10, replicates=2)
    assert fitted["NC"].degenerate and fitted["NC"].sigma == planner.SIGMA_RANGE[0]


def test_from_ratings_takes_each_items_mean_and_spread_from_a_pilot():
    frame = pd.DataFrame(
        {
            "item": [1, 1, 1, 2, 2, 2, 3],
            "annotator": [10, 11, 12, 10, 11, 12, 10],
            "compound_score": [4, 4, 4, 1, 3, 2, 3],
        }
    )
    items = planner.from_ratings(frame)
    assert items.labels == ("1", "2", "3")
    assert items.means == pytest.approx([4.0, 2.0, 3.0], abs=1e-6)
    spread = items.distribution @ planner.SCALE**2 - items.means**2
    assert spread[0] == pytest.approx(0.0, abs=1e-6)  # a unanimous pilot stays unanimous
    assert spread[1] == pytest.approx(np.var([1, 3, 2], ddof=1), rel=0.02)
    assert spread[2] > 0  # one rating: the pilot's pooled spread
    pooled = planner.from_ratings(frame, pooled=True)
    assert (pooled.distribution @ planner.SCALE**2 - pooled.means**2)[0] > 0.1


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="six probabilities"):
        PlanInput(np.array([[0.5, 0.5]]))
    with pytest.raises(ValueError, match="n_max"):
        Adaptive(n_min=5, n_max=3)
    with pytest.raises(ValueError, match="at least 1"):
        Fixed(0)
    with pytest.raises(ValueError, match="type_of"):
        PlanInput(np.array([UNANIMOUS, CONTESTED]), type_of=np.array([0, -1]))
    with pytest.raises(ValueError, match="careless"):
        planner.plan(spread_items(5), [Fixed(2)], careless=1.5)
