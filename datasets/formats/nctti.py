"""The NCTTI release (Garcia et al. 2021, ACL): ``data_<lang>.tsv`` and ``sentids_<lang>.csv``.

``data`` holds per compound the class (NC/PC/C), the type-level score, the token-level mean
per sentence and the paraphrases (``;``-separated, repeats are frequency). ``sentids`` holds
the three naturalistic sentences, some of which are only corpus pointers.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from datasets import vocabulary
from datasets.formats.locate import locate_compound
from datasets.formats.records import (
    SKIPPED,
    WARNING,
    CompoundRecord,
    FirstRows,
    InputError,
    ParaphraseRecord,
    ParseResult,
    Problem,
    SentenceRecord,
    Source,
    parse_score,
    read_table,
    sha256_of,
)

DATA_COLUMNS = ["compound", "CompScale", "CompType", "MeanS1", "MeanS2", "MeanS3", "Synonyms"]
SENTENCE_COLUMNS = ["compound", "sentence1", "sentence2", "sentence3"]
# "sent3: ('"http://…"', 140)" or "sent2: (['# MWETOOLKIT: meta.doc.id=…'], 293)"
CORPUS_POINTER = re.compile(r"^\s*sent\d\s*:\s*\(.*\)\s*$", re.DOTALL)


def languages_in(directory: Path) -> list[str]:
    return sorted(p.stem.split("_", 1)[1] for p in directory.glob("data_*.tsv"))


def parse_directory(directory: Path, languages: list[str] | None = None) -> ParseResult:
    """Parse every ``data_<lang>.tsv`` (with its ``sentids_<lang>.csv``) in ``directory``."""
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    found = languages_in(directory)
    wanted = languages or found
    if not found:
        raise InputError(f"{directory}: no data_<language>.tsv file (expected NCTTI's data_en.tsv, data_pt.tsv)")
    missing = [lang for lang in wanted if lang not in found]
    if missing:
        raise InputError(f"{directory}: no data_{missing[0]}.tsv for language {missing[0]!r}")
    result = ParseResult()
    for language in wanted:
        result.extend(parse_language(directory, language))
    return result


def _missing_columns(header: list[str], required: list[str]) -> list[str]:
    return [c for c in required if c not in header]


def parse_language(directory: Path, language: str) -> ParseResult:
    result = ParseResult()
    data_path = directory / f"data_{language}.tsv"
    sent_path = directory / f"sentids_{language}.csv"
    header, rows = read_table(data_path, delimiter="\t")
    result.files.append({"name": data_path.name, "sha256": sha256_of(data_path), "rows": len(rows)})
    missing = _missing_columns(header, DATA_COLUMNS)
    if missing:
        raise InputError([Problem(data_path.name, 1, f"missing column(s) {', '.join(missing)}; found {header}")])
    col = {name: i for i, name in enumerate(header)}
    first_rows = FirstRows(result, data_path.name)
    compounds: dict[str, CompoundRecord] = {}
    token_scores: dict[str, list[float | None]] = {}
    for line, row in rows:
        result.rows_read += 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            result.problem(data_path.name, line, f"has {len(row)} fields, the header has {len(header)}")
            continue
        text = " ".join(row[col["compound"]].split())
        if not text:
            result.problem(data_path.name, line, "empty compound", column="compound")
            continue
        key = vocabulary.compound_key(text)
        if first_rows.repeated(key, text, line):
            continue
        source = Source(data_path.name, line)
        record = CompoundRecord(language, text, source)
        raw_class = row[col["CompScale"]].strip()
        if raw_class and raw_class.upper() not in vocabulary.CLASS_CODES:
            result.problem(
                data_path.name, line, f"unknown class {raw_class!r} (expected NC, PC or C)", column="CompScale"
            )
            continue
        # No head/modifier here: the importer guesses them for new compounds only, so
        # that NCIMP's explicit columns are never overwritten by the guess.
        record.fields["compositionality_class"] = vocabulary.CLASS_CODES.get(raw_class.upper())
        scores: dict[str, float | None] = {}
        bad = False
        for name in ("CompType", "MeanS1", "MeanS2", "MeanS3"):
            raw = row[col[name]]
            try:
                scores[name] = parse_score(raw)
            except ValueError as exc:
                result.problem(
                    data_path.name,
                    line,
                    f"{exc}" if "outside" in str(exc) else f"{name} {raw!r} is not a number",
                    column=name,
                )
                bad = True
                continue
            if "," in raw and scores[name] is not None:
                result.problem(
                    data_path.name,
                    line,
                    f"decimal comma in {raw!r} read as {scores[name]}",
                    severity=WARNING,
                    column=name,
                    kind="decimal comma",
                )
        if bad:
            continue
        if scores["CompType"] is None:
            result.problem(
                data_path.name,
                line,
                f"{text!r} has no type-level score (CompType empty): imported without it",
                severity=WARNING,
                column="CompType",
                kind="missing type score",
            )
            record.flags.append("no type-level score in the source")
        record.fields["type_score"] = scores["CompType"]
        means = [scores["MeanS1"], scores["MeanS2"], scores["MeanS3"]]
        present = [m for m in means if m is not None]
        record.fields["token_score"] = round(sum(present) / len(present), 4) if present else None
        record.derived = frozenset({"token_score"})
        token_scores[key] = means
        compounds[key] = record
        result.compounds.append(record)
        for paraphrase, count in _paraphrase_counts(row[col["Synonyms"]]).items():
            result.paraphrases.append(
                ParaphraseRecord(language, text, vocabulary.TYPE_LEVEL, paraphrase, count, source)
            )
        for slot in (1, 2, 3):
            name = f"SynonymsS{slot}"
            if name in col:
                for paraphrase, count in _paraphrase_counts(row[col[name]]).items():
                    result.paraphrases.append(
                        ParaphraseRecord(language, text, vocabulary.TOKEN_LEVEL, paraphrase, count, source, slot=slot)
                    )
    if sent_path.exists():
        _parse_sentences(sent_path, language, compounds, token_scores, result)
    else:
        result.problem(
            sent_path.name,
            None,
            "file not found: compounds imported without sentences",
            severity=WARNING,
            kind="no sentence file",
        )
    if result.errors:
        raise InputError(result.errors)
    return result


def _paraphrase_counts(cell: str) -> Counter:
    return Counter(p for p in (" ".join(part.split()) for part in cell.split(";")) if p)


def _parse_sentences(
    path: Path,
    language: str,
    compounds: dict[str, CompoundRecord],
    token_scores: dict[str, list[float | None]],
    result: ParseResult,
) -> None:
    header, rows = read_table(path)
    result.files.append({"name": path.name, "sha256": sha256_of(path), "rows": len(rows)})
    missing = _missing_columns(header, SENTENCE_COLUMNS)
    if missing:
        raise InputError([Problem(path.name, 1, f"missing column(s) {', '.join(missing)}; found {header}")])
    col = {name: i for i, name in enumerate(header)}
    first_rows = FirstRows(result, path.name)
    for line, row in rows:
        result.rows_read += 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            result.problem(path.name, line, f"has {len(row)} fields, the header has {len(header)}")
            continue
        text = " ".join(row[col["compound"]].split())
        if first_rows.repeated(vocabulary.compound_key(text), text, line):
            continue
        record = compounds.get(vocabulary.compound_key(text))
        if record is None:
            result.problem(
                path.name,
                line,
                f"compound {text!r} is not in data_{language}.tsv: sentences skipped",
                severity=SKIPPED,
                column="compound",
                kind="compound not in data file",
            )
            continue
        for slot in (1, 2, 3):
            column = f"sentence{slot}"
            cell = row[col[column]]
            source = Source(path.name, line, column)
            fields: dict = {"token_score": token_scores[vocabulary.compound_key(text)][slot - 1]}
            sentence = SentenceRecord(language, record.text, vocabulary.NATURALISTIC, slot, source, fields)
            pointer = bool(CORPUS_POINTER.match(cell))
            if pointer or not cell.strip():
                fields.update(
                    text="",
                    available=False,
                    corpus_pointer=cell.strip(),
                    span_start=None,
                    span_end=None,
                    span_source="",
                    plural=False,
                )
                kind, reason = (
                    ("corpus pointer", "is a corpus pointer, not a sentence")
                    if pointer
                    else ("empty sentence", "is empty")
                )
                result.warn(
                    source,
                    f"{column} {reason}: marked unavailable",
                    kind,
                    sentence,
                    "corpus pointer instead of text" if pointer else "empty sentence cell",
                )
            else:
                fields.update(text=cell, available=True, corpus_pointer="")
                locate_compound(sentence, cell, record.text, language, result)
            result.sentences.append(sentence)
