"""A machine annotator beside a campaign's human annotators: does the model answer like a typical worker?

Pure: pandas and numpy, no Django. A machine annotator is a language model asked the crowd's questions
(Reddy et al. 2011: 0-5 literality of head, modifier and compound, up to three paraphrases). Its answers
are compared with the people's on the items both rated, never mixed into the people's figures:

- per question, Spearman's rho and the mean absolute error against the human mean of each item, and of
  each compound (eq. 1 of He et al. 2024, ``aggregation.per_compound``, over the compared items only, so
  both sides average the same sentences; at type level an item is a compound and the two coincide), and
  the bias (mean machine − human);
- Krippendorff's alpha (interval) of the humans, and of the humans with the model as one more annotator
  (``agreement.alpha``, over the values present, since a model's expected score need not be a whole number);
- the model's place among the workers by ``reliability.annotator_reliability`` (rho against the mean of the
  others), computed on humans + model. That function takes the 0-5 scale only, so there a non-integer
  score is rounded half up to the nearest point of the scale (``scores_rounded`` says when it was);
- at token level, ``typetoken.typetoken_report`` (Garcia et al. 2021, table 2) of the model's sentence scores
  next to the humans' mean sentence scores on the same sentences, with each side's type-level scores when
  the caller has them (a type-level campaign's means); without them the type/token correlations are None
  and the class means and per-compound spread remain. At type level there are no sentences: None;
- the share of the model's paraphrases (after ``paraphrases.normalise``) that some human gave for the same
  item, and for the same compound;
- per compositionality class, the human and model means of the compounds' scores.

Every number is a plain float or int, None where undefined (never NaN), so the result is JSON as it is.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Literal

import numpy as np

from annotation.analysis.aggregation import per_item
from annotation.analysis.agreement import SCORE_DOMAIN, alpha
from annotation.analysis.paraphrases import normalise
from annotation.analysis.reliability import annotator_reliability
from annotation.analysis.typetoken import QUESTIONS, typetoken_report
from core.statistics import finite, spearman
from datasets.vocabulary import CLASSES

if TYPE_CHECKING:
    import pandas as pd  # imported where used: slow to import, and pages and workers import these modules without it

Level = Literal["token", "type"]
LEVELS: tuple[Level, ...] = ("token", "type")
Paraphrase = tuple[Hashable, Hashable, str]  # (item, compound, text)
MACHINE = "machine"  # the model's label among the annotators; every human label starts with "human:"
SCORES = list(QUESTIONS.values())


def machine_comparison(
    humans: pd.DataFrame,
    machine: pd.DataFrame,
    classes: Mapping[Hashable, str | None],
    human_paraphrases: Iterable[Paraphrase] = (),
    machine_paraphrases: Iterable[Paraphrase] = (),
    level: Level = "token",
    human_type_scores: Mapping[Hashable, float] | None = None,
    machine_type_scores: Mapping[Hashable, float] | None = None,
) -> dict:
    """One machine annotator against the campaign's humans, as a JSON-ready dict (see the module's docstring).

    ``humans`` and ``machine`` have the columns of ``reports.analysis_data.campaign_ratings`` (item, annotator,
    compound and the three scores); ``machine`` is one annotator, one row per item it answered validly.
    ``classes`` maps a compound to its class name (or None); the type scores map compounds to type-level means.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    _check_machine(machine)
    human_means = _item_means(humans)
    compared = set(machine["item"]) & set(human_means["item"])
    pairs = {label: _pairs(human_means, machine, question) for label, question in QUESTIONS.items()}
    return {
        "level": level,
        "items_answered": int(machine["item"].nunique()),
        "items_compared": len(compared),
        "scores": {label: _score_figures(frame) for label, frame in pairs.items()},
        "alpha": {label: _alphas(humans, machine, question) for label, question in QUESTIONS.items()},
        "reliability": {label: _reliability(humans, machine, question) for label, question in QUESTIONS.items()},
        "typetoken": (
            _typetoken(human_means, machine, compared, classes, human_type_scores, machine_type_scores)
            if level == "token"
            else None
        ),
        "paraphrases": paraphrase_overlap(human_paraphrases, machine_paraphrases),
        "by_class": _by_class(pairs, classes),
        "points": _points(pairs["compound"]),
    }


