"""The Table Schema of every table of a release: its columns, their types, categories and bounds (pure: no Django).

datapackage.json gives each table (the NCIMP CSV files, the scores table, tidy/*.jsonl and *.parquet,
hf/<table>/<language>.parquet) a schema in Table Schema v2 (https://datapackage.org/standard/table-schema/):

- The 0-5 answers of the rating form (integers: the machine-made ratings' ``*_score``) and the
  compositionality classes are ordered ``categories`` (``categoriesOrdered``), lowest first; a mean
  score (a float) is no category and is only bounded.
- Every bounded column says so in ``constraints``. frictionless 5.21 keeps ``categories`` but does not
  check them, so a categorical column carries the same bounds as ``minimum``/``maximum`` or ``enum``,
  which it checks (the standard allows an ``enum`` that is a subset of the categories).
- A Parquet table is described as frictionless reads it: through pandas, where a list arrives as a
  numpy array (which its ``array`` type refuses: the column is ``any``, its Parquet type says the rest)
  and a null of a numeric column as NaN (a missing value, ``nan``; no file of ours holds a NaN).
"""

from __future__ import annotations

from datasets import vocabulary
from datasets.formats import ncimp_columns as nc
from datasets.formats.ncimp import column_spec
from datasets.formats.ncimp_columns import SCORES_COLUMNS, SCORES_FILE
from releases.formats import hf_tables, machine, tidy

KIND_LABELS = dict(vocabulary.VARIANT_KIND_CHOICES)
SCALE_MIN, SCALE_MAX = 0, 5
# The ends of the rating form's scale, as annotators read them (templates/annotation/rate.html).
SCALE_ENDS = {0: "not literal at all", 5: "completely literal"}
# Integer answers on the 0-5 scale: ordered categories.
ANSWERS = frozenset({"head_score", "modifier_score", "compound_score"})
# Means of 0-5 answers (floats): bounded, no categories.
MEANS = frozenset(
    {
        "type_score",
        "token_score",
        "head_score",
        "modifier_score",
        "CompositionalityType",
        "CompositionalityToken",
        "CompositionalityTokenSents",
        *(f"{q}_expected" for q in machine.QUESTIONS),
    }
)
# Class columns: the value each class is written as, lowest compositionality first.
CLASS_VALUES = {
    "compositionality_class": {c: c for c in vocabulary.CLASSES},
    "ClassType": {c: vocabulary.CLASS_SHORT[c] for c in vocabulary.CLASSES},
    "ClassToken": {c: vocabulary.CLASS_SHORT[c] for c in vocabulary.CLASSES},
}
# Counts, offsets, ranks and frequencies: their least value.
LEAST = {
    "rank": 1,
    "sample": 1,
    "slot": 1,
    "synonym_overlap": 0,
    "MWE Synonym Overlap": 0,
    "naturalistics_sentence_length": 0,
    "length": 0,
    "span_start": 0,
    "span_end": 0,
    "frequency": 0,
    "modifier_frequency": 0,
    "head_frequency": 0,
    "ppmi": 0,
}
_ARROW_TYPES = {"string": "string", "bool": "boolean", "int32": "integer", "double": "number"}
_COMPOUND_TYPES = {
    "sentences": "array",
    "paraphrases": "array",
    "type_score": "number",
    "token_score": "number",
    "head_score": "number",
    "modifier_score": "number",
    "frequency": "number",
    "modifier_frequency": "number",
    "head_frequency": "number",
    "pmi": "number",
    "ppmi": "number",
    "synonym_overlap": "integer",
}


