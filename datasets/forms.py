"""Form helpers shared by the dataset pages."""

from __future__ import annotations

from django import forms

from datasets import vocabulary
from datasets.models import Collection, Compound


def language_choices(blank: str | None = None) -> list[tuple[str, str]]:
    """The languages that have compounds, as ("en", "English (en)"); ``blank`` adds a first empty choice."""
    languages = Compound.objects.order_by("language").values_list("language", flat=True).distinct()
    choices = [(code, f"{vocabulary.language_name(code)} ({code})") for code in languages]
    return [("", blank), *choices] if blank is not None else choices


def collection_choices(blank: str = "All collections") -> list[tuple[str, str]]:
    return [("", blank)] + [(c.slug, str(c)) for c in Collection.objects.all()]


class CollectionLanguageFilter(forms.Form):
    """GET filters of a list of compounds (or rows with ``collection`` and ``language``): an invalid field is ignored.

    Subclasses set the choices and add their own fields and filters on top of ``filter``.
    """

    collection = forms.ChoiceField(required=False)
    language = forms.ChoiceField(required=False)

    def filter(self, queryset):
        """Apply the valid filters (``cleaned_data`` holds only the fields that validated)."""
        self.is_valid()
        data = self.cleaned_data
        if collection := data.get("collection"):
            queryset = queryset.filter(collection__slug=collection)
        if language := data.get("language"):
            queryset = queryset.filter(language=language)
        return queryset
