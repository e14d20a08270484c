"""The filters of the dataset API's lists (compounds, sentences) and the compound scope that variants share."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django_filters import FilterSet

from core.filters import BooleanFilter, ChoiceFilter, IdFilter, TextFilter
from datasets import vocabulary
from datasets.models import language_code_validator

UNCLASSIFIED = "none"
CLASS_VALUES = {value: value for value, _ in vocabulary.CLASS_CHOICES} | vocabulary.CLASS_CODES


def compound_filter() -> IdFilter:
    return IdFilter(field_name="id", method="filter_compound", help_text="Id of the compound.")


class CompoundScopeFilterSet(FilterSet):
    """The collection and language of the compound reached through ``compound_path`` ("": the row itself)."""

    compound_path = ""

    collection = TextFilter(
        field_name="collection__slug",
        method="filter_compound",
        help_text="Slug of the collection (namespace) of the compound, e.g. default or demo.",
    )
    # A well-formed code that no compound has is an empty list; anything else is a 400.
    language = TextFilter(
        field_name="language",
        method="filter_compound",
        validators=[language_code_validator],
        schema={"pattern": language_code_validator.regex.pattern},
        help_text="ISO 639 code of the compound's language, e.g. en or pt.",
    )

    def filter_compound(self, queryset: QuerySet, name: str, value) -> QuerySet:
        path = f"{self.compound_path}__{name}" if self.compound_path else name
        return queryset.filter(**{path: value})


class CompoundFilterSet(CompoundScopeFilterSet):
    q = TextFilter(method="filter_text", help_text="Text search in the compound (case-insensitive substring).")

    def filter_text(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        return queryset.filter(Q(key__contains=vocabulary.compound_key(value)) | Q(text__icontains=value))

    def filter_class(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if value == UNCLASSIFIED:
            return queryset.filter(compositionality_class__isnull=True)
        return queryset.filter(compositionality_class=CLASS_VALUES[value])


# "class" is a Python keyword and cannot name an attribute in the class body: it joins the filters here.
CompoundFilterSet.base_filters["class"] = ChoiceFilter(
    field_name="compositionality_class",
    method="filter_class",
    choices=[(value, value) for value in [*CLASS_VALUES, UNCLASSIFIED]],
    help_text="Compositionality class: idiomatic, partly_compositional or compositional "
    "(or the codes NC, I, PC, C); none for unclassified compounds.",
)


class SentenceFilterSet(CompoundScopeFilterSet):
    compound_path = "compound"

    compound = compound_filter()
    kind = ChoiceFilter(choices=vocabulary.SENTENCE_KIND_CHOICES, help_text="Sentence kind.")
    available = BooleanFilter(help_text="true: sentences with text; false: sentences known only by a corpus pointer.")
