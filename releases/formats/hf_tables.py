"""The tables of a release as a Hugging Face user loads them: columns, types, keys and rows (pure: no Django import).

Five tables, each a flat, typed view of what the release already holds, so that ``datasets.load_dataset``
gives every column its type without guessing from JSON or CSV text:

- ``compounds``: one row per compound, the scalars of tidy/compounds.jsonl (scores at full precision)
  and its paraphrases as a list of records; its sentences are a table of their own.
- ``sentences``: one row per original sentence, with its span as two integers and its length in words.
- ``pairs``: one row per minimal pair, exactly the columns of tidy/pairs.parquet.
- ``scores``: the human scores table (human_compositionality_scores.csv) with numbers as numbers and
  empty cells as nulls.
- ``machine_ratings``: only in a release that opted in; exactly the columns of tidy/machine_ratings.parquet.

Rows follow the snapshot's canonical order, so the same snapshot always gives the same rows. Every
column is described once, here (``COLUMN_DESCRIPTIONS``), for the dataset card, datapackage.json and
Croissant; so are the files' names in hf/ (``hf_path_parts``), which datapackage.py reads without the
card that hf.py needs.
"""

from __future__ import annotations

import re
from functools import cache

from datasets import vocabulary
from datasets.formats.ncimp_columns import SCORES_COLUMNS
from datasets.overlap import synonym_overlap
from releases.formats import machine, tidy
from releases.formats.scores import score_rows
from releases.snapshot import ReleaseCompound, Snapshot

HF_DIR = "hf"
HF_README = f"{HF_DIR}/README.md"

COMPOUNDS, SENTENCES, PAIRS, SCORES, MACHINE_RATINGS = "compounds", "sentences", "pairs", "scores", "machine_ratings"
TABLES = (COMPOUNDS, SENTENCES, PAIRS, SCORES, MACHINE_RATINGS)

_PATH = re.compile(rf"^{HF_DIR}/(?P<table>{'|'.join(TABLES)})/(?P<language>[a-z0-9_-]+)\.parquet$")

TABLE_DESCRIPTIONS: dict[str, str] = {
    COMPOUNDS: "One row per noun compound: its words, compositionality class and scores, gold synonym, corpus "
    "frequencies and paraphrases.",
    SENTENCES: "One row per original sentence of a compound (naturalistic or neutral), with the compound's "
    "character span and the sentence's token-level score.",
    PAIRS: "One row per minimal pair: an original sentence and its variant, where the compound is replaced by a "
    "synonym, its head, its modifier or a random compound, with both spans and the compound's scores.",
    SCORES: "The human compositionality scores, four rows per compound (one per NCIMP file), as the public "
    "human_compositionality_scores.csv gives them.",
    MACHINE_RATINGS: "MACHINE-MADE ratings: one row per answer of a language model to a campaign's questions, "
    "never part of the human scores.",
}

TABLE_KEYS: dict[str, tuple[str, ...]] = {
    COMPOUNDS: ("language", "compound"),
    SENTENCES: ("language", "compound", "sentence_id"),
    PAIRS: ("language", "compound", "sentence_id", "probe_kind", "rank", "isolated"),
    SCORES: ("language", "file", "compound"),
    MACHINE_RATINGS: (
        "language",
        "compound",
        "campaign",
        "sentence_id",
        "model",
        "model_identity",
        "template",
        "template_version",
        "settings",
        "sample",
        "machine_annotator",
    ),
}

_COMPOUND_OWN = {
    "compound": "The noun compound as the dataset cites it (tidy/compounds.jsonl's text).",
    "synonym_overlap": "Content words it shares with its gold synonym: the published value (NCIMP's MWE Synonym "
    "Overlap), else counted by the workbench's rule (datasets/overlap.py); null without either.",
    "paraphrases": "Paraphrases given by annotators, most frequent first: level (type or token), slot (token level: "
    "the naturalistic sentence's slot, else null), text, frequency (how many annotators gave it).",
}
_SKIPPED = ("text", "sentences", "paraphrases")
COLUMN_DESCRIPTIONS: dict[str, dict[str, str]] = {
    COMPOUNDS: {
        "language": tidy.COMPOUND_FIELDS["language"],
        "compound": _COMPOUND_OWN["compound"],
        **{k: _COMPOUND_OWN.get(k, d) for k, d in tidy.COMPOUND_FIELDS.items() if k not in ("language", *_SKIPPED)},
        "paraphrases": _COMPOUND_OWN["paraphrases"],
    },
    SENTENCES: {
        "language": "Language code (en, pt).",
        "compound": "The noun compound the sentence is about.",
        "sentence_id": "<kind>-<slot>, e.g. naturalistic-1, neutral_short-2: the sentence_id of its pairs.",
        "kind": "naturalistic (from a corpus), neutral_short (This is a/an <NC>) or neutral_long (This is what a/an "
        "<NC> is supposed to be).",
        "slot": "Its slot: naturalistic sentences 1-3; neutral ones 1 (singular) or 2 (plural).",
        "text": "The sentence.",
        "span_start": "Start of the compound in text (character offset); null when it could not be located.",
        "span_end": "End of the compound in text (character offset, exclusive); null when it could not be located.",
        "plural": "Whether the compound occurs in the plural.",
        "token_score": "Compositionality of the compound in this sentence (0-5), full precision; null when unrated.",
        "length": "Words in the sentence: as published when stored, else whitespace tokens with a letter or digit.",
    },
    PAIRS: dict(tidy.PAIR_FIELDS),
    SCORES: {name: text for name, (_, text) in SCORES_COLUMNS.items()},
    MACHINE_RATINGS: dict(machine.MACHINE_FIELDS),
}


