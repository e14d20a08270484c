"""Generating minimal-pair variants into the database, never overwriting a curator's decision.

The science lives in pure modules (``building.rules``: plan, lexicon lookups, random
matching, realisation); this module loads the language's resources once, asks them for
each compound's replacements, realises them in every sentence and writes the result.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import QuerySet

from building.lexicon.portuguese_morphology import default_morphology
from building.rules import plan
from building.rules.grammar.agreement import Morphology, agree_phrase
from building.rules.grammar.inflection import is_portuguese
from building.rules.grammar.realise import neutral, realise
from building.rules.synonyms.generic import generic_words
from building.variants.planning import IN_COMPOUND, plan_compound
from building.variants.resources import GenerationOptions, Resources, load_resources
from core.database import analyze
from datasets import vocabulary
from datasets.models import Collection, Compound, Sentence, Variant

NEUTRAL_SENTENCES = [
    (vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_SINGULAR_SLOT, "short", False),
    (vocabulary.NEUTRAL_SHORT, vocabulary.NEUTRAL_PLURAL_SLOT, "short", True),
    (vocabulary.NEUTRAL_LONG, vocabulary.NEUTRAL_SINGULAR_SLOT, "long", False),
    (vocabulary.NEUTRAL_LONG, vocabulary.NEUTRAL_PLURAL_SLOT, "long", True),
]
PATTERN_OF_KIND = {vocabulary.NEUTRAL_SHORT: "short", vocabulary.NEUTRAL_LONG: "long"}
VARIANT_FIELDS = ["text", "span_start", "span_end", "span_source", "flags", "details"]


@dataclass
class GenerationSummary:
    compounds: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    kept_decided: int = 0
    removed: int = 0
    neutral_sentences: int = 0
    skipped_sentences: int = 0
    notes: dict[str, list[str]] = field(default_factory=dict)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


# --- planning -------------------------------------------------------------------------------


# --- writing --------------------------------------------------------------------------------


def ensure_neutral_sentences(compound: Compound, morphology: Morphology | None = None) -> int:
    """The four neutral sentences (short/long, singular/plural) unless they exist already."""
    have = {(s.kind, s.slot) for s in compound.sentences.all() if s.kind != vocabulary.NATURALISTIC}
    created = []
    for kind, slot, pattern, plural in NEUTRAL_SENTENCES:
        if (kind, slot) in have:
            continue
        made = neutral(compound.text, compound.language, pattern=pattern, plural=plural, morphology=morphology)
        created.append(
            Sentence(
                compound=compound,
                kind=kind,
                slot=slot,
                text=made.text,
                span_start=made.span[0],
                span_end=made.span[1],
                span_source=vocabulary.SPAN_FROM_GENERATION,
                plural=plural,
                flags=list(made.flags),
            )
        )
    Sentence.objects.bulk_create(created)
    return len(created)


def new_head(compound: Compound, r: plan.Replacement) -> str | None:
    """The head word of a replacement that keeps the compound's shape, for Portuguese agreement; else None."""
    if r.kind in IN_COMPOUND:
        return r.details.get("head", {}).get("synonym") or compound.head or None
    if r.kind == vocabulary.GENERIC_HEAD:
        return generic_words(compound.language).head
    if r.kind == vocabulary.GENERIC_MODIFIER:
        return compound.head or None
    return None


def _realised_variants(
    compound: Compound, sentence: Sentence, compound_plan: plan.CompoundPlan, morphology: Morphology | None = None
) -> list[Variant]:
    out = []
    naturalistic = sentence.kind == vocabulary.NATURALISTIC
    for r in compound_plan.for_sentence(sentence.slot if naturalistic else None):
        if r.kind == vocabulary.ORIGINAL:
            continue  # the sentence itself
        if naturalistic:
            made = realise(
                sentence.text,
                (sentence.span_start, sentence.span_end),
                r.text,
                compound.language,
                plural=sentence.plural,
                morphology=morphology,
                head=new_head(compound, r),
            )
        else:
            pattern = PATTERN_OF_KIND[sentence.kind]
            made = neutral(r.text, compound.language, pattern=pattern, plural=sentence.plural, morphology=morphology)
        out.append(_variant(sentence, r, made.text, made.span, [*r.details.get("flags", []), *made.flags]))
    if sentence.kind == vocabulary.NEUTRAL_SHORT and sentence.slot == vocabulary.NEUTRAL_SINGULAR_SLOT:
        for r in compound_plan.isolated():
            text, flags = r.text, list(r.details.get("flags", []))
            if morphology is not None and is_portuguese(compound.language) and new_head(compound, r):
                phrase = agree_phrase(r.text, morphology, plural=False, head=new_head(compound, r))
                text, flags = phrase.text, [*flags, *phrase.flags]
            out.append(_variant(sentence, r, text, (0, len(text)), flags, isolated=True))
    return out


def _variant(sentence, r: plan.Replacement, text: str, span, flags: list[str], isolated: bool = False) -> Variant:
    return Variant(
        sentence=sentence,
        kind=r.kind,
        rank=r.rank,
        isolated=isolated,
        text=text,
        span_start=span[0],
        span_end=span[1],
        span_source=vocabulary.SPAN_FROM_GENERATION,
        status=vocabulary.GENERATED,
        origin=vocabulary.ORIGIN_GENERATED,
        flags=flags,
        details={**r.details, "replacement": r.text},
    )


