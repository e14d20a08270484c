"""The NCIMP layout of a release: per language, three naturalistic files and neutral.csv (pure: no Django import).

Each cell holds the variant whose column spec (``datasets.formats.ncimp.column_spec``, the
mapping the importer reads with) matches, so importing these files gives the same variants
back. Copies ("entire … sentence") repeat the sentence and mark every word; ``compound noun``
and ``compound noun head``/``modifier`` fall back to the sentence's surface and the compound's
words when there is no such variant. A tag cell is the Python spelling of a list of booleans over
the whitespace tokens (``[False, True, True]``); a variant without a span gets all ``False``; a
missing variant gives two empty cells. Rows are sorted by compound key.

A language gets all four files, header only when it has no rows, so scripts find the layout
they expect. Variants no public column can hold (neutral_long sentences, ranks beyond the
header, kinds it lacks) are in the tidy files only.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from datasets import vocabulary
from datasets.formats import ncimp_columns as nc
from datasets.formats.ncimp import Column, column_spec
from datasets.formats.spans import whitespace_tokens
from releases.snapshot import ReleaseCompound, ReleaseSentence, ReleaseVariant, Snapshot, Span


def ncimp_path(language: str, file_name: str) -> str:
    return f"{language.upper()}/{file_name}"


def tag_cell(text: str, span: Span | None, every: bool = False) -> str:
    """The boolean list over ``text``'s whitespace tokens marking those that overlap ``span``."""
    tokens = whitespace_tokens(text)
    if every:
        flags = [True] * len(tokens)
    elif span is None:
        flags = [False] * len(tokens)
    else:
        flags = [a < span[1] and b > span[0] for a, b in tokens]
    return "[" + ", ".join("True" if f else "False" for f in flags) + "]"


def csv_bytes(header: tuple[str, ...] | list[str], rows: list[list[str]]) -> bytes:
    """UTF-8 CSV with ``\\n`` line endings, quoting only where needed (as the public files do)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def ncimp_files(snapshot: Snapshot) -> dict[str, bytes]:
    """Every NCIMP file of every language: path → bytes."""
    snapshot = snapshot.sorted()
    files = {}
    for language in snapshot.languages:
        compounds = [c for c in snapshot.compounds if c.language == language]
        for slot, name in enumerate(nc.NATURALISTIC_FILES, start=1):
            header = nc.header(language, name)
            rows = [
                naturalistic_row(header, c, s)
                for c in compounds
                if (s := _sentence(c, vocabulary.NATURALISTIC, slot)) is not None
            ]
            files[ncimp_path(language, name)] = csv_bytes(header, rows)
        header = nc.header(language, nc.NEUTRAL_FILE)
        rows = []
        for c in compounds:
            singular = _sentence(c, vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_SINGULAR_SLOT)
            plural = _sentence(c, vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_PLURAL_SLOT)
            if singular is not None or plural is not None:
                rows.append(neutral_row(header, c, singular, plural))
        files[ncimp_path(language, nc.NEUTRAL_FILE)] = csv_bytes(header, rows)
    return files


def _sentence(compound: ReleaseCompound, kind: str, slot: int) -> ReleaseSentence | None:
    return next((s for s in compound.sentences if s.kind == kind and s.slot == slot), None)


def _find(sentence: ReleaseSentence | None, spec: Column) -> ReleaseVariant | None:
    if sentence is None:
        return None
    return next((x for x in sentence.variants if x.key == (spec.kind, spec.rank, spec.isolated)), None)


def naturalistic_row(header: tuple[str, ...], compound: ReleaseCompound, sentence: ReleaseSentence) -> list[str]:
    def variant(spec: Column) -> ReleaseVariant | None:
        return _find(sentence, spec)

    return _row(header, compound, {nc.NATURALISTIC_SENTENCE: sentence}, sentence, variant)


def neutral_row(
    header: tuple[str, ...],
    compound: ReleaseCompound,
    singular: ReleaseSentence | None,
    plural: ReleaseSentence | None,
) -> list[str]:
    # The importer pairs a column that is neither plural nor isolated with the plural sentence
    # when its text has the plural pattern; such a variant is found there unless a plural
    # column of this header claims the same key.
    by_slot = {False: singular, True: plural}
    claimed: dict[bool, set] = {False: set(), True: set()}
    for name, _ in nc.text_columns(header):
        spec = column_spec(name)
        if spec is not None:
            claimed[spec.plural].add((spec.kind, spec.rank, spec.isolated))

    def variant(spec: Column) -> ReleaseVariant | None:
        found = _find(by_slot[spec.plural], spec)
        if found is None and (spec.kind, spec.rank, spec.isolated) not in claimed[not spec.plural]:
            found = _find(by_slot[not spec.plural], spec)
        return found

    sentences = {nc.NEUTRAL_SENTENCE: singular, nc.NEUTRAL_PLURAL_SENTENCE: plural}
    return _row(header, compound, sentences, singular or plural, variant)


def _row(
    header: tuple[str, ...],
    compound: ReleaseCompound,
    sentences: dict[str, ReleaseSentence | None],
    main: ReleaseSentence | None,
    variant: Callable[[Column], ReleaseVariant | None],
) -> list[str]:
    cells: dict[str, str] = {nc.COMPOUND: compound.text}
    for name, tag in nc.text_columns(header):
        if name == nc.COMPOUND:
            continue
        text, span, every = "", None, False
        if name in sentences:
            sentence = sentences[name]
            if sentence is not None:
                text, span = sentence.text, sentence.span
        elif name in nc.COPIES:
            if main is not None:
                text, every = main.text, True
        else:
            spec = column_spec(name)
            if spec is None:
                raise ValueError(f"column {name!r} has no variant spec")
            found = variant(spec)
            if found is not None:
                text, span = found.text, found.span
            else:
                text = _fallback(name, compound, main)
                every = True
        cells[name] = text
        if tag is not None:
            cells[tag] = tag_cell(text, span, every) if text else ""
    return [cells[name] for name in header]


def _fallback(name: str, compound: ReleaseCompound, main: ReleaseSentence | None) -> str:
    """The compound's own words for the columns that name them, when no variant does."""
    if name == nc.COMPOUND_NOUN:
        return (main.surface if main is not None else "") or compound.text
    if name == nc.COMPOUND_HEAD:
        return compound.head
    if name == nc.COMPOUND_MODIFIER:
        return compound.modifier
    return ""
