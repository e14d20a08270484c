"""Text with control characters is refused at the door: a 400 that names the field, never a 500.

PostgreSQL cannot store NUL in text, and no field of the workbench has a use for the other C0
control characters; a NUL that reached a query would end as a server error. One middleware,
before the session is read (a session cookie is text too), looks at every text a request brings
that the app may read: the path, query parameter names and values, form fields and uploaded files'
names, JSON bodies (every string and key), cookies and the other header values.

Tab, line feed and carriage return are ordinary in form and JSON text (a textarea's lines) and a
tab in a header value; nothing else below U+0020, nor DEL, is accepted anywhere.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string

# Anywhere: C0 controls but tab, line feed, carriage return; and DEL.
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Where a line break has no place: the path, query parameters.
CONTROL_OR_BREAK = re.compile(r"[\x00-\x1f\x7f]")
MESSAGE = "contains a control character (such as NUL), which is not allowed"


def json_strings(value, where: str = "body") -> Iterator[tuple[str, str]]:
    """(field, text) for every key and string of a parsed JSON document, the field as a dotted path."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{where} key", str(key)
            yield from json_strings(item, f"{key}" if where == "body" else f"{where}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from json_strings(item, f"{where}[{index}]")


def texts(request: HttpRequest) -> Iterator[tuple[str, str, re.Pattern]]:
    """(field, text, pattern refused in it) for everything the request carries, cheapest first."""
    yield "path", request.path_info, CONTROL_OR_BREAK
    for name, values in request.GET.lists():
        yield "query parameter name", name, CONTROL_OR_BREAK
        for value in values:
            yield name, value, CONTROL_OR_BREAK
    for key, value in request.META.items():
        if key.startswith("HTTP_") and isinstance(value, str):
            yield key[5:].replace("_", "-").title() + " header", value, CONTROL
    if request.method not in ("POST", "PUT", "PATCH", "DELETE"):
        return
    content_type = request.content_type or ""
    if content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        for name, values in request.POST.lists():
            yield "form field name", name, CONTROL
            for value in values:
                yield name, value, CONTROL
        for name, upload in request.FILES.items():
            yield f"{name} (file name)", upload.name or "", CONTROL
    elif content_type == "application/json" or content_type.endswith("+json"):
        try:
            document = json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            return  # not JSON: the view's parser says so
        for field, text in json_strings(document):
            yield field, text, CONTROL


def refused_field(request: HttpRequest) -> str | None:
    """The first field of the request that holds a refused control character, or None."""
    for field, text, pattern in texts(request):
        if pattern.search(text):
            return field
    return None


def refusal(request: HttpRequest, field: str) -> HttpResponse:
    """JSON under /api/ (what a client parses there, keyed by the field as DRF does), a page elsewhere."""
    if request.path_info.startswith("/api/"):
        return JsonResponse({field: [MESSAGE]}, status=400)
    page = render_to_string("400_control.html", {"field": field, "message": MESSAGE})
    return HttpResponse(page, status=400)


class RefuseControlCharactersMiddleware:
    """A 400 naming the field for any request text with a control character (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (field := refused_field(request)) is not None:
            return refusal(request, field)
        return self.get_response(request)
