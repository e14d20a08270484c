"""Tidy files of a release: one row per minimal pair, one per compound (pure: no Django import).

``tidy/pairs.jsonl`` and ``tidy/pairs.parquet`` hold the same rows, one per variant, with its
sentence and its compound's scores; scores are rounded to ``FLOAT_DECIMALS`` decimals.
``tidy/compounds.jsonl`` holds everything else a snapshot has (scores at full precision,
frequencies, sentences including those without variants, paraphrases), so that the two
JSON Lines files rebuild the snapshot exactly.

JSON Lines: UTF-8, one object per line ending in ``\\n``, keys in a fixed order, no spaces.
Parquet: an explicit schema, no pandas metadata, snappy compression, one row group, so the
same rows give the same bytes under the same pyarrow version.
"""

from __future__ import annotations

import io
import json
from functools import cache

import orjson

from datasets import vocabulary
from releases.snapshot import (
    ReleaseCompound,
    ReleaseParaphrase,
    ReleaseSentence,
    ReleaseVariant,
    Snapshot,
)

PAIRS_JSONL = "tidy/pairs.jsonl"
PAIRS_PARQUET = "tidy/pairs.parquet"
COMPOUNDS_JSONL = "tidy/compounds.jsonl"
FLOAT_DECIMALS = 4


@cache
def pair_schema():
    """The Arrow schema of tidy/pairs.parquet (pyarrow is imported on first use: reading a release needs none)."""
    import pyarrow as pa

    span = pa.list_(pa.int32())
    return pa.schema(
        [
            pa.field("language", pa.string(), nullable=False),
            pa.field("compound", pa.string(), nullable=False),
            pa.field("sentence_id", pa.string(), nullable=False),
            pa.field("condition", pa.string(), nullable=False),
            pa.field("pattern", pa.string()),
            pa.field("plural", pa.bool_(), nullable=False),
            pa.field("probe_kind", pa.string(), nullable=False),
            pa.field("rank", pa.int32(), nullable=False),
            pa.field("isolated", pa.bool_(), nullable=False),
            pa.field("original_text", pa.string(), nullable=False),
            pa.field("original_span", span),
            pa.field("variant_text", pa.string(), nullable=False),
            pa.field("variant_span", span),
            pa.field("replacement", pa.string(), nullable=False),
            pa.field("status", pa.string(), nullable=False),
            pa.field("compositionality_class", pa.string()),
            pa.field("type_score", pa.float64()),
            pa.field("token_score", pa.float64()),
            pa.field("head_score", pa.float64()),
            pa.field("modifier_score", pa.float64()),
        ]
    )


PAIR_FIELDS = {
    "language": "Language code (en, pt).",
    "compound": "The noun compound as the dataset cites it.",
    "sentence_id": "The original sentence: <kind>-<slot>, e.g. naturalistic-1, neutral_short-2.",
    "condition": "naturalistic or neutral.",
    "pattern": "Neutral sentences: short (This is a/an <NC>) or long; empty for naturalistic ones.",
    "plural": "Whether the compound occurs in the plural in the original sentence.",
    "probe_kind": "What replaces the compound (synonym_nc, head_only, random_freq …).",
    "rank": "Rank among the variants of the same kind (1 = first choice; random compounds 1-5).",
    "isolated": "True when the variant is the replacement alone, out of context.",
    "original_text": "The original sentence.",
    "original_span": "[start, end) character offsets of the compound in original_text.",
    "variant_text": "The minimal-pair partner.",
    "variant_span": "[start, end) character offsets of the replacement in variant_text.",
    "replacement": "variant_text[start:end].",
    "status": "Curation status of the variant: approved, edited, or generated.",
    "compositionality_class": "idiomatic, partly_compositional or compositional.",
    "type_score": f"Compositionality of the compound at type level (0-5), rounded to {FLOAT_DECIMALS} decimals.",
    "token_score": f"Compositionality of the compound in the original sentence (0-5), rounded to {FLOAT_DECIMALS} decimals.",
    "head_score": f"Literality of the head (0-5), rounded to {FLOAT_DECIMALS} decimals.",
    "modifier_score": f"Literality of the modifier (0-5), rounded to {FLOAT_DECIMALS} decimals.",
}

