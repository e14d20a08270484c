"""Small builders for dataset rows, with sensible defaults; every keyword can be overridden."""

from __future__ import annotations

from datasets import vocabulary
from datasets.models import Collection, Compound, Paraphrase, Sentence, Variant


def make_collection(slug: str = "default", name: str = "Default") -> Collection:
    return Collection.named(slug, name)


def make_compound(
    text: str = "eager beaver", language: str = "en", collection: Collection | str = "default", **fields
) -> Compound:
    """A compound in ``collection`` (a Collection or a slug, created when missing)."""
    if isinstance(collection, str):
        collection = make_collection(collection, collection.title())
    modifier, _, head = text.partition(" ")
    defaults = {
        "modifier": modifier,
        "head": head,
        "compositionality_class": vocabulary.IDIOMATIC,
        "type_score": 1.2,
        "source_file": "en_nctti.csv",
        "source_line": 7,
    }
    return Compound.objects.create(text=text, language=language, collection=collection, **(defaults | fields))


def make_sentence(
    compound: Compound,
    text: str | None = None,
    surface: str | None = None,
    **fields,
) -> Sentence:
    """A sentence whose span covers ``surface`` (the compound text by default) where it first occurs."""
    if text is None:
        text = f"Alice called Bob an {compound.text} at the meeting."
    surface = compound.text if surface is None else surface
    start = text.find(surface) if surface else -1
    span = {"span_start": start, "span_end": start + len(surface), "span_source": vocabulary.SPAN_FROM_TAGS}
    if start < 0:
        span = {}
    defaults = {"kind": vocabulary.NATURALISTIC, "slot": compound.sentences.count() + 1} | span
    return Sentence.objects.create(compound=compound, text=text, **(defaults | fields))


def make_unavailable_sentence(compound: Compound, pointer: str = "ukWaC doc 1234", **fields) -> Sentence:
    defaults = {"kind": vocabulary.NATURALISTIC, "slot": compound.sentences.count() + 1}
    return Sentence.objects.create(
        compound=compound, text="", available=False, corpus_pointer=pointer, **(defaults | fields)
    )


def make_variant(
    sentence: Sentence,
    replacement: str = "enthusiast",
    kind: str = vocabulary.SYNONYM_NC,
    **fields,
) -> Variant:
    """The sentence with its compound span replaced by ``replacement``."""
    before, _, after = sentence.parts()
    defaults = {
        "kind": kind,
        "rank": 1,
        "text": before + replacement + after,
        "span_start": len(before),
        "span_end": len(before) + len(replacement),
        "span_source": vocabulary.SPAN_FROM_DIFF,
    }
    return Variant.objects.create(sentence=sentence, **(defaults | fields))


def make_paraphrase(
    compound: Compound,
    text: str,
    frequency: int = 1,
    sentence: Sentence | None = None,
) -> Paraphrase:
    level = vocabulary.TOKEN_LEVEL if sentence else vocabulary.TYPE_LEVEL
    return Paraphrase.objects.create(
        compound=compound,
        sentence=sentence,
        level=level,
        text=text,
        frequency=frequency,
    )


def make_dataset() -> dict:
    """Two languages, all three classes, an unavailable sentence, paraphrases and variants.

    Everything in the "default" collection.
    """
    beaver = make_compound("eager beaver", gold_synonym="enthusiast", token_score=1.5, frequency=1234.0)
    first = make_sentence(beaver, "Carol is such an eager beaver that she starts at six.")
    second = make_sentence(beaver, "The eager beavers stayed late.", surface="eager beavers", plural=True)
    pointer = make_unavailable_sentence(beaver)
    neutral = make_sentence(beaver, "This is an eager beaver.", kind=vocabulary.NEUTRAL_SHORT, slot=1)
    make_paraphrase(beaver, "enthusiast", frequency=3)
    make_paraphrase(beaver, "hard worker", frequency=2)
    make_paraphrase(beaver, "keen person", sentence=first)
    synonym = make_variant(first, "enthusiast")
    head_only = make_variant(first, "beaver", kind=vocabulary.HEAD_ONLY, status=vocabulary.APPROVED)
    make_variant(second, "enthusiasts")
    olive = make_compound("olive oil", compositionality_class=vocabulary.COMPOSITIONAL, type_score=4.8)
    make_sentence(olive, "Dave cooks with olive oil.")
    guarda = make_compound("guarda chuva", language="pt", compositionality_class=vocabulary.PARTLY, type_score=2.5)
    make_sentence(guarda, "Erin esqueceu o guarda chuva.")
    return {
        "beaver": beaver,
        "first": first,
        "second": second,
        "pointer": pointer,
        "neutral": neutral,
        "synonym": synonym,
        "head_only": head_only,
        "olive": olive,
        "guarda": guarda,
    }
