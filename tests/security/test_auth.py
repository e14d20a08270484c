"""Password guessing and API floods, tried as an attacker would (issue 13, item 4).

The login page and the admin lock an address, and an account, out after AXES_FAILURE_LIMIT wrong
passwords, even when the next guess is right; the API reads no password at all (no Basic authentication), only a
session or a token; anonymous API use is rate-limited per client address, which a forged
X-Forwarded-For does not change.
"""

from __future__ import annotations

import base64
import io

import pytest
from django.conf import settings
from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings

from tests.building.review_factories import make_curator

PASSWORD = "correct horse battery staple"


@pytest.fixture
def alice():
    curator = make_curator("alice")
    curator.set_password(PASSWORD)
    curator.save()
    return curator


@pytest.fixture
def admin_user_with_password(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.org", PASSWORD)


def guess(client, url: str, username: str, password: str):
    return client.post(url, {"username": username, "password": password, "next": "/"})


def logged_in(client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "username"), [("/accounts/login/", "alice"), ("/admin/login/", "root")])
def test_guessing_passwords_locks_the_address_out_even_for_the_right_password(
    client, alice, admin_user_with_password, url, username
):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        response = guess(client, url, username, f"guess-{attempt}")
        assert not logged_in(client)
    response = guess(client, url, username, PASSWORD)
    assert response.status_code == 429
    assert "Too many failed logins" in response.content.decode()
    assert not logged_in(client)
    # The account is paused too, from any address, until the cool-off or an administrator's reset.
    owner = client.post(url, {"username": username, "password": PASSWORD, "next": "/"}, REMOTE_ADDR="10.0.0.1")
    assert owner.status_code == 429 and not logged_in(client)
    call_command("axes_reset_username", username, stdout=io.StringIO())
    owner = client.post(url, {"username": username, "password": PASSWORD, "next": "/"}, REMOTE_ADDR="10.0.0.1")
    assert owner.status_code == 302 and logged_in(client)


@pytest.mark.django_db
def test_guessing_one_account_from_many_addresses_locks_the_account(client, alice):
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        guess_from = f"198.51.100.{attempt + 1}"
        client.post("/accounts/login/", {"username": "alice", "password": f"guess-{attempt}"}, REMOTE_ADDR=guess_from)
    right = client.post("/accounts/login/", {"username": "alice", "password": PASSWORD}, REMOTE_ADDR="198.51.100.99")
    assert right.status_code == 429 and not logged_in(client)
    # Another account, from the same addresses, is not affected.
    other = client.post("/accounts/login/", {"username": "bob", "password": "x"}, REMOTE_ADDR="198.51.100.1")
    assert other.status_code == 200


@pytest.mark.django_db
def test_basic_credentials_on_the_api_are_not_read_even_when_right(client, alice):
    credentials = base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    response = client.get("/api/annotation/campaigns/", HTTP_AUTHORIZATION=f"Basic {credentials}")
    assert response.status_code in (401, 403)
    assert "basic" not in response.get("WWW-Authenticate", "").lower()


@pytest.mark.django_db
def test_a_token_an_administrator_issued_opens_the_api(client, alice):
    token = Token.objects.create(user=alice)
    response = client.get("/api/annotation/campaigns/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 200
    wrong = client.get("/api/annotation/campaigns/", HTTP_AUTHORIZATION="Token " + "0" * 40)
    assert wrong.status_code in (401, 403)


def anonymous_limit() -> int:
    return int(api_settings.DEFAULT_THROTTLE_RATES["anon"].split("/")[0])


@pytest.mark.django_db
def test_an_anonymous_flood_of_api_requests_is_throttled(client):
    statuses = [client.get("/api/releases/").status_code for _ in range(anonymous_limit() + 1)]
    assert set(statuses[:-1]) == {200}
    assert statuses[-1] == 429


@pytest.mark.django_db
def test_a_forged_x_forwarded_for_does_not_reset_the_throttle(client):
    statuses = [
        client.get("/api/releases/", HTTP_X_FORWARDED_FOR=f"203.0.113.{n % 250}").status_code
        for n in range(anonymous_limit() + 1)
    ]
    assert statuses[-1] == 429
