"""A campaign's figures for curators: progress, annotators, throughput (reads only, no writes).

Everything is computed from one query per table into pandas frames, so the numbers are the
same whatever the database. ``campaign_dashboard`` returns plain Python values for a template
or JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.db.models import Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotation.analysis import quality
from annotation.curate.study_setup import campaign_thresholds
from annotation.models import Annotator, Campaign, Item, Rating, Skip, SuggestedParaphrase
from annotation.protocol import QUESTIONS

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

TRAINING_FAILED = "training failed"
HOURS = 24
GOLD_FIELDS = {"head_score": "gold_head", "modifier_score": "gold_modifier", "compound_score": "gold_compound"}


@dataclass
class Progress:
    ratings: int
    target: int

    @property
    def fraction(self) -> float:
        return min(self.ratings / self.target, 1.0) if self.target else 0.0

    @property
    def percent(self) -> float:
        return round(100 * self.fraction, 1)


@dataclass
class AnnotatorRow:
    id: int
    label: str
    platform: str
    external_id: str
    items_done: int
    median_seconds: float | None
    gold_accuracy: float | None
    attention_accuracy: float | None
    training_passed: bool | None
    simulated: bool
    flags: list[str] = field(default_factory=list)
    # Why each flag was raised, as "flag (numbers)": what the export and the policies' reasons say.
    reasons: list[str] = field(default_factory=list)
    same_answer_share: float | None = None
    attention_failures: int = 0
    rho: float | None = None
    quality_flags: list[quality.Flag] = field(default_factory=list)
    skipped: int = 0  # regular items passed over
    status: str = Annotator.Status.ACTIVE

    @property
    def flagged(self) -> bool:
        return bool(self.flags)

    @property
    def reason(self) -> str:
        return "; ".join(self.reasons)


@dataclass
class Dashboard:
    campaign: Campaign
    overall: Progress
    items: list[dict]
    annotators: list[AnnotatorRow]
    ratings_per_hour: list[dict]
    median_seconds: float | None
    paraphrases: list[SuggestedParaphrase]
    thresholds: quality.Thresholds = field(default_factory=quality.Thresholds)
    allocation: dict = field(default_factory=dict)
    by_scale: list[dict] = field(default_factory=list)

    @property
    def flagged(self) -> list[AnnotatorRow]:
        return [row for row in self.annotators if row.flagged]


def _count(queryset: QuerySet, outer: str) -> Coalesce:
    """A correlated COUNT(*) of ``queryset`` rows whose ``outer`` is the campaign (no join fan-out)."""
    counted = queryset.filter(**{outer: OuterRef("pk")}).order_by().values(outer).annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(counted, output_field=IntegerField()), Value(0))


def campaigns_with_counts() -> QuerySet[Campaign]:
    """Campaigns with ``item_count`` and ``rating_count`` (regular items) and ``annotator_count``."""
    return (
        Campaign.objects.select_related("collection")
        .annotate(
            item_count=_count(Item.objects.filter(role=Item.Role.REGULAR), "campaign"),
            rating_count=_count(Rating.objects.filter(item__role=Item.Role.REGULAR), "item__campaign"),
            annotator_count=_count(Annotator.objects.all(), "campaign"),
        )
        .order_by("-created_at", "id")
    )


def campaign_progress(campaign: Campaign) -> Progress:
    """Ratings on regular items against items × N (at most N count per item)."""
    counts = (
        Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
        .annotate(n=Count("ratings"))
        .values_list("n", flat=True)
    )
    counts = list(counts)
    n = campaign.ratings_per_item
    return Progress(sum(min(c, n) for c in counts), len(counts) * n)


def item_progress(campaign: Campaign) -> list[dict]:
    """One row per item: its ratings against N (adaptive allocation: against the most, with its interval)."""
    items = (
        Item.objects.filter(campaign=campaign)
        .select_related("compound", "sentence")
        .annotate(n=Count("ratings"))
        .order_by("role", "order_key")
    )
    n = campaign.ratings_per_item
    return [
        {
            "item": item,
            "ratings": item.n,
            "target": n if item.role == Item.Role.REGULAR else None,
            "progress": Progress(min(item.n, n), n) if item.role == Item.Role.REGULAR else None,
            "interval": (item.interval_low, item.interval_high) if item.interval_low is not None else None,
            "settled": item.settled,
        }
        for item in items
    ]


def allocation_summary(campaign: Campaign) -> dict:
    """The allocation at a glance: items done and open, ratings spent against fixed N = the most, the budget."""
    items = Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR)
    figures = items.aggregate(
        items=Count("id"),
        settled=Count("id", filter=Q(settled=True)),
        ratings=Coalesce(Sum("rating_count"), 0),
        taken=Coalesce(Sum("taken"), 0),
    )
    if not campaign.adaptive:
        figures["ratings"] = Rating.objects.filter(item__campaign=campaign, item__role=Item.Role.REGULAR).count()
    fixed = figures["items"] * campaign.ratings_per_item
    done = figures["settled"] == figures["items"] if campaign.adaptive else figures["ratings"] >= fixed
    budget = campaign.rating_budget
    # The ratings every item needs at least: N each (fixed), the minimum each (adaptive).
    needed = figures["items"] * (campaign.min_ratings_per_item if campaign.adaptive else campaign.ratings_per_item)
    return {
        **figures,
        "adaptive": campaign.adaptive,
        "open": figures["items"] - figures["settled"],
        "fixed_cost": fixed,
        # Saved against giving every item the most: final once every item is settled, so far otherwise.
        "saved": fixed - figures["ratings"] if done else None,
        "done": done,
        "budget": budget,
        "budget_left": None if budget is None else max(budget - figures["taken"], 0),
        "needed": needed,
        "budget_short": budget is not None and budget < needed,
        "pay_per_rating": None if campaign.pay_per_rating is None else str(campaign.pay_per_rating),
        "spent_money": None if campaign.pay_per_rating is None else str(campaign.pay_per_rating * figures["ratings"]),
    }


def scale_table(frame: pd.DataFrame) -> list[dict]:
    """Agreement by scale type of the compound score over regular items (no bootstrap: the report has intervals)."""
    from annotation.analysis import by_scale
    from annotation.analysis.agreement import agreement_table
    from annotation.analysis.reliability import annotator_reliability
    from annotation.analysis.scales import scale_agreement

    ratings = frame[frame["role"] == Item.Role.REGULAR].rename(columns={"annotator_id": "annotator", "item_id": "item"})
    if ratings.empty:
        return []
    questions = ("compound_score",)
    return by_scale.table(
        agreement_table(ratings, questions=questions, n_resamples=0),
        scale_agreement(ratings, questions=questions, n_resamples=0),
        annotator_reliability(ratings).to_dict("records"),
    )


def ratings_frame(campaign: Campaign) -> pd.DataFrame:
    """Every rating of the campaign with its item's role and gold answers."""
    import pandas as pd

    columns = ["annotator_id", "item_id", "role", "seconds", "created_at", *QUESTIONS, *GOLD_FIELDS.values()]
    rows = Rating.objects.filter(item__campaign=campaign).values_list(
        "annotator_id",
        "item_id",
        "item__role",
        "seconds",
        "created_at",
        *QUESTIONS,
        *(f"item__{gold}" for gold in GOLD_FIELDS.values()),
    )
    return pd.DataFrame.from_records(list(rows), columns=columns)


