"""Minimal pairs and context pairs taken from a hand-built release snapshot."""

from __future__ import annotations

import dataclasses
import json

from datasets import vocabulary
from probing.embedding.base import TextSpan
from probing.measures.probes import context_items, context_pairs, pairs_from_snapshot, unique_items
from releases.snapshot import ReleaseCompound, ReleaseSentence, ReleaseVariant, ScoreInfo, Snapshot


def variant(kind, text, span, rank=1, isolated=False):
    return ReleaseVariant(kind=kind, rank=rank, isolated=isolated, text=text, span=span, status=vocabulary.APPROVED)


def in_sentence(kind, sentence, old, new, rank=1):
    """The sentence with ``old`` replaced by ``new``, and the span of ``new``."""
    start = sentence.index(old)
    return variant(kind, sentence.replace(old, new, 1), (start, start + len(new)), rank)


def alone(kind, text, rank=1):
    return variant(kind, text, (0, len(text)), rank, isolated=True)


def sentence(kind, slot, text, nc, variants=(), plural=False, token_score=None):
    start = text.index(nc)
    return ReleaseSentence(kind, slot, text, (start, start + len(nc)), plural, token_score, tuple(variants))


def compound(language, text, modifier, head, sentences, synonym=""):
    return ReleaseCompound(
        language=language,
        text=text,
        modifier=modifier,
        head=head,
        compositionality_class=vocabulary.IDIOMATIC,
        type_score=1.0,
        token_score=1.0,
        head_score=None,
        modifier_score=None,
        gold_synonym=synonym,
        frequency=1.0,
        modifier_frequency=None,
        head_frequency=None,
        frequency_source="",
        pmi=None,
        ppmi=None,
        sentences=tuple(sentences),
    )


BEAVER = "Carol is an eager beaver at work."
NEUTRAL_BEAVER = "This is an eager beaver."
PLURAL_BEAVER = "These are eager beavers."
GREY = "Use your grey matter, please."


def beaver() -> ReleaseCompound:
    nat = sentence(
        vocabulary.NATURALISTIC,
        1,
        BEAVER,
        "eager beaver",
        [
            in_sentence(vocabulary.RANDOM_FREQ, BEAVER, "eager beaver", "tin city", rank=2),
            in_sentence(vocabulary.RANDOM_FREQ, BEAVER, "eager beaver", "supermarket city", rank=1),
            in_sentence(vocabulary.SYNONYM_BOTH, BEAVER, "eager beaver", "restless rodent"),
            in_sentence(vocabulary.SYNONYM_NC, BEAVER, "eager beaver", "hard worker"),
            in_sentence(vocabulary.HEAD_ONLY, BEAVER, "eager beaver", "beaver"),
            in_sentence(vocabulary.MODIFIER_ONLY, BEAVER, "eager beaver", "eager"),
            in_sentence(vocabulary.GENERIC_HEAD, BEAVER, "eager beaver", "eager thing"),  # not one of the probes
        ],
        token_score=0.5,
    )
    neutral = sentence(
        vocabulary.NEUTRAL_SHORT,
        1,
        NEUTRAL_BEAVER,
        "eager beaver",
        [
            in_sentence(vocabulary.SYNONYM_NC, NEUTRAL_BEAVER, "eager beaver", "hard worker"),
            alone(vocabulary.ORIGINAL, "eager beaver"),
            alone(vocabulary.SYNONYM_NC, "hard worker"),
            alone(vocabulary.HEAD_ONLY, "beaver"),
            alone(vocabulary.MODIFIER_ONLY, "eager"),
        ],
    )
    plural = sentence(
        vocabulary.NEUTRAL_SHORT,
        2,
        PLURAL_BEAVER,
        "eager beavers",
        [
            in_sentence(vocabulary.SYNONYM_NC, PLURAL_BEAVER, "eager beavers", "hard workers"),
            alone(vocabulary.ORIGINAL, "eager beavers"),
        ],
        plural=True,
    )
    long = sentence(vocabulary.NEUTRAL_LONG, 1, "This is what an eager beaver is supposed to be.", "eager beaver")
    return compound("en", "eager beaver", "eager", "beaver", [plural, long, neutral, nat], synonym="hard worker")


