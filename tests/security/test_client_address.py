"""The client address behind proxies (issue 26, item 5): X-Forwarded-For is believed only from the proxies
an administrator listed, so a client that reaches gunicorn directly cannot pick an address per request to
escape the login lockout or the API throttle; behind the proxy, each client keeps its own address.
"""

from __future__ import annotations

import ipaddress

import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.test import RequestFactory
from rest_framework.settings import api_settings

from config.client_ip import client_ip
from config.env import env_networks
from tests.security.test_auth import PASSWORD, alice, guess, logged_in  # noqa: F401 (alice: a fixture)

PROXY = "10.0.0.2"


@pytest.fixture
def behind_proxy(settings):
    settings.WORKBENCH_TRUSTED_PROXIES = (ipaddress.ip_network("10.0.0.0/24"),)


def request(remote: str, forwarded: str | None = None):
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **extra)


def test_without_trusted_proxies_the_socket_peer_is_the_client():
    assert settings.WORKBENCH_TRUSTED_PROXIES == ()
    assert client_ip(request("203.0.113.7", "198.51.100.1")) == "203.0.113.7"


def test_behind_a_trusted_proxy_the_address_it_saw_is_the_client(behind_proxy):
    assert client_ip(request(PROXY, "198.51.100.1")) == "198.51.100.1"
    # A client's own X-Forwarded-For is to the left of what the proxy appended: never believed.
    assert client_ip(request(PROXY, "1.2.3.4, 198.51.100.1")) == "198.51.100.1"
    # Two trusted proxies in a row: past both.
    assert client_ip(request(PROXY, "198.51.100.1, 10.0.0.9")) == "198.51.100.1"
    # A direct client that is not a proxy: its header is ignored.
    assert client_ip(request("203.0.113.7", "198.51.100.1")) == "203.0.113.7"
    assert client_ip(request(PROXY)) == PROXY


def test_the_proxy_list_is_read_and_checked(monkeypatch):
    monkeypatch.setenv("WORKBENCH_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/24, ::1")
    assert [str(n) for n in env_networks("WORKBENCH_TRUSTED_PROXIES")] == ["127.0.0.1/32", "10.0.0.0/24", "::1/128"]
    monkeypatch.setenv("WORKBENCH_TRUSTED_PROXIES", "proxy.local")
    with pytest.raises(ImproperlyConfigured, match="WORKBENCH_TRUSTED_PROXIES: 'proxy.local'"):
        env_networks("WORKBENCH_TRUSTED_PROXIES")


def anonymous_limit() -> int:
    return int(api_settings.DEFAULT_THROTTLE_RATES["anon"].split("/")[0])


@pytest.mark.django_db
def test_a_direct_client_forging_x_forwarded_for_is_throttled(client, behind_proxy):
    statuses = [
        client.get("/api/releases/", REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"198.51.100.{n % 250}")
        for n in range(anonymous_limit() + 1)
    ]
    assert statuses[-1].status_code == 429


@pytest.mark.django_db
def test_behind_the_proxy_one_clients_flood_does_not_throttle_another(client, behind_proxy):
    for _ in range(anonymous_limit() + 1):
        last = client.get("/api/releases/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.1")
    assert last.status_code == 429
    other = client.get("/api/releases/", REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR="198.51.100.2")
    assert other.status_code == 200


@pytest.mark.django_db
def test_a_direct_client_forging_x_forwarded_for_is_locked_out(client, alice, behind_proxy):  # noqa: F811
    for attempt in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            "/accounts/login/",
            {"username": f"nobody-{attempt}", "password": "guess"},
            REMOTE_ADDR="203.0.113.7",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{attempt}",
        )
    response = client.post(
        "/accounts/login/",
        {"username": "alice", "password": PASSWORD},
        REMOTE_ADDR="203.0.113.7",
        HTTP_X_FORWARDED_FOR="198.51.100.200",
    )
    assert response.status_code == 429 and not logged_in(client)
