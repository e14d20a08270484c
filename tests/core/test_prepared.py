"""core/prepared.py: a queryset compiled once returns what the queryset itself returns, for any values."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotation.actions import enter_campaign
from annotation.models import Annotator, Assignment, Campaign, Item
from annotation.reads import ANNOTATOR_WITH_CAMPAIGN, FREE_ITEM, LOCKED_ASSIGNMENT, items_shown
from core.prepared import Prepared
from tests.annotation.test_views import make_campaign


def same_row(found, expected) -> None:
    """Every loaded field, the deferred ones, and the related objects select_related joined."""
    assert type(found) is type(expected) and found.pk == expected.pk
    assert found.get_deferred_fields() == expected.get_deferred_fields()
    for field in type(expected)._meta.concrete_fields:
        if field.attname not in expected.get_deferred_fields():
            assert getattr(found, field.attname) == getattr(expected, field.attname), field.attname
    assert found._state.fields_cache.keys() == expected._state.fields_cache.keys()
    for name, related in expected._state.fields_cache.items():
        same_row(found._state.fields_cache[name], related)


@pytest.mark.django_db
def test_the_annotator_with_its_campaign_is_the_querysets_for_each_annotator_and_slug():
    first = make_campaign(regular=2)
    second = Campaign.objects.create(name="Other", slug="other", collection=first.collection, language="en")
    one = enter_campaign(first, platform=Annotator.Platform.PROLIFIC, external_id="w1")
    two = enter_campaign(second, platform=Annotator.Platform.PROLIFIC, external_id="w2")
    for annotator in (one, two):
        [found] = ANNOTATOR_WITH_CAMPAIGN.fetch(annotator.pk, annotator.campaign.slug)
        same_row(found, Annotator.objects.select_related("campaign").get(pk=annotator.pk))
        assert found.campaign.slug == annotator.campaign.slug and found.campaign.consent_text is not None
    # Another campaign's slug, or no such annotator: nothing, as the queryset gives.
    assert ANNOTATOR_WITH_CAMPAIGN.fetch(one.pk, second.slug) == []
    assert ANNOTATOR_WITH_CAMPAIGN.first(two.pk + 1000, second.slug) is None


@pytest.mark.django_db
def test_the_free_item_is_the_querysets_with_the_shown_columns_only():
    campaign = make_campaign(regular=4)
    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="w1")
    other = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="w2")
    first = Item.objects.filter(campaign=campaign).order_by("taken", "order_key").first()
    Item.objects.filter(pk=first.pk).update(taken=1)
    Assignment.objects.create(item=first, annotator=annotator, expires_at=timezone.now() + timedelta(minutes=5))

    def expected(worker, cap):
        queryset = items_shown(Item.objects.filter(campaign=campaign, role=Item.Role.REGULAR, taken__lt=cap))
        return queryset.exclude(assignments__annotator=worker).order_by("taken", "order_key").first()

    with transaction.atomic():
        for worker, cap in [(annotator, 2), (other, 2), (other, 1)]:
            found = FREE_ITEM.first(campaign.pk, cap, worker.pk)
            same_row(found, expected(worker, cap))
        # The one already seen is passed over by its annotator, not by the other.
        assert FREE_ITEM.first(campaign.pk, 2, annotator.pk).pk != first.pk
        assert FREE_ITEM.first(campaign.pk, 2, other.pk).pk == expected(other, 2).pk
        assert FREE_ITEM.first(campaign.pk, 0, other.pk) is None


@pytest.mark.django_db
def test_the_locked_assignment_is_the_querysets_and_only_its_annotators():
    campaign = make_campaign(regular=2)
    annotator = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="w1")
    other = enter_campaign(campaign, platform=Annotator.Platform.PROLIFIC, external_id="w2")
    item = Item.objects.filter(campaign=campaign).first()
    held = Assignment.objects.create(item=item, annotator=annotator, expires_at=timezone.now() + timedelta(minutes=5))
    with transaction.atomic():
        [found] = LOCKED_ASSIGNMENT.fetch(held.token, annotator.pk)
        same_row(found, Assignment.objects.select_related("item").get(pk=held.pk))
        assert isinstance(found.token, uuid.UUID) and found.expires_at == held.expires_at
        assert LOCKED_ASSIGNMENT.fetch(held.token, other.pk) == []
        assert LOCKED_ASSIGNMENT.fetch(uuid.uuid4(), annotator.pk) == []


@pytest.mark.django_db
def test_a_queryset_whose_values_do_not_each_land_in_one_parameter_is_refused():
    # The same value twice in the SQL: a marker found twice cannot say which place a value goes to.
    twice = Prepared(lambda pk: Annotator.objects.filter(pk=pk) | Annotator.objects.filter(campaign_id=pk), (int,))
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.fetch(1)
    # Not model instances: refused rather than returned in another shape.
    counted = Prepared(lambda pk: Annotator.objects.filter(pk=pk).annotate(n=Count("assignments")), (int,))
    with pytest.raises(ValueError, match="only querysets of model instances"):
        counted.fetch(1)
    with pytest.raises(TypeError, match="no marker for float"):
        Prepared(lambda x: Annotator.objects.filter(pk=x), (float,)).fetch(1.0)


@pytest.mark.django_db
def test_columns_with_database_converters_come_back_converted():
    # A JSON column is decoded by its converter (from_db_value), as the queryset decodes it.
    from datasets.models import Compound
    from tests.datasets.factories import make_compound

    compound = make_compound("grey matter", modifier="grey", head="matter")
    Compound.objects.filter(pk=compound.pk).update(gold_synonym_evidence={"brain": ["wordnet"], "n": 2})
    prepared = Prepared(lambda pk: Compound.objects.filter(pk=pk), (int,))
    [found] = prepared.fetch(compound.pk)
    same_row(found, Compound.objects.get(pk=compound.pk))
    assert found.gold_synonym_evidence == {"brain": ["wordnet"], "n": 2}


def test_on_sqlite_a_uuid_is_bound_as_its_hex_as_django_binds_it():
    # The demo runs on SQLite, which has no UUID type: Django sends a UUID's hex, and so must the binding.
    from django.db import connections
    from django.db.utils import ConnectionHandler

    filled = ConnectionHandler({"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}).settings
    connections.settings["sqlite"] = filled["default"]
    try:
        prepared = Prepared(LOCKED_ASSIGNMENT.build, LOCKED_ASSIGNMENT.kinds, using="sqlite")
        compiled = prepared.compiled()
        token = uuid.uuid4()
        params = list(compiled.params)
        for position, index, form in compiled.slots:
            params[position] = form([token, 7][index])
        _, expected = LOCKED_ASSIGNMENT.build(token, 7).query.get_compiler("sqlite").as_sql()
        assert params == list(expected) and token.hex in params
    finally:
        connections["sqlite"].close()
        del connections.settings["sqlite"]