COMPOUND_FIELDS = {
    "language": "Language code.",
    "text": "The noun compound.",
    "modifier": "Its modifier.",
    "head": "Its head.",
    "compositionality_class": "idiomatic, partly_compositional or compositional.",
    "type_score": "Compositionality at type level (0-5), full precision.",
    "token_score": "Mean compositionality over its sentences (0-5), full precision.",
    "head_score": "Literality of the head (0-5).",
    "modifier_score": "Literality of the modifier (0-5).",
    "gold_synonym": "The synonym used for synonym_nc variants.",
    "synonym_overlap": "Words it shares with its synonym as a published file gives them (NCIMP's MWE Synonym "
    "Overlap); null: computed from gold_synonym (datasets.overlap).",
    "frequency": "Corpus frequency per million words.",
    "modifier_frequency": "Corpus frequency of the modifier per million words.",
    "head_frequency": "Corpus frequency of the head per million words.",
    "frequency_source": "The corpus the frequencies come from.",
    "pmi": "Pointwise mutual information of the two words (log2).",
    "ppmi": "Positive PMI: max(0, PMI).",
    "sentences": "Its sentences: id, kind, slot, text, span, plural, token_score, length (words, as a published "
    "file counts them; null: counted from the text). Variants are in pairs.jsonl.",
    "paraphrases": "Paraphrases given by annotators: level (type/token), slot, text, frequency.",
}


def sentence_id(sentence: ReleaseSentence) -> str:
    return f"{sentence.kind}-{sentence.slot}"


def parse_sentence_id(value: str) -> tuple[str, int]:
    kind, _, slot = value.rpartition("-")
    if kind not in {vocabulary.NATURALISTIC, vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_LONG} or not slot.isdigit():
        raise ValueError(f"sentence id {value!r} is not <kind>-<slot>")
    return kind, int(slot)


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), FLOAT_DECIMALS)


def _span(span) -> list[int] | None:
    return None if span is None else [int(span[0]), int(span[1])]


def pair_rows(snapshot: Snapshot) -> list[dict]:
    """One dict per minimal pair, keys in ``pair_schema()`` order, in the snapshot's canonical order."""
    rows = []
    for c in snapshot.sorted().compounds:
        for s in c.sentences:
            neutral = s.kind != vocabulary.NATURALISTIC
            for x in s.variants:
                rows.append(
                    {
                        "language": c.language,
                        "compound": c.text,
                        "sentence_id": sentence_id(s),
                        "condition": "neutral" if neutral else "naturalistic",
                        "pattern": ("long" if s.kind == vocabulary.NEUTRAL_LONG else "short") if neutral else None,
                        "plural": s.plural,
                        "probe_kind": x.kind,
                        "rank": x.rank,
                        "isolated": x.isolated,
                        "original_text": s.text,
                        "original_span": _span(s.span),
                        "variant_text": x.text,
                        "variant_span": _span(x.span),
                        "replacement": x.replacement,
                        "status": x.status,
                        "compositionality_class": c.compositionality_class,
                        "type_score": _round(c.type_score),
                        "token_score": _round(s.token_score),
                        "head_score": _round(c.head_score),
                        "modifier_score": _round(c.modifier_score),
                    }
                )
    return rows


def dumps(obj) -> str:
    return json.dumps(obj, ensure_ascii=False, sort_keys=False, separators=(",", ":"), allow_nan=False)


def jsonl_bytes(rows: list[dict]) -> bytes:
    return "".join(dumps(row) + "\n" for row in rows).encode("utf-8")


