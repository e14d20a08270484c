"""A curator's decisions on variants: each audited once, with who, when, before and after."""

from __future__ import annotations

import pytest
from django.utils import timezone

from building.models import VariantChange
from building.variants.curation import (
    approve_unflagged,
    approve_variant,
    edit_variant,
    edit_variant_text,
    parse_marked_variant,
    reject_variant,
    reset_variant,
)
from datasets import vocabulary
from datasets.models import Variant
from tests.building.review_factories import AGREEMENT_FLAG, make_curator, make_review_compound
from tests.datasets.factories import make_compound, make_sentence, make_variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice():
    return make_curator("alice")


@pytest.fixture
def data():
    return make_review_compound()


def only_change(variant: Variant) -> VariantChange:
    changes = list(VariantChange.objects.filter(variant=variant))
    assert len(changes) == 1
    return changes[0]


def test_approving_records_who_when_and_the_states_before_and_after(alice, data):
    variant = data["synonym"]
    before = variant.snapshot()
    started = timezone.now()

    approve_variant(variant, alice)

    variant.refresh_from_db()
    change = only_change(variant)
    assert variant.status == vocabulary.APPROVED and variant.is_decided
    assert (change.action, change.user, change.note) == (VariantChange.Action.APPROVE, alice, "")
    assert change.before == before == {"text": variant.text, "span": [17, 27], "status": vocabulary.GENERATED}
    assert change.after == variant.snapshot() == {"text": variant.text, "span": [17, 27], "status": vocabulary.APPROVED}
    assert started <= change.at <= timezone.now()
    assert (variant.decided_by, variant.decided_at) == (alice, change.at)


def test_rejecting_keeps_the_curators_note(alice, data):
    reject_variant(data["head"], alice, note="the head alone reads oddly here")

    change = only_change(data["head"])
    assert (change.action, change.note) == (VariantChange.Action.REJECT, "the head alone reads oddly here")
    assert (change.before["status"], change.after["status"]) == (vocabulary.GENERATED, vocabulary.REJECTED)
    assert Variant.objects.get(pk=data["head"].pk).status == vocabulary.REJECTED


def test_editing_computes_the_exact_span_from_the_brackets(alice):
    compound = make_compound("pope")
    sentence = make_sentence(compound, "John Paul II was an effective pope for the catholic church.")
    variant = make_variant(sentence, "representativ")

    edit_variant(variant, alice, "John Paul II was an effective [representative] for the catholic church.")

    variant.refresh_from_db()
    assert variant.text == "John Paul II was an effective representative for the catholic church."
    assert variant.replacement == "representative"
    assert (variant.span_start, variant.span_end) == (30, 44)
    assert (variant.status, variant.span_source) == (vocabulary.EDITED, vocabulary.SPAN_FROM_EDIT)
    change = only_change(variant)
    assert change.action == VariantChange.Action.EDIT
    assert change.before["text"] == "John Paul II was an effective representativ for the catholic church."
    assert change.after == {"text": variant.text, "span": [30, 44], "status": vocabulary.EDITED}


def test_blanks_just_inside_the_brackets_stay_outside_the_span():
    assert parse_marked_variant("  an [ enthusiast ] at work ") == ("an  enthusiast  at work", (4, 14))


def test_editing_resolves_the_flags_into_the_details(alice, data):
    variant = data["flagged"]

    edit_variant(variant, alice, "Carol is such a [keen person] that she starts at six.")

    variant.refresh_from_db()
    assert variant.flags == []
    assert variant.details["resolved_flags"] == [AGREEMENT_FLAG]
    assert variant.text == "Carol is such a keen person that she starts at six."


def test_an_isolated_variant_is_spanned_whole_with_or_without_brackets(alice, data):
    variant = data["isolated"]

    edit_variant(variant, alice, "keen worker")
    variant.refresh_from_db()
    assert (variant.text, variant.span_start, variant.span_end) == ("keen worker", 0, 11)

    edit_variant(variant, alice, "[hard worker]")
    variant.refresh_from_db()
    assert (variant.text, variant.span_start, variant.span_end) == ("hard worker", 0, 11)
    assert VariantChange.objects.filter(variant=variant).count() == 2


