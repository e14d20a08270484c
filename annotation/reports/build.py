"""Campaign reports: agreement, annotator reliability, a filter policy, aggregates, paraphrases.

Glue between the database (``annotation.reports.analysis_data``, ``annotation.curate.dashboard``) and the pure
analyses (``annotation.analysis``). ``campaign_report`` returns plain JSON-able Python values
(NaN becomes None); every aggregate section says which policy it was computed under.
"""

from __future__ import annotations

import csv
import io
import math
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np
from django.utils import timezone

from annotation.analysis import by_scale
from annotation.analysis import paraphrases as para
from annotation.analysis.aggregation import mean_median_correlation, per_compound, per_item
from annotation.analysis.agreement import QUESTIONS, agreement_table
from annotation.analysis.reliability import FilterPolicy as PolicyRule
from annotation.analysis.reliability import annotator_reliability
from annotation.analysis.scales import scale_agreement
from annotation.analysis.typetoken import CLASSES, typetoken_report
from annotation.curate.dashboard import allocation_summary, annotator_rows, ratings_frame
from annotation.models import (
    Campaign,
    FilterPolicy,
    Item,
    PolicyRun,
    SuggestedParaphrase,
)
from annotation.reports.analysis_data import campaign_ratings, reference_sentence_scores
from annotation.reports.machine import machine_section
from datasets import vocabulary
from datasets.models import Compound

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

N_RESAMPLES = 1000
SEED = 0
SCORES = range(6)
UNCLASSIFIED = vocabulary.UNCLASSIFIED
NO_POLICY = "none"
EXCLUDE_FLAGGED = "exclude flagged"  # the saved policy (migration 0007) that drops flagged workers
ITEM_CSV_COLUMNS = ["item", "compound", "compound_text", "slot", "class", "question", "mean", "median", "std", "n"]
COMPOUND_CSV_COLUMNS = [
    "compound",
    "compound_text",
    "class",
    "question",
    "comp_mean",
    "comp_median",
    "n_items",
    "n_ratings",
]


