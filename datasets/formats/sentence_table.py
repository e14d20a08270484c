"""A researcher's own compounds and sentences: a CSV or TSV table, one sentence a row (pure: no Django import).

The simplest way in: a header row naming at least ``compound`` and ``sentence``; optionally
``modifier`` and ``head`` (else they are guessed from the language's word order), ``class``
(idiomatic, partly_compositional, compositional, or NC / PC / C) and ``type_score`` (0-5). A
compound's rows give its naturalistic sentences in order (slots 1, 2, 3...). The compound is found
in its sentence as the public importers find it (inflected forms allowed); a row whose sentence
does not contain it is an error, located by file, line and column, and nothing is imported.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from datasets import vocabulary
from datasets.formats.locate import locate_compound
from datasets.formats.records import (
    CompoundRecord,
    InputError,
    ParseResult,
    Problem,
    SentenceRecord,
    Source,
    parse_score,
    sha256_of,
)
from datasets.formats.spans import find_compound

REQUIRED = ("compound", "sentence")
OPTIONAL = ("modifier", "head", "class", "type_score")
CLASS_NAMES = {value: value for value, _ in vocabulary.CLASS_CHOICES} | vocabulary.CLASS_CODES


def read_rows(path: Path) -> tuple[str, list[str], list[tuple[int, list[str]]]]:
    """(delimiter, header, (line, cells) rows) of a CSV or TSV file: a tab in the header makes it TSV."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError([Problem(path.name, None, "not UTF-8 text: save the table as UTF-8")]) from None
    first = text.split("\n", 1)[0]
    delimiter = "\t" if "\t" in first else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows = [(reader.line_num, row) for row in reader]
    if not rows:
        raise InputError([Problem(path.name, None, "the file is empty")])
    header = [cell.strip().lower() for cell in rows[0][1]]
    return delimiter, header, rows[1:]


def parse_file(path: Path, language: str) -> ParseResult:
    """Records of every row; an InputError when the header lacks a required column."""
    result = ParseResult()
    _, header, rows = read_rows(path)
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        raise InputError(
            [
                Problem(
                    path.name, 1, f"missing column(s) {', '.join(missing)}: the header must name compound and sentence"
                )
            ]
        )
    column = {name: header.index(name) for name in (*REQUIRED, *OPTIONAL) if name in header}
    result.files.append({"name": path.name, "sha256": sha256_of(path), "rows": len(rows)})
    compounds: dict[str, CompoundRecord] = {}
    slots: dict[str, int] = {}
    for line, row in rows:
        result.rows_read += 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) < len(header):
            result.problem(path.name, line, f"has {len(row)} fields, the header has {len(header)}")
            continue
        cell = {name: " ".join(row[index].split()) for name, index in column.items()}
        text, sentence = cell["compound"], cell["sentence"]
        if not text:
            result.problem(path.name, line, "empty compound", column="compound")
            continue
        if not sentence:
            result.problem(path.name, line, "empty sentence", column="sentence")
            continue
        if not find_compound(sentence, text, language):
            result.problem(path.name, line, f"the sentence does not contain {text!r}", column="sentence")
            continue
        key = vocabulary.compound_key(text)
        record = compounds.get(key)
        if record is None:
            record = compounds[key] = CompoundRecord(language, text, Source(path.name, line))
            if not _compound_fields(record, cell, result, line):
                continue
            result.compounds.append(record)
        slots[key] = slots.get(key, 0) + 1
        source = Source(path.name, line, "sentence")
        sentence_record = SentenceRecord(language, record.text, vocabulary.NATURALISTIC, slots[key], source)
        sentence_record.fields.update(text=sentence, available=True)
        locate_compound(sentence_record, sentence, record.text, language, result)
        result.sentences.append(sentence_record)
    return result


def _compound_fields(record: CompoundRecord, cell: dict, result: ParseResult, line: int) -> bool:
    """The optional columns of a compound's first row; False (and an error) for a value that cannot be read."""
    file = record.source.file
    for name in ("modifier", "head"):
        if cell.get(name):
            record.fields[name] = cell[name]
    if raw := cell.get("class"):
        found = CLASS_NAMES.get(raw) or CLASS_NAMES.get(raw.upper())
        if found is None:
            choices = ", ".join(value for value, _ in vocabulary.CLASS_CHOICES)
            result.problem(file, line, f"unknown class {raw!r} (expected {choices}, or NC, PC, C)", column="class")
            return False
        record.fields["compositionality_class"] = found
    if raw := cell.get("type_score"):
        try:
            record.fields["type_score"] = parse_score(raw)
        except ValueError:
            result.problem(file, line, f"type_score {raw!r} is not a number from 0 to 5", column="type_score")
            return False
    return True
