"""The client's address, one definition for the API's rate limits and the login lockouts."""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.throttling import BaseThrottle


def client_ip(request: HttpRequest) -> str:
    """REMOTE_ADDR, or the address the outermost of WORKBENCH_PROXY_COUNT trusted proxies saw (DRF's NUM_PROXIES)."""
    return BaseThrottle().get_ident(request)
