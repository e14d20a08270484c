"""diff_snapshots: two hand-built snapshots with known differences, no database."""

from __future__ import annotations

import json
from dataclasses import replace

from releases.diff import diff_snapshots
from releases.snapshot import (
    Agreement,
    ReleaseCompound,
    ReleaseParaphrase,
    ReleaseSentence,
    ReleaseVariant,
    ScoreInfo,
    Snapshot,
)

SENTENCE = "Carol is such an eager beaver that she starts at six."


def variant(kind: str = "NC_Syn", text: str = "Carol is such an enthusiast that she starts at six.", **fields):
    return ReleaseVariant(
        **({"kind": kind, "rank": 1, "isolated": False, "text": text, "span": (17, 27), "status": "approved"} | fields)
    )


def sentence(slot: int = 1, text: str = SENTENCE, variants=(), **fields) -> ReleaseSentence:
    defaults = {"kind": "naturalistic", "slot": slot, "text": text, "span": (17, 29), "plural": False}
    return ReleaseSentence(**(defaults | {"token_score": 1.0, "variants": tuple(variants)} | fields))


def compound(text: str = "eager beaver", language: str = "en", **fields) -> ReleaseCompound:
    modifier, _, head = text.partition(" ")
    defaults = {
        "language": language,
        "text": text,
        "modifier": modifier,
        "head": head,
        "compositionality_class": "idiomatic",
        "type_score": 1.2,
        "token_score": 1.0,
        "head_score": None,
        "modifier_score": None,
        "gold_synonym": "enthusiast",
        "frequency": 1.5,
        "modifier_frequency": None,
        "head_frequency": None,
        "frequency_source": "wordfreq",
        "pmi": None,
        "ppmi": None,
    }
    return ReleaseCompound(**(defaults | fields))


def snapshot(*compounds, languages=("en",), scores=None, agreement=()) -> Snapshot:
    return Snapshot(tuple(languages), tuple(compounds), scores or ScoreInfo("reference"), tuple(agreement))


def alpha(value: float, **fields) -> Agreement:
    defaults = {"language": "en", "question": "compound", "level": "interval", "low": None, "high": None}
    return Agreement(
        **(defaults | {"alpha": value, "n_items": 10, "n_ratings": 50, "source": "campaign demo"} | fields)
    )


def old_release() -> Snapshot:
    beaver = compound(
        sentences=(
            sentence(1, variants=[variant(), variant("NC_Head", "Carol is such a beaver that she starts at six.")]),
            sentence(2, "The eager beavers stayed late.", span=(4, 17), plural=True),
        ),
        paraphrases=(ReleaseParaphrase("type", None, "enthusiast", 3), ReleaseParaphrase("type", None, "toiler", 1)),
    )
    olive = compound("olive oil", compositionality_class="compositional", type_score=4.8, sentences=(sentence(1),))
    ivory = compound("ivory tower", type_score=0.4, sentences=(sentence(1, "An ivory tower.", span=(3, 14)),))
    return snapshot(beaver, olive, ivory, agreement=[alpha(0.61)])


def new_release() -> Snapshot:
    beaver = compound(
        type_score=1.5,
        gold_synonym="hard worker",
        sentences=(
            sentence(
                1,
                token_score=1.4,
                variants=[
                    variant(status="edited", text="Carol is such an enthusiast who starts at six."),
                    variant("NC_Mod", "Carol is such an eager that she starts at six."),
                ],
            ),
            sentence(2, "The eager beavers stayed late.", span=(4, 17), plural=True),
            sentence(3, "Eager beavers everywhere.", span=(0, 13), plural=True),
        ),
        paraphrases=(ReleaseParaphrase("type", None, "enthusiast", 5), ReleaseParaphrase("type", None, "keen", 1)),
    )
    olive = compound(
        "olive oil", compositionality_class="partly_compositional", type_score=3.3, sentences=(sentence(1),)
    )
    guarda = compound("guarda chuva", language="pt", gold_synonym="", type_score=4.0)
    return snapshot(
        beaver,
        olive,
        guarda,
        languages=("en", "pt"),
        scores=ScoreInfo("campaign", ("demo",), {"name": "strict", "min_rho": 0.3}),
        agreement=[alpha(0.72, low=0.6, high=0.8)],
    )