def machine_comparisons(
    humans: pd.DataFrame,
    machines: Mapping[str, pd.DataFrame],
    classes: Mapping[Hashable, str | None],
    human_paraphrases: Iterable[Paraphrase] = (),
    machine_paraphrases: Mapping[str, Iterable[Paraphrase]] | None = None,
    level: Level = "token",
    human_type_scores: Mapping[Hashable, float] | None = None,
    machine_type_scores: Mapping[str, Mapping[Hashable, float]] | None = None,
) -> dict[str, dict]:
    """``machine_comparison`` of each machine annotator (label → answers), keyed by the same labels."""
    human_paraphrases = list(human_paraphrases)  # read once per model: an iterator would be empty the second time
    return {
        label: machine_comparison(
            humans,
            frame,
            classes,
            human_paraphrases,
            (machine_paraphrases or {}).get(label, ()),
            level,
            human_type_scores,
            (machine_type_scores or {}).get(label),
        )
        for label, frame in machines.items()
    }


def _check_machine(machine: pd.DataFrame) -> None:
    if machine["annotator"].nunique() > 1:
        raise ValueError("machine holds several annotators: compare each with machine_comparisons")
    if machine["item"].duplicated().any():
        raise ValueError("machine answers an item more than once: pass one valid answer per item")


def _number(value: object) -> float | None:
    return float(value) if finite(value) else None


def _item_means(humans: pd.DataFrame) -> pd.DataFrame:
    """One row per item: item, compound and the humans' mean of each question (NaN where nobody answered it)."""
    long = per_item(humans, SCORES)
    wide = long.pivot(index=["item", "compound"], columns="question", values="mean")
    return wide.reindex(columns=SCORES).reset_index().rename_axis(columns=None)


def _pairs(human_means: pd.DataFrame, machine: pd.DataFrame, question: str) -> pd.DataFrame:
    """Columns item, compound, machine, human: the items where both answered ``question``."""
    humans = human_means.loc[human_means[question].notna(), ["item", question]].rename(columns={question: "human"})
    model = machine.loc[machine[question].notna(), ["item", "compound", question]].rename(columns={question: MACHINE})
    return model.merge(humans, on="item").astype({MACHINE: float, "human": float})


def _per_compound(pairs: pd.DataFrame) -> pd.DataFrame:
    # Eq. 1 on both sides: each compared sentence weighs the same, whatever its number of ratings.
    return pairs.groupby("compound", sort=True)[[MACHINE, "human"]].mean()


def _points(pairs: pd.DataFrame) -> list[dict]:
    """Per compound both rated: the humans' and the model's eq. 1 means of the compound score (what a scatter draws)."""
    compounds = _per_compound(pairs)
    return [
        {"compound": compound, "human": float(human), "machine": float(model)}
        for compound, model, human in zip(compounds.index, compounds[MACHINE], compounds["human"], strict=True)
    ]


def _score_figures(pairs: pd.DataFrame) -> dict:
    compounds = _per_compound(pairs)
    error = pairs[MACHINE] - pairs["human"]
    return {
        "spearman_item": spearman(pairs[MACHINE].to_numpy(), pairs["human"].to_numpy()).as_dict(),
        "spearman_compound": spearman(compounds[MACHINE].to_numpy(), compounds["human"].to_numpy()).as_dict(),
        "mae_item": _number(error.abs().mean()),
        "mae_compound": _number((compounds[MACHINE] - compounds["human"]).abs().mean()),
        "bias": _number(error.mean()),
        "n_items": int(len(pairs)),
        "n_compounds": int(len(compounds)),
    }


def _together(humans: pd.DataFrame, machine: pd.DataFrame, question: str) -> pd.DataFrame:
    """Humans and model in one ratings frame, labelled apart (string labels: ids and a name would not sort)."""
    import pandas as pd

    people = humans[["item", "annotator", question]].assign(annotator="human:" + humans["annotator"].astype(str))
    model = machine[["item", question]].assign(annotator=MACHINE)
    return pd.concat([people, model], ignore_index=True)


def _alphas(humans: pd.DataFrame, machine: pd.DataFrame, question: str) -> dict:
    both = _together(humans, machine, question)
    # The values present, and the scale: interval alpha over a domain with unused values is the same number.
    domain = np.union1d(SCORE_DOMAIN, both[question].dropna().to_numpy(dtype=float))
    people = both[both["annotator"] != MACHINE]
    without, with_machine = alpha(people, question, "interval", domain), alpha(both, question, "interval", domain)
    return {
        "humans": _number(without),
        "with_machine": _number(with_machine),
        "change": _number(with_machine - without),
    }


