"""Find a compound in a sentence record that came without a span (pure: no Django import)."""

from __future__ import annotations

from datasets import vocabulary
from datasets.formats.records import ParseResult, SentenceRecord
from datasets.formats.spans import find_compound, is_plural_form


def locate_compound(sentence: SentenceRecord, text: str, compound: str, language: str, result: ParseResult) -> None:
    """Set the record's span by searching (inflection allowed); report what is doubtful."""
    source = sentence.source
    matches = find_compound(text, compound, language)
    if not matches:
        sentence.fields.update(span_start=None, span_end=None, span_source="", plural=False)
        result.warn(
            source,
            f"{compound!r} not found in {source.column}",
            "compound not found in sentence",
            sentence,
            "compound not found in the sentence",
        )
        return
    first = matches[0]
    start, end = first.span
    sentence.fields.update(
        span_start=start,
        span_end=end,
        span_source=vocabulary.SPAN_FROM_SEARCH if first.exact else vocabulary.SPAN_FROM_FUZZY,
        plural=is_plural_form(text[start:end], compound, language),
    )
    if not first.exact:
        result.warn(
            source,
            f"{compound!r} matched only by prefix as {text[start:end]!r}",
            "compound matched by prefix only",
            sentence,
        )
    if len(matches) > 1:
        result.warn(
            source,
            f"{compound!r} occurs {len(matches)} times; the first is marked",
            "compound occurs more than once",
            sentence,
        )
