"""``/healthz``: what a load balancer or Docker's healthcheck asks (core.health answers)."""

from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.health import health


@never_cache
@require_GET
def healthz(request):
    """200 when the database and the broker answer, else 503 naming what failed; no session is read."""
    report = health()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
