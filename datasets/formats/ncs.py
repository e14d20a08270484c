"""NCS neutral sentences (Garcia et al. 2021, EACL): ``<lang>/neutral/P{1,2,3}_sents.csv``.

P1 pairs "This is a <NC>" with the NC's synonym, P2 with its head and its modifier alone,
P3 with synonyms of both words. The files give no spans: the compound is found in the
neutral sentence, and each variant's span is its difference from that sentence.
"""

from __future__ import annotations

from pathlib import Path

from datasets import vocabulary
from datasets.formats.frame import check_frame
from datasets.formats.locate import locate_compound
from datasets.formats.records import (
    WARNING,
    CompoundRecord,
    FirstRows,
    InputError,
    ParseResult,
    Problem,
    SentenceRecord,
    Source,
    VariantRecord,
    read_table,
    sha256_of,
)
from datasets.formats.spans import span_from_diff

# file -> {column: variant kind}
PROBES = {
    "P1_sents.csv": {"mwe synonym": vocabulary.SYNONYM_NC},
    "P2_sents.csv": {"head only": vocabulary.HEAD_ONLY, "modifier only": vocabulary.MODIFIER_ONLY},
    "P3_sents.csv": {"both synonyms": vocabulary.SYNONYM_BOTH},
}
REQUIRED = ["compound", "neutral sentence"]


def languages_in(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if (p / "neutral").is_dir())


def parse_directory(directory: Path, languages: list[str] | None = None) -> ParseResult:
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    found = languages_in(directory)
    if not found:
        raise InputError(f"{directory}: no <language>/neutral/ folder (expected NCS's en/neutral/P1_sents.csv …)")
    wanted = languages or found
    missing = [lang for lang in wanted if lang not in found]
    if missing:
        raise InputError(f"{directory}: no {missing[0]}/neutral/ folder")
    result = ParseResult()
    for language in wanted:
        result.extend(parse_language(directory / language / "neutral", language))
    if result.errors:
        raise InputError(result.errors)
    return result


def parse_language(folder: Path, language: str) -> ParseResult:
    result = ParseResult()
    files = [name for name in PROBES if (folder / name).exists()]
    if not files:
        raise InputError(f"{folder}: none of {', '.join(PROBES)}")
    sentences: dict[str, tuple[SentenceRecord, str]] = {}
    for name in files:
        path = folder / name
        label = f"{language}/neutral/{name}"
        header, rows = read_table(path)
        result.files.append({"name": label, "sha256": sha256_of(path), "rows": len(rows)})
        missing = [c for c in REQUIRED + list(PROBES[name]) if c not in header]
        if missing:
            raise InputError([Problem(label, 1, f"missing column(s) {', '.join(missing)}; found {header}")])
        col = {h: i for i, h in enumerate(header)}
        first_rows = FirstRows(result, label)
        for line, row in rows:
            result.rows_read += 1
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                result.problem(label, line, f"has {len(row)} fields, the header has {len(header)}")
                continue
            compound = " ".join(row[col["compound"]].split())
            text = row[col["neutral sentence"]].strip()
            if not compound or not text:
                result.problem(label, line, "empty compound or neutral sentence")
                continue
            source = Source(label, line, "neutral sentence")
            key = vocabulary.compound_key(compound)
            if first_rows.repeated(key, compound, line):
                continue
            if key not in sentences:
                result.compounds.append(CompoundRecord(language, compound, Source(label, line)))
                sentence = _sentence(language, compound, text, source, result)
                sentences[key] = (sentence, text)
            sentence, known_text = sentences[key]
            if text != known_text:
                result.problem(
                    label,
                    line,
                    f"neutral sentence {text!r} differs from {known_text!r} in "
                    f"{sentence.source.file}:{sentence.source.line}; the first is kept",
                    severity=WARNING,
                    column="neutral sentence",
                    kind="neutral sentence differs between files",
                )
            span = (sentence.fields["span_start"], sentence.fields["span_end"])
            for column, kind in PROBES[name].items():
                cell = row[col[column]].strip()
                if not cell:
                    result.problem(
                        label, line, f"empty {column!r}", severity=WARNING, column=column, kind="empty variant cell"
                    )
                    continue
                fields = {
                    "text": cell,
                    "status": vocabulary.APPROVED,
                    "origin": vocabulary.ORIGIN_IMPORTED,
                    "span_start": None,
                    "span_end": None,
                    "span_source": "",
                }
                flags = []
                diff = span_from_diff(known_text, span, cell) if span[0] is not None else None
                if diff:
                    fields.update(span_start=diff[0], span_end=diff[1], span_source=vocabulary.SPAN_FROM_DIFF)
                else:
                    flags.append("replacement span not found")
                    result.problem(
                        label,
                        line,
                        f"cannot tell where {cell!r} replaces the compound",
                        severity=WARNING,
                        column=column,
                        kind="variant span not found",
                    )
                variant = VariantRecord(
                    language,
                    compound,
                    vocabulary.NEUTRAL_SHORT,
                    vocabulary.NEUTRAL_SINGULAR_SLOT,
                    kind,
                    1,
                    False,
                    Source(label, line, column),
                    fields,
                    flags,
                )
                result.variants.append(variant)
                check_frame(result, sentence.fields, variant)
    for sentence, _ in sentences.values():
        result.sentences.append(sentence)
    return result


def _sentence(language: str, compound: str, text: str, source: Source, result: ParseResult) -> SentenceRecord:
    fields = {"text": text, "available": True, "corpus_pointer": ""}
    record = SentenceRecord(
        language, compound, vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_SINGULAR_SLOT, source, fields
    )
    locate_compound(record, text, compound, language, result)
    return record