@cache
def table_schema(table: str):
    """The Arrow schema of ``table`` (pyarrow imported on first use: reading a release needs none)."""
    import pyarrow as pa

    if table == PAIRS:
        return tidy.pair_schema()
    if table == MACHINE_RATINGS:
        return machine.machine_schema()
    if table == SCORES:
        types = {"string": pa.string(), "number": pa.float64(), "integer": pa.int32()}
        required = {"language", "experiment_type", "file", "compound", "Type"}
        return pa.schema([pa.field(n, types[t], nullable=n not in required) for n, (t, _) in SCORES_COLUMNS.items()])
    text, number, integer = pa.string(), pa.float64(), pa.int32()
    if table == SENTENCES:
        types = {"slot": integer, "span_start": integer, "span_end": integer, "plural": pa.bool_()}
        types |= {"token_score": number, "length": integer}
        nullable = {"span_start", "span_end", "token_score"}
    elif table == COMPOUNDS:
        paraphrase = pa.struct(
            [
                pa.field("level", text, nullable=False),
                pa.field("slot", integer),
                pa.field("text", text, nullable=False),
                pa.field("frequency", integer, nullable=False),
            ]
        )
        numbers = ("type_score", "token_score", "head_score", "modifier_score", "frequency", "modifier_frequency")
        types = dict.fromkeys((*numbers, "head_frequency", "pmi", "ppmi"), number)
        types |= {"synonym_overlap": integer, "paraphrases": pa.list_(pa.field("item", paraphrase, nullable=False))}
        nullable = {*types, "compositionality_class"} - {"paraphrases"}
    else:
        raise ValueError(f"no table {table!r} (tables: {', '.join(TABLES)})")
    return pa.schema([pa.field(n, types.get(n, text), nullable=n in nullable) for n in COLUMN_DESCRIPTIONS[table]])


def _overlap(c: ReleaseCompound) -> int | None:
    return c.synonym_overlap if c.synonym_overlap is not None else synonym_overlap(c.text, c.gold_synonym)


def compound_rows(snapshot: Snapshot) -> list[dict]:
    """One row per compound, keys in ``table_schema(COMPOUNDS)`` order."""
    rows = []
    for c in snapshot.sorted().compounds:
        row = {"language": c.language, "compound": c.text}
        row |= {name: getattr(c, name) for name in COLUMN_DESCRIPTIONS[COMPOUNDS] if name not in row}
        row["synonym_overlap"] = _overlap(c)
        row["paraphrases"] = [
            {"level": p.level, "slot": p.slot, "text": p.text, "frequency": p.frequency} for p in c.paraphrases
        ]
        rows.append(row)
    return rows


def sentence_rows(snapshot: Snapshot) -> list[dict]:
    """One row per sentence, keys in ``table_schema(SENTENCES)`` order."""
    return [
        {
            "language": c.language,
            "compound": c.text,
            "sentence_id": tidy.sentence_id(s),
            "kind": s.kind,
            "slot": s.slot,
            "text": s.text,
            "span_start": s.span[0] if s.span else None,
            "span_end": s.span[1] if s.span else None,
            "plural": s.plural,
            "token_score": s.token_score,
            "length": s.words,
        }
        for c in snapshot.sorted().compounds
        for s in c.sentences
    ]


def _typed(cell: str, kind: str) -> str | float | int | None:
    if cell == "":
        return None
    return float(cell) if kind == "number" else int(cell) if kind == "integer" else cell


def typed_score_rows(snapshot: Snapshot) -> list[dict]:
    """The rows of human_compositionality_scores.csv, in its order, each cell as its column's type."""
    kinds = [kind for kind, _ in SCORES_COLUMNS.values()]
    return [
        {name: _typed(cell, kind) for name, kind, cell in zip(SCORES_COLUMNS, kinds, row, strict=True)}
        for row in score_rows(snapshot)
    ]


def table_rows(snapshot: Snapshot) -> dict[str, list[dict]]:
    """Every table the snapshot carries, with its rows: machine_ratings only in a release that opted in."""
    snapshot = snapshot.sorted()
    tables = {
        COMPOUNDS: compound_rows(snapshot),
        SENTENCES: sentence_rows(snapshot),
        PAIRS: tidy.pair_rows(snapshot),
        SCORES: typed_score_rows(snapshot),
    }
    if snapshot.machine_ratings is not None:
        tables[MACHINE_RATINGS] = [machine.machine_row(m) for m in snapshot.machine_ratings]
    return tables


def config_name(table: str, language: str) -> str:
    """The Hugging Face config of one table in one language: ``pairs-en``."""
    return f"{table}-{language}"


def hf_path_parts(path: str) -> tuple[str, str] | None:
    """(table, language) of hf/<table>/<language>.parquet; None for any other path."""
    match = _PATH.match(path)
    return (match["table"], match["language"]) if match else None


def describe_hf_file(path: str) -> str:
    """One line saying what a file of hf/ holds ("" for a path outside it)."""
    if path == HF_README:
        return "The Hugging Face dataset card: the configs, licence and languages the Hub reads, then this data card."
    if parts := hf_path_parts(path):
        table, language = parts
        name = vocabulary.language_name(language)
        return f"Hugging Face config {config_name(table, language)} ({name}, Parquet): {TABLE_DESCRIPTIONS[table]}"
    return ""
