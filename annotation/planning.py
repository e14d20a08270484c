"""The study planner's inputs from the database and its designs from words: what the page and ``plan_study`` share.

Reads only. Two sources: a campaign's own ratings as a pilot (``annotation.planner.from_ratings``: each item's
mean and spread), or a collection's published means (``Sentence.token_score`` and ``Compound.type_score``, as
NCTTI publishes them: the answers' spread fitted to how much a compound's sentence means scatter,
``planner.fit_spread``). Designs are written as a curator would: fixed "3, 5, 10" and adaptive "3-10:1.5".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotation import planner
from annotation.models import Campaign, Item, Rating
from datasets.models import Compound, Sentence

RATINGS_PER_MEAN = 10  # NCTTI: about 10 annotations behind each published sentence mean (Garcia et al. 2021, §3.2)
# A pilot's careless workers are in its spreads already; published means come from filtered crowds.
DEFAULT_CARELESS = {"pilot": 0.0, "published": 0.1}
MAX_WORK = 250_000  # simulations × items × designs run at once: about 7 s on a 2-core machine, a page still answers
ADAPTIVE = re.compile(r"^(\d+)\s*-\s*(\d+)\s*:\s*(\d+(?:\.\d+)?)$")


class PlanError(ValueError):
    """A planner input that cannot be used; ``field`` names the input that is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Source:
    """The plan's items and how they were made, in words for the page, the command and the JSON."""

    items: planner.PlanInput
    description: str
    spread: str


def parse_designs(fixed: str, adaptive: str, budget: int | None = None) -> list[planner.Design]:
    """``fixed``: "3, 5, 10"; ``adaptive``: "3-10:1.5, 3-20:1.2" (n_min-n_max:precision), each with ``budget``."""
    designs: list[planner.Design] = []
    for part in filter(None, (p.strip() for p in fixed.split(","))):
        if not part.isdigit() or not 1 <= int(part) <= 100:
            raise PlanError("fixed", f"{part!r}: a number of ratings per item, 1-100")
        designs.append(planner.Fixed(int(part)))
    for part in filter(None, (p.strip() for p in adaptive.split(","))):
        match = ADAPTIVE.match(part)
        if not match:
            raise PlanError("adaptive", f"{part!r}: write n_min-n_max:precision, e.g. 3-10:1.5")
        n_min, n_max, precision = int(match[1]), int(match[2]), float(match[3])
        try:
            designs.append(planner.Adaptive(n_min=n_min, n_max=min(n_max, 100), precision=precision, budget=budget))
        except ValueError as error:
            raise PlanError("adaptive", f"{part!r}: {error}") from error
    if not designs:
        raise PlanError("fixed", "Give at least one design: fixed N or adaptive.")
    return designs


def pilot(campaign: Campaign) -> Source:
    """A campaign's regular ratings (compound score) as the pilot: each item's mean and spread."""
    import pandas as pd

    rows = Rating.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR).values_list(
        "item_id", "annotator_id", "compound_score", "annotator__simulated"
    )
    frame = pd.DataFrame.from_records(list(rows), columns=["item", "annotator", "compound_score", "simulated"])
    if frame.empty or frame.groupby("item").size().max() < 2:
        raise PlanError("source", f"{campaign.slug} has no item with two ratings yet: use the published means.")
    simulated = " (simulated annotators among them: demo data)" if frame["simulated"].any() else ""
    return Source(
        items=planner.from_ratings(frame),
        description=f"pilot: {len(frame)} ratings of {frame['item'].nunique()} items of {campaign.slug}{simulated}",
        spread="each item's own spread (its ratings' variance)",
    )


def published(collection_id: int, language: str, careless: float = 0.1, seed: int = 0) -> Source:
    """A collection's published means: type scores and per-sentence means, the spread fitted to the sentences'."""
    compounds = list(
        Compound.objects.filter(collection_id=collection_id, language=language)
        .order_by("id")
        .values_list("id", "type_score", "compositionality_class")
    )
    by_compound: dict[int, list[float]] = {}
    for compound, score in (
        Sentence.objects.filter(
            compound__collection_id=collection_id, compound__language=language, token_score__isnull=False
        )
        .order_by("compound_id", "slot", "id")
        .values_list("compound_id", "token_score")
    ):
        by_compound.setdefault(compound, []).append(score)
    groups = [scores[:3] for scores in by_compound.values() if len(scores) >= 3]
    if len(groups) < 3:
        raise PlanError("source", "This collection has too few compounds with three sentence means to fit a spread.")
    import numpy as np

    spread = planner.fit_spread(np.array(groups), RATINGS_PER_MEAN, careless=careless, seed=seed)
    means, classes, type_of = [], [], []
    for compound, type_score, item_class in compounds:
        own = -1
        if type_score is not None:
            own = len(means)
            means.append(type_score)
            classes.append(item_class or "")
            type_of.append(-1)
        for score in by_compound.get(compound, []):
            means.append(score)
            classes.append(item_class or "")
            type_of.append(own)
    return Source(
        items=planner.from_means(means, classes, spread, type_of=type_of),
        description=f"published means: {len(means)} items ({len(compounds)} compounds in {language})",
        spread=f"careful workers' sigma {spread.sigma} fitted to the scatter of each compound's sentence means",
    )


def run(source: Source, designs: list[planner.Design], max_work: int | None = MAX_WORK, **options) -> list[dict]:
    """Every design's result as plain values; refuses more than ``max_work`` (a page must answer; None: no limit)."""
    work = options.get("simulations", 200) * len(source.items) * len(designs)
    if max_work is not None and work > max_work:
        raise PlanError("simulations", f"Too much at once ({work:,} item simulations; at most {max_work:,}): fewer.")
    try:
        return [result.as_dict() for result in planner.plan(source.items, designs, **options)]
    except ValueError as error:
        raise PlanError("adaptive", str(error)) from error
