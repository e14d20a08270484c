"""What a parser hands to the importer, and the problems it found (pure: no Django import).

Parsers read files into these records; the importer writes them in one transaction.
A field left as ``None`` in ``fields`` means "this file does not say": it never
overwrites what another file said.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ERROR, WARNING, SKIPPED = "error", "warning", "skipped"


@dataclass(frozen=True)
class Problem:
    """Something wrong with the input, located by file, line and (optionally) column."""

    file: str
    line: int | None
    reason: str
    severity: str = ERROR
    column: str = ""
    kind: str = ""  # a short category for the summary ("corpus pointer", "malformed tag" …)

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        col = f" [{self.column}]" if self.column else ""
        return f"{where}{col}: {self.reason}"


@dataclass
class Source:
    file: str
    line: int | None = None
    column: str = ""


@dataclass
class CompoundRecord:
    language: str
    text: str
    source: Source
    fields: dict = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    # Fields computed from other values rather than given as such (NCTTI's token_score, the mean of
    # its sentences'; the NCIMP scores table's class, cut from the type score): they fill an empty
    # field, and never replace a value a file gave.
    derived: frozenset[str] = frozenset()


@dataclass
class SentenceRecord:
    language: str
    compound: str
    kind: str
    slot: int
    source: Source
    fields: dict = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


@dataclass
class ParaphraseRecord:
    language: str
    compound: str
    level: str
    text: str
    frequency: int
    source: Source
    slot: int | None = None  # token level: the naturalistic sentence's slot


@dataclass
class VariantRecord:
    language: str
    compound: str
    sentence_kind: str
    sentence_slot: int
    kind: str
    rank: int
    isolated: bool
    source: Source
    fields: dict = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)


@dataclass
class ParseResult:
    """Everything one importer read: records, problems, and the files with their checksums."""

    compounds: list[CompoundRecord] = field(default_factory=list)
    sentences: list[SentenceRecord] = field(default_factory=list)
    paraphrases: list[ParaphraseRecord] = field(default_factory=list)
    variants: list[VariantRecord] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    files: list[dict] = field(default_factory=list)
    rows_read: int = 0

    def extend(self, other: ParseResult) -> None:
        self.compounds += other.compounds
        self.sentences += other.sentences
        self.paraphrases += other.paraphrases
        self.variants += other.variants
        self.problems += other.problems
        self.files += other.files
        self.rows_read += other.rows_read

    def problem(self, *args, **kwargs) -> None:
        self.problems.append(Problem(*args, **kwargs))

    def warn(self, source: Source, reason: str, kind: str, record=None, flag: str | None = None) -> None:
        """A problem the import survives: reported, and flagged on the record it concerns."""
        self.problems.append(Problem(source.file, source.line, reason, WARNING, source.column, kind))
        if record is not None:
            record.flags.append(flag or reason)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    def problem_counts(self, severity: str) -> Counter:
        return Counter(p.kind or p.reason for p in self.problems if p.severity == severity)


class FirstRows:
    """Where each compound of one file was first seen, to report a second row of it as an error."""

    def __init__(self, result: ParseResult, file: str):
        self.result, self.file, self.lines = result, file, {}

    def repeated(self, key: str, text: str, line: int) -> bool:
        if key in self.lines:
            self.result.problem(
                self.file,
                line,
                f"compound {text!r} already on line {self.lines[key]}: a file gives each compound once",
                column="compound",
                kind="duplicate row",
            )
            return True
        self.lines[key] = line
        return False


class InputError(Exception):
    """Input that cannot be imported at all; nothing was written."""

    def __init__(self, problems: list[Problem] | str):
        if isinstance(problems, str):
            problems = [Problem(file="", line=None, reason=problems)]
        self.problems = problems
        first = problems[0]
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        super().__init__(f"{first}{more}")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


CUT_SHORT = "it looks cut short"


def read_table(path: Path, delimiter: str = ",") -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and rows of a CSV/TSV file, each row with its physical line number.

    UTF-8 with or without a byte-order mark (Excel's "CSV UTF-8" writes one). Raises InputError for
    unreadable files (not UTF-8, no header, broken quoting) and for a file cut short: one that ends
    inside a quoted cell, or without a line break after its last row.
    """
    line = 1
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, delimiter=delimiter, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                raise InputError([Problem(path.name, 1, "the file is empty")]) from None
            rows = []
            line = reader.line_num
            for row in reader:
                # line_num counts physical lines, so quoted newlines keep numbering honest.
                rows.append((line + 1, row))
                line = reader.line_num
    except UnicodeDecodeError as exc:
        raise InputError([Problem(path.name, None, f"not UTF-8 text ({exc.reason} at byte {exc.start})")]) from None
    except csv.Error as exc:
        if "unexpected end of data" in str(exc):
            reason = f"the file ends inside a quoted cell: {CUT_SHORT}"
            raise InputError([Problem(path.name, line + 1, reason, kind="file cut short")]) from None
        raise InputError([Problem(path.name, line + 1, f"not valid CSV: {exc}")]) from None
    if not ends_with_line_break(path):
        reason = f"the file ends inside this row, without a line break: {CUT_SHORT} (if the row is complete, end the file with a line break)"
        raise InputError([Problem(path.name, rows[-1][0] if rows else 1, reason, kind="file cut short")])
    return [h.strip() for h in header], rows


def ends_with_line_break(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(-1, 2)
        return handle.read(1) in (b"\n", b"\r")


def parse_score(raw: str) -> float | None:
    """A 0-5 score; accepts a decimal comma ("3,52"). Empty means missing. Raises ValueError."""
    text = raw.strip()
    if not text or text.upper() in {"NA", "NAN", "NONE", "NULL"}:
        return None
    value = float(text.replace(",", ".")) if text.count(",") == 1 and "." not in text else float(text)
    if not 0.0 <= value <= 5.0:
        raise ValueError(f"score {raw!r} is outside 0-5")
    return value


def split_compound(text: str, language: str) -> tuple[str, str]:
    """(modifier, head) by the language's head position: English head-final, Portuguese head-initial."""
    words = [w for w in re.split(r"[\s-]+", text) if w]
    if len(words) < 2:
        return "", text
    if language.startswith("pt"):
        return words[-1], words[0]
    return " ".join(words[:-1]), words[-1]