def _write(compound: Compound, wanted: list[Variant], summary: GenerationSummary) -> None:
    """Create, update or remove generated variants; decided and imported ones stay as they are."""
    existing = {
        (x.sentence_id, x.kind, x.rank, x.isolated): x
        for x in Variant.objects.filter(sentence__compound=compound).only(
            "id", "sentence_id", "kind", "rank", "isolated", "status", "origin", *VARIANT_FIELDS
        )
    }
    to_create, to_update, keep = [], [], set()
    for variant in wanted:
        key = (variant.sentence_id, variant.kind, variant.rank, variant.isolated)
        keep.add(key)
        old = existing.get(key)
        if old is None:
            to_create.append(variant)
        elif old.is_decided or old.origin != vocabulary.ORIGIN_GENERATED:
            summary.kept_decided += old.is_decided
            summary.unchanged += not old.is_decided
        elif any(getattr(old, name) != getattr(variant, name) for name in VARIANT_FIELDS):
            for name in VARIANT_FIELDS:
                setattr(old, name, getattr(variant, name))
            to_update.append(old)
        else:
            summary.unchanged += 1
    stale = [
        old.pk
        for key, old in existing.items()
        if key not in keep and not old.is_decided and old.origin == vocabulary.ORIGIN_GENERATED
    ]
    Variant.objects.bulk_create(to_create, batch_size=500)
    Variant.objects.bulk_update(to_update, VARIANT_FIELDS, batch_size=500)
    Variant.objects.filter(pk__in=stale).delete()
    summary.created += len(to_create)
    summary.updated += len(to_update)
    summary.removed += len(stale)


def generate_for_compound(
    compound: Compound, options: GenerationOptions, summary: GenerationSummary, resources: Resources
) -> None:
    with transaction.atomic():
        morphology = default_morphology(compound.language)
        if options.neutral:
            summary.neutral_sentences += ensure_neutral_sentences(compound, morphology)
        sentences = [s for s in compound.sentences.all() if options.neutral or s.kind == vocabulary.NATURALISTIC]
        usable = [s for s in sentences if s.available and s.text and s.has_span]
        summary.skipped_sentences += len(sentences) - len(usable)
        # Slot 1's NC_Rand list is also the neutral sentences' (as in the NCIMP release), so it is
        # planned even when naturalistic sentence 1 is unavailable (a corpus pointer only).
        slots = sorted({s.slot for s in usable if s.kind == vocabulary.NATURALISTIC} | {1})
        contexts = [(s.text, (s.span_start, s.span_end)) for s in usable if s.kind == vocabulary.NATURALISTIC]
        compound_plan = plan_compound(compound, resources, slots, contexts)
        wanted = [variant for s in usable for variant in _realised_variants(compound, s, compound_plan, morphology)]
        _write(compound, wanted, summary)
    if compound_plan.notes:
        summary.notes[f"{compound.text} ({compound.language})"] = compound_plan.notes
    summary.compounds += 1


def generate_variants(
    compounds: QuerySet[Compound] | Iterable[Compound],
    options: GenerationOptions | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> GenerationSummary:
    """Generate (or regenerate) every variant of the compounds; one transaction per compound."""
    options = options or GenerationOptions()
    summary = GenerationSummary()
    by_language: dict[str, Resources] = {}  # looked up once per call, not once per compound
    for done, compound in enumerate(compounds, start=1):
        if compound.language not in by_language:
            by_language[compound.language] = load_resources(compound.language, options)
        generate_for_compound(compound, options, summary, by_language[compound.language])
        if on_progress:
            on_progress(done)
    analyze(Sentence, Variant)
    return summary


def ensure_compounds(language: str, texts: Iterable[str], collection: str) -> list[Compound]:
    """The named compounds of a language; one not in the database is created from its words, head last."""
    found: list[Compound] = []
    for text in texts:
        text = " ".join(text.split())
        if not text:
            continue
        key = vocabulary.compound_key(text)
        compound = Compound.objects.filter(language=language, key=key).order_by("collection__slug").first()
        if compound is None:
            words = text.split()
            if len(words) < 2:
                raise ValueError(f"{text!r}: a new compound needs at least two words (modifier and head)")
            compound = Compound.objects.create(
                collection=Collection.named(collection),
                language=language,
                text=text,
                modifier=" ".join(words[:-1]),
                head=words[-1],
            )
        found.append(compound)
    return found


# --- reporting ------------------------------------------------------------------------------


def variants_report(compounds: Iterable[Compound]) -> list[dict]:
    """Each compound's variants grouped by probe name, one entry per sentence (the command's JSON)."""
    out = []
    for compound in compounds:
        groups: dict[str, list[dict]] = {group: [] for group in plan.OUTPUT_GROUPS if group != "original"}
        groups["neutral"] = []
        sentences = compound.sentences.order_by("kind", "slot").prefetch_related("variants")
        for sentence in sentences:
            where = {"sentence_kind": sentence.kind, "slot": sentence.slot}
            if sentence.kind != vocabulary.NATURALISTIC:
                groups["neutral"].append(
                    {
                        "kind": sentence.kind,
                        "replacement": sentence.surface,
                        "sentence": sentence.text,
                        "span": [sentence.span_start, sentence.span_end],
                        "status": "plural" if sentence.plural else "singular",
                        "flags": list(sentence.flags),
                        **where,
                    }
                )
            for variant in sentence.variants.all():
                group = plan.KIND_GROUP.get(variant.kind)
                if group is None or group == "original":
                    continue
                groups[group].append(
                    {
                        "kind": variant.kind,
                        "rank": variant.rank,
                        "replacement": variant.replacement,
                        "sentence": variant.text,
                        "span": [variant.span_start, variant.span_end],
                        "status": variant.status,
                        "flags": list(variant.flags),
                        "isolated": variant.isolated,
                        **where,
                    }
                )
        out.append({"compound": compound.text, "language": compound.language, "variants": groups})
    return out
