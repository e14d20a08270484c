"""Adaptive allocation against fixed N on NCTTI's published scores: ratings saved at fixed N = 10's error.

Usage: .venv/bin/python benchmarks/adaptive_allocation.py [--data PATH/TO/shared/data] [--seeds 20]
       [--careless 0.1] [--spread {language,class}] [--save]

The truth: NCTTI's (Garcia et al. 2021, ACL) type scores (``CompType``) and per-sentence means
(``MeanS1..3``) of EN and PT, one item each, a sentence item a token of its compound's type item. The
crowd: ``annotation.planner``'s, a share ``--careless`` (default 10%, a round figure for an unfiltered
crowd) answering at random, the others around the truth with the spread ``planner.fit_spread`` fits to
the scatter of each compound's three sentence means (EN 10, PT 9 ratings per mean: the paper's 10.4 and
9.4). Designs, fixed before any run: fixed N in {3, 5, 10}; adaptive designs of equal cost (a budget of
N ratings per item; n_min = ceil(N / 2), n_max = 2N, a precision no item reaches, so the budget decides);
and the adaptive design (n_min 3, n_max 20, no budget) whose precision is found by bisection so that its
mean error on ``SEARCH_SIMULATIONS`` simulations of search seed ``SEARCH_SEED`` matches fixed N = 10's.
Every reporting seed (0 .. --seeds - 1) is one simulated campaign per design, on common random numbers.

Printed per design: ratings per item, the mean absolute error of the item means (MAE) and the error of
the type/token Spearman correlation, medians [min, max] over seeds; then the matched design's saving
(1 - its ratings / fixed N = 10's) and two normal-approximation references from the items' spreads:
the best saving any allocation by known spread could give (n_i ~ sd_i^(2/3)), and the saving of an
allocation that equalises interval widths (n_i ~ sd_i^2: what "widest first" tends to). The goal
(issue): a saving of at least 30% on both languages.

The spread model: ``--spread language`` (the default, the headline, chosen first) fits one sigma per
language; ``--spread class`` one per compositionality class (NC / PC / C: ``planner.fit_spread_by_class``,
the same evidence restricted to each class). Each run adds, per language, one line for the other model, as a
sensitivity analysis: its fitted sigmas, its matched precision (found the same way), its saving on the same
reporting seeds (fixed N = 10 and the matched design only) and its oracle reference. ``saving_en``/``saving_pt``
in the JSON are the headline model's; ``saving_en_by_class`` and the like (``_by_language`` under
``--spread class``) the other's; ``sigma_en_by_class``/``sigma_pt_by_class`` are always the fitted class
sigmas. The last line is one JSON object.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from annotation import planner  # noqa: E402
from benchmarks.record import emit, save_flag  # noqa: E402

RATINGS_PER_MEAN = {"en": 10, "pt": 9}  # NCTTI: 10.4 and 9.4 annotations per sentence (section 3.2)
PUBLISHED_ALPHA = {"en": 0.30, "pt": 0.52}  # Table 1, NC, two annotators: shown beside the simulated alpha
FIXED = (3, 5, 10)
NO_PRECISION = 0.05  # narrower than any interval of 2N ratings: the budget decides
MATCHED_N_MIN, MATCHED_N_MAX = 3, 20
SEARCH_SEED, SEARCH_SIMULATIONS, SEARCH_STEPS = 1000, 5, 10  # SeedSequence([1000, k]): no reporting seed
GOAL = 0.30
SPREADS = ("language", "class")  # one careful sigma per language (the headline, chosen first) or per class


def read(path: Path) -> tuple[list[dict], np.ndarray]:
    """NCTTI's rows and their per-sentence means (compounds, 3)."""
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return rows, np.array([[float(row[f"MeanS{k}"]) for k in (1, 2, 3)] for row in rows])


def spread_of(rows: list[dict], sentences: np.ndarray, language: str, careless: float, kind: str):
    """The fitted spread model: one ``RoundedNormal`` (``language``) or one per class (``class``)."""
    if kind == "language":
        return planner.fit_spread(sentences, RATINGS_PER_MEAN[language], careless=careless)
    classes = [row["CompScale"] for row in rows]
    return planner.fit_spread_by_class(sentences, classes, RATINGS_PER_MEAN[language], careless=careless)


def scatter_of(rows: list[dict], sentences: np.ndarray, kind: str) -> float | dict[str, float]:
    """The median variance of a compound's three sentence means: over all compounds, or per class."""
    if kind == "language":
        return float(np.median(sentences.var(axis=1, ddof=1)))
    classes = np.array([row["CompScale"] for row in rows])
    return {c: float(np.median(sentences[classes == c].var(axis=1, ddof=1))) for c in sorted(set(classes))}


