"""Pages in words when something is missing or breaks: a mistyped link, /build/, a server error."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import path, reverse

from tests.building.review_factories import make_curator


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_a_mistyped_campaign_link_shows_a_friendly_page(client, settings, debug):
    settings.DEBUG = debug
    for url in ["/annotate/no-such-campaign/start/?PROLIFIC_PID=p&STUDY_ID=s&SESSION_ID=1", "/no/such/page/"]:
        response = client.get(url)
        assert response.status_code == 404, url
        body = response.content.decode()
        assert "Page not found" in body, url
        assert "Using the URLconf" not in body  # not Django's technical page, even with DEBUG on
        assert "go back to the study site" in body


@pytest.mark.django_db
@pytest.mark.parametrize("debug", [False, True])
def test_the_api_still_answers_json_when_nothing_is_found(client, settings, debug):
    settings.DEBUG = debug
    response = client.get("/api/no-such-endpoint/")
    assert response.status_code == 404
    assert response.json() == {"detail": "Not found."}


def boom(request):
    raise RuntimeError("the database went away")


urlpatterns = [path("boom/", boom)]  # this module is the URLconf of the server-error test


@pytest.mark.django_db
@override_settings(ROOT_URLCONF=__name__)
def test_a_server_error_shows_a_friendly_page():
    response = Client(raise_request_exception=False).get("/boom/")
    assert response.status_code == 500
    body = response.content.decode()
    assert "Something went wrong on our side" in body
    assert "RuntimeError" not in body


@pytest.mark.django_db
def test_build_lands_on_the_build_jobs(client):
    client.force_login(make_curator("carol"))
    response = client.get("/build/", follow=True)
    assert response.redirect_chain[0][0] == reverse("build_jobs")
    assert response.status_code == 200
    assert b"Generate variants" in response.content


@pytest.mark.django_db
def test_the_footer_links_to_the_api_documentation(client):
    response = client.get(reverse("releases"))
    assert f'href="{reverse("api:docs")}"'.encode() in response.content
