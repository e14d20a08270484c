"""The API's list filters: django-filter fields whose bad values are a 400 naming the parameter.

Every app's FilterSet is built from these filters. A value is checked before any query: text holds
no NUL character (PostgreSQL refuses it) and stays short, ids are plain digits within a database
integer, booleans are a yes or a no, choices are one of the listed values. django-filter's DRF
backend turns the form's errors into a 400 keyed by parameter; drf-spectacular documents each
parameter with the schema attached here (its limits included), so generated clients see the rules.
"""

from __future__ import annotations

import re
from typing import Any

import django_filters
from django import forms
from django_filters.fields import ChoiceField
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import extend_schema_field

MAX_TEXT_LENGTH = 200
MAX_ID = 2**63 - 1  # PostgreSQL's bigint
BOOLEAN_WORDS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
TEXT_SCHEMA = {"type": "string", "maxLength": MAX_TEXT_LENGTH, "pattern": "^[^\\x00]*$"}
ID_SCHEMA = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
_DIGITS = re.compile(r"[0-9]+")


def clean_text(value: Any) -> str:
    """The parameter's text, stripped; empty when absent. Refuses a NUL character and long text."""
    text = "" if value is None else str(value).strip()
    if "\x00" in text:
        raise forms.ValidationError("must not contain a NUL character.", code="null_characters_not_allowed")
    if len(text) > MAX_TEXT_LENGTH:
        raise forms.ValidationError(f"is longer than {MAX_TEXT_LENGTH} characters.", code="max_length")
    return text


def is_id(text: str) -> bool:
    """Whether ``text`` is a whole number within the database's ids."""
    return bool(_DIGITS.fullmatch(text)) and int(text) <= MAX_ID


class TextField(forms.CharField):
    """Text within the limits of ``clean_text``."""

    def to_python(self, value: Any) -> str:
        return clean_text(value)


class TextChoiceField(ChoiceField):
    """One of the choices; a value outside them is named in the error with the choices allowed."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        allowed = ", ".join(str(value) for value, _ in self.choices if value != "")
        self.error_messages["invalid_choice"] = f"%(value)r is not one of: {allowed}."

    def to_python(self, value: Any) -> str:
        return clean_text(value)


class IdField(forms.Field):
    """A whole number from 0 to the largest database id, or None when absent."""

    def to_python(self, value: Any) -> int | None:
        text = clean_text(value)
        if not text:
            return None
        if not is_id(text):
            raise forms.ValidationError(f"{text!r} is not an id (a whole number from 0 to {MAX_ID}).", code="invalid")
        return int(text)


class BooleanWordField(forms.Field):
    """true/false (also 1/0, yes/no), or None when absent."""

    def to_python(self, value: Any) -> bool | None:
        text = clean_text(value).lower()
        if not text:
            return None
        if text not in BOOLEAN_WORDS:
            raise forms.ValidationError(f"{text!r} is not a boolean: use true or false.", code="invalid")
        return BOOLEAN_WORDS[text]


class TextFilter(django_filters.CharFilter):
    """A text parameter; its schema carries the length limit and the no-NUL pattern."""

    field_class = TextField

    def __init__(self, *args, help_text: str, schema: dict | None = None, **kwargs):
        super().__init__(*args, help_text=help_text, **kwargs)
        extend_schema_field({**TEXT_SCHEMA, **(schema or {}), "description": help_text})(self)


class IdFilter(django_filters.Filter):
    """An id parameter (documented as a bounded integer)."""

    field_class = IdField

    def __init__(self, *args, help_text: str, **kwargs):
        super().__init__(*args, help_text=help_text, **kwargs)
        extend_schema_field({**ID_SCHEMA, "description": help_text})(self)


class BooleanFilter(django_filters.BooleanFilter):
    """A yes/no parameter (documented as a boolean)."""

    field_class = BooleanWordField


class ChoiceFilter(django_filters.ChoiceFilter):
    """A parameter taking one of ``choices`` (documented as an enum with each choice's label)."""

    field_class = TextChoiceField


class ListFilterBackend(DjangoFilterBackend):
    """django-filter on list actions only: a detail page or an action ignores the list's query parameters."""

    def get_filterset_class(self, view, queryset=None):
        # Also what the schema asks: a detail action that answers a list (a variant's changes) takes no filters.
        if getattr(view, "action", None) != "list":
            return None
        return super().get_filterset_class(view, queryset)