def items_of(rows: list[dict], sentences: np.ndarray, spread) -> planner.PlanInput:
    """NCTTI's type and sentence scores as plan items, their answers spread by ``spread``."""
    means, classes, type_of = [], [], []
    for row, scores in zip(rows, sentences, strict=True):
        own = -1
        if row["CompType"].strip():  # one EN row ("small fry") has none: its sentences stay, unpaired
            own = len(means)
            means.append(float(row["CompType"]))
            classes.append(row["CompScale"])
            type_of.append(-1)
        means.extend(scores)
        classes.extend([row["CompScale"]] * len(scores))
        type_of.extend([own] * len(scores))
    return planner.from_means(means, classes, spread, type_of=type_of)


def matched_precision(items: planner.PlanInput, careless: float) -> tuple[float, float]:
    """The widest precision whose mean error on the search seed is at most fixed N = 10's, and that error."""

    def mae(design: planner.Design) -> float:
        [result] = planner.plan(
            items, [design], careless=careless, simulations=SEARCH_SIMULATIONS, seed=SEARCH_SEED, r=0.0
        )
        return result.mae.mean

    target = mae(planner.Fixed(10))
    low, high = 0.3, 3.0  # low: every item near n_max; high: every item at n_min
    if mae(planner.Adaptive(MATCHED_N_MIN, MATCHED_N_MAX, low)) > target:
        return float("nan"), target
    for _ in range(SEARCH_STEPS):
        middle = (low + high) / 2
        if mae(planner.Adaptive(MATCHED_N_MIN, MATCHED_N_MAX, middle)) <= target:
            low = middle
        else:
            high = middle
    return round(low, 4), target


def references(items: planner.PlanInput, careless: float) -> dict:
    """Savings at fixed N's error by the normal approximation (error ~ sd / sqrt(n); careless bias left out)."""
    mu = items.means
    second = items.distribution @ planner.SCALE**2
    mixed_mean = (1 - careless) * mu + careless * 2.5
    sd = np.sqrt((1 - careless) * second + careless * 55 / 6 - mixed_mean**2)  # 55/6: E[k^2], k uniform on 0-5
    return {
        "oracle": 1 - float(np.mean(sd ** (2 / 3)) ** 3 / np.mean(sd) ** 2),
        "equal_width": 1 - float(np.mean(sd**2) / np.mean(sd) ** 2),
        "sd_mean": float(sd.mean()),
        "sd_p10_p90": [float(x) for x in np.percentile(sd, [10, 90])],
    }


def summary(values: list[float]) -> dict:
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if not finite:
        return {"median": None, "min": None, "max": None}
    return {"median": statistics.median(finite), "min": min(finite), "max": max(finite)}


def show(row: dict) -> str:
    return f"{row['median']:.3f} [{row['min']:.3f}, {row['max']:.3f}]" if row["median"] is not None else "-"


def describe(spread, scatter) -> str:
    """A spread model's sigmas and the median scatters they were fitted to, in words."""
    if isinstance(spread, planner.RoundedNormal):
        flag = " (degenerate)" if spread.degenerate else ""
        return f"careful sigma {spread.sigma}{flag} fitted to a median scatter of {scatter:.3f}"
    return "careful sigma per class " + ", ".join(
        f"{c} {model.sigma}{' (degenerate)' if model.degenerate else ''} (scatter {scatter[c]:.3f})"
        for c, model in spread.items()
    )


def sigmas(spread) -> float | dict[str, float]:
    return spread.sigma if isinstance(spread, planner.RoundedNormal) else {c: m.sigma for c, m in spread.items()}


def degenerate(spread) -> list[str]:
    """The classes whose fit ended at a bound of ``planner.SIGMA_RANGE`` (``["language"]`` for a one-sigma fit)."""
    if isinstance(spread, planner.RoundedNormal):
        return ["language"] if spread.degenerate else []
    return [c for c, model in spread.items() if model.degenerate]


