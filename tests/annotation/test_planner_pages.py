"""The study planner's page and command: seeded plans from a pilot or from published means, bad input a 400."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import Campaign
from tests.annotation.test_curator import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo() -> Campaign:
    call_command("create_demo_campaigns", stdout=StringIO())
    call_command("simulate_ratings", "demo-token", stdout=StringIO())
    return Campaign.objects.get(slug="demo-token")


@pytest.fixture
def curator(client):
    client.force_login(make_user("curator"))
    return client


def page(client, campaign, **query):
    return client.get(reverse("curator:planner", args=[campaign.slug]), query)


def test_the_form_is_filled_from_the_campaign_and_only_curators_see_it(client, demo):
    assert page(client, demo).status_code == 302  # to the login page
    client.force_login(make_user("annotator"))
    assert page(client, demo).status_code == 403
    client.force_login(make_user("curator"))
    response = page(client, demo)
    assert response.status_code == 200 and 'id="planner-form"' in response.content.decode()
    assert response.context["results"] is None


def test_a_pilot_plan_is_the_same_for_the_same_seed_and_says_its_ratings_are_simulated(curator, demo):
    query = {"source": "pilot", "fixed": "3, 5", "adaptive": "2-6:1.8", "simulations": 20, "seed": 4, "r": 0.3}
    first, again = page(curator, demo, **query), page(curator, demo, **query)
    other = page(curator, demo, **{**query, "seed": 5})
    assert first.status_code == 200
    designs = [row["design"] for row in first.context["results"]]
    assert designs == ["fixed N=3", "fixed N=5", "adaptive 2-6, width < 1.8"]
    assert first.context["results"] == again.context["results"] != other.context["results"]
    fixed3 = first.context["results"][0]
    assert fixed3["ratings"]["mean"] == 3 * 69  # demo-token: 69 sentences
    assert "simulated annotators among them" in first.content.decode()
    assert first.context["form"].cleaned_data["careless"] == 0.0  # a pilot's careless workers are in its spreads


def test_published_means_give_a_type_token_error(curator, demo):
    response = page(curator, demo, source="published", fixed="3", adaptive="", simulations=10, seed=0, r=0.3)
    assert response.status_code == 200, response.content[:400]
    [row] = response.context["results"]
    assert row["type_token_error"]["mean"] is not None
    assert response.context["form"].cleaned_data["careless"] == 0.1


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"fixed": "three"}, "fixed"),
        ({"adaptive": "3 to 10"}, "adaptive"),
        ({"adaptive": "6-3:1.5"}, "adaptive"),
        ({"simulations": 5}, "simulations"),
        ({"simulations": 1000, "fixed": "3,5,10,20,40"}, "simulations"),
        ({"source": "elsewhere"}, "source"),
    ],
)
def test_bad_input_is_a_400_naming_the_field(curator, demo, query, field):
    base = {"source": "pilot", "fixed": "3", "adaptive": "", "simulations": 20, "seed": 0, "r": 0.3}
    response = page(curator, demo, **{**base, **query})
    assert response.status_code == 400
    assert field in response.context["form"].errors


def test_the_command_prints_the_same_plan_as_json(demo):
    def plan(*extra):
        out = StringIO()
        call_command("plan_study", "demo-token", "--simulations", "20", "--json", *extra, stdout=out)
        return json.loads(out.getvalue())

    first, again = plan(), plan()
    assert first["designs"] == again["designs"] != plan("--seed", "1")["designs"]
    assert [d["design"] for d in first["designs"]] == [
        "fixed N=3",
        "fixed N=5",
        "fixed N=10",
        "adaptive 3-10, width < 1.5",
    ]
    assert first["designs"][0]["mae"]["mean"] > first["designs"][2]["mae"]["mean"]  # more ratings, smaller error
    with pytest.raises(CommandError, match="--fixed"):
        call_command("plan_study", "demo-token", "--fixed", "x", stdout=StringIO())
    with pytest.raises(CommandError, match="--collection"):
        call_command("plan_study", "--collection", "nowhere", "--language", "en", stdout=StringIO())
