"""NCIMP's ``human_compositionality_scores.csv`` (He et al. 2024) read into records (pure: no Django import).

The format is the one a release writes (``datasets.formats.ncimp_columns.SCORES_COLUMNS``): four rows
per compound, one per NCIMP file. What becomes of a row of the language being imported:

- the compound: ``type_score`` (CompositionalityType), ``token_score`` (CompositionalityTokenSents),
  ``synonym_overlap`` (MWE Synonym Overlap), and ``compositionality_class`` (ClassType) when it has
  none: the table cuts its classes from the type score, and a class the dataset's authors gave
  (NCTTI's CompScale, 73 of the Portuguese compounds differ) stays;
- each naturalistic sentence slot: ``token_score`` (CompositionalityToken) and ``length``
  (naturalistics_sentence_length). A slot whose sentence is not imported yet gets an unavailable
  sentence that holds them until a file gives its text;
- the neutral row and ClassToken repeat what the other columns say; they are checked, not stored.

Errors (nothing is imported): a missing column, an unknown file or class, a score that is not a
number in 0-5, a count that is not a whole number, a compound twice for one file, compound
columns that differ between its rows. Warnings: a class that disagrees with its score's class,
a neutral row that does not repeat the compound's token score or has a length, a wrong ``Type``.
"""

from __future__ import annotations

from pathlib import Path

from datasets import vocabulary
from datasets.formats.ncimp_columns import SCORES_COLUMNS, SCORES_FILE, experiment, file_slot, row_type, score_class
from datasets.formats.records import (
    WARNING,
    CompoundRecord,
    InputError,
    ParseResult,
    Problem,
    SentenceRecord,
    Source,
    parse_score,
    read_table,
    sha256_of,
)

SCORE_COLUMNS = ("CompositionalityType", "CompositionalityToken", "CompositionalityTokenSents")
COUNT_COLUMNS = ("MWE Synonym Overlap", "naturalistics_sentence_length")
CLASS_COLUMNS = ("ClassType", "ClassToken")
# Columns that say something about the compound, the same on each of its rows.
COMPOUND_COLUMNS = (
    "ClassType",
    "ClassToken",
    "CompositionalityType",
    "CompositionalityTokenSents",
    "MWE Synonym Overlap",
)


def find_scores_file(directory: Path) -> Path | None:
    """The scores table in ``directory`` or beside it (the public layout: ncimp/PT/ next to the table)."""
    for folder in (directory, directory.parent):
        if (folder / SCORES_FILE).is_file():
            return folder / SCORES_FILE
    return None


def parse_scores_file(path: Path, language: str) -> ParseResult:
    """The records of ``language``'s rows; InputError (file, line and reason) on any bad row."""
    result = ParseResult()
    label = path.name
    header, rows = read_table(path)
    result.files.append({"name": label, "sha256": sha256_of(path), "rows": len(rows)})
    missing = [c for c in SCORES_COLUMNS if c not in header]
    if missing:
        raise InputError([Problem(label, 1, f"missing column(s) {', '.join(missing)}; found {header}")])
    col = {name: i for i, name in enumerate(header)}
    compounds: dict[str, tuple[CompoundRecord, dict[str, str]]] = {}
    seen: dict[tuple[str, int | None], int] = {}
    for line, row in rows:
        if not any(cell.strip() for cell in row) or row[col["language"]].strip().lower() != language:
            continue
        result.rows_read += 1
        if len(row) != len(header):
            result.problem(label, line, f"has {len(row)} fields, the header has {len(header)}")
            continue
        cells = {name: row[i].strip() for name, i in col.items()}
        parsed = _parse_row(result, label, line, cells, language)
        if parsed is None:
            continue
        text, slot, values = parsed
        key = vocabulary.compound_key(text)
        if (key, slot) in seen:
            result.problem(
                label, line, f"{text!r} in {cells['file']} already on line {seen[(key, slot)]}", column="file"
            )
            continue
        seen[(key, slot)] = line
        if key not in compounds:
            record = CompoundRecord(
                language,
                text,
                Source(label, line),
                _compound_fields(values),
                derived=frozenset({"compositionality_class"}),
            )
            compounds[key] = (record, {c: cells[c] for c in COMPOUND_COLUMNS})
            result.compounds.append(record)
        else:
            record, first = compounds[key]
            if differing := [c for c in COMPOUND_COLUMNS if _differs(c, cells[c], first[c])]:
                result.problem(
                    label,
                    line,
                    f"{differing[0]} {cells[differing[0]]!r} differs from line {record.source.line}"
                    f" ({first[differing[0]]!r}) for {text!r}",
                    column=differing[0],
                )
                continue
        if slot is not None:
            fields = {"token_score": values["CompositionalityToken"], "length": values["naturalistics_sentence_length"]}
            fields = {k: x for k, x in fields.items() if x is not None}
            if fields:
                result.sentences.append(
                    SentenceRecord(
                        language,
                        text,
                        vocabulary.NATURALISTIC,
                        slot,
                        Source(label, line, "CompositionalityToken"),
                        fields,
                    )
                )
        else:
            _check_neutral(result, Source(label, line), values)
    if result.errors:
        raise InputError(result.errors)
    if not result.rows_read:
        result.problem(label, None, f"no rows for language {language!r}", severity=WARNING, kind="no rows")
    return result


