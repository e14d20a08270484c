"""The outbound-host rules every request to a server of someone's choosing obeys, checked without a network."""

from __future__ import annotations

import ipaddress

import pytest

from core.egress import HostRules, RefusedRequest, ip_or_none

SETTING = "WORKBENCH_TEST_HOSTS"


def rules(*entries: str) -> HostRules:
    return HostRules.from_entries(entries, SETTING, "base_url")


def resolving_to(*addresses: str):
    """A resolver that answers every name with ``addresses``, and records what it was asked."""

    def resolver(host: str, port: int) -> list[str]:
        resolver.asked.append((host, port))
        return list(addresses)

    resolver.asked = []
    return resolver


def unresolvable(host: str, port: int) -> list[str]:
    raise OSError("Name or service not known")


def test_entries_are_names_addresses_and_networks():
    allowed = rules(" API.Example.com. ", "10.0.0.5", "10.1.0.0/24", "[fd00::1]")

    assert allowed.names == frozenset({"api.example.com"})
    assert allowed.networks == (
        ipaddress.ip_network("10.0.0.5/32"),
        ipaddress.ip_network("10.1.0.0/24"),
        ipaddress.ip_network("fd00::1/128"),
    )
    assert allowed.listed(ipaddress.ip_address("10.1.0.200"))
    assert not allowed.listed(ipaddress.ip_address("10.1.1.1"))


def test_a_listed_name_resolving_to_public_addresses_passes_with_its_addresses():
    resolver = resolving_to("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c")

    found = rules("api.example.com").checked_addresses("API.example.com.", 443, resolver)

    assert [str(ip) for ip in found] == ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]
    assert resolver.asked == [("api.example.com", 443)]


def test_a_name_not_listed_is_refused_before_it_is_resolved():
    resolver = resolving_to("93.184.215.14")

    with pytest.raises(
        RefusedRequest, match=rf"base_url host 'evil\.example' is not one the administrator allows \({SETTING}\)"
    ):
        rules("api.example.com").checked_addresses("evil.example", 443, resolver)

    assert resolver.asked == []


@pytest.mark.parametrize("private", ["127.0.0.1", "10.0.0.7", "169.254.169.254", "::1", "fe80::1", "224.0.0.1"])
def test_a_listed_name_resolving_to_a_private_address_is_refused_unless_it_is_listed(private):
    with pytest.raises(RefusedRequest, match=rf"api\.example\.com resolves to {private}, a loopback.*\({SETTING}\)"):
        rules("api.example.com").checked_addresses("api.example.com", 443, resolving_to("93.184.215.14", private))

    found = rules("api.example.com", private).checked_addresses("api.example.com", 443, resolving_to(private))
    assert found == [ipaddress.ip_address(private)]


def test_an_ipv4_mapped_ipv6_address_is_its_ipv4_address():
    assert ip_or_none("[::ffff:127.0.0.1]") == ipaddress.IPv4Address("127.0.0.1")
    assert ip_or_none("fe80::1%eth0") == ipaddress.IPv6Address("fe80::1")
    assert ip_or_none("api.example.com") is None

    with pytest.raises(RefusedRequest, match="resolves to 10.0.0.7"):
        rules("api.example.com").checked_addresses("api.example.com", 443, resolving_to("::ffff:10.0.0.7"))
    with pytest.raises(RefusedRequest, match=r"base_url host ::ffff:127\.0\.0\.1 is not one"):
        rules("::1").check_url("https://[::ffff:127.0.0.1]/v1", resolving_to())
    rules("127.0.0.0/8").check_url("http://[::ffff:127.0.0.1]:8080/v1", resolving_to())


def test_an_address_in_a_url_must_be_inside_a_listed_network_and_is_not_resolved():
    resolver = resolving_to()

    rules("10.0.0.0/24").check_url("https://10.0.0.9/v1", resolver)
    with pytest.raises(
        RefusedRequest, match=rf"base_url host 10\.0\.1\.9 is not one the administrator allows \({SETTING}\)"
    ):
        rules("10.0.0.0/24").check_url("https://10.0.1.9/v1", resolver)

    assert resolver.asked == []


def test_http_is_only_for_listed_addresses_and_networks():
    must_use_https = (
        rf"base_url must use https:// \(http:// only for an address or network the administrator lists in {SETTING}\)"
    )

    rules("10.0.0.0/24").check_url("http://10.0.0.9:8000/v1", resolving_to())
    rules("local.example", "10.0.0.0/24").check_url("http://local.example/v1", resolving_to("10.0.0.9"))
    with pytest.raises(RefusedRequest, match=must_use_https):
        rules("api.example.com").check_url("http://api.example.com/v1", resolving_to("93.184.215.14"))
    with pytest.raises(RefusedRequest, match=must_use_https):  # a name only checked for its listing: no address
        rules("local.example", "10.0.0.0/24").check_url("http://local.example/v1", resolver=None)
    rules("10.0.0.0/24").check_url("http://10.0.0.9/v1", resolver=None)


@pytest.mark.parametrize("url", ["https://user:secret@api.example.com/v1", "https://user@api.example.com/v1"])
def test_a_url_carrying_a_user_or_password_is_refused(url):
    with pytest.raises(RefusedRequest, match="base_url must not carry a user name or password"):
        rules("api.example.com").check_url(url, resolving_to("93.184.215.14"))


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://api.example.com/v1", "must be an https:// URL"),
        ("api.example.com/v1", "must be an https:// URL"),
        ("https://api.example.com:port/v1", "is not a URL"),
    ],
)
def test_what_is_not_an_http_url_is_refused_naming_it(url, message):
    with pytest.raises(RefusedRequest, match=f"base_url '{url}' {message}"):
        rules("api.example.com").check_url(url, resolving_to("93.184.215.14"))


def test_a_name_that_does_not_resolve_passes_a_urls_check_and_is_refused_when_connecting():
    allowed = rules("api.example.com")

    allowed.check_url("https://api.example.com/v1", unresolvable)
    assert allowed.checked_addresses("api.example.com", 443, unresolvable, unresolved_ok=True) == []
    with pytest.raises(RefusedRequest, match=r"^api\.example\.com does not resolve\.$"):
        allowed.checked_addresses("api.example.com", 443, unresolvable)
    with pytest.raises(RefusedRequest, match=r"^api\.example\.com does not resolve\.$"):
        allowed.check_url("https://api.example.com/v1", unresolvable, unresolved_ok=False)
    with pytest.raises(RefusedRequest, match="does not resolve"):  # an empty answer is no address either
        allowed.checked_addresses("api.example.com", 443, resolving_to())


def test_the_messages_use_the_words_they_are_given():
    hub = HostRules.from_entries(["huggingface.co"], "WORKBENCH_HUB_HOSTS", "WORKBENCH_HUB_ENDPOINT")

    with pytest.raises(
        RefusedRequest, match=r"^WORKBENCH_HUB_ENDPOINT host 127\.0\.0\.1 is not one .*\(WORKBENCH_HUB_HOSTS\)\.$"
    ):
        hub.check_url("http://127.0.0.1:8000", resolver=None)
