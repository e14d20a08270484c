"""A run's report page reads its stored report in a fixed number of queries, however big the report."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.building.review_factories import make_curator
from tests.probing.report_factories import make_model, make_release, make_report, make_run

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("visitor", ["anonymous", "curator"])
def test_the_report_page_takes_at_most_the_same_few_queries_with_or_without_a_layer_sweep(
    client, visitor, django_assert_max_num_queries
):
    release, model = make_release(), make_model("minilm")
    plain = make_run(release, model)
    swept = make_run(release, model, report=make_report(layers=13))
    if visitor == "curator":
        client.force_login(make_curator("alice"))
    # The run with its release and model; a curator's page also reads the session, the user and its groups.
    expected = 1 if visitor == "anonymous" else 4

    for run in (plain, swept):
        with django_assert_max_num_queries(expected):
            response = client.get(reverse("probe_run", args=[run.pk]), {"all": "1", "page": "2"})
        assert response.status_code == 200
    assert "Layer by layer" in response.content.decode()