def test_identical_snapshots_have_no_changes():
    diff = diff_snapshots(old_release(), old_release())
    assert diff["summary"]["identical"] is True
    assert diff["summary"]["compounds"] == {"old": 3, "new": 3, "added": 0, "removed": 0, "changed": 0}
    assert diff["compounds"] == {"added": [], "removed": [], "changed": []}
    assert diff["scores"]["type_score"]["changed"] == 0
    assert diff["scores"]["type_score"]["mean_absolute_change"] == 0.0
    assert diff["scores"]["type_score"]["largest"] == []


def test_summary_counts_every_part():
    summary = diff_snapshots(old_release(), new_release())["summary"]
    assert summary["languages"] == {"added": ["pt"], "removed": []}
    assert summary["compounds"] == {"old": 3, "new": 3, "added": 1, "removed": 1, "changed": 2}
    # The ivory tower's sentence went with it; the beaver gained a third.
    assert summary["sentences"] == {"old": 4, "new": 4, "added": 1, "removed": 1, "changed": 1}
    assert summary["variants"] == {"old": 2, "new": 2, "added": 1, "removed": 1, "changed": 1}
    assert summary["paraphrases"] == {"old": 2, "new": 2, "added": 1, "removed": 1, "changed": 1}
    assert summary["agreement"] == {"old": 1, "new": 1, "added": 0, "removed": 0, "changed": 1}
    assert summary["type_scores_changed"] == 2
    assert summary["classes_changed"] == 1
    assert summary["score_source_changed"] is True
    assert summary["identical"] is False


def test_compounds_added_removed_and_changed_field_by_field():
    compounds = diff_snapshots(old_release(), new_release())["compounds"]
    assert [(row["language"], row["compound"]) for row in compounds["added"]] == [("pt", "guarda chuva")]
    assert compounds["added"][0]["type_score"] == 4.0
    assert [(row["language"], row["compound"]) for row in compounds["removed"]] == [("en", "ivory tower")]
    assert compounds["changed"] == [
        {
            "language": "en",
            "compound": "eager beaver",
            "changes": {
                "type_score": {"old": 1.2, "new": 1.5},
                "gold_synonym": {"old": "enthusiast", "new": "hard worker"},
            },
        },
        {
            "language": "en",
            "compound": "olive oil",
            "changes": {
                "compositionality_class": {"old": "compositional", "new": "partly_compositional"},
                "type_score": {"old": 4.8, "new": 3.3},
            },
        },
    ]


def test_sentences_keyed_by_compound_kind_and_slot():
    sentences = diff_snapshots(old_release(), new_release())["sentences"]
    assert sentences["added"] == [
        {
            "language": "en",
            "compound": "eager beaver",
            "kind": "naturalistic",
            "slot": 3,
            "text": "Eager beavers everywhere.",
            "span": [0, 13],
            "plural": True,
            "token_score": 1.0,
            "length": None,
        }
    ]
    assert [(row["compound"], row["slot"]) for row in sentences["removed"]] == [("ivory tower", 1)]
    assert sentences["changed"] == [
        {
            "language": "en",
            "compound": "eager beaver",
            "kind": "naturalistic",
            "slot": 1,
            "changes": {"token_score": {"old": 1.0, "new": 1.4}},
        }
    ]


def test_variants_keyed_by_sentence_and_variant():
    variants = diff_snapshots(old_release(), new_release())["variants"]
    identity = {"language": "en", "compound": "eager beaver", "sentence_kind": "naturalistic", "sentence_slot": 1}
    assert variants["changed"] == [
        identity
        | {
            "kind": "NC_Syn",
            "rank": 1,
            "isolated": False,
            "changes": {
                "text": {
                    "old": "Carol is such an enthusiast that she starts at six.",
                    "new": "Carol is such an enthusiast who starts at six.",
                },
                "status": {"old": "approved", "new": "edited"},
            },
        }
    ]
    assert variants["added"] == [
        identity
        | {
            "kind": "NC_Mod",
            "rank": 1,
            "isolated": False,
            "text": "Carol is such an eager that she starts at six.",
            "span": [17, 27],
            "status": "approved",
        }
    ]
    assert [row["kind"] for row in variants["removed"]] == ["NC_Head"]


