"""Form helpers shared by the dataset pages."""

from __future__ import annotations

from django import forms

from datasets import vocabulary
from datasets.models import Collection, Compound, language_code_validator
from datasets.uploads import FORMATS


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


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files at once (the public datasets come as folders of files)."""

    widget = MultipleFileInput

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else [data]
        return [super(MultipleFileField, self).clean(item, initial) for item in files if item] or super().clean(None)


class UploadForm(forms.Form):
    """What to import: the format, the files, their language and the collection they go into."""

    format = forms.ChoiceField(label="Format", widget=forms.RadioSelect, initial="table", choices=[])
    files = MultipleFileField(label="Files", help_text="One file, or the files of a dataset's folder.")
    language = forms.CharField(
        label="Language",
        max_length=8,
        validators=[language_code_validator],
        help_text="An ISO 639 code (en, pt, pt-BR): the language of the compounds.",
    )
    collection = forms.SlugField(
        label="Collection",
        max_length=50,
        initial="uploads",
        help_text="Where the compounds go (a new name makes a new collection; existing rows are updated).",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["format"].choices = [(f.key, f"{f.label}: {f.files}") for f in FORMATS.values()]

    def clean_language(self) -> str:
        return self.cleaned_data["language"].strip()
