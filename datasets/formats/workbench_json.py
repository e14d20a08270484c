"""The workbench's own JSON dataset format, used by the bundled demo (pure: no Django import).

One object with ``compounds``; each compound gives language, text, modifier, head, class,
type_score, gold_synonym, paraphrases, three naturalistic ``sentences`` and ``neutral``
sentences. The compound's occurrence in a sentence is marked with square brackets:
"She is a real [eager beaver] at work."
"""

from __future__ import annotations

import json
from pathlib import Path

from datasets import vocabulary
from datasets.formats.records import (
    CompoundRecord,
    InputError,
    ParaphraseRecord,
    ParseResult,
    Problem,
    SentenceRecord,
    Source,
    sha256_of,
)
from datasets.formats.spans import is_plural_form

CLASSES = {value for value, _ in vocabulary.CLASS_CHOICES}
NEUTRAL_SLOTS = {
    "short": (vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_SINGULAR_SLOT, False),
    "short_plural": (vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_PLURAL_SLOT, True),
    "long": (vocabulary.NEUTRAL_LONG, vocabulary.NEUTRAL_SINGULAR_SLOT, False),
}


def unbracket(text: str) -> tuple[str, tuple[int, int]]:
    """Text without the brackets, and the span they marked. Raises ValueError."""
    if text.count("[") != 1 or text.count("]") != 1 or text.index("[") > text.index("]"):
        raise ValueError("mark the compound with exactly one pair of [brackets]")
    start = text.index("[")
    end = text.index("]") - 1
    plain = text.replace("[", "", 1).replace("]", "", 1)
    if start == end:
        raise ValueError("the brackets mark nothing")
    return plain, (start, end)


def _line_of(raw: str, needle: str) -> int | None:
    index = raw.find(needle)
    return raw.count("\n", 0, index) + 1 if index >= 0 else None


def parse_file(path: Path, origin_label: str | None = None) -> ParseResult:
    label = origin_label or path.name
    try:
        raw = path.read_text(encoding="utf-8-sig")  # a byte-order mark is not part of the JSON
        data = json.loads(raw)
    except UnicodeDecodeError:
        raise InputError([Problem(label, None, "not UTF-8 text")]) from None
    except json.JSONDecodeError as exc:
        raise InputError([Problem(label, exc.lineno, f"not valid JSON: {exc.msg}")]) from None
    if not isinstance(data, dict) or not isinstance(data.get("compounds"), list):
        raise InputError([Problem(label, 1, 'expected an object with a "compounds" list')])
    result = ParseResult(files=[{"name": label, "sha256": sha256_of(path), "rows": len(data["compounds"])}])
    for number, item in enumerate(data["compounds"], start=1):
        result.rows_read += 1
        line = _line_of(raw, json.dumps(item.get("text", ""), ensure_ascii=False)) if isinstance(item, dict) else None
        where = f"compound #{number}"
        try:
            _parse_compound(item, Source(label, line), result)
        except (KeyError, TypeError, ValueError) as exc:
            reason = f"missing field {exc}" if isinstance(exc, KeyError) else str(exc)
            result.problem(label, line, f"{where}: {reason}")
    if result.errors:
        raise InputError(result.errors)
    return result


def _score(value, name: str) -> float | None:
    if value is None:
        return None
    if not isinstance(value, (int, float)) or not 0 <= value <= 5:
        raise ValueError(f"{name} {value!r} is not a number in 0-5")
    return float(value)


def _parse_compound(item: dict, source: Source, result: ParseResult) -> None:
    language, text = item["language"], " ".join(item["text"].split())
    if item.get("class") not in CLASSES | {None}:
        raise ValueError(f"class {item.get('class')!r} is not one of {sorted(CLASSES)}")
    sentences = item["sentences"]
    if not 1 <= len(sentences) <= 3:
        raise ValueError(f"{text!r} has {len(sentences)} sentences; give 1 to 3")
    scores = [_score(s.get("token_score"), "token_score") for s in sentences]
    present = [s for s in scores if s is not None]
    result.compounds.append(
        CompoundRecord(
            language,
            text,
            source,
            {
                "modifier": item["modifier"],
                "head": item["head"],
                "compositionality_class": item.get("class"),
                "type_score": _score(item.get("type_score"), "type_score"),
                "token_score": round(sum(present) / len(present), 4) if present else None,
                "gold_synonym": item.get("gold_synonym", ""),
                "gold_synonym_source": vocabulary.GOLD_FROM_FILE if item.get("gold_synonym") else "",
            },
        )
    )
    marked = [
        (vocabulary.NATURALISTIC, slot, s["text"], score, None)
        for slot, (s, score) in enumerate(zip(sentences, scores, strict=True), 1)
    ]
    for name, text_value in (item.get("neutral") or {}).items():
        if name not in NEUTRAL_SLOTS:
            raise ValueError(f"unknown neutral sentence {name!r}; use {', '.join(NEUTRAL_SLOTS)}")
        kind, slot, plural = NEUTRAL_SLOTS[name]
        marked.append((kind, slot, text_value, None, plural))
    for kind, slot, marked_text, score, plural in marked:
        plain, (start, end) = unbracket(marked_text)
        fields = {
            "text": plain,
            "span_start": start,
            "span_end": end,
            "span_source": vocabulary.SPAN_FROM_MARKUP,
            "available": True,
            "corpus_pointer": "",
            "token_score": score,
            "plural": plural if plural is not None else is_plural_form(plain[start:end], text, language),
        }
        result.sentences.append(SentenceRecord(language, text, kind, slot, source, fields))
    paraphrases = list(item.get("paraphrases") or [])
    top = max((int(p["frequency"]) for p in paraphrases), default=0)
    if item.get("gold_synonym"):
        # The gold synonym is the most frequent type-level paraphrase, as in the papers.
        paraphrases.insert(0, {"text": item["gold_synonym"], "frequency": top + 1})
    for p in paraphrases:
        result.paraphrases.append(
            ParaphraseRecord(language, text, vocabulary.TYPE_LEVEL, p["text"], int(p["frequency"]), source)
        )
