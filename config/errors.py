"""Error pages: the API's answers stay JSON even when no route matches; people get a page in words."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import page_not_found


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """DRF's 404 body under /api/ (a client reads JSON there), templates/404.html elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": "Not found."}, status=404)
    return page_not_found(request, exception)


class FriendlyNotFoundMiddleware:
    """With DEBUG on (the demo), a missing page still gets templates/404.html, not Django's technical page.

    A mistyped campaign or release link is something demo visitors do; the technical page lists every
    URL pattern and reads like a crash. Server errors keep Django's traceback page under DEBUG: there
    the traceback is what a developer running the demo needs.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # No route matched: under DEBUG the resolver's 404 became the technical page before reaching here.
        if settings.DEBUG and response.status_code == 404 and getattr(request, "resolver_match", None) is None:
            return not_found(request, Http404())
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404):
            return not_found(request, exception)
        return None