def grey_matter() -> ReleaseCompound:
    nat = sentence(
        vocabulary.NATURALISTIC,
        2,
        GREY,
        "grey matter",
        [in_sentence(vocabulary.SYNONYM_NC, GREY, "grey matter", "brain")],
    )
    return compound("en", "grey matter", "grey", "matter", [nat], synonym="brain")


def snapshot() -> Snapshot:
    return Snapshot(("en",), (grey_matter(), beaver()), ScoreInfo("reference"))


def test_every_probe_variant_of_a_sentence_becomes_a_pair_in_probe_then_rank_order():
    pairs = [p for p in pairs_from_snapshot(snapshot()) if p.sentence_id == "naturalistic-1"]

    assert [(p.probe, p.rank) for p in pairs] == [
        ("syn", 1),
        ("head", 1),
        ("modifier", 1),
        ("words_syn", 1),
        ("rand", 1),
        ("rand", 2),
    ]
    syn = pairs[0]
    assert (syn.language, syn.compound, syn.condition) == ("en", "eager beaver", "naturalistic")
    assert syn.original == TextSpan(BEAVER, (12, 24))
    assert syn.variant.text == "Carol is an hard worker at work."
    assert syn.variant.text[slice(*syn.variant.span)] == "hard worker"


def test_isolated_variants_plural_and_long_neutral_sentences_are_not_pairs():
    pairs = pairs_from_snapshot(snapshot())

    assert {p.sentence_id for p in pairs} == {"naturalistic-1", "naturalistic-2", "neutral_short-1"}
    neutral = [p for p in pairs if p.condition == "neutral"]
    assert [(p.probe, p.variant.text) for p in neutral] == [("syn", "This is an hard worker.")]
    assert all(p.variant.text not in ("eager beaver", "hard worker", "beaver", "eager") for p in pairs)


def test_the_long_neutral_pattern_and_no_neutral_at_all_can_be_chosen():
    assert {p.sentence_id for p in pairs_from_snapshot(snapshot(), neutral_pattern=vocabulary.NEUTRAL_LONG)} == {
        "naturalistic-1",
        "naturalistic-2",
    }
    assert {p.condition for p in pairs_from_snapshot(snapshot(), neutral_pattern=None)} == {"naturalistic"}


def test_pairs_are_in_canonical_order_whatever_the_snapshot_order():
    shuffled = Snapshot(("en",), (beaver(), grey_matter()), ScoreInfo("reference"))

    pairs = pairs_from_snapshot(shuffled)

    assert pairs == pairs_from_snapshot(snapshot())
    assert [p.compound for p in pairs][:1] == ["eager beaver"]
    assert [p.sentence_id for p in pairs if p.compound == "eager beaver"][0] == "naturalistic-1"


def test_compounds_and_languages_filter_the_pairs():
    assert {p.compound for p in pairs_from_snapshot(snapshot(), compounds=["Grey  Matter"])} == {"grey matter"}
    assert pairs_from_snapshot(snapshot(), languages=["pt"]) == []


def test_unique_items_lists_each_text_once():
    pairs = pairs_from_snapshot(snapshot())

    items = unique_items(pairs)

    assert len(items) == len(set(items))
    assert items[0] == TextSpan(BEAVER, (12, 24))
    assert TextSpan(GREY, (9, 20)) in items
    assert len(items) == len({i for p in pairs for i in (p.original, p.variant)})