def refined(field: dict) -> dict:
    """``field`` with the categories and constraints its name and type call for."""
    name, kind = field["name"], field["type"]
    if kind == "integer" and name in ANSWERS:
        categories = [
            {"value": v, "label": SCALE_ENDS[v]} if v in SCALE_ENDS else {"value": v}
            for v in range(SCALE_MIN, SCALE_MAX + 1)
        ]
        constraints = {"minimum": SCALE_MIN, "maximum": SCALE_MAX}
    elif kind == "string" and name in CLASS_VALUES:
        values = CLASS_VALUES[name]
        categories = [{"value": value, "label": vocabulary.CLASS_LABELS[c]} for c, value in values.items()]
        constraints = {"enum": list(values.values())}
    elif kind == "number" and name in MEANS:
        return {**field, "constraints": {"minimum": SCALE_MIN, "maximum": SCALE_MAX}}
    elif kind in ("integer", "number") and name in LEAST:
        return {**field, "constraints": {"minimum": LEAST[name]}}
    else:
        return field
    return {**field, "categories": categories, "categoriesOrdered": True, "constraints": constraints}


def ncimp_fields(columns: tuple[str, ...]) -> list[dict]:
    """A Table Schema field per NCIMP column, saying what it holds."""
    described: dict[str, str] = {}
    for name, tag in nc.text_columns(columns):
        if name == nc.COMPOUND:
            text = "The noun compound (row key)."
        elif name in (nc.NATURALISTIC_SENTENCE, nc.NEUTRAL_SENTENCE):
            text = "The original sentence (neutral: singular pattern)."
        elif name == nc.NEUTRAL_PLURAL_SENTENCE:
            text = "The original sentence in the plural pattern."
        elif name in nc.COPIES:
            text = "A copy of the original sentence; its tag marks every word."
        else:
            spec = column_spec(name)
            where = "alone, out of context" if spec.isolated else "in the sentence"
            pattern = ", plural pattern" if spec.plural else ""
            text = (
                f"Variant: {KIND_LABELS.get(spec.kind, spec.kind)} ({spec.kind}), rank {spec.rank}, {where}{pattern}."
            )
        described[name] = text
        if tag is not None:
            described[tag] = (
                f"Tag list of '{name}': a Python list of booleans over its whitespace tokens, True on the target span."
            )
    return [{"name": name, "type": "string", "description": described[name]} for name in columns]


def _arrow_type(arrow_type) -> str:
    text = str(arrow_type)
    return "array" if text.startswith("list") else "object" if text.startswith("struct") else _ARROW_TYPES[text]


def arrow_fields(schema, descriptions: dict[str, str], parquet: bool = False) -> list[dict]:
    """A field per column of an Arrow schema; ``parquet``: as frictionless reads them from a Parquet file."""
    out = []
    for column in schema:
        field = refined(
            {"name": column.name, "type": _arrow_type(column.type), "description": descriptions[column.name]}
        )
        if parquet and field["type"] == "array":
            field["type"] = "any"
        elif parquet and field["type"] in ("integer", "number") and column.nullable:
            field["missingValues"] = ["", "nan"]
        out.append(field)
    return out


def table_schema(path: str) -> dict | None:
    """The Table Schema of the release file at ``path``; None when it holds no table."""
    parquet = path.endswith(".parquet")
    if path == SCORES_FILE:
        fields = [refined({"name": n, "type": t, "description": d}) for n, (t, d) in SCORES_COLUMNS.items()]
    elif path in (tidy.PAIRS_JSONL, tidy.PAIRS_PARQUET):
        fields = arrow_fields(tidy.pair_schema(), tidy.PAIR_FIELDS, parquet)
    elif path in (machine.MACHINE_JSONL, machine.MACHINE_PARQUET):
        fields = arrow_fields(machine.machine_schema(), machine.MACHINE_FIELDS, parquet)
    elif path == tidy.COMPOUNDS_JSONL:
        fields = [
            refined({"name": n, "type": _COMPOUND_TYPES.get(n, "string"), "description": d})
            for n, d in tidy.COMPOUND_FIELDS.items()
        ]
    elif parts := hf_tables.hf_path_parts(path):
        table = parts[0]
        fields = arrow_fields(hf_tables.table_schema(table), hf_tables.COLUMN_DESCRIPTIONS[table], parquet)
    elif path.endswith(".csv") and "/" in path:
        language, name = path.split("/", 1)
        fields = ncimp_fields(nc.header(language.lower(), name))
    else:
        return None
    return {"fields": fields, "missingValues": [""]}
