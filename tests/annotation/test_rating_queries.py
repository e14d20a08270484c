"""The submit-and-next cycle, which every rating of a study goes through: the queries it makes, and what they read.

Exact counts, so that a query added to the cycle fails here (benchmarks/annotation_load.py measures the time).
"""

from __future__ import annotations

import pytest

from annotation.crowd.journey import campaign_counts
from annotation.models import Campaign, Item
from annotation.setup_actions import add_check_item, add_items, remove_check_item
from tests.annotation.test_views import GOOD, current_token, enter, make_campaign, url
from tests.datasets.factories import make_compound, make_sentence


@pytest.mark.django_db
def test_a_rating_and_the_next_item_take_exactly_the_queries_they_need(client, django_assert_num_queries):
    # Past the fifth rating, where an attention check would come if the campaign had any.
    campaign = make_campaign(regular=9)
    enter(client, campaign)
    for _ in range(6):
        token = current_token(client, campaign)
        # Session, the annotator with its campaign; in a transaction (here a savepoint and its release): the
        # locked assignment with its item, the rating, its paraphrase, the assignment's status.
        with django_assert_num_queries(8):
            response = client.post(url("rate", campaign), {"token": token, **GOOD, "paraphrase_1": "a late bird"})
        assert response.status_code == 302 and response.url == url("rate", campaign)
        # Session, the annotator with its campaign; progress (it holds no reservation now: no current item to
        # look up); expired reservations; the claim in a savepoint: the item locked, its counter, the
        # assignment. The item counts come from the cache (the campaign's items version).
        with django_assert_num_queries(9) as queries:
            page = client.get(response.url)
        assert page.status_code == 200 and page.context["assignment"].token != token
        # The claimed item is read with what the page shows, not the compound's wide row.
        [claim] = [q["sql"] for q in queries.captured_queries if "FOR UPDATE" in q["sql"]]
        assert '"datasets_compound"."text"' in claim and "gold_synonym_evidence" not in claim


@pytest.mark.django_db
def test_a_reload_finds_the_current_item_with_the_columns_the_page_shows(client, django_assert_num_queries):
    campaign = make_campaign(regular=3)
    enter(client, campaign)
    token = current_token(client, campaign)
    # Session, the annotator with its campaign, progress (one reservation), the current item.
    with django_assert_num_queries(4) as queries:
        page = client.get(url("rate", campaign))
    assert str(page.context["assignment"].token) == token
    current = queries.captured_queries[-1]["sql"]
    assert '"datasets_sentence"."text"' in current and "gold_synonym_evidence" not in current


@pytest.mark.django_db
def test_item_counts_are_counted_once_per_items_version_and_follow_every_change(django_assert_num_queries):
    campaign = make_campaign(regular=3, training=1)

    def counts() -> tuple[int, int, int]:
        fresh = Campaign.objects.get(pk=campaign.pk)  # as a request of any process reads it
        found = campaign_counts(fresh)
        return found.regular, found.training, found.attention

    assert counts() == (3, 1, 0)
    with django_assert_num_queries(1):  # the campaign; the counts come from the cache
        assert counts() == (3, 1, 0)
    compound = make_compound("early bird", collection=campaign.collection, modifier="early", head="bird")
    [extra] = add_items(campaign, [make_sentence(compound, "An <b>early bird</b> again.")])
    assert counts() == (4, 1, 0)
    check = add_check_item(campaign, extra.sentence, Item.Role.ATTENTION, {"gold_compound": 5})
    assert counts() == (3, 1, 1)
    remove_check_item(check)
    assert counts() == (3, 1, 0)


@pytest.mark.django_db
def test_with_a_shared_redis_cache_the_session_costs_no_query(settings, redis_url, django_assert_num_queries):
    # As production runs it (CACHE_URL set): sessions are read from Redis, and still written to the database.
    from django.core.cache import caches
    from django.test import Client

    from config.env import cache_config, session_engine

    settings.CACHES = {"default": cache_config(redis_url), "local": cache_config(None)}
    settings.SESSION_ENGINE = session_engine(settings.CACHES["default"])
    caches["default"].clear()
    client = Client()  # its handler reads SESSION_ENGINE anew
    campaign = make_campaign(regular=9)
    enter(client, campaign)
    for _ in range(6):
        token = current_token(client, campaign)
        with django_assert_num_queries(7) as queries:  # the 8 above, less the session's
            response = client.post(url("rate", campaign), {"token": token, **GOOD, "paraphrase_1": "a late bird"})
        assert response.status_code == 302 and not any("django_session" in q["sql"] for q in queries.captured_queries)
        with django_assert_num_queries(8):  # the 9 above, less the session's
            page = client.get(response.url)
        assert page.status_code == 200 and page.context["assignment"].token != token
    from django.contrib.sessions.models import Session

    assert Session.objects.filter(session_key=client.session.session_key).exists()  # kept in the database too
    caches["default"].clear()
