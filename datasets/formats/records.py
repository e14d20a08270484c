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


def read_table(path: Path, delimiter: str = ",") -> tuple[list[str], list[tuple[int, list[str]]]]:
    """Header and rows of a CSV/TSV file, each row with its physical line number.

    Raises InputError for unreadable files (not UTF-8, no header, broken quoting).
    """
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, delimiter=delimiter)
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
        raise InputError([Problem(path.name, None, f"not valid CSV: {exc}")]) from None
    return [h.strip() for h in header], rows


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
