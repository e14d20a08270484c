"""The NCIMP release (He et al. 2024): per-slot naturalistic files and ``neutral.csv``.

Every text column is followed by a ``<column>_tag`` column: a Python-style list of
booleans over the whitespace tokens marking the target span. The span comes from the tag
position, never from searching the text, so a word that occurs twice is placed right.
Tag lists whose length does not match the words (over a thousand cells in the English
neutral file) are reported, and the span is recovered from the minimal-pair difference.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from datasets import vocabulary
from datasets.formats.frame import check_frame
from datasets.formats.locate import locate_compound
from datasets.formats.records import (
    SKIPPED,
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
from datasets.formats.spans import (
    Span,
    TagError,
    is_plural_form,
    span_from_diff,
    span_from_tags,
    whitespace_tokens,
)

NATURALISTIC_FILES = {f"naturalistics_examplesent{k}.csv": k for k in (1, 2, 3)}
NEUTRAL_FILE = "neutral.csv"


@dataclass(frozen=True)
class Column:
    """What a variant column holds: its probe kind, rank, whether out of context, and plural."""

    kind: str
    rank: int = 1
    isolated: bool = False
    plural: bool = False  # neutral files: pairs with the plural pattern ("These are …")


# Columns that are the sentence itself or copies of it rather than variants.
NATURALISTIC_SENTENCE = "original sentence"
NEUTRAL_SENTENCE = "neutral sentence"
NEUTRAL_PLURAL_SENTENCE = "neutral sentence plural"
IGNORED = {"compound", "entire original sentence", "entire neutral sentence"}

FIXED_COLUMNS: dict[str, Column] = {
    "compound noun": Column(vocabulary.ORIGINAL, isolated=True),
    "original head only": Column(vocabulary.HEAD_ONLY),
    "original modifier only": Column(vocabulary.MODIFIER_ONLY),
    "head only plural": Column(vocabulary.HEAD_ONLY, plural=True),
    "compound noun head": Column(vocabulary.HEAD_ONLY, isolated=True),
    "compound noun modifier": Column(vocabulary.MODIFIER_ONLY, isolated=True),
    "generic modifier": Column(vocabulary.GENERIC_MODIFIER),
    "generic head": Column(vocabulary.GENERIC_HEAD),
    "modifier hypernym": Column(vocabulary.GENERIC_MODIFIER),
    "head hypernym": Column(vocabulary.GENERIC_HEAD),
    "neutral sentence hypernym": Column(vocabulary.GENERIC_BOTH),
    "generic compound noun": Column(vocabulary.GENERIC_COMPOUND),
    "synonym for compound": Column(vocabulary.SYNONYM_NC),
    "only mwe synonym": Column(vocabulary.SYNONYM_NC, isolated=True),
    "mwe synonym plural": Column(vocabulary.SYNONYM_NC, plural=True),
    "synonym for compoundplural": Column(vocabulary.SYNONYM_NC, plural=True),
    "only synonym for compoundplural": Column(vocabulary.SYNONYM_NC, isolated=True, plural=True),
    "synonym for compound2": Column(vocabulary.SYNONYM_NC, rank=2),
    "only synonym for compound2": Column(vocabulary.SYNONYM_NC, rank=2, isolated=True),
    "synonym for compound2 plural": Column(vocabulary.SYNONYM_NC, rank=2, plural=True),
    "only synonym for compound2 plural": Column(vocabulary.SYNONYM_NC, rank=2, isolated=True, plural=True),
    "synonym modifier": Column(vocabulary.SYNONYM_MODIFIER),
    "modifier synonym": Column(vocabulary.SYNONYM_MODIFIER),
    "synonym head": Column(vocabulary.SYNONYM_HEAD),
    "head synonym": Column(vocabulary.SYNONYM_HEAD),
    "head synonym plural": Column(vocabulary.SYNONYM_HEAD, plural=True),
    "synonym both": Column(vocabulary.SYNONYM_BOTH),
    "synonym both plural": Column(vocabulary.SYNONYM_BOTH, plural=True),
    "both synonyms plural": Column(vocabulary.SYNONYM_BOTH, plural=True),
    "only synonym both": Column(vocabulary.SYNONYM_BOTH, isolated=True),
    "only both synonyms": Column(vocabulary.SYNONYM_BOTH, isolated=True),
}

# Numbered columns: "nc rand freq sentence3", "head synonym alt2" … (alternatives rank from 2).
PATTERNS: list[tuple[re.Pattern, Column, int]] = [
    (re.compile(r"^nc rand freq sentence(\d)$"), Column(vocabulary.RANDOM_FREQ), 0),
    (re.compile(r"^nc rand freq mod neutral sentence(\d)$"), Column(vocabulary.RANDOM_FREQ_MODIFIER_ONLY), 0),
    (re.compile(r"^nc rand freq head neutral sentence(\d)$"), Column(vocabulary.RANDOM_FREQ_HEAD_ONLY), 0),
    (re.compile(r"^nc rand freq mod(\d)$"), Column(vocabulary.RANDOM_FREQ_MODIFIER_ONLY, isolated=True), 0),
    (re.compile(r"^nc rand freq head(\d)$"), Column(vocabulary.RANDOM_FREQ_HEAD_ONLY, isolated=True), 0),
    (re.compile(r"^nc rand freq(\d)$"), Column(vocabulary.RANDOM_FREQ, isolated=True), 0),
    (re.compile(r"^nc rand sentence(\d)$"), Column(vocabulary.RANDOM), 0),
    (re.compile(r"^nc rand mod neutral sentence(\d)$"), Column(vocabulary.RANDOM_MODIFIER_ONLY), 0),
    (re.compile(r"^nc rand head neutral sentence(\d)$"), Column(vocabulary.RANDOM_HEAD_ONLY), 0),
    (re.compile(r"^nc rand mod(\d)$"), Column(vocabulary.RANDOM_MODIFIER_ONLY, isolated=True), 0),
    (re.compile(r"^nc rand head(\d)$"), Column(vocabulary.RANDOM_HEAD_ONLY, isolated=True), 0),
    (re.compile(r"^modifier synonym alt(\d)$"), Column(vocabulary.SYNONYM_MODIFIER), 1),
    (re.compile(r"^head synonym alt(\d)$"), Column(vocabulary.SYNONYM_HEAD), 1),
    (re.compile(r"^only modifier synonym alt(\d)$"), Column(vocabulary.MODIFIER_SYNONYM_ONLY), 1),
    (re.compile(r"^only head synonym alt(\d)$"), Column(vocabulary.HEAD_SYNONYM_ONLY), 1),
    (re.compile(r"^both synonym alt(\d)$"), Column(vocabulary.SYNONYM_BOTH), 1),
    (re.compile(r"^only both synonym alt(\d)$"), Column(vocabulary.SYNONYM_BOTH, isolated=True), 1),
]


def column_spec(name: str) -> Column | None:
    if name in FIXED_COLUMNS:
        return FIXED_COLUMNS[name]
    for pattern, spec, offset in PATTERNS:
        match = pattern.match(name)
        if match:
            return Column(spec.kind, int(match.group(1)) + offset, spec.isolated, spec.plural)
    return None


def parse_directory(directory: Path, language: str) -> ParseResult:
    if not directory.is_dir():
        raise InputError(f"{directory}: not a directory")
    names = [n for n in (*NATURALISTIC_FILES, NEUTRAL_FILE) if (directory / n).exists()]
    if not names:
        raise InputError(f"{directory}: none of naturalistics_examplesent{{1,2,3}}.csv or neutral.csv")
    result = ParseResult()
    for name in names:
        result.extend(parse_file(directory / name, language))
    if result.errors:
        raise InputError(result.errors)
    return result


def _tag_pairs(header: list[str], label: str) -> list[tuple[str, int, int | None]]:
    """(text column, its index, index of its tag column) by position: each tag follows its text."""
    pairs = []
    for i, name in enumerate(header):
        if name.endswith("_tag"):
            continue
        tag = i + 1 if i + 1 < len(header) and header[i + 1].endswith("_tag") else None
        pairs.append((name, i, tag))
    return pairs


def parse_file(path: Path, language: str) -> ParseResult:
    result = ParseResult()
    label = f"{language}/{path.name}"
    header, rows = read_table(path)
    result.files.append({"name": label, "sha256": sha256_of(path), "rows": len(rows)})
    neutral = path.name == NEUTRAL_FILE
    sentence_column = NEUTRAL_SENTENCE if neutral else NATURALISTIC_SENTENCE
    required = ["compound", sentence_column]
    missing = [c for c in required if c not in header]
    if missing:
        raise InputError([Problem(label, 1, f"missing column(s) {', '.join(missing)}; found {header[:6]} …")])
    pairs = _tag_pairs(header, label)
    variant_columns = []
    for name, index, tag in pairs:
        if name in IGNORED or name in (sentence_column, NEUTRAL_PLURAL_SENTENCE):
            continue
        spec = column_spec(name)
        if spec is None:
            result.problem(
                label, 1, f"unknown column {name!r}: not imported", severity=WARNING, column=name, kind="unknown column"
            )
            continue
        variant_columns.append((name, index, tag, spec))
    col = {name: (index, tag) for name, index, tag in pairs}
    kind = vocabulary.NEUTRAL_SHORT if neutral else vocabulary.NATURALISTIC
    slot = vocabulary.NEUTRAL_SINGULAR_SLOT if neutral else NATURALISTIC_FILES[path.name]
    first_rows = FirstRows(result, label)
    for line, row in rows:
        result.rows_read += 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            result.problem(label, line, f"has {len(row)} fields, the header has {len(header)}")
            continue
        compound = " ".join(row[col["compound"][0]].split())
        if not compound:
            result.problem(label, line, "empty compound", column="compound")
            continue
        if first_rows.repeated(vocabulary.compound_key(compound), compound, line):
            continue
        fields = {}
        if "compound noun head" in col and "compound noun modifier" in col:
            fields = {
                "head": row[col["compound noun head"][0]].strip(),
                "modifier": row[col["compound noun modifier"][0]].strip(),
            }
        result.compounds.append(
            CompoundRecord(language, compound, Source(label, line), {k: x for k, x in fields.items() if x})
        )
        row_parser = _Row(result, label, line, row, col, language, compound)
        sentences = {slot: row_parser.sentence(sentence_column, kind, slot, plural=False)}
        if neutral and NEUTRAL_PLURAL_SENTENCE in col:
            sentences[vocabulary.NEUTRAL_PLURAL_SLOT] = row_parser.sentence(
                NEUTRAL_PLURAL_SENTENCE, kind, vocabulary.NEUTRAL_PLURAL_SLOT, plural=True
            )
        taken: dict[tuple, str] = {}
        for name, _, _, spec in variant_columns:
            row_parser.variant(name, spec, kind, sentences, taken)
    return result


class _Row:
    """Reads one row's sentences and variants, reporting problems with the row's line."""

    def __init__(
        self, result: ParseResult, label: str, line: int, row: list[str], col: dict, language: str, compound: str
    ):
        self.result, self.label, self.line, self.row, self.col = result, label, line, row, col
        self.language, self.compound = language, compound

    def cell(self, name: str) -> tuple[str, str | None]:
        index, tag = self.col[name]
        return self.row[index], (self.row[tag] if tag is not None else None)

    def tags(self, name: str, text: str, raw: str | None) -> tuple[Span | None, str]:
        """The span from a tag cell, or None with the reason it could not be used."""
        if raw is None:
            return None, "no tag column"
        try:
            tags = ast.literal_eval(raw.strip())
            if not isinstance(tags, (list, tuple)) or not all(isinstance(t, bool) for t in tags):
                raise ValueError
        except (ValueError, SyntaxError):
            return None, f"tag cell {raw[:40]!r} is not a list of booleans"
        try:
            return span_from_tags(text, list(tags)), ""
        except TagError as exc:
            return None, str(exc)

    def sentence(self, name: str, kind: str, slot: int, plural: bool) -> SentenceRecord | None:
        text, raw_tags = self.cell(name)
        source = Source(self.label, self.line, name)
        if not text.strip():
            self.result.problem(
                self.label, self.line, f"empty {name!r}", severity=SKIPPED, column=name, kind="empty sentence cell"
            )
            return None
        # corpus_pointer is left alone: NCTTI's pointer stays on record once NCIMP gives the text.
        fields = {"text": text, "available": True}
        record = SentenceRecord(self.language, self.compound, kind, slot, source, fields)
        span, reason = self.tags(name, text, raw_tags)
        if span is None:
            self.result.warn(source, f"malformed tag: {reason}", "malformed tag", record)
            locate_compound(record, text, self.compound, self.language, self.result)
        else:
            fields.update(span_start=span[0], span_end=span[1], span_source=vocabulary.SPAN_FROM_TAGS)
            fields["plural"] = is_plural_form(text[span[0] : span[1]], self.compound, self.language)
        fields["plural"] = plural or fields["plural"]
        self.result.sentences.append(record)
        return record

    def variant(self, name: str, spec: Column, sentence_kind: str, sentences: dict, taken: dict) -> None:
        text, raw_tags = self.cell(name)
        if not text.strip():
            self.result.problem(
                self.label, self.line, f"empty {name!r}", severity=SKIPPED, column=name, kind="empty variant cell"
            )
            return
        slot = self._pair_slot(spec, text, sentences)
        sentence = sentences.get(slot)
        if sentence is None:
            self.result.problem(
                self.label,
                self.line,
                f"{name!r} has no sentence to pair with",
                severity=SKIPPED,
                column=name,
                kind="variant without sentence",
            )
            return
        key = (slot, spec.kind, spec.rank, spec.isolated)
        if key in taken:
            self.result.problem(
                self.label,
                self.line,
                f"{name!r} duplicates {taken[key]!r}: skipped",
                severity=SKIPPED,
                column=name,
                kind="duplicate variant column",
            )
            return
        taken[key] = name
        fields = {"text": text, "status": vocabulary.APPROVED, "origin": vocabulary.ORIGIN_IMPORTED}
        flags: list[str] = []
        span, reason = self.tags(name, text, raw_tags)
        if span is not None:
            fields["span_source"] = vocabulary.SPAN_FROM_TAGS
        else:
            self.result.warn(Source(self.label, self.line, name), f"malformed tag: {reason}", "malformed tag")
            flags.append(f"malformed tag: {reason}")
            original = sentence.fields
            if spec.isolated:
                span = (0, len(text.rstrip())) if text.strip() else None
            elif original.get("span_start") is not None:
                span = span_from_diff(original["text"], (original["span_start"], original["span_end"]), text)
            fields["span_source"] = (
                (vocabulary.SPAN_FROM_DIFF if not spec.isolated else vocabulary.SPAN_FROM_TAGS) if span else ""
            )
            if span:
                flags.append("span recovered from the minimal-pair difference")
        fields["span_start"], fields["span_end"] = span if span else (None, None)
        variant = VariantRecord(
            self.language,
            self.compound,
            sentence_kind,
            slot,
            spec.kind,
            spec.rank,
            spec.isolated,
            Source(self.label, self.line, name),
            fields,
            flags,
        )
        self.result.variants.append(variant)
        check_frame(self.result, sentence.fields, variant)

    def _pair_slot(self, spec: Column, text: str, sentences: dict) -> int:
        """Which sentence a variant pairs with: naturalistic files have one; neutral ones two."""
        if len(sentences) == 1:
            return next(iter(sentences))
        default = vocabulary.NEUTRAL_PLURAL_SLOT if spec.plural else vocabulary.NEUTRAL_SINGULAR_SLOT
        if spec.isolated or spec.plural:
            return default
        # Some columns not named plural hold the plural pattern ("Estes são índios aculturados"):
        # pair with the pattern whose words before the compound match more of the variant's.
        words = [text[a:b].casefold() for a, b in whitespace_tokens(text)]
        best, best_score = default, -1
        for slot, record in sentences.items():
            if record is None or record.fields.get("span_start") is None:
                continue
            prefix = record.fields["text"][: record.fields["span_start"]].split()
            score = sum(1 for i, w in enumerate(prefix) if i < len(words) and words[i] == w.casefold())
            if score > best_score or (score == best_score and slot == default):
                best, best_score = slot, score
        return best