def test_paraphrases_and_agreement():
    diff = diff_snapshots(old_release(), new_release())
    identity = {"language": "en", "compound": "eager beaver", "level": "type", "slot": None}
    assert diff["paraphrases"] == {
        "added": [identity | {"text": "keen", "frequency": 1}],
        "removed": [identity | {"text": "toiler", "frequency": 1}],
        "changed": [identity | {"text": "enthusiast", "changes": {"frequency": {"old": 3, "new": 5}}}],
    }
    assert diff["agreement"]["changed"] == [
        {
            "language": "en",
            "question": "compound",
            "source": "campaign demo",
            "changes": {
                "alpha": {"old": 0.61, "new": 0.72},
                "low": {"old": None, "new": 0.6},
                "high": {"old": None, "new": 0.8},
            },
        }
    ]


def test_type_score_changes_are_summarised_largest_first():
    scores = diff_snapshots(old_release(), new_release())["scores"]
    assert scores["type_score"] == {
        "compared": 2,
        "changed": 2,
        "mean_absolute_change": 0.9,  # (0.3 + 1.5) / 2
        "mean_absolute_change_of_changed": 0.9,
        "max_absolute_change": 1.5,
        "largest": [
            {"language": "en", "compound": "olive oil", "old": 4.8, "new": 3.3, "change": -1.5},
            {"language": "en", "compound": "eager beaver", "old": 1.2, "new": 1.5, "change": 0.3},
        ],
    }
    assert scores["head_score"] == {
        "compared": 0,
        "changed": 0,
        "mean_absolute_change": None,
        "mean_absolute_change_of_changed": None,
        "max_absolute_change": None,
        "largest": [],
    }


def test_largest_changes_are_capped_and_unchanged_compounds_dilute_the_mean():
    old = snapshot(*(compound(f"word{i} thing", type_score=1.0) for i in range(5)))
    new = snapshot(*(compound(f"word{i} thing", type_score=1.0 + (i % 2) * i) for i in range(5)))
    scores = diff_snapshots(old, new, largest=1)["scores"]["type_score"]
    assert scores["compared"] == 5
    assert scores["changed"] == 2
    assert scores["mean_absolute_change"] == 0.8  # (1 + 3) / 5
    assert scores["mean_absolute_change_of_changed"] == 2.0
    assert scores["largest"] == [
        {"language": "en", "compound": "word3 thing", "old": 1.0, "new": 4.0, "change": 3.0},
    ]


def test_a_score_that_appears_counts_as_changed_but_not_in_the_mean():
    old = snapshot(compound(head_score=None))
    new = snapshot(compound(head_score=2.0))
    diff = diff_snapshots(old, new)
    assert diff["scores"]["head_score"]["changed"] == 1
    assert diff["scores"]["head_score"]["compared"] == 0
    assert diff["compounds"]["changed"][0]["changes"] == {"head_score": {"old": None, "new": 2.0}}


def test_rounding_noise_is_not_a_change():
    old = snapshot(compound(type_score=0.1 + 0.2))
    new = snapshot(compound(type_score=0.3))
    assert diff_snapshots(old, new)["summary"]["identical"] is True


def test_class_transitions_and_score_source():
    diff = diff_snapshots(old_release(), new_release())
    assert diff["classes"] == [{"old": "compositional", "new": "partly_compositional", "count": 1}]
    assert diff["score_source"] == {
        "old": {"source": "reference", "campaigns": [], "policy": {}, "aggregation": "mean"},
        "new": {
            "source": "campaign",
            "campaigns": ["demo"],
            "policy": {"name": "strict", "min_rho": 0.3},
            "aggregation": "mean",
        },
        "changed": True,
    }


def test_a_span_change_and_a_compound_spelled_differently():
    old = snapshot(compound(sentences=(sentence(1),)))
    new = snapshot(compound("Eager Beaver", sentences=(sentence(1, span=(17, 30)),)))
    diff = diff_snapshots(old, new)
    assert diff["compounds"]["changed"] == [
        {
            "language": "en",
            "compound": "Eager Beaver",
            "changes": {
                "text": {"old": "eager beaver", "new": "Eager Beaver"},
                "modifier": {"old": "eager", "new": "Eager"},
                "head": {"old": "beaver", "new": "Beaver"},
            },
        }
    ]
    assert diff["sentences"]["changed"][0]["changes"] == {"span": {"old": [17, 29], "new": [17, 30]}}


def test_the_diff_is_deterministic_json():
    old, new = old_release(), new_release()
    diff = diff_snapshots(old, new)
    shuffled = replace(new, compounds=tuple(reversed(new.compounds)))
    assert json.dumps(diff_snapshots(old, shuffled)) == json.dumps(diff)
    assert json.loads(json.dumps(diff)) == diff
