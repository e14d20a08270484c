"""The frame of a minimal pair: the words around the compound, which a variant must keep (pure: no Django import).

A variant replaces the compound and nothing else, so its words before and after its replacement
are the original's words before and after the compound. Only the article or determiner just
before the compound may change with it ("a pipe dream" / "an illusion", or dropped: "a field
work" / "research"), and the frame's words may take the form that agrees with the new noun
("Este é um bode expiatório" / "Esta é uma culpada": ``spans.same_frame_word``). Anything else
is a broken pair, or a cut-off file: "This is an eager beaver." with the variant "This is an enth".

Words are compared without case, accents and the punctuation stuck to them, since a span may or
may not take in a full stop ("beaver." from a tag list, "beaver" from a search).
"""

from __future__ import annotations

import re

from datasets import vocabulary
from datasets.formats.records import ParseResult, VariantRecord
from datasets.formats.spans import Span, fold, same_frame_word

# Articles and determiners that agree with the noun after them (English, Portuguese).
DETERMINERS = frozenset(
    "a an the this that these those some any "
    "o a os as um uma uns umas este esta estes estas esse essa esses essas aquele aquela aqueles aquelas "
    "do da dos das no na nos nas ao à aos às pelo pela pelos pelas num numa nuns numas dum duma".split()
)
_EDGE_PUNCTUATION = re.compile(r"^\W+|\W+$")


def words(text: str) -> list[str]:
    """Folded whitespace words without the punctuation at their edges; pure punctuation drops out."""
    out = []
    for token in text.split():
        word = _EDGE_PUNCTUATION.sub("", fold(token))
        if word:
            out.append(word)
    return out


def _without_determiner(before: list[str]) -> list[str]:
    return before[:-1] if before and before[-1] in DETERMINERS else before


def frame_difference(original: str, original_span: Span, variant: str, variant_span: Span | None = None) -> str | None:
    """How the variant's words around its replacement differ from the original's around the compound, or None.

    With the variant's own span (from a tag list) its words before and after the span are compared,
    and the one word that may stand in the determiner's place must be a determiner. Without it
    (a span found by difference would swallow the very words that differ), the variant must begin
    with the original's words before the compound and end with its words after it.
    """
    o_before, o_after = words(original[: original_span[0]]), words(original[original_span[1] :])
    frame = _without_determiner(o_before)
    if variant_span is None:
        v_words = words(variant)
        v_after = v_words[len(v_words) - len(o_after) :] if o_after else []
        v_before, slot = v_words[: len(frame)], []
    else:
        v_after = words(variant[variant_span[1] :])
        v_before, slot = (
            words(variant[: variant_span[0]])[: len(frame)],
            words(variant[: variant_span[0]])[len(frame) :],
        )
    if v_after != o_after:
        return f"it ends {' '.join(v_after)!r}, where the original ends {' '.join(o_after)!r}"
    same_frame = len(v_before) == len(frame) and all(map(same_frame_word, frame, v_before))
    if not same_frame or len(slot) > 1 or (slot and slot[0] not in DETERMINERS):
        return f"it begins {' '.join(v_before + slot)!r}, where the original begins {' '.join(o_before)!r}"
    return None


def check_frame(result: ParseResult, original: dict, variant: VariantRecord) -> None:
    """Warn, with the variant's file and line, and flag it, when it does not keep its original's frame."""
    span = (original.get("span_start"), original.get("span_end"))
    if variant.isolated or None in span:
        return  # no frame around an isolated variant; an original without a span is reported already
    tagged = (
        variant.fields.get("span_source") == vocabulary.SPAN_FROM_TAGS and variant.fields.get("span_start") is not None
    )
    variant_span = (variant.fields["span_start"], variant.fields["span_end"]) if tagged else None
    reason = frame_difference(original["text"], span, variant.fields["text"], variant_span)
    if reason:
        result.warn(
            variant.source,
            f"the words around the replacement differ from the original's: {reason}",
            "variant differs from its original outside the span",
            variant,
            f"words around the replacement differ from the original's: {reason}",
        )
