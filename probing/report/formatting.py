"""Numbers and names as the papers print them (pure: no Django), for the report pages and figures.

- ρ with two decimals, means and standard deviations with three (He et al. 2024, tables 2-16);
- p-values in scientific notation (``3.1e-12``), with the Benjamini-Hochberg q when there is one;
- significance as the papers mark it: a correlation with p > 0.05 is left out ("–", He et al. 2024;
  Garcia et al. 2021) and one with 0.01 < p ≤ 0.05 is in italics (Garcia et al. 2021, ACL, table 5);
- below ``MIN_N`` compounds a ρ gets no p and no significance mark: with four compounds a ρ of
  ±1.00 is one ordering in 24 and p says nothing a reader should act on; the cell is marked
  "small n" and shows its n, as every cell does;
- readable headers for the report's keys (``sim_syn`` is P_Syn, ``no_overlap`` "No lexical overlap").
"""

from __future__ import annotations

from collections.abc import Mapping

from core.statistics import finite
from datasets.vocabulary import CLASS_LABELS
from probing.vocabulary import LEVEL_LABELS, LIKELIHOOD_LABELS, MEASURE_LABELS, STD, SUBSET_LABELS

DASH = "–"
ALPHA = 0.05
STRONG = 0.01  # below this, a significant ρ is printed upright; between it and ALPHA, in italics
MIN_N = 10  # fewer compounds than this: a ρ is shown, marked, with no p and no significance

# Names of the report's keys that are not measures, as a page's header says them.
HEADERS = {
    "language": "Language",
    "compound": "Compound",
    "condition": "Sentences",
    "level": "Level",
    "class": "Class",
    "human": "Human score",
    "probe": "Probe",
    "granularity": "Level of judgement",
    "against": "Against",
    "measure": "Measure",
    "subset": "Compounds",
    "n": "n",
    "rho": "ρ",
    "p": "p",
    "n_sentences": "Sentences",
    "layer": "Layer",
    "nc_out": "NC_out (P4)",
    "nc_out_comp": "NC_outComp",
    "comp": "Human score",
    "frequency": "Frequency",
    "ppmi": "PPMI",
    "token": "Token level",
    "type": "Type level",
    "sim": "Cosine",
    "naturalistic": "Naturalistic",
    "neutral": "Neutral",
    "sentence_id": "Sentence",
    "length": "Words",
}


def fixed(value, decimals: int) -> str:
    """``value`` with ``decimals`` decimals; no "-0.00" (a value that rounds to zero has no sign); "–" if missing."""
    if not finite(value):
        return DASH
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def rho_text(value) -> str:
    return fixed(value, 2)


def stat_text(value) -> str:
    return fixed(value, 3)


def p_text(value) -> str:
    """A p-value in scientific notation (``3.1e-12``, ``4.0e-02``); "–" when missing."""
    if not finite(value):
        return DASH
    if value == 0:
        return "0"
    return f"{value:.1e}"


def significance(p, alpha: float = ALPHA) -> str:
    """``"strong"`` (p ≤ 0.01), ``"weak"`` (0.01 < p ≤ alpha) or ``""`` (not significant, or unknown)."""
    if not finite(p) or p > alpha:
        return ""
    return "strong" if p <= STRONG else "weak"


def too_few(n) -> bool:
    """Fewer compounds than ``MIN_N`` behind a ρ: no p-value and no significance for it."""
    return finite(n) and n < MIN_N


def correlation_cell(row: Mapping | None, show_all: bool = False, decisive: str = "p") -> dict | None:
    """A ρ as a table shows it: ``{"text", "mark", "shown", "title", "p", "q", "n", "small"}``; None without a row.

    ``decisive`` is the p-value that decides significance (``"p"``, or ``"p_adjusted"`` with
    Benjamini-Hochberg). A non-significant ρ is not shown unless ``show_all``, and then greyed. A ρ
    over fewer than ``MIN_N`` compounds is shown, marked small, without p or significance.
    """
    if row is None:
        return None
    n = row.get("n")
    small = too_few(n)
    p = row.get(decisive) if row.get(decisive) is not None else row.get("p")
    mark = "" if small else significance(p)
    rho = row.get("rho")
    shown = finite(rho) and (small or bool(mark) or show_all)
    title = f"ρ = {fixed(rho, 3)}, n = {n if n is not None else DASH}"
    if small:
        title += f": fewer than {MIN_N} compounds, too few for a p-value"
    else:
        title += f", p = {p_text(row.get('p'))}"
        if row.get("p_adjusted") is not None:
            title += f", q (Benjamini-Hochberg) = {p_text(row.get('p_adjusted'))}"
    return {
        "text": rho_text(rho) if shown else DASH,
        "mark": mark if shown else "",
        "p": p_text(row.get("p")) if shown and not small else "",
        "q": p_text(row.get("p_adjusted")) if shown and not small and row.get("p_adjusted") is not None else "",
        "n": "" if n is None else str(n),
        "small": bool(small),
        "shown": shown,
        "title": title,
    }


def measure_label(measure: str) -> str:
    base, standardised = (measure[: -len(STD)], True) if measure.endswith(STD) else (measure, False)
    label = (
        MEASURE_LABELS.get(base)
        or LIKELIHOOD_LABELS.get(base)
        or {"sim_head": "P_Head", "sim_modifier": "P_Modifier"}.get(base)
        or header(base)
    )
    return f"{label} (standardised)" if standardised else label


def header(key: str) -> str:
    """A report key as a column header: known names, else its words capitalised (``n_rand`` → "N rand")."""
    if key in HEADERS:
        return HEADERS[key]
    if key in MEASURE_LABELS or key.endswith(STD):
        return measure_label(key)
    if key in SUBSET_LABELS:
        return SUBSET_LABELS[key]
    if key in LEVEL_LABELS:
        return LEVEL_LABELS[key]
    return key.replace("_", " ").capitalize()


def value_text(key: str, value) -> str:
    """Any report value as a cell shows it: no ``True``, ``None`` or ``[]``; classes and conditions by name."""
    if value is None or value == [] or value == {}:
        return DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "class":
        return CLASS_LABELS.get(value, str(value))
    if isinstance(value, str):
        return HEADERS.get(value) or LEVEL_LABELS.get(value) or value
    if isinstance(value, list | tuple):
        return ", ".join(value_text(key, v) for v in value)
    if key == "rho":
        return rho_text(value)
    if key in ("p", "p_adjusted"):
        return p_text(value)
    if isinstance(value, int):
        return str(value)
    if finite(value):
        return stat_text(value)
    return str(value)
