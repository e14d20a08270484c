"""The submit-and-next cycle, which every rating of a study goes through, stays a handful of queries."""

from __future__ import annotations

import pytest

from tests.annotation.test_views import GOOD, current_token, enter, make_campaign, url


@pytest.mark.django_db
def test_a_rating_and_the_next_item_take_a_bounded_number_of_queries(client, django_assert_max_num_queries):
    # Past the fifth rating, where an attention check would come if the campaign had any.
    campaign = make_campaign(regular=9)
    enter(client, campaign)
    for _ in range(6):
        token = current_token(client, campaign)
        # Session, the annotator with its campaign; the locked assignment, the rating, its paraphrase, the status.
        with django_assert_max_num_queries(8):
            response = client.post(url("rate", campaign), {"token": token, **GOOD, "paraphrase_1": "a late bird"})
        assert response.status_code == 302 and response.url == url("rate", campaign)
        # Session, the annotator with its campaign; no current item; expired reservations; item counts,
        # progress; the claim.
        with django_assert_max_num_queries(11):
            page = client.get(response.url)
        assert page.status_code == 200 and page.context["assignment"].token != token
