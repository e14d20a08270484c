"""What an import keeps when a row exists already (pure: no Django import).

Files overlap (NCTTI, NCS and NCIMP share compounds and sentences): the better of two values
stays whichever file is imported last: capitals, spans from tags, available texts, precise scores.
The rows are any objects with the dataset's fields (model instances, in ``importing``).
"""

from __future__ import annotations

from typing import Any

from datasets import vocabulary


def better_casing(current: str, candidate: str) -> str:
    """Keep capitals that some file gives ("Dutch courage" over "dutch courage")."""
    if current == candidate:
        return current
    if candidate != candidate.lower() and current == current.lower():
        return candidate
    return current


# A span read from tags or set by hand beats one found by searching or diffing the text.
_SPAN_RANK = {
    vocabulary.SPAN_FROM_EDIT: 4,
    vocabulary.SPAN_FROM_TAGS: 3,
    vocabulary.SPAN_FROM_MARKUP: 3,
    vocabulary.SPAN_FROM_DIFF: 2,
    vocabulary.SPAN_FROM_SEARCH: 2,
    vocabulary.SPAN_FROM_FUZZY: 1,
    "": 0,
}


_SPAN_FIELDS = ("text", "span_start", "span_end", "span_source", "plural")


def keep_better_span(obj: Any, values: dict) -> dict:
    """Keep a text and span read from tags (or set by hand) over one found by searching.

    NCTTI after NCIMP must not undo NCIMP's tag spans, nor its corrected texts
    ("caixas-fortes" where NCTTI has "caixas-forte").
    """
    if "span_source" not in values:
        return values
    if _SPAN_RANK.get(values["span_source"], 0) < _SPAN_RANK.get(obj.span_source, 0):
        return {k: x for k, x in values.items() if k not in _SPAN_FIELDS}
    return values


def keep_available_text(sentence: Any, values: dict) -> dict:
    """A corpus pointer never replaces a text another file gave (NCIMP fills NCTTI's gaps)."""
    if values.get("available") is False and sentence.available and sentence.text:
        return {"corpus_pointer": values.get("corpus_pointer", "")}
    return values


def keep_precise_scores(obj: Any, values: dict) -> dict:
    """Keep a score over the same score given with fewer decimals.

    NCTTI gives a sentence's token score to 2 decimals (4.33); the NCIMP scores table gives the
    same score as computed (4.33333333333333): whichever is imported last, the precise one stays.
    """
    return {k: x for k, x in values.items() if not (k in _SCORE_FIELDS and rounded_from(getattr(obj, k, None), x))}


_SCORE_FIELDS = ("type_score", "token_score")


def rounded_from(stored, incoming) -> bool:
    """Is ``incoming`` ``stored`` rounded to ``incoming``'s decimals (and so less precise)?

    At least two decimals: a file's 2.0 may be 2.00, which 1.75 does not round to.
    """
    if not isinstance(stored, float | int) or not isinstance(incoming, float | int) or stored == incoming:
        return False
    decimals = max(2, len(repr(float(incoming)).partition(".")[2].rstrip("0")))
    return round(float(stored), decimals) == float(incoming)
