"""Every request gets an id: the client's ``X-Request-ID`` when it is a safe token, else a new one.

The id is sent back in the response's ``X-Request-ID`` header and carried by every log record
written while the request is served (``core.logs``), so one request's lines can be found together.
"""

from __future__ import annotations

from django.core.signals import request_finished

from core.logs import current_request_id, request_id_from

HEADER = "X-Request-ID"


class RequestIdMiddleware:
    """First in MIDDLEWARE: even a redirect or a refused request carries its id."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_id_from(request.headers.get(HEADER))
        request.request_id = request_id
        # Kept until the request is finished, not reset on the way out: Django logs a 4xx or 5xx
        # ("django.request") after the middleware has returned.
        current_request_id.set(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


def forget_request_id(**kwargs) -> None:
    current_request_id.set(None)


request_finished.connect(forget_request_id, dispatch_uid="core.request_ids.forget_request_id")