def language_figures(path: Path, language: str, seeds: int, careless: float, kind: str) -> dict:
    compounds, sentences = read(path)
    spread = spread_of(compounds, sentences, language, careless, kind)
    scatter, items = scatter_of(compounds, sentences, kind), items_of(compounds, sentences, spread)
    n_items = len(items)
    precision, search_target = matched_precision(items, careless)
    designs: list[planner.Design] = [planner.Fixed(n) for n in FIXED]
    designs += [planner.Adaptive(math.ceil(n / 2), 2 * n, NO_PRECISION, budget=n * n_items) for n in FIXED]
    if math.isfinite(precision):
        designs.append(planner.Adaptive(MATCHED_N_MIN, MATCHED_N_MAX, precision))
    per_seed = [planner.plan(items, designs, careless=careless, simulations=1, seed=s) for s in range(seeds)]
    rows = {}
    for j, design in enumerate(designs):
        results = [run[j] for run in per_seed]
        rows[design.name] = {
            "ratings_per_item": summary([r.ratings.mean / n_items for r in results]),
            "mae": summary([r.mae.mean for r in results]),
            "type_token_error": summary([r.type_token_error.mean for r in results]),
            "alpha": summary([r.alpha.mean for r in results]),
            "coverage": summary([r.coverage for r in results]),
        }
    fixed10 = FIXED.index(10)
    savings = [1 - run[-1].ratings.mean / run[fixed10].ratings.mean for run in per_seed] if len(designs) > 6 else []
    n_types = len(np.unique(items.type_of[items.type_of >= 0]))
    print(
        f"\n{language.upper()}: {n_items} items ({n_types} types, {n_items - n_types} sentences); spread per {kind}: "
        f"{describe(spread, scatter)} ({RATINGS_PER_MEAN[language]} ratings per mean, {careless:.0%} careless)"
    )
    print(f"{'design':44} {'ratings/item':>12}  {'MAE median [min, max]':>24}  {'type/token error':>24}  alpha  cover")
    for name, row in rows.items():
        print(
            f"{name:44} {row['ratings_per_item']['median']:12.2f}  {show(row['mae']):>24}  "
            f"{show(row['type_token_error']):>24}  {row['alpha']['median']:.2f}   {row['coverage']['median']:.2f}"
        )
    saving = summary(savings)
    refs = references(items, careless)
    print(
        f"matched precision {precision} (search seed {SEARCH_SEED}: fixed N=10 MAE {search_target:.4f}); saving "
        f"{show(saving)}; references: oracle {refs['oracle']:.1%}, equal widths {refs['equal_width']:.1%}; "
        f"alpha published {PUBLISHED_ALPHA[language]:.2f}"
    )
    other = SPREADS[1 - SPREADS.index(kind)]
    return {
        "items": n_items,
        "spread": kind,
        "sigma": sigmas(spread),
        "median_scatter": scatter,
        "matched_precision": precision,
        "search_target_mae": search_target,
        "saving": saving,
        "references": refs,
        "published_alpha": PUBLISHED_ALPHA[language],
        "designs": rows,
        "degenerate": degenerate(spread),
        f"by_{other}": sensitivity(compounds, sentences, language, seeds, careless, other),
    }


def sensitivity(rows: list[dict], sentences: np.ndarray, language: str, seeds: int, careless: float, kind: str):
    """The saving and references under the other spread model, on the same reporting seeds (one printed line)."""
    spread = spread_of(rows, sentences, language, careless, kind)
    scatter, items = scatter_of(rows, sentences, kind), items_of(rows, sentences, spread)
    precision, search_target = matched_precision(items, careless)
    savings = []
    if math.isfinite(precision):
        designs = [planner.Fixed(10), planner.Adaptive(MATCHED_N_MIN, MATCHED_N_MAX, precision)]
        for s in range(seeds):
            fixed, matched = planner.plan(items, designs, careless=careless, simulations=1, seed=s)
            savings.append(1 - matched.ratings.mean / fixed.ratings.mean)
    saving, refs = summary(savings), references(items, careless)
    print(
        f"sensitivity, spread per {kind}: {describe(spread, scatter)}; matched precision {precision}; saving "
        f"{show(saving)}; references: oracle {refs['oracle']:.1%}, equal widths {refs['equal_width']:.1%}"
    )
    return {
        "sigma": sigmas(spread),
        "degenerate": degenerate(spread),
        "median_scatter": scatter,
        "matched_precision": precision,
        "search_target_mae": search_target,
        "saving": saving,
        "references": refs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--careless", type=float, default=0.1)
    parser.add_argument("--spread", choices=SPREADS, default="language", help="the headline's spread model")
    save_flag(parser)
    args = parser.parse_args()
    started = time.perf_counter()
    figures: dict = {"seeds": args.seeds, "careless": args.careless, "goal": GOAL, "spread": args.spread}
    other = SPREADS[1 - SPREADS.index(args.spread)]
    for language in ("en", "pt"):
        path = args.data / "nctti" / f"data_{language}.tsv"
        figures[language] = found = language_figures(path, language, args.seeds, args.careless, args.spread)
        figures[f"saving_{language}"] = found["saving"]["median"]
        figures[f"saving_{language}_by_{other}"] = found[f"by_{other}"]["saving"]["median"]
        figures[f"oracle_{language}_by_{other}"] = found[f"by_{other}"]["references"]["oracle"]
        by_class = found if args.spread == "class" else found["by_class"]
        figures[f"sigma_{language}_by_class"] = by_class["sigma"]
    savings = [figures["saving_en"], figures["saving_pt"]]
    figures["goal_met"] = all(s is not None and s >= GOAL for s in savings)
    figures["seconds"] = round(time.perf_counter() - started, 1)

    def shown(key: str) -> str:
        return ", ".join(
            f"{lang.upper()} {'-' if (v := figures[key.format(lang)]) is None else f'{v:.1%}'}" for lang in ("en", "pt")
        )

    print(
        f"\nratings saved at fixed N=10's error (median), spread per {args.spread}: {shown('saving_{}')}; "
        f"goal {GOAL:.0%} on both: {figures['goal_met']}\n"
        f"sensitivity, spread per {other}: {shown('saving_{}_by_' + other)} (not the headline)"
    )
    emit("adaptive_allocation", figures, save=args.save)


if __name__ == "__main__":
    main()