def parquet_bytes(rows: list[dict], schema=None) -> bytes:
    """``rows`` in Parquet under ``schema`` (default: ``pair_schema()``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=schema if schema is not None else pair_schema())
    buffer = io.BytesIO()
    pq.write_table(
        table,
        buffer,
        compression="snappy",
        version="2.6",
        data_page_version="1.0",
        use_dictionary=True,
        write_statistics=True,
        row_group_size=max(1, len(rows)),
        store_schema=False,
    )
    return buffer.getvalue()


def compound_row(c: ReleaseCompound) -> dict:
    return {
        "language": c.language,
        "text": c.text,
        "modifier": c.modifier,
        "head": c.head,
        "compositionality_class": c.compositionality_class,
        "type_score": c.type_score,
        "token_score": c.token_score,
        "head_score": c.head_score,
        "modifier_score": c.modifier_score,
        "gold_synonym": c.gold_synonym,
        "synonym_overlap": c.synonym_overlap,
        "frequency": c.frequency,
        "modifier_frequency": c.modifier_frequency,
        "head_frequency": c.head_frequency,
        "frequency_source": c.frequency_source,
        "pmi": c.pmi,
        "ppmi": c.ppmi,
        "sentences": [
            {
                "id": sentence_id(s),
                "kind": s.kind,
                "slot": s.slot,
                "text": s.text,
                "span": _span(s.span),
                "plural": s.plural,
                "token_score": s.token_score,
                "length": s.length,
            }
            for s in c.sentences
        ],
        "paraphrases": [
            {"level": p.level, "slot": p.slot, "text": p.text, "frequency": p.frequency} for p in c.paraphrases
        ],
    }


def tidy_files(snapshot: Snapshot) -> dict[str, bytes]:
    snapshot = snapshot.sorted()
    rows = pair_rows(snapshot)
    return {
        PAIRS_JSONL: jsonl_bytes(rows),
        PAIRS_PARQUET: parquet_bytes(rows),
        COMPOUNDS_JSONL: jsonl_bytes([compound_row(c) for c in snapshot.compounds]),
    }


# Keys that releases made before them lack: read as null.
_ADDED = ("synonym_overlap",)


def _tuple_span(value) -> tuple[int, int] | None:
    return None if value is None else (int(value[0]), int(value[1]))


def json_lines(data: bytes, path: str):
    """(line number, object) of each non-empty line of a JSON Lines file; ValueError naming a line that is not JSON."""
    # orjson: a full release is tens of thousands of lines, read each time a worker loads it (a third
    # of the json module's time); it reads what ``dumps`` writes (no NaN: allow_nan=False).
    for number, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        if line.strip():
            try:
                yield number, orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON ({exc.msg})") from None


def compounds_from_tidy(compounds_jsonl: bytes, pairs_jsonl: bytes) -> tuple[ReleaseCompound, ...]:
    """The compounds, with their sentences' variants, that ``tidy_files`` wrote."""
    variants: dict[tuple, list[ReleaseVariant]] = {}
    for number, row in json_lines(pairs_jsonl, PAIRS_JSONL):
        try:
            key = (row["language"], row["compound"], parse_sentence_id(row["sentence_id"]))
            variants.setdefault(key, []).append(
                ReleaseVariant(
                    kind=row["probe_kind"],
                    rank=int(row["rank"]),
                    isolated=bool(row["isolated"]),
                    text=row["variant_text"],
                    span=_tuple_span(row["variant_span"]),
                    status=row["status"],
                )
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{PAIRS_JSONL}:{number}: {exc!r}") from None
    compounds = []
    for number, row in json_lines(compounds_jsonl, COMPOUNDS_JSONL):
        try:
            sentences = tuple(
                ReleaseSentence(
                    kind=s["kind"],
                    slot=int(s["slot"]),
                    text=s["text"],
                    span=_tuple_span(s["span"]),
                    plural=bool(s["plural"]),
                    token_score=s["token_score"],
                    variants=tuple(variants.pop((row["language"], row["text"], (s["kind"], int(s["slot"]))), ())),
                    length=s.get("length"),
                )
                for s in row["sentences"]
            )
            paraphrases = tuple(
                ReleaseParaphrase(level=p["level"], slot=p["slot"], text=p["text"], frequency=int(p["frequency"]))
                for p in row["paraphrases"]
            )
            scalars = {k: row[k] for k in COMPOUND_FIELDS if k not in ("sentences", "paraphrases", *_ADDED)}
            scalars.update({k: row.get(k) for k in _ADDED})
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{COMPOUNDS_JSONL}:{number}: {exc!r}") from None
        compounds.append(ReleaseCompound(**scalars, sentences=sentences, paraphrases=paraphrases))
    if variants:
        language, compound, (kind, slot) = next(iter(variants))
        raise ValueError(
            f"{PAIRS_JSONL}: pairs of {compound!r} ({language}) {kind}-{slot}, a sentence {COMPOUNDS_JSONL} lacks"
        )
    return tuple(compounds)