@pytest.mark.parametrize(
    ("marked", "message"),
    [
        ("Carol is such an enthusiast that she starts at six.", "exactly one pair of [brackets]"),
        ("Carol is [such] an [enthusiast] that she starts.", "exactly one pair of [brackets]"),
        ("Carol is such an ]enthusiast[ that she starts.", "exactly one pair of [brackets]"),
        ("Carol is such an [enthusiast that she starts.", "exactly one pair of [brackets]"),
        ("Carol is such an [] that she starts.", "mark nothing"),
        ("Carol is such an [   ] that she starts.", "mark nothing"),
    ],
)
def test_bad_markup_raises_a_clear_error_and_writes_nothing(alice, data, marked, message):
    variant = data["synonym"]
    before = variant.snapshot()

    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        edit_variant(variant, alice, marked)

    variant.refresh_from_db()
    assert variant.snapshot() == before
    assert variant.decided_by is None
    assert not VariantChange.objects.exists()


def test_editing_an_isolated_variant_refuses_brackets_inside(alice, data):
    with pytest.raises(ValueError, match="without"):
        edit_variant(data["isolated"], alice, "keen [worker]")
    assert not VariantChange.objects.exists()


def test_editing_with_text_and_span(alice, data):
    variant = edit_variant_text(data["synonym"], alice, "Carol is a keen worker.", [11, 22])

    assert variant.replacement == "keen worker"
    assert only_change(variant).after["span"] == [11, 22]


@pytest.mark.parametrize(
    ("span", "message"), [([5, 5], "within"), ([10, 99], "within"), ([8, 9], "blanks"), (None, "span")]
)
def test_a_span_outside_the_text_or_empty_is_refused(alice, data, span, message):
    with pytest.raises(ValueError, match=message):
        edit_variant_text(data["synonym"], alice, "Carol is a keen worker.", span)
    assert not VariantChange.objects.exists()


def test_resetting_puts_a_decision_back_to_pending(alice, data):
    carol = make_curator("carol")
    variant = data["synonym"]
    approve_variant(variant, alice)

    reset_variant(variant, carol)

    variant.refresh_from_db()
    assert variant.status == vocabulary.GENERATED and not variant.is_decided
    assert (variant.decided_by, variant.decided_at) == (None, None)
    latest = VariantChange.objects.filter(variant=variant).first()
    assert (latest.action, latest.user) == (VariantChange.Action.RESET, carol)
    assert (latest.before["status"], latest.after["status"]) == (vocabulary.APPROVED, vocabulary.GENERATED)


def test_a_decision_that_changes_nothing_writes_nothing(alice, data):
    approve_variant(data["approved"], alice)
    reject_variant(data["rejected"], alice)
    reset_variant(data["synonym"], alice)

    assert not VariantChange.objects.exists()


def test_approve_unflagged_skips_flagged_and_decided_variants(alice, data):
    approved = approve_unflagged(data["compound"], alice)

    pending_unflagged = ["synonym", "head", "neutral_synonym", "isolated"]
    assert approved == len(pending_unflagged)
    for name in pending_unflagged:
        variant = Variant.objects.get(pk=data[name].pk)
        assert (variant.status, variant.decided_by) == (vocabulary.APPROVED, alice)
        change = only_change(variant)
        assert (change.action, change.user, change.before["status"], change.after["status"]) == (
            VariantChange.Action.APPROVE,
            alice,
            vocabulary.GENERATED,
            vocabulary.APPROVED,
        )
    assert Variant.objects.get(pk=data["flagged"].pk).status == vocabulary.GENERATED
    assert Variant.objects.get(pk=data["rejected"].pk).status == vocabulary.REJECTED
    assert VariantChange.objects.count() == len(pending_unflagged)


def test_approve_unflagged_can_be_limited_to_probe_kinds_and_leaves_other_compounds_alone(alice, data):
    other = make_review_compound("night owl")

    assert approve_unflagged(data["compound"], alice, kinds=[vocabulary.HEAD_ONLY]) == 1

    assert Variant.objects.get(pk=data["head"].pk).status == vocabulary.APPROVED
    assert Variant.objects.get(pk=data["synonym"].pk).status == vocabulary.GENERATED
    assert (
        not Variant.objects.filter(sentence__compound=other["compound"], status=vocabulary.APPROVED)
        .exclude(pk=other["approved"].pk)
        .exists()
    )
