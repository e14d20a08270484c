"""Query parameters of the API's list filters: one parser for every endpoint, and its schema entry.

A bad value is a 400 naming the parameter and what it accepts, never a 500: text holds no NUL
character (PostgreSQL refuses it) and stays short, ids are plain digits within a database integer,
choices are one of the listed values. ``query_param`` documents a parameter with the same rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError

MAX_TEXT_LENGTH = 200
MAX_ID = 2**63 - 1  # PostgreSQL's bigint
BOOLEAN_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
_DIGITS = re.compile(r"[0-9]+")


def text_param(request, name: str) -> str:
    """The parameter's text, stripped; empty when absent."""
    value = request.query_params.get(name, "").strip()
    if "\x00" in value:
        raise ValidationError({name: ["must not contain a NUL character."]})
    if len(value) > MAX_TEXT_LENGTH:
        raise ValidationError({name: [f"is longer than {MAX_TEXT_LENGTH} characters."]})
    return value


def choice_param(request, name: str, choices: Iterable[str]) -> str:
    """One of ``choices``, or empty when absent."""
    value = text_param(request, name)
    allowed = list(choices)
    if value and value not in allowed:
        raise ValidationError({name: [f"{value!r} is not one of: {', '.join(allowed)}."]})
    return value


def is_id(value: str) -> bool:
    return bool(_DIGITS.fullmatch(value)) and int(value) <= MAX_ID


def id_param(request, name: str) -> int | None:
    """A positive whole number within the database's range, or None when absent."""
    value = text_param(request, name)
    if not value:
        return None
    if not is_id(value):
        raise ValidationError({name: [f"{value!r} is not an id (a whole number from 0 to {MAX_ID})."]})
    return int(value)


def bool_param(request, name: str) -> bool | None:
    """true/false (also 1/0, yes/no), or None when absent."""
    value = text_param(request, name).lower()
    if not value:
        return None
    if value not in BOOLEAN_WORDS:
        raise ValidationError({name: [f"{value!r} is not a boolean: use true or false."]})
    return BOOLEAN_WORDS[value]


def query_param(name: str, description: str, type=OpenApiTypes.STR, enum=None) -> OpenApiParameter:
    """An optional query parameter for ``@extend_schema(parameters=...)``, with the limits above."""
    if type == OpenApiTypes.STR and enum is None:
        type = {"type": "string", "maxLength": MAX_TEXT_LENGTH, "pattern": "^[^\\x00]*$"}
    elif type == OpenApiTypes.INT:
        type = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
    return OpenApiParameter(name, type, OpenApiParameter.QUERY, required=False, description=description, enum=enum)