def _reliability(humans: pd.DataFrame, machine: pd.DataFrame, question: str) -> dict:
    both = _together(humans, machine, question)
    is_model = both["annotator"] == MACHINE
    exact = both.loc[is_model, question].astype(float)
    on_scale = np.clip(np.floor(exact + 0.5), 0, 5)
    both.loc[is_model, question] = on_scale
    table = annotator_reliability(both, question).set_index("annotator")
    people = table.drop(index=MACHINE, errors="ignore")["rho"]
    people = people[np.isfinite(people.to_numpy(dtype=float))]
    model = table.loc[MACHINE] if MACHINE in table.index else None
    rho = _number(model["rho"]) if model is not None else None
    percentile = None
    if rho is not None and len(people):
        # Ties count half, so a model equal to every worker sits at the 50th percentile.
        percentile = 100.0 * float(((people < rho).sum() + 0.5 * (people == rho).sum()) / len(people))
    return {
        "rho": rho,
        "p": _number(model["p"]) if model is not None else None,
        "n_shared": int(model["n_shared"]) if model is not None else 0,
        "human_median_rho": _number(people.median()) if len(people) else None,
        "percentile": percentile,
        "n_humans": int(len(people)),
        "scores_rounded": bool((exact.dropna() != on_scale.dropna()).any()),
    }


def _typetoken(
    human_means: pd.DataFrame,
    machine: pd.DataFrame,
    compared: set,
    classes: Mapping[Hashable, str | None],
    human_type_scores: Mapping[Hashable, float] | None,
    machine_type_scores: Mapping[Hashable, float] | None,
) -> dict | None:
    """Table 2's analysis of each side's sentence scores on the compared sentences, with its own type scores."""
    if not compared:
        return None

    def sentences(frame: pd.DataFrame, type_scores: Mapping[Hashable, float] | None) -> pd.DataFrame:
        rows = frame[frame["item"].isin(compared)][["compound", *SCORES]].astype({q: float for q in SCORES})
        rows["class"] = rows["compound"].map(lambda c: classes.get(c))
        rows["type_score"] = rows["compound"].map(lambda c: _type_score(type_scores, c))
        return rows

    reports = {}
    for side, frame, type_scores in (
        ("human", human_means, human_type_scores),
        (MACHINE, machine, machine_type_scores),
    ):
        report = typetoken_report(sentences(frame, type_scores), language="")
        report.pop("language")
        reports[side] = report
    return reports


def _type_score(type_scores: Mapping[Hashable, float] | None, compound: Hashable) -> float:
    value = (type_scores or {}).get(compound)
    return float(value) if finite(value) else math.nan


def paraphrase_overlap(human_paraphrases: Iterable[Paraphrase], machine_paraphrases: Iterable[Paraphrase]) -> dict:
    """How many of the model's paraphrases some human also gave, for the same item and for the same compound.

    Texts are compared after ``paraphrases.normalise`` (case, punctuation, spaces; words such as articles stay);
    one text given twice for an item counts once. A share is over the model's paraphrases of the items (or
    compounds) that some human paraphrased, since elsewhere no match is possible; it is None when there are none.
    """
    by_item: dict[Hashable, set[str]] = defaultdict(set)
    by_compound: dict[Hashable, set[str]] = defaultdict(set)
    for item, compound, text in human_paraphrases:
        if key := normalise(text):
            by_item[item].add(key)
            by_compound[compound].add(key)
    item_texts, compound_texts = set(), set()
    for item, compound, text in machine_paraphrases:
        if key := normalise(text):
            item_texts.add((item, key))
            compound_texts.add((compound, key))
    return {
        "machine_item_paraphrases": len(item_texts),
        "machine_compound_paraphrases": len(compound_texts),
        "human_item_paraphrases": sum(len(texts) for texts in by_item.values()),
        "human_compound_paraphrases": sum(len(texts) for texts in by_compound.values()),
        "same_item": _overlap(item_texts, by_item),
        "same_compound": _overlap(compound_texts, by_compound),
    }


def _overlap(texts: set[tuple[Hashable, str]], human: Mapping[Hashable, set[str]]) -> dict:
    comparable = [(unit, key) for unit, key in texts if unit in human]
    matched = sum(key in human[unit] for unit, key in comparable)
    return {"n": len(comparable), "matched": matched, "share": matched / len(comparable) if comparable else None}


def _by_class(pairs: Mapping[str, pd.DataFrame], classes: Mapping[Hashable, str | None]) -> dict:
    """Per class and question: the mean over the class's compounds of each side's compound score, and n.

    Compounds without a class are left out; every class of the vocabulary has an entry (n 0, means None).
    """
    present = {name for name in classes.values() if name is not None}
    names = [*CLASSES, *sorted(present - set(CLASSES))]
    result: dict[str, dict] = {name: {} for name in names}
    for label, frame in pairs.items():
        compounds = _per_compound(frame)
        compounds["class"] = [classes.get(c) for c in compounds.index]
        for name in names:
            rows = compounds[compounds["class"] == name]
            result[name][label] = {
                "human": _number(rows["human"].mean()),
                MACHINE: _number(rows[MACHINE].mean()),
                "n": int(len(rows)),
            }
    return result
