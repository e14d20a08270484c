"""The human scores table, like the public ``human_compositionality_scores.csv`` (pure: no Django import).

Four rows per compound, one per NCIMP file of its language (naturalistic slots 1-3, then
neutral), sorted by language, file and compound key. ``COLUMNS`` says how each column is
computed here, once for the code, the data card and datapackage.json.
"""

from __future__ import annotations

import re

from datasets import vocabulary as v
from datasets.formats.release import ncimp_columns as nc
from datasets.formats.release.ncimp_writer import csv_bytes, ncimp_path
from datasets.releases.snapshot import ReleaseCompound, Snapshot

SCORES_FILE = "human_compositionality_scores.csv"
DECIMALS = 4
# The public table's classes follow the scores with these cut-offs (it agrees on all 1836 rows):
# idiomatic below 1.5, partly compositional below 3.5, compositional from 3.5.
CLASS_CUTS = ((1.5, "NC"), (3.5, "PC"))

COLUMNS = {
    "language": ("string", "Language code."),
    "experiment_type": ("string", "Naturalistic or Neutral: the NCIMP file the row is about."),
    "file": ("string", "Path of that NCIMP file in this release."),
    "compound": ("string", "The noun compound."),
    "ClassType": (
        "string",
        "Class from CompositionalityType: NC below 1.5, PC below 3.5, C from 3.5 "
        "(the stored class when there is no type score).",
    ),
    "ClassToken": ("string", "Class from CompositionalityTokenSents with the same cut-offs; empty without it."),
    "CompositionalityType": ("number", f"Compositionality at type level (0-5), {DECIMALS} decimals."),
    "CompositionalityToken": (
        "number",
        "Naturalistic rows: the token-level score of that sentence; Neutral rows: CompositionalityTokenSents.",
    ),
    "CompositionalityTokenSents": ("number", "The compound's token-level score: the mean over its sentences."),
    "MWE Synonym Overlap": (
        "integer",
        "1 when the gold synonym shares a word with the compound (case-insensitive, split at spaces and "
        "hyphens), else 0; empty without a gold synonym.",
    ),
    "naturalistics_sentence_length": (
        "integer",
        "Naturalistic rows: words of that sentence (whitespace tokens with a letter or digit: punctuation "
        "is not counted), empty without one; Neutral rows: 0.",
    ),
    "Type": ("string", "<LANG>-Nat or <LANG>-Neut."),
}


def score_class(score: float | None) -> str:
    if score is None:
        return ""
    return next((code for cut, code in CLASS_CUTS if score < cut), "C")


def number(x: float | None) -> str:
    return "" if x is None else repr(round(float(x), DECIMALS))


def sentence_length(text: str) -> int:
    # Punctuation tokens are left out: the public lengths agree with this on 417 of the 540
    # Portuguese sentences, and with a plain whitespace count on only 46.
    return sum(1 for token in text.split() if re.search(r"\w", token))


def synonym_overlap(compound: ReleaseCompound) -> str:
    if not compound.gold_synonym.strip():
        return ""
    return "1" if _words(compound.text) & _words(compound.gold_synonym) else "0"


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"[\s-]+", text.casefold()) if w}


def score_rows(snapshot: Snapshot) -> list[list[str]]:
    rows = []
    snapshot = snapshot.sorted()
    for language in snapshot.languages:
        compounds = [c for c in snapshot.compounds if c.language == language]
        files = [(slot, name) for slot, name in enumerate(nc.NATURALISTIC_FILES, start=1)] + [(None, nc.NEUTRAL_FILE)]
        for slot, name in files:
            for c in compounds:
                common = {
                    "language": language,
                    "file": ncimp_path(language, name),
                    "compound": c.text,
                    "ClassType": score_class(c.type_score) or v.CLASS_SHORT.get(c.compositionality_class or "", ""),
                    "ClassToken": score_class(c.token_score),
                    "CompositionalityType": number(c.type_score),
                    "CompositionalityTokenSents": number(c.token_score),
                    "MWE Synonym Overlap": synonym_overlap(c),
                }
                if slot is None:
                    row = {
                        **common,
                        "experiment_type": "Neutral",
                        "CompositionalityToken": number(c.token_score),
                        "naturalistics_sentence_length": "0",
                        "Type": f"{language.upper()}-Neut",
                    }
                else:
                    s = next((s for s in c.sentences if s.kind == v.NATURALISTIC and s.slot == slot), None)
                    row = {
                        **common,
                        "experiment_type": "Naturalistic",
                        "CompositionalityToken": number(s.token_score if s else None),
                        "naturalistics_sentence_length": str(sentence_length(s.text)) if s else "",
                        "Type": f"{language.upper()}-Nat",
                    }
                rows.append([row[name] for name in COLUMNS])
    return rows


def scores_file(snapshot: Snapshot) -> dict[str, bytes]:
    return {SCORES_FILE: csv_bytes(list(COLUMNS), score_rows(snapshot))}
