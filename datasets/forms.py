"""Form helpers shared by the dataset pages."""

from __future__ import annotations

from datasets import vocabulary
from datasets.models import Collection, Compound


def language_choices(blank: str | None = None) -> list[tuple[str, str]]:
    """The languages that have compounds, as ("en", "English (en)"); ``blank`` adds a first empty choice."""
    languages = Compound.objects.order_by("language").values_list("language", flat=True).distinct()
    choices = [(code, f"{vocabulary.language_name(code)} ({code})") for code in languages]
    return [("", blank), *choices] if blank is not None else choices


def collection_choices(blank: str = "All collections") -> list[tuple[str, str]]:
    return [("", blank)] + [(c.slug, str(c)) for c in Collection.objects.all()]