def clean(value):
    """JSON-able: NaN and infinities become None, numpy scalars Python ones, recursively."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating | float):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def policy_parameters(policy: FilterPolicy | None) -> dict:
    if policy is None:
        return {
            "name": NO_POLICY,
            "min_rho": None,
            "min_items": 0,
            "min_gold_accuracy": None,
            "question": QUESTIONS[0],
            "exclude_flagged": False,
        }
    return {
        "name": policy.name,
        "min_rho": policy.min_rho,
        "min_items": policy.min_items,
        "min_gold_accuracy": policy.min_gold_accuracy,
        "question": policy.question,
        "exclude_flagged": policy.exclude_flagged,
    }


def _rule(policy: FilterPolicy | None) -> PolicyRule:
    params = policy_parameters(policy)
    return PolicyRule(
        name=params["name"],
        min_rho=params["min_rho"],
        min_items=params["min_items"],
        min_gold_accuracy=params["min_gold_accuracy"],
        exclude_flagged=params["exclude_flagged"],
    )


def _gold_accuracy(campaign: Campaign) -> dict[int, dict]:
    """Per annotator id: gold (training) and attention accuracy, label, simulated and quality flags (the dashboard's)."""
    rows = annotator_rows(campaign, ratings_frame(campaign))
    return {
        row.id: {
            "label": row.label,
            "simulated": row.simulated,
            "gold_accuracy": row.gold_accuracy,
            "attention_accuracy": row.attention_accuracy,
            "flags": row.flags,
            "flag_reason": row.reason,
        }
        for row in rows
    }


def _filter(
    campaign: Campaign, policy: FilterPolicy | None, ratings: pd.DataFrame, annotators: dict[int, dict]
) -> tuple[pd.DataFrame, list, list[dict]]:
    """Reliability table of the policy's question, kept annotator ids and removed [{annotator, reason}]."""
    import pandas as pd

    question = policy_parameters(policy)["question"]
    if question not in QUESTIONS:
        question = QUESTIONS[0]
    if ratings.empty:
        return pd.DataFrame(columns=["annotator", "n_items", "n_shared", "rho", "p", "alpha_if_removed"]), [], []
    reliability = annotator_reliability(ratings, question)
    gold = {a: info["gold_accuracy"] for a, info in annotators.items() if info["gold_accuracy"] is not None}
    flagged = {a: info["flag_reason"] for a, info in annotators.items() if info["flags"]}
    kept, removed = _rule(policy).apply(reliability, gold, flagged)
    return reliability, kept, removed


def apply_policy(campaign: Campaign, policy: FilterPolicy, ratings: pd.DataFrame | None = None) -> PolicyRun:
    """Re-compute what ``policy`` removes on ``campaign`` and save it as a new PolicyRun."""
    if ratings is None:
        ratings = campaign_ratings(campaign.pk)
    annotators = _gold_accuracy(campaign)
    _, kept, removed = _filter(campaign, policy, ratings, annotators)
    return _save_run(campaign, policy, kept, removed, annotators)


def _save_run(campaign, policy, kept, removed, annotators) -> PolicyRun:
    labelled = [
        {
            "annotator": int(r["annotator"]),
            "label": annotators.get(r["annotator"], {}).get("label"),
            "reason": r["reason"],
        }
        for r in removed
    ]
    latest = PolicyRun.objects.filter(policy=policy, campaign=campaign).order_by("-computed_at", "-pk").first()
    if latest is not None and latest.removed == labelled and latest.kept == len(kept):
        # Same outcome as last time (a live page refreshing): the record stands, no new row.
        return latest
    return PolicyRun.objects.create(policy=policy, campaign=campaign, removed=labelled, kept=len(kept))


def _compounds(ids) -> dict[int, dict]:
    return {
        pk: {"text": text, "class": cls or UNCLASSIFIED}
        for pk, text, cls in Compound.objects.filter(pk__in=list(ids)).values_list(
            "pk", "text", "compositionality_class"
        )
    }


def _items(campaign: Campaign) -> dict[int, int | None]:
    """Regular item id -> its sentence slot (None at type level)."""
    return dict(Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR).values_list("pk", "sentence__slot"))


def distributions(ratings: pd.DataFrame, compounds: dict[int, dict]) -> dict:
    """Per class, per question: counts of the scores 0..5."""
    classes = [*CLASSES, UNCLASSIFIED]
    result = {cls: {q: [0] * len(SCORES) for q in QUESTIONS} for cls in classes}
    if ratings.empty:
        return {cls: v for cls, v in result.items() if cls != UNCLASSIFIED}
    by_class = ratings["compound"].map(lambda c: compounds.get(c, {}).get("class", UNCLASSIFIED))
    for question in QUESTIONS:
        counts = ratings.assign(cls=by_class).dropna(subset=[question]).groupby(["cls", question]).size()
        for (cls, score), n in counts.items():
            if int(score) in SCORES:
                result[cls][question][int(score)] = int(n)
    if not any(sum(v) for v in result[UNCLASSIFIED].values()):
        del result[UNCLASSIFIED]
    return result


