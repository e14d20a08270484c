"""A probe report's findings in plain words, generated from its numbers (pure: no Django).

The page opens with these, for a reader who has not read the paper: per language, at the NC level
in naturalistic sentences (the papers' main setting, table 8), whether the compound is closer to
its synonym than to a random compound and to its words' synonyms, whether the measures follow the
human compositionality scores (ρ, with the same rules as the tables: no claim below ``formatting.MIN_N``
compounds or with p > 0.05), and where idiomatic and compositional compounds differ.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.statistics import finite
from datasets.vocabulary import COMPOSITIONAL, IDIOMATIC, language_name
from probing.report.formatting import ALPHA, p_text, rho_text, stat_text, too_few
from probing.vocabulary import ALL, NATURALISTIC, NC


def _summary(report: Mapping, language: str) -> dict[str, Mapping]:
    return {
        row["measure"]: row
        for row in report.get("summary") or ()
        if row.get("language") == language and row.get("level") == NC and row.get("condition") == NATURALISTIC
    }


def _rho(report: Mapping, language: str, measure: str, subset: str = ALL) -> Mapping | None:
    for row in report.get("correlations") or ():
        if (
            row.get("language") == language
            and row.get("level") == NC
            and row.get("condition") == NATURALISTIC
            and row.get("measure") == measure
            and (row.get("subset") or ALL) == subset
            and row.get("layer") is None
        ):
            return row
    return None


def _class_means(report: Mapping, language: str, measure: str) -> dict[str, tuple[float, int]]:
    """Mean of ``measure`` per class over the per-compound rows (NC level, naturalistic)."""
    values: dict[str, list[float]] = {}
    for row in report.get("per_compound") or ():
        if row.get("language") == language and row.get("level") == NC and row.get("condition") == NATURALISTIC:
            if finite(row.get(measure)) and row.get("class"):
                values.setdefault(row["class"], []).append(row[measure])
    return {cls: (sum(v) / len(v), len(v)) for cls, v in values.items() if v}


def _correlation_words(row: Mapping | None, label: str) -> str:
    if row is None or not finite(row.get("rho")):
        return f"{label} could not be correlated with the human scores here."
    n = row.get("n") or 0
    if too_few(n):
        return f"{label}: only {n} compounds have a human score, too few to say whether it follows them."
    if not finite(row.get("p")) or row["p"] > ALPHA:
        return f"{label} does not follow the human compositionality scores (ρ {rho_text(row['rho'])}, p {p_text(row.get('p'))}, n {n})."
    direction = (
        "the more compositional the compound, the higher" if row["rho"] > 0 else "the more idiomatic, the higher"
    )
    return (
        f"{label} follows the human compositionality scores: ρ {rho_text(row['rho'])} "
        f"(p {p_text(row['p'])}, n {n}): {direction} it."
    )


def findings(report: Mapping) -> list[str]:
    """Sentences on what the report's numbers show, one language after the other; [] without a summary."""
    out = []
    languages = sorted({row.get("language") for row in report.get("summary") or () if row.get("language")})
    for language in languages:
        means = _summary(report, language)
        syn, rand, words = (means.get(m, {}).get("mean") for m in ("sim_syn", "sim_rand", "sim_words_syn"))
        name = language_name(language)
        if not finite(syn):
            continue
        n = means["sim_syn"].get("n")
        lead = f"{name}, NC level, naturalistic sentences ({n} compounds): "
        if finite(rand):
            closer = "closer to" if syn > rand else "no closer to"
            out.append(
                f"{lead}a compound's vector is {closer} its synonym's (P_Syn {stat_text(syn)}) than to a random "
                f"compound's (P_Rand {stat_text(rand)})."
            )
        if finite(words):
            gap = syn - words
            if gap > 0.02:
                words_text = "the model tells the compound's meaning from its words' (A_Syn|WordsSyn > 0)"
            else:
                words_text = (
                    "the model places it about as close to its words' synonyms: it composes rather than reads idioms"
                )
            out.append(f"{name}: P_WordsSyn {stat_text(words)} against P_Syn {stat_text(syn)}; {words_text}.")
        out.append(f"{name}: " + _correlation_words(_rho(report, language, "sim_syn"), "P_Syn"))
        classes = _class_means(report, language, "sim_syn")
        if IDIOMATIC in classes and COMPOSITIONAL in classes:
            (idiom, n_i), (comp, n_c) = classes[IDIOMATIC], classes[COMPOSITIONAL]
            out.append(
                f"{name}: idiomatic compounds average P_Syn {stat_text(idiom)} (n {n_i}), compositional ones "
                f"{stat_text(comp)} (n {n_c})."
            )
    return out
