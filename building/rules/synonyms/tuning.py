"""Choosing the ranking's weights on the development half: a seeded coordinate ascent (pure: no Django import).

A ``Case`` is one side (modifier or head) of one compound in one expert source: the candidates the
generator has, with their evidence, and which of them are the expert's word. The objective is the
mean, over (expert source, side), of the share of cases whose expert word is among the top 5, which
is what ``benchmarks/variant_quality.py`` reports as "experts' modifier/head synonym among the 5".

The search walks a small grid (``SEARCH_SPACE``): from each of ``RESTARTS`` starting points drawn by
``random.Random(seed)``, it tries every value of one weight at a time, in a seeded order, and keeps a
strict improvement, until a full sweep changes nothing. A weight whose feature never varies within a
case (no context model during the tuning, no model proposals in the data) cannot be chosen by the
data: it is left out of the search and takes its ``UNTUNED`` value, and the record says so.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from building.rules.synonyms.scoring import FEATURES, Evidence, features

TUNING_SEED = 33
RESTARTS = 6
TOP = 5
SEARCH_SPACE: dict[str, tuple[float, ...]] = {
    "sense": (0.0, 0.5, 1.0, 2.0, 4.0),
    "frequency": (0.0, 0.25, 0.5, 1.0, 2.0),
    "context_fit": (0.0, 0.5, 1.0, 2.0, 4.0),
    "crowd": (0.0, 0.5, 1.0, 2.0, 4.0),
    "morphology": (0.0, 0.25, 0.5, 1.0, 2.0),
    "from_crowd": (-2.0, -1.0, -0.5, 0.0, 0.5),
    "from_model": (-1.0, -0.5, 0.0, 0.5),
}
# Without evidence to choose them: context fit as strong as the lexicon's sense (the context model
# moved the experts' words up in issue 33's measurements); a model's proposals neither helped nor hurt.
UNTUNED = {"context_fit": 1.0, "from_model": 0.0}


@dataclass(frozen=True)
class Case:
    """One side of one compound in one expert source: its candidates' features and which are the expert's."""

    source: str
    side: str
    rows: tuple[tuple[float, ...], ...]  # each candidate's features, in FEATURES order, in the generator's order
    hits: tuple[bool, ...]


def case(source: str, side: str, candidates: Sequence[Evidence], is_expert: Callable[[str], bool]) -> Case:
    """A case from the side's candidates (``words_syn.side_evidence``) and a test for the expert's word."""
    fits = [c.context_fit for c in candidates if c.context_fit is not None]
    fit_range = (min(fits), max(fits)) if fits else None
    rows = tuple(tuple(features(c, fit_range)[name] for name in FEATURES) for c in candidates)
    return Case(source, side, rows, tuple(bool(is_expert(c.word)) for c in candidates))


def top_hit(c: Case, weights: Mapping[str, float], top: int = TOP) -> bool:
    """The expert's word among the ``top`` best totals (ties keep the generator's order, as ``scoring.ranked``)."""
    w = [weights.get(name, 0.0) for name in FEATURES]
    totals = [round(sum(a * b for a, b in zip(w, row, strict=True)), 9) for row in c.rows]
    order = sorted(range(len(totals)), key=lambda i: (-totals[i], i))
    return any(c.hits[i] for i in order[:top])


def shares(cases: Sequence[Case], weights: Mapping[str, float], top: int = TOP) -> dict[tuple[str, str], float]:
    """(source, side) → the share of its cases with the expert's word in the top ``top``."""
    tally: dict[tuple[str, str], list[int]] = {}
    for c in cases:
        counts = tally.setdefault((c.source, c.side), [0, 0])
        counts[0] += top_hit(c, weights, top)
        counts[1] += 1
    return {key: hits / n for key, (hits, n) in sorted(tally.items())}


def objective(cases: Sequence[Case], weights: Mapping[str, float]) -> float:
    """The mean over (source, side) of the top-5 shares."""
    found = shares(cases, weights)
    return sum(found.values()) / len(found) if found else 0.0


def varying(cases: Sequence[Case]) -> list[str]:
    """The features that differ between candidates of some case: the only ones the data can weigh."""
    out = []
    for i, name in enumerate(FEATURES):
        if any(len({row[i] for row in c.rows}) > 1 for c in cases):
            out.append(name)
    return out


@dataclass(frozen=True)
class Search:
    """The chosen weights, the objective they reach, and how they were found."""

    weights: dict[str, float]
    value: float
    seed: int
    restarts: int
    space: dict[str, tuple[float, ...]]
    untuned: dict[str, float] = field(default_factory=dict)
    evaluations: int = 0


def coordinate_ascent(
    cases: Sequence[Case],
    space: Mapping[str, Sequence[float]] = SEARCH_SPACE,
    seed: int = TUNING_SEED,
    restarts: int = RESTARTS,
    untuned: Mapping[str, float] = UNTUNED,
) -> Search:
    """The best weights on ``cases`` found from ``restarts`` seeded starting points (deterministic)."""
    searched = {name: tuple(space[name]) for name in FEATURES if name in space and name in varying(cases)}
    fixed = {name: float(untuned.get(name, 0.0)) for name in FEATURES if name not in searched}
    rng = random.Random(seed)
    memo: dict[tuple, float] = {}

    def value(point: dict[str, float]) -> float:
        key = tuple(point[name] for name in searched)
        if key not in memo:
            memo[key] = objective(cases, {**fixed, **point})
        return memo[key]

    best: tuple[dict[str, float], float] | None = None
    for _ in range(restarts):
        point = {name: rng.choice(values) for name, values in searched.items()}
        current = value(point)
        improved = True
        while improved:
            improved = False
            for name in rng.sample(sorted(searched), len(searched)):
                for option in searched[name]:
                    trial = {**point, name: option}
                    if (found := value(trial)) > current + 1e-12:
                        point, current, improved = trial, found, True
        if best is None or current > best[1] + 1e-12:
            best = (point, current)
    point, reached = best if best else ({}, 0.0)
    weights = {name: float({**fixed, **point}[name]) for name in FEATURES}
    return Search(weights, reached, seed, restarts, dict(searched), fixed, len(memo))