def paraphrase_rows(campaign: Campaign, kept: list, compounds: dict[int, dict], n_sentences: int = 3) -> list[dict]:
    """Type/token classification of the kept annotators' paraphrases, per compound."""
    rows = SuggestedParaphrase.objects.filter(
        rating__item__campaign=campaign, rating__item__role=Item.Role.REGULAR, rating__annotator_id__in=kept
    ).values_list("rating__item__compound_id", "rating__item__sentence__slot", "text")
    all_counts = para.counts(rows)
    classified = para.classify_counts(all_counts, n_sentences)
    by_compound: dict = defaultdict(lambda: {"type": [], "token": []})
    for row in classified:
        by_compound[row["compound"]][row["level"]].append(
            {"paraphrase": row["paraphrase"], "frequency": row["frequency"], "slots": row["slots"]}
        )
    result = []
    for compound_id in sorted(all_counts, key=lambda c: compounds.get(c, {}).get("text", "")):
        levels = by_compound.get(compound_id, {"type": [], "token": []})
        for level in levels.values():
            level.sort(key=lambda r: (-r["frequency"], r["paraphrase"]))
        result.append(
            {
                "compound": compound_id,
                "compound_text": compounds.get(compound_id, {}).get("text"),
                "class": compounds.get(compound_id, {}).get("class"),
                "proposals": sum(sum(slots.values()) for slots in all_counts[compound_id].values()),
                "type": levels["type"],
                "token": levels["token"],
                "gold_synonym": para.gold_synonym({r["paraphrase"]: r["frequency"] for r in levels["type"]}),
            }
        )
    return result


def reference_report(language: str, collection: str | None = None) -> dict | None:
    """``typetoken_report`` of the imported reference scores of a language (None without any)."""
    frame = reference_sentence_scores(language, collection)
    if frame.empty:
        return None
    return clean(typetoken_report(frame, language))


def reference_points(language: str, collection: str | None = None) -> list[dict]:
    """Per compound: token mean against type score, for the scatter plot."""
    frame = reference_sentence_scores(language, collection)
    if frame.empty:
        return []
    grouped = frame.groupby("compound", sort=True)
    table = grouped[["class", "type_score"]].first()
    table["token_mean"] = grouped["compound_score"].mean()
    return clean(
        [
            {"compound": name, "class": row["class"], "type_score": row["type_score"], "token_mean": row["token_mean"]}
            for name, row in table.iterrows()
        ]
    )


def get_policy(name: str | None) -> FilterPolicy | None:
    """The saved policy called ``name`` (None for no name); FilterPolicy.DoesNotExist when unknown.

    ``EXCLUDE_FLAGGED`` is the shipped rule even when its row is missing (a database flushed
    after its migrations): releases name it by default.
    """
    if not name:
        return None
    found = FilterPolicy.objects.filter(name=name).first()
    if found is None and name == EXCLUDE_FLAGGED:
        return FilterPolicy(name=EXCLUDE_FLAGGED, min_rho=None, min_items=0, exclude_flagged=True)
    if found is None:
        raise FilterPolicy.DoesNotExist(f"no filter policy {name!r}")
    return found


