"""Timing of the rating analytics on a synthetic campaign (pure numpy/pandas, no database).

Usage: .venv/bin/python benchmarks/analytics.py [--resamples 1000] [--seed 0]

300 compounds × 3 sentences = 900 items, 10 annotators per item (plus 1,000 extra ratings spread over the items,
for 10,000 in all) drawn from a pool of 100, scores from a latent per-item truth plus per-annotator noise.
It runs the agreement table (3 questions × interval/ordinal × full/top2/top3, each bootstrapped), annotator
reliability, per-item and per-compound aggregation and the paraphrase classification, prints a few lines,
and as its last line one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from annotation.analysis import aggregation, agreement, paraphrases, reliability  # noqa: E402
from benchmarks.record import emit, save_flag  # noqa: E402

N_COMPOUNDS = 300
SENTENCES = 3
POOL = 100
PER_ITEM = 10
N_RATINGS = 10_000
QUESTIONS = agreement.QUESTIONS


def build_campaign(seed: int) -> pd.DataFrame:
    """10,000 ratings of 900 items by annotators from a pool of 100, scores = rounded truth + noise."""
    rng = np.random.default_rng(seed)
    n_items = N_COMPOUNDS * SENTENCES
    # 10 per item gives 9,000; the other 1,000 go to items drawn at random.
    per_item = np.full(n_items, PER_ITEM)
    extra = N_RATINGS - per_item.sum()
    per_item += np.bincount(rng.choice(n_items, size=extra, replace=extra > n_items), minlength=n_items)
    compound_truth = rng.uniform(0, 5, N_COMPOUNDS)
    item_truth = np.clip(np.repeat(compound_truth, SENTENCES) + rng.normal(0, 0.5, n_items), 0, 5)
    noise_sd = rng.uniform(0.5, 1.5, POOL)
    noise_sd[:5] = 10.0  # a few near-random annotators for the reliability filter to find
    # Annotators are not uniformly active, so some pairs share many items (what the top-k procedure looks for).
    activity = rng.gamma(2.0, 1.0, POOL)
    activity /= activity.sum()
    items, annotators = [], []
    for item, k in enumerate(per_item):
        items.append(np.full(k, item))
        annotators.append(rng.choice(POOL, size=k, replace=False, p=activity))
    item = np.concatenate(items)
    annotator = np.concatenate(annotators)
    frame = pd.DataFrame({"item": item, "annotator": annotator, "compound": item // SENTENCES})
    for offset, question in enumerate(QUESTIONS):
        shift = (offset - 1) * 0.5
        score = item_truth[item] + shift + rng.normal(0, noise_sd[annotator])
        frame[question] = np.clip(np.rint(score), 0, 5)
    missing = rng.random((len(frame), len(QUESTIONS))) < 0.01
    frame[list(QUESTIONS)] = frame[list(QUESTIONS)].mask(missing)
    return frame


def build_paraphrases(seed: int) -> list[tuple[int, int | None, str]]:
    """Synthetic paraphrase proposals: a few candidates per compound, proposed per sentence with skewed odds."""
    rng = np.random.default_rng(seed + 1)
    rows: list[tuple[int, int | None, str]] = []
    for compound in range(N_COMPOUNDS):
        candidates = [f"Synonym {compound}-{j}" for j in range(8)]
        odds = rng.dirichlet(np.ones(len(candidates)) * 0.5)
        for slot in range(SENTENCES):
            for pick in rng.choice(len(candidates), size=10, p=odds):
                text = candidates[pick]
                rows.append((compound, slot, text.upper() + "." if rng.random() < 0.2 else text))
    return rows


def main() -> None:
    """Build the campaign, time the analytics and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    save_flag(parser)
    args = parser.parse_args()

    ratings = build_campaign(args.seed)
    proposals = build_paraphrases(args.seed)

    start = time.perf_counter()
    bootstrap_start = time.perf_counter()
    boot = agreement.bootstrap_alpha(ratings, "compound_score", "interval", n_resamples=args.resamples, seed=args.seed)
    seconds_bootstrap = time.perf_counter() - bootstrap_start
    table = agreement.agreement_table(ratings, n_resamples=args.resamples, seed=args.seed)
    rel = reliability.annotator_reliability(ratings, "compound_score")
    kept, removed = reliability.FilterPolicy("rho<0.2", min_rho=0.2, min_items=3).apply(rel)
    items = aggregation.per_item(ratings)
    compounds = aggregation.per_compound(ratings)
    mean_median = aggregation.mean_median_correlation(items, "compound_score")
    classified = paraphrases.classify_counts(paraphrases.counts(proposals))
    seconds = time.perf_counter() - start

    print(f"ratings {len(ratings)}, items {ratings['item'].nunique()}, annotators {ratings['annotator'].nunique()}")
    print(
        f"bootstrap compound_score interval: {boot.alpha:.3f} [{boot.low:.3f}, {boot.high:.3f}] ({seconds_bootstrap:.3f} s)"
    )
    for row in table:
        if row["question"] == "compound_score":
            print(
                f"  {row['level']:<8} {row['procedure']:<4} alpha {row['alpha']:.3f} "
                f"[{row['low']:.3f}, {row['high']:.3f}] items {row['n_items']} annotators {row['n_annotators']}"
            )
    print(f"reliability: kept {len(kept)}, removed {len(removed)}: {sorted(r['annotator'] for r in removed)}")
    print(
        f"aggregation: {len(items)} item rows, {len(compounds)} compound rows, mean~median rho {mean_median['rho']:.3f}"
    )
    levels = pd.Series([r["level"] for r in classified]).value_counts().to_dict()
    print(f"paraphrases: {len(proposals)} proposals, classified {levels}")
    emit(
        "analytics",
        {"ratings": len(ratings), "seconds": round(seconds, 3), "seconds_bootstrap": round(seconds_bootstrap, 3)},
        save=args.save,
    )


if __name__ == "__main__":
    main()