def test_context_pairs_use_the_isolated_compound_and_its_words():
    pairs = context_pairs(snapshot(), compounds=["eager beaver"])

    assert [(p.sentence_id, p.probe) for p in pairs] == [
        ("naturalistic-1", "nc_out"),
        ("naturalistic-1", "nc_out_comp"),
        ("neutral_short-1", "nc_out"),
        ("neutral_short-1", "nc_out_comp"),
    ]
    out, out_comp = pairs[0], pairs[1]
    assert out.in_context == TextSpan(BEAVER, (12, 24))
    assert out.out_of_context == (TextSpan("eager beaver", (0, 12)),)  # the singular one, not "eager beavers"
    assert out_comp.out_of_context == (TextSpan("beaver", (0, 6)), TextSpan("eager", (0, 5)))
    assert out.synthesised == out_comp.synthesised == ()
    assert out.token_score == 0.5


def test_a_sentence_own_isolated_compound_comes_first():
    text = "Both are eager beavers."
    nat = sentence(vocabulary.NATURALISTIC, 2, text, "eager beavers", [alone(vocabulary.ORIGINAL, "eager beavers")])
    base = beaver()
    release = Snapshot(
        ("en",), (ReleaseCompound(**{**base.__dict__, "sentences": (*base.sentences, nat)}),), ScoreInfo("x")
    )

    out = {p.sentence_id: p.out_of_context for p in context_pairs(release) if p.probe == "nc_out"}

    assert out["naturalistic-2"] == (TextSpan("eager beavers", (0, 13)),)
    assert out["naturalistic-1"] == (TextSpan("eager beaver", (0, 12)),)


def test_context_pairs_synthesise_what_the_release_lacks_and_say_so():
    pairs = context_pairs(snapshot(), compounds=["grey matter"])

    assert [p.probe for p in pairs] == ["nc_out", "nc_out_comp"]
    assert pairs[0].out_of_context == (TextSpan("grey matter", (0, 11)),)
    assert pairs[0].synthesised == ("original",)
    assert pairs[1].out_of_context == (TextSpan("matter", (0, 6)), TextSpan("grey", (0, 4)))
    assert pairs[1].synthesised == ("head", "modifier")
    assert context_items(pairs) == [
        TextSpan(GREY, (9, 20)),
        TextSpan("grey matter", (0, 11)),
        TextSpan("matter", (0, 6)),
        TextSpan("grey", (0, 4)),
    ]


def test_a_sentence_without_a_span_gives_sentence_pairs_but_no_context_pair():
    base = grey_matter()
    nat = base.sentences[0]
    no_span = ReleaseSentence(nat.kind, nat.slot, nat.text, None, False, None, nat.variants)
    release = Snapshot(("en",), (ReleaseCompound(**{**base.__dict__, "sentences": (no_span,)}),), ScoreInfo("x"))

    assert [p.original for p in pairs_from_snapshot(release)] == [TextSpan(GREY, None)]
    assert context_pairs(release) == []


def test_pairs_are_plain_data():
    pair = pairs_from_snapshot(snapshot())[0]

    assert json.loads(json.dumps(dataclasses.asdict(pair.original))) == {"text": BEAVER, "span": [12, 24]}


def test_a_pair_carries_its_sentence_length_published_or_counted():
    counted = sentence(
        vocabulary.NATURALISTIC,
        1,
        BEAVER,
        "eager beaver",
        [in_sentence(vocabulary.SYNONYM_NC, BEAVER, "eager beaver", "hard worker")],
    )
    published = ReleaseSentence(
        *[getattr(counted, f) for f in ("kind", "slot", "text", "span", "plural", "token_score", "variants")], length=11
    )
    pairs = [
        pairs_from_snapshot(
            Snapshot(("en",), (compound("en", "eager beaver", "eager", "beaver", [s]),), ScoreInfo("reference"))
        )[0]
        for s in (counted, published)
    ]
    # "Carol is an eager beaver at work." has 7 words (the full stop is no word); a published length wins.
    assert [p.length for p in pairs] == [7, 11]