def skips_frame(campaign: Campaign) -> pd.DataFrame:
    """Every skip of the campaign: who skipped which item of which role."""
    import pandas as pd

    rows = Skip.objects.filter(item__campaign=campaign).values_list("annotator_id", "item_id", "item__role")
    return pd.DataFrame.from_records(list(rows), columns=["annotator_id", "item_id", "role"])


def with_skipped_checks(frame: pd.DataFrame, skips: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (ratings with ``correct``) plus a failed row for every skipped practice item or attention check."""
    import pandas as pd

    checks = skips[skips["role"] != Item.Role.REGULAR] if not skips.empty else skips
    if checks.empty:
        return frame
    failed = checks.assign(correct=False)
    if frame.empty:
        return failed
    return pd.concat([frame, failed], ignore_index=True)


def _correct(frame: pd.DataFrame, tolerance: int) -> pd.Series:
    """Per rating: every given gold answer matched within ``tolerance`` (``protocol.gold_correct``, column-wise)."""
    import pandas as pd

    if frame.empty:
        return pd.Series(dtype=bool)
    correct = pd.Series(True, index=frame.index)
    for answer, gold in GOLD_FIELDS.items():
        expected = pd.to_numeric(frame[gold], errors="coerce")
        given = pd.to_numeric(frame[answer], errors="coerce")
        # No gold answer: always right, as gold_correct(answer, None, tolerance).
        correct &= expected.isna() | ((given - expected).abs() <= tolerance)
    return correct.astype(bool)


def _median(values: pd.Series) -> float | None:
    values = values.dropna()
    return float(values.median()) if len(values) else None


def worker_signals(frame: pd.DataFrame, skipped: dict | None = None) -> dict:
    """Quality signals per annotator id (``annotation.analysis.quality``) from ``ratings_frame`` with ``correct``
    (and skipped checks, ``with_skipped_checks``), and the regular items each annotator skipped."""
    import pandas as pd

    if frame.empty:
        return quality.worker_signals(pd.DataFrame(), skipped=skipped)
    named = frame.rename(columns={"annotator_id": "annotator", "item_id": "item"})
    regular = named[named["role"] == Item.Role.REGULAR].astype({q: float for q in QUESTIONS})
    attention = named[named["role"] == Item.Role.ATTENTION]
    return quality.worker_signals(regular, attention, skipped=skipped)


def _per_annotator(frame: pd.DataFrame) -> dict[int, tuple[int, float | None, float | None, float | None]]:
    """Per annotator id: regular items done, their median seconds, practice (gold) and attention accuracy.

    Grouped once over the whole frame (one pass per figure, not one frame per annotator: a campaign has
    thousands of workers). Accuracy is None without any practice item or attention check.
    """
    import pandas as pd

    if frame.empty:
        return {}
    by = frame["annotator_id"]
    regular = frame["role"] == Item.Role.REGULAR
    done = regular.groupby(by).sum()
    # Only skipped checks, no rating yet: the frame has no seconds column.
    times = (
        pd.to_numeric(frame["seconds"], errors="coerce") if "seconds" in frame else pd.Series(float("nan"), by.index)
    )
    seconds = times.where(regular).groupby(by).median()
    correct = frame["correct"].astype(float)
    gold = correct.where(frame["role"] == Item.Role.TRAINING).groupby(by).mean()
    check = correct.where(frame["role"] == Item.Role.ATTENTION).groupby(by).mean()

    def known(value) -> float | None:
        return None if pd.isna(value) else float(value)

    return {int(a): (int(done[a]), known(seconds[a]), known(gold[a]), known(check[a])) for a in done.index}


def annotator_rows(campaign: Campaign, frame: pd.DataFrame) -> list[AnnotatorRow]:
    """One row per annotator: progress, time, gold and attention accuracy (a skipped check is failed), skips,
    and the quality flags raised."""
    annotators = Annotator.objects.filter(campaign=campaign).select_related("user").order_by("created_at", "id")
    skips = skips_frame(campaign)
    frame = frame.assign(correct=_correct(frame, campaign.gold_tolerance)) if not frame.empty else frame
    frame = with_skipped_checks(frame, skips)
    regular_skips = skips[skips["role"] == Item.Role.REGULAR] if not skips.empty else skips
    skipped = regular_skips.groupby("annotator_id").size().to_dict() if not regular_skips.empty else {}
    signals = worker_signals(frame, skipped)
    thresholds = campaign_thresholds(campaign)
    figures = _per_annotator(frame)
    rows = []
    for annotator in annotators:
        done, seconds, gold, check = figures.get(annotator.id, (0, None, None, None))
        flags, reasons = [], []
        if annotator.training_passed is False or (gold is not None and gold < campaign.training_pass_mark):
            flags.append(TRAINING_FAILED)
            reasons.append(f"{TRAINING_FAILED} (practice items below the pass mark)")
        own_signals = signals.get(annotator.id, quality.Signals(annotator.id))
        raised = quality.flags(own_signals, thresholds)
        flags += [flag.name for flag in raised]
        reasons += [str(flag) for flag in raised]
        rows.append(
            AnnotatorRow(
                id=annotator.id,
                label=str(annotator),
                platform=annotator.platform,
                external_id=annotator.external_id,
                items_done=done,
                skipped=int(skipped.get(annotator.id, 0)),
                status=annotator.status,
                median_seconds=seconds,
                gold_accuracy=gold,
                attention_accuracy=check,
                training_passed=annotator.training_passed,
                simulated=annotator.simulated,
                flags=flags,
                reasons=reasons,
                same_answer_share=own_signals.same_answer_share,
                attention_failures=own_signals.attention_failures,
                rho=own_signals.rho,
                quality_flags=raised,
            )
        )
    return rows


def ratings_per_hour(frame: pd.DataFrame, now: datetime, hours: int = HOURS) -> list[dict]:
    """Ratings in each of the last ``hours`` whole hours up to now (oldest first, the current hour last)."""
    import pandas as pd

    end = now.replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    starts = [end - timedelta(hours=h) for h in range(hours, 0, -1)]
    counts = dict.fromkeys(starts, 0)
    if not frame.empty:
        created = pd.to_datetime(frame["created_at"], utc=True)
        start = pd.Timestamp(starts[0])
        recent = created[(created >= start) & (created < pd.Timestamp(end))]
        for bucket, count in recent.dt.floor("h").value_counts().items():
            counts[bucket.to_pydatetime()] = int(count)
    return [{"hour": hour, "ratings": count} for hour, count in counts.items()]


def recent_paraphrases(campaign: Campaign, limit: int = 50) -> list[SuggestedParaphrase]:
    return list(
        SuggestedParaphrase.objects.filter(rating__item__campaign=campaign)
        .select_related("rating__item__compound", "rating__annotator")
        .order_by("-rating__created_at", "position")[:limit]
    )


def campaign_dashboard(campaign: Campaign, now: datetime | None = None) -> Dashboard:
    now = now or timezone.now()
    frame = ratings_frame(campaign)
    regular = frame[frame["role"] == Item.Role.REGULAR] if not frame.empty else frame
    return Dashboard(
        campaign=campaign,
        overall=campaign_progress(campaign),
        items=item_progress(campaign),
        annotators=annotator_rows(campaign, frame),
        # regular items only: training (gold) and attention checks are not the work the pace is about
        ratings_per_hour=ratings_per_hour(regular, now),
        median_seconds=_median(regular["seconds"]) if len(regular) else None,
        paraphrases=recent_paraphrases(campaign),
        thresholds=campaign_thresholds(campaign),
        allocation=allocation_summary(campaign),
        by_scale=scale_table(frame),
    )
