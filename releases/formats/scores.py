"""The human scores table of a release, like the public ``human_compositionality_scores.csv`` (pure: no Django import).

Four rows per compound, one per NCIMP file of its language (naturalistic slots 1-3, then
neutral), sorted by language, file and compound key. The format itself (``SCORES_COLUMNS``: what
the release writes here, what the data card and datapackage.json say, and what the importer
``datasets.formats.ncimp_scores`` reads back) is defined once, in ``datasets.formats.ncimp_columns``.
Published values stored on import (per-sentence token scores, sentence lengths, the synonym
overlap) are written as they are; the rules below fill in where there is none.
"""

from __future__ import annotations

from datasets import vocabulary
from datasets.formats.ncimp_columns import (
    DECIMALS,
    SCORES_COLUMNS,
    SCORES_FILE,
    SCORES_ROW_FILES,
    SIGNIFICANT_DIGITS,
    experiment,
    row_type,
    score_class,
)
from datasets.overlap import synonym_overlap
from releases.formats.ncimp_writer import csv_bytes, ncimp_path
from releases.snapshot import ReleaseCompound, ReleaseSentence, Snapshot


def number(x: float | None) -> str:
    return "" if x is None else repr(round(float(x), DECIMALS))


def precise(x: float | None) -> str:
    return "" if x is None else repr(float(f"{float(x):.{SIGNIFICANT_DIGITS}g}"))


def overlap_cell(compound: ReleaseCompound) -> str:
    if compound.synonym_overlap is not None:
        return str(compound.synonym_overlap)
    count = synonym_overlap(compound.text, compound.gold_synonym)
    return "" if count is None else str(count)


def length_cell(sentence: ReleaseSentence | None) -> str:
    if sentence is None:
        return ""
    return str(sentence.words)


def score_rows(snapshot: Snapshot) -> list[list[str]]:
    rows = []
    snapshot = snapshot.sorted()
    for language in snapshot.languages:
        compounds = [c for c in snapshot.compounds if c.language == language]
        for slot, name in SCORES_ROW_FILES:
            for c in compounds:
                row = {
                    "language": language,
                    "experiment_type": experiment(slot),
                    "file": ncimp_path(language, name),
                    "compound": c.text,
                    "ClassType": score_class(c.type_score)
                    or vocabulary.CLASS_SHORT.get(c.compositionality_class or "", ""),
                    "ClassToken": score_class(c.token_score),
                    "CompositionalityType": number(c.type_score),
                    "CompositionalityTokenSents": number(c.token_score),
                    "MWE Synonym Overlap": overlap_cell(c),
                    "Type": row_type(language, slot),
                }
                if slot is None:
                    row["CompositionalityToken"] = number(c.token_score)
                    row["naturalistics_sentence_length"] = "0"
                else:
                    s = next((s for s in c.sentences if s.kind == vocabulary.NATURALISTIC and s.slot == slot), None)
                    row["CompositionalityToken"] = precise(s.token_score if s else None)
                    row["naturalistics_sentence_length"] = length_cell(s)
                rows.append([row[name] for name in SCORES_COLUMNS])
    return rows


def scores_file(snapshot: Snapshot) -> dict[str, bytes]:
    return {SCORES_FILE: csv_bytes(list(SCORES_COLUMNS), score_rows(snapshot))}
