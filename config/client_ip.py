"""The client's address, one definition for the API's rate limits and the login lockouts.

``X-Forwarded-For`` is read only when the socket's peer is one of ``WORKBENCH_TRUSTED_PROXIES``:
each proxy appends the address it saw, so the header is walked from the right, past the trusted
proxies, to the first address no trusted proxy would be: the client. A client that reaches the
app server directly is its socket's peer whatever header it sends (a count of proxies alone
would trust a forged header there).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle


def trusted_proxy(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address.strip().strip("[]"))
    except ValueError:
        return False
    return any(ip in network for network in settings.WORKBENCH_TRUSTED_PROXIES)


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or, behind trusted proxies, the address the outermost trusted proxy saw."""
    peer = request.META.get("REMOTE_ADDR", "")
    if not trusted_proxy(peer):
        return peer
    hops = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    for hop in reversed(hops):
        if not trusted_proxy(hop):
            return hop
    return hops[0] if hops else peer


class ClientAnonRateThrottle(AnonRateThrottle):
    """DRF's anonymous rate limit, keyed by ``client_ip``."""

    def get_ident(self, request) -> str:
        return client_ip(request)


class ClientUserRateThrottle(UserRateThrottle):
    """DRF's per-user rate limit (per address for anonymous requests), keyed by ``client_ip``."""

    def get_ident(self, request) -> str:
        return client_ip(request)
