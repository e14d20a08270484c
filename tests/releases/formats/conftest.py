"""A small release built by hand: an English and a Portuguese compound, naturalistic and neutral."""

from __future__ import annotations

import pytest

from datasets import vocabulary
from releases.formats import ReleaseMeta
from releases.formats.meta import Creator
from releases.snapshot import (
    Agreement,
    CampaignSource,
    LanguageSource,
    ReleaseCompound,
    ReleaseParaphrase,
    ReleaseSentence,
    ReleaseVariant,
    ScoreInfo,
    Snapshot,
)


def span_of(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


def variant(
    kind: str, text: str, part: str | None, rank: int = 1, isolated: bool = False, status: str = vocabulary.APPROVED
):
    return ReleaseVariant(kind, rank, isolated, text, span_of(text, part) if part else None, status)


def sentence(kind: str, slot: int, text: str, part: str, *variants, plural=False, token_score=None):
    return ReleaseSentence(kind, slot, text, span_of(text, part), plural, token_score, tuple(variants))


def eager_beaver() -> ReleaseCompound:
    nat1 = "He was an eager beaver at work , always first in ."
    return ReleaseCompound(
        language="en",
        text="eager beaver",
        modifier="eager",
        head="beaver",
        compositionality_class=vocabulary.IDIOMATIC,
        type_score=1.2345678,
        token_score=1.15,
        head_score=0.5,
        modifier_score=3.25,
        gold_synonym="enthusiast",
        frequency=0.42,
        modifier_frequency=55.0,
        head_frequency=3.1,
        frequency_source="demo corpus",
        pmi=7.5,
        ppmi=7.5,
        sentences=(
            # Given out of order on purpose: the snapshot's canonical order must not depend on it.
            sentence(
                vocabulary.NEUTRAL_SHORT,
                2,
                "These are eager beavers",
                "eager beavers",
                variant(vocabulary.SYNONYM_NC, "These are enthusiasts", "enthusiasts"),
                variant(vocabulary.HEAD_ONLY, "These are beavers", "beavers"),
                variant(vocabulary.SYNONYM_NC, "enthusiasts", "enthusiasts", isolated=True),
                plural=True,
            ),
            sentence(
                vocabulary.NATURALISTIC,
                1,
                nat1,
                "eager beaver",
                variant(vocabulary.SYNONYM_NC, "He was an enthusiast at work , always first in .", "enthusiast"),
                variant(
                    vocabulary.HEAD_ONLY,
                    "He was a beaver at work , always first in .",
                    "beaver",
                    status=vocabulary.EDITED,
                ),
                variant(vocabulary.MODIFIER_ONLY, "He was an eager at work , always first in .", "eager"),
                variant(vocabulary.RANDOM_FREQ, "He was a speed limit at work , always first in .", "speed limit"),
                variant(vocabulary.RANDOM_FREQ, "He was a gold mine at work , always first in .", "gold mine", rank=3),
                variant(vocabulary.RANDOM, "He was a dead end at work , always first in .", "dead end", rank=5),
                variant(vocabulary.ORIGINAL, "eager beaver", "eager beaver", isolated=True),
                # No span: the generator could not place it.
                variant(
                    vocabulary.GENERIC_HEAD,
                    "He was an eager thing at work , always first in .",
                    None,
                    status=vocabulary.GENERATED,
                ),
                token_score=1.0,
            ),
            sentence(
                vocabulary.NATURALISTIC, 2, "Eager beavers stay late .", "Eager beavers", plural=True, token_score=1.3
            ),
            sentence(
                vocabulary.NEUTRAL_SHORT,
                1,
                "This is an eager beaver",
                "eager beaver",
                variant(vocabulary.SYNONYM_NC, "This is an enthusiast", "enthusiast"),
                variant(vocabulary.HEAD_ONLY, "This is a beaver", "beaver"),
                variant(vocabulary.HEAD_ONLY, "beaver", "beaver", isolated=True),
                variant(vocabulary.MODIFIER_ONLY, "eager", "eager", isolated=True),
                variant(vocabulary.RANDOM_FREQ, "This is a color diagram", "color diagram", rank=2),
                variant(vocabulary.RANDOM_FREQ, "color diagram", "color diagram", rank=2, isolated=True),
                variant(vocabulary.GENERIC_BOTH, "This is a thing thing", "thing thing"),
            ),
            sentence(
                vocabulary.NEUTRAL_LONG,
                1,
                "This is what an eager beaver is supposed to be",
                "eager beaver",
                variant(vocabulary.SYNONYM_NC, "This is what an enthusiast is supposed to be", "enthusiast"),
            ),
        ),
        paraphrases=(
            ReleaseParaphrase(vocabulary.TOKEN_LEVEL, 1, "keen worker", 1),
            ReleaseParaphrase(vocabulary.TYPE_LEVEL, None, "enthusiast", 3),
            ReleaseParaphrase(vocabulary.TYPE_LEVEL, None, "hard worker", 1),
        ),
    )


def abalo_sismico() -> ReleaseCompound:
    nat = "São incomuns em Goiana os grandes abalos sísmicos ou terremotos ."
    return ReleaseCompound(
        language="pt",
        text="abalo sísmico",
        modifier="sísmico",
        head="abalo",
        compositionality_class=vocabulary.COMPOSITIONAL,
        type_score=4.4242,
        token_score=None,
        head_score=None,
        modifier_score=None,
        gold_synonym="tremor de terra",
        frequency=None,
        modifier_frequency=None,
        head_frequency=None,
        frequency_source="",
        pmi=None,
        ppmi=None,
        sentences=(
            sentence(
                vocabulary.NATURALISTIC,
                3,
                nat,
                "abalos sísmicos",
                variant(
                    vocabulary.SYNONYM_NC, nat.replace("abalos sísmicos", "tremores de terra"), "tremores de terra"
                ),
                variant(vocabulary.RANDOM, nat.replace("abalos sísmicos", "vinhos tintos"), "vinhos tintos", rank=5),
                variant(vocabulary.ORIGINAL, "abalos sísmicos", "abalos sísmicos", isolated=True),
                plural=True,
                token_score=4.333333333333333,
            ),
            sentence(
                vocabulary.NEUTRAL_SHORT,
                1,
                "Este é um abalo sísmico .",
                "abalo sísmico",
                variant(vocabulary.GENERIC_MODIFIER, "Este é um abalo normal .", "abalo normal"),
                variant(vocabulary.SYNONYM_BOTH, "trepidação enérgica", "trepidação enérgica", isolated=True),
            ),
            sentence(
                vocabulary.NEUTRAL_SHORT,
                2,
                "Estes são abalos sísmicos .",
                "abalos sísmicos",
                # Not a plural column, but it pairs with the plural pattern (as in the public file).
                variant(vocabulary.RANDOM_FREQ, "Estes são índios aculturados .", "índios aculturados", rank=5),
                variant(vocabulary.HEAD_ONLY, "Estes são abalos .", "abalos"),
                plural=True,
            ),
        ),
        paraphrases=(ReleaseParaphrase(vocabulary.TYPE_LEVEL, None, "terremoto", 2),),
    )


@pytest.fixture
def release_snapshot() -> Snapshot:
    return Snapshot(
        languages=("pt", "en"),
        compounds=(abalo_sismico(), eager_beaver()),
        scores=ScoreInfo(
            source="campaign",
            campaigns=("demo-token",),
            policy={"name": "attention-checks", "min_pass_rate": 0.8, "drop_straightliners": True},
            aggregation="mean",
            languages=(
                LanguageSource(
                    "en",
                    ("import_nctti",),
                    (
                        CampaignSource(
                            "demo-token",
                            "token",
                            3,
                            0,
                            320,
                            (("annotator 4", "speeder (median 0.5 s per item < 3 s)"),),
                            platforms=("prolific",),
                            pay_per_rating="0.15",
                            consent=True,
                            allocation="fixed",
                            ratings_per_item=8,
                        ),
                    ),
                ),
                LanguageSource("pt", ("import_ncimp",)),
            ),
        ),
        agreement=(
            Agreement("en", "compound", "interval", 0.612, 0.55, 0.67, 40, 320, "campaign demo-token"),
            Agreement("pt", "compound", "interval", None, None, None, 1, 2, "campaign demo-token"),
        ),
    )


@pytest.fixture
def release_meta() -> ReleaseMeta:
    return ReleaseMeta(
        version="1.2.0",
        title="Idiomaticity probes",
        description="Minimal pairs for probing idiomaticity.",
        licence="CC-BY-4.0",
        citation="Doe, J. (2025). Idiomaticity probes 1.2.0.",
        created="2025-03-01",
        code_version="abc1234",
        creators=(Creator("Jane Doe", "University of Sheffield", "0000-0002-1825-0097"), Creator("Ana Sousa")),
        url="https://workbench.example.org/releases/1.2.0/",
        intended_use="Probing sentence encoders.",
        limitations="Two compounds only.",
        biases="Hand-picked examples.",
    )