def campaign_report(campaign: Campaign, policy: FilterPolicy | None = None, save_run: bool = True) -> dict:
    """The whole report of a campaign under ``policy`` (None: nobody removed); saves a PolicyRun for saved policies."""
    import pandas as pd

    now = timezone.now()
    ratings = campaign_ratings(campaign.pk)
    annotators = _gold_accuracy(campaign)
    params = policy_parameters(policy)
    name = params["name"]
    reliability, kept, removed = _filter(campaign, policy, ratings, annotators)
    if policy is not None and policy.pk and save_run:
        _save_run(campaign, policy, kept, removed, annotators)
    removed_ids = {r["annotator"] for r in removed}
    kept_ratings = ratings[ratings["annotator"].isin(kept)] if not ratings.empty else ratings

    compounds = _compounds(ratings["compound"].unique() if not ratings.empty else [])
    slots = _items(campaign)

    reasons = {r["annotator"]: r["reason"] for r in removed}  # one look-up per row: thousands of workers
    reliability_rows = []
    for row in reliability.to_dict("records"):
        info = annotators.get(row["annotator"], {})
        reliability_rows.append(
            {
                **row,
                "label": info.get("label", str(row["annotator"])),
                "simulated": info.get("simulated", False),
                "gold_accuracy": info.get("gold_accuracy"),
                "attention_accuracy": info.get("attention_accuracy"),
                "flags": info.get("flags", []),
                "flag_reason": info.get("flag_reason", ""),
                "removed": row["annotator"] in removed_ids,
                "reason": reasons.get(row["annotator"], ""),
            }
        )

    agreement = agreement_table(kept_ratings, n_resamples=N_RESAMPLES, seed=SEED) if not kept_ratings.empty else []
    scales = scale_agreement(kept_ratings, n_resamples=N_RESAMPLES, seed=SEED) if not kept_ratings.empty else []
    kept_reliability = [row for row in reliability_rows if not row["removed"]]
    items = per_item(kept_ratings) if not kept_ratings.empty else pd.DataFrame()
    item_rows = []
    for row in items.to_dict("records"):
        info = compounds.get(row["compound"], {})
        item_rows.append(
            {
                "item": row["item"],
                "compound": row["compound"],
                "compound_text": info.get("text"),
                "slot": slots.get(row["item"]),
                "class": info.get("class"),
                "question": row["question"],
                "mean": row["mean"],
                "median": row["median"],
                "std": row["std"],
                "n": row["n"],
            }
        )
    compound_rows = []
    if not kept_ratings.empty:
        for row in per_compound(kept_ratings).to_dict("records"):
            info = compounds.get(row["compound"], {})
            compound_rows.append({**row, "compound_text": info.get("text"), "class": info.get("class")})
    correlations = [mean_median_correlation(items, q) for q in QUESTIONS] if not items.empty else []

    simulated_ids = {a for a, info in annotators.items() if info["simulated"]}
    report = {
        "campaign": {
            "id": campaign.pk,
            "slug": campaign.slug,
            "name": campaign.name,
            "language": campaign.language,
            "level": campaign.level,
            "status": campaign.status,
        },
        "computed_at": now.isoformat(),
        "live": campaign.status == Campaign.Status.OPEN,
        "ratings": int(len(ratings)),
        "annotators": int(ratings["annotator"].nunique()) if not ratings.empty else 0,
        "simulated_included": bool(simulated_ids & set(ratings["annotator"].unique() if not ratings.empty else [])),
        "simulated_annotators": sorted(
            annotators[a]["label"]
            for a in simulated_ids & set(ratings["annotator"].unique() if not ratings.empty else [])
        ),
        "policy": {**params, "removed": removed, "kept": len(kept)},
        "reliability": {"policy": name, "question": params["question"], "rows": reliability_rows},
        "agreement": {"policy": name, "n_resamples": N_RESAMPLES, "seed": SEED, "rows": agreement},
        # The same agreement in the measures of each reading of the scale (people only: machines are never ratings).
        "allocation": allocation_summary(campaign),
        "by_scale": {
            "policy": name,
            "rows": by_scale.table(agreement, scales, kept_reliability, params["question"]),
        },
        "items": {"policy": name, "rows": item_rows},
        "compounds": {"policy": name, "rows": compound_rows},
        "mean_median": {"policy": name, "rows": correlations},
        "distributions": {"policy": name, "scores": list(SCORES), "classes": distributions(kept_ratings, compounds)},
        "paraphrases": {"policy": name, "rows": paraphrase_rows(campaign, kept, compounds)},
        "reference": reference_report(campaign.language, campaign.collection.slug),
        # Models asked the same questions: compared with the kept ratings, never counted among them.
        "machine_annotators": machine_section(campaign, kept_ratings, compounds),
    }
    return clean(report)


def _csv(rows: list[dict], columns: list[str], policy: str) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=[*columns, "policy"], extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({**{c: "" if row.get(c) is None else row.get(c) for c in columns}, "policy": policy})
    return out.getvalue()


def items_csv(report: dict) -> str:
    return _csv(report["items"]["rows"], ITEM_CSV_COLUMNS, report["items"]["policy"])


def compounds_csv(report: dict) -> str:
    return _csv(report["compounds"]["rows"], COMPOUND_CSV_COLUMNS, report["compounds"]["policy"])
