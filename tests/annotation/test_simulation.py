from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Annotator, Campaign, Rating
from annotation.reports.analysis_data import campaign_ratings


@pytest.mark.django_db
def test_simulated_ratings_fill_the_demo_campaigns_and_are_labelled():
    call_command("create_demo_campaigns", stdout=StringIO())
    out = StringIO()
    call_command("simulate_ratings", "demo-token", "demo-type", stdout=out)
    assert "demo-token: 207 simulated ratings stored" in out.getvalue()
    token = Campaign.objects.get(slug="demo-token")
    # N=5: three simulated ratings per item, two left for people trying the demo.
    assert all(item.ratings.count() == 3 for item in token.items.filter(role="regular"))
    assert not Annotator.objects.filter(ratings__isnull=False, simulated=False).exists()
    # Round robin: every simulated annotator rates, so no item has the same three raters by construction.
    assert Rating.objects.filter(item__campaign=token).values("annotator").distinct().count() == 8
    frame = campaign_ratings(token.pk)
    assert len(frame) == 207 and frame["compound_score"].between(0, 5).all()
    assert campaign_ratings(token.pk, include_simulated=False).empty
    again = StringIO()
    call_command("simulate_ratings", "demo-token", stdout=again)
    assert "0 simulated ratings" in again.getvalue()


@pytest.mark.django_db
def test_simulating_an_unknown_campaign_fails_clearly():
    with pytest.raises(CommandError, match="no campaign 'nope'"):
        call_command("simulate_ratings", "nope")
