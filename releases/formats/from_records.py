"""A snapshot of what an importer parsed, without a database (pure: no Django import).

Merges records the way the importer does: one compound per (language, key), one sentence per
(compound, kind, slot), one variant per (sentence, kind, rank, isolated); a later record's
fields override an earlier one's. Head and modifier default to the language's guess, as the
importer does for new compounds. Used to compare a public file with our export of it.
"""

from __future__ import annotations

from datasets import vocabulary
from datasets.formats.records import ParseResult, split_compound
from releases.snapshot import (
    ReleaseCompound,
    ReleaseParaphrase,
    ReleaseSentence,
    ReleaseVariant,
    ScoreInfo,
    Snapshot,
)


def _span(fields: dict) -> tuple[int, int] | None:
    start, end = fields.get("span_start"), fields.get("span_end")
    return (start, end) if start is not None and end is not None else None


def snapshot_from_records(result: ParseResult, scores: ScoreInfo | None = None) -> Snapshot:
    """The snapshot of ``result``; ``scores`` says where its scores come from (default: reference)."""
    compounds: dict[tuple, dict] = {}

    def compound(language: str, text: str) -> dict:
        key = (language, vocabulary.compound_key(text))
        return compounds.setdefault(key, {"text": " ".join(text.split()), "fields": {}, "sentences": {}, "para": {}})

    for rec in result.compounds:
        fields = compound(rec.language, rec.text)["fields"]
        fields.update({k: x for k, x in rec.fields.items() if x is not None and not (k in rec.derived and k in fields)})
    for rec in result.sentences:
        entry = compound(rec.language, rec.compound)["sentences"].setdefault(
            (rec.kind, rec.slot), {"fields": {}, "variants": {}}
        )
        entry["fields"].update({k: x for k, x in rec.fields.items() if x is not None})
    for rec in result.variants:
        entry = compound(rec.language, rec.compound)["sentences"].setdefault(
            (rec.sentence_kind, rec.sentence_slot), {"fields": {}, "variants": {}}
        )
        entry["variants"][(rec.kind, rec.rank, rec.isolated)] = rec.fields
    for rec in result.paraphrases:
        para = compound(rec.language, rec.compound)["para"]
        para[(rec.level, rec.slot, rec.text)] = rec.frequency

    out = []
    for (language, _), entry in compounds.items():
        f = entry["fields"]
        guessed_modifier, guessed_head = split_compound(entry["text"], language)
        sentences = tuple(
            ReleaseSentence(
                kind=kind,
                slot=slot,
                text=s["fields"].get("text", ""),
                span=_span(s["fields"]),
                plural=bool(s["fields"].get("plural", False)),
                token_score=s["fields"].get("token_score"),
                length=s["fields"].get("length"),
                variants=tuple(
                    ReleaseVariant(
                        kind=vkind,
                        rank=rank,
                        isolated=isolated,
                        text=x.get("text", ""),
                        span=_span(x),
                        status=x.get("status", vocabulary.APPROVED),
                    )
                    for (vkind, rank, isolated), x in s["variants"].items()
                ),
            )
            for (kind, slot), s in entry["sentences"].items()
        )
        paraphrases = tuple(
            ReleaseParaphrase(level=level, slot=slot, text=text, frequency=frequency)
            for (level, slot, text), frequency in entry["para"].items()
        )
        out.append(
            ReleaseCompound(
                language=language,
                text=entry["text"],
                modifier=f.get("modifier", guessed_modifier),
                head=f.get("head", guessed_head),
                compositionality_class=f.get("compositionality_class"),
                type_score=f.get("type_score"),
                token_score=f.get("token_score"),
                head_score=f.get("head_score"),
                modifier_score=f.get("modifier_score"),
                gold_synonym=f.get("gold_synonym", ""),
                frequency=f.get("frequency"),
                modifier_frequency=f.get("modifier_frequency"),
                head_frequency=f.get("head_frequency"),
                frequency_source=f.get("frequency_source", ""),
                pmi=f.get("pmi"),
                ppmi=f.get("ppmi"),
                sentences=sentences,
                paraphrases=paraphrases,
                synonym_overlap=f.get("synonym_overlap"),
            )
        )
    languages = tuple(sorted({c.language for c in out}))
    return Snapshot(languages, tuple(out), scores or ScoreInfo(source="reference")).sorted()
