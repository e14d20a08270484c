"""The OpenAPI schema: drf-spectacular's, plus the error answers an operation can really give.

drf-spectacular lists the success answer only. A client (and schemathesis) also meets 400 for a
bad filter, body or path parameter, or a control character anywhere in the query string, 403 for a missing right or CSRF token, 404 for an unknown object, 415 for a
body in an unknown format and 429 when rate-limited; each is listed where it can happen, with DRF's error body.
"""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


class ErrorSerializer(serializers.Serializer):
    """DRF's error body: what went wrong, in words."""

    detail = serializers.CharField()


INVALID = OpenApiResponse(
    OpenApiTypes.OBJECT,
    description="Invalid input: each parameter or field name with a list of what is wrong with it (or detail).",
)
ERRORS = {
    "400": INVALID,
    "403": OpenApiResponse(ErrorSerializer, description="Not allowed (curators only, or no CSRF token)."),
    "404": OpenApiResponse(ErrorSerializer, description="No such object, or not visible to you."),
    "415": OpenApiResponse(ErrorSerializer, description="A request body in a format the API does not read."),
    "429": OpenApiResponse(ErrorSerializer, description="Too many requests: wait as long as Retry-After says."),
}


class WorkbenchAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema with 400/403/404/429 listed on the operations that can answer them."""

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            if code not in responses:
                responses[code] = self._get_response_for_code(ERRORS[code], code, direction=direction)
        return responses

    def _error_codes(self) -> list[str]:
        # 400 everywhere: besides a bad filter, body or path parameter, any query string may carry a control
        # character (in a parameter's name or value, known to the operation or not), which
        # config/control_characters.py refuses before any view reads it.
        codes = ["429", "400"]
        if self.method not in SAFE_METHODS:
            codes.append("415")
        permissions = self.view.get_permissions()
        if self.method not in SAFE_METHODS or not all(isinstance(p, AllowAny) for p in permissions):
            codes.append("403")
        if "{" in self.path:
            codes.append("404")
        return codes