def _parse_row(
    result: ParseResult, label: str, line: int, cells: dict[str, str], language: str
) -> tuple[str, int | None, dict] | None:
    """(compound, slot, typed values) of a row, or None after reporting why it cannot be read."""
    text = " ".join(cells["compound"].split())
    if not text:
        result.problem(label, line, "empty compound", column="compound")
        return None
    known, slot = file_slot(cells["file"])
    if not known:
        result.problem(label, line, f"file {cells['file']!r} is not an NCIMP file", column="file")
        return None
    if cells["experiment_type"] != experiment(slot):
        result.problem(
            label,
            line,
            f"experiment_type {cells['experiment_type']!r} but file {cells['file']!r} is {experiment(slot)}",
            column="experiment_type",
        )
        return None
    values: dict = {}
    for name in SCORE_COLUMNS:
        try:
            values[name] = parse_score(cells[name])
        except ValueError as exc:
            reason = str(exc) if "outside" in str(exc) else f"{name} {cells[name]!r} is not a number"
            result.problem(label, line, reason, column=name)
            return None
    for name in COUNT_COLUMNS:
        if cells[name] and not cells[name].isdigit():
            result.problem(label, line, f"{name} {cells[name]!r} is not a whole number >= 0", column=name)
            return None
        values[name] = int(cells[name]) if cells[name] else None
    for name in CLASS_COLUMNS:
        if cells[name] and cells[name].upper() not in vocabulary.CLASS_CODES:
            result.problem(label, line, f"{name} {cells[name]!r}: expected NC, PC or C", column=name)
            return None
        values[name] = cells[name].upper()
    for name, score in (("ClassType", "CompositionalityType"), ("ClassToken", "CompositionalityTokenSents")):
        derived = score_class(values[score])
        if values[name] and derived and values[name] != derived:
            result.warn(
                Source(label, line, name),
                f"{name} {values[name]} disagrees with {score} {cells[score]} ({derived}); a release writes {derived}",
                "class disagrees with its score",
            )
    if cells["Type"] != row_type(language, slot):
        result.warn(
            Source(label, line, "Type"),
            f"Type {cells['Type']!r} should be {row_type(language, slot)!r}; a release writes the latter",
            "wrong Type",
        )
    return text, slot, values


def _compound_fields(values: dict) -> dict:
    fields = {
        "compositionality_class": vocabulary.CLASS_CODES.get(values["ClassType"]),
        "type_score": values["CompositionalityType"],
        "token_score": values["CompositionalityTokenSents"],
        "synonym_overlap": values["MWE Synonym Overlap"],
    }
    return {k: x for k, x in fields.items() if x is not None}


def _check_neutral(result: ParseResult, source: Source, values: dict) -> None:
    token, sents = values["CompositionalityToken"], values["CompositionalityTokenSents"]
    if token is not None and sents is not None and abs(token - sents) > 1e-9:
        result.warn(
            Source(source.file, source.line, "CompositionalityToken"),
            f"neutral CompositionalityToken {token} is not CompositionalityTokenSents {sents}; a release writes the latter",
            "neutral token score",
        )
    if values["naturalistics_sentence_length"]:
        result.warn(
            Source(source.file, source.line, "naturalistics_sentence_length"),
            "a neutral row has a naturalistic sentence length; a release writes 0",
            "neutral sentence length",
        )


def _differs(column: str, a: str, b: str) -> bool:
    if column.startswith("Compositionality"):
        try:
            return parse_score(a) != parse_score(b)
        except ValueError:
            return True
    return a.upper() != b.upper()
