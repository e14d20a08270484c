"""The step labels of a crowd worker's journey count every step, practice included when there is some."""

from __future__ import annotations

import pytest

from tests.annotation.test_views import GOOD, PROLIFIC, current_token, enter, make_campaign, url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("training", "expected"),
    [
        (1, ["Step 1 of 4 · Consent", "Step 2 of 4 · Instructions", "Step 3 of 4 · Practice", "Step 4 of 4 · Rating"]),
        (0, ["Step 1 of 3 · Consent", "Step 2 of 3 · Instructions", "Step 3 of 3 · Rating"]),
    ],
)
def test_the_step_labels_count_every_step_to_the_last(client, training, expected):
    campaign = make_campaign(regular=2, training=training)
    seen = [client.get(url("start", campaign), PROLIFIC).content.decode()]
    enter(client, campaign)
    seen.append(client.get(url("instructions", campaign)).content.decode())
    seen.append(client.get(url("rate", campaign)).content.decode())
    if training:
        client.post(url("rate", campaign), {"token": current_token(client, campaign), **GOOD})
        seen.append(client.get(url("rate", campaign)).content.decode())
    labels = [html.split('<p class="muted step">', 1)[1].split("</p>", 1)[0] for html in seen]
    assert labels == expected
