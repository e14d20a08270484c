"""The release form: what a curator chooses when creating a release (the view hands it to ``releases.tasks``)."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

from annotation.models import Campaign, FilterPolicy
from datasets.forms import collection_choices, language_choices
from releases.formats.meta import Creator
from releases.models import Release, next_version, semver_validator


class ReleaseForm(forms.Form):
    """What a curator chooses when creating a release; everything else is computed from the data."""

    version = forms.CharField(max_length=32, validators=[semver_validator], help_text="MAJOR.MINOR.PATCH, e.g. 1.0.0.")
    title = forms.CharField(max_length=200, required=False)
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}))
    citation = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))
    creators = forms.CharField(
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "placeholder": "Ana Sousa | University of Porto | 0000-0002-1825-0097"}
        ),
        help_text="The release's authors, one per line: Name | affiliation | ORCID iD (the last two optional). "
        "The card, CITATION.cff, the deposit metadata and croissant.json name them.",
    )
    intended_use = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What the release is for, in your words; the card's Responsible use section adds the standard "
        "uses of such data.",
    )
    limitations = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="What it cannot tell; the facts the data shows (simulated or reference scores, size) are added.",
    )
    biases = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Known biases of the compounds, sentences or annotators; the general ones are added.",
    )
    languages = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    collection = forms.ChoiceField(required=False, help_text="Only the compounds of this collection.")
    campaigns = forms.ModelMultipleChoiceField(
        Campaign.objects.order_by("slug"),
        to_field_name="slug",
        required=False,
        help_text="Scores aggregated from these campaigns' ratings; none: the reference scores stored on the compounds.",
        widget=forms.CheckboxSelectMultiple,
    )
    policy = forms.ModelChoiceField(
        FilterPolicy.objects.order_by("name"),
        to_field_name="name",
        required=False,
        help_text="Which annotators' ratings to leave out (with campaigns only; empty: 'exclude flagged', "
        "the workers the campaigns' quality thresholds flag; 'none' keeps everyone).",
    )
    machine_annotators = forms.BooleanField(
        required=False,
        label="Include the campaigns' machine-made ratings",
        help_text="The answers of language models to these campaigns, in a table of their own labelled machine "
        "(with campaigns only). They never enter the scores or the agreement.",
    )
    publish = forms.BooleanField(
        required=False, label="Publish it next (the next page says what freezes and asks you to confirm)"
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["languages"].choices = language_choices()
        self.fields["collection"].choices = collection_choices()
        suggested = next_version(list(Release.objects.values_list("version", flat=True)))
        self.fields["version"].initial = suggested
        self.fields["version"].help_text = f"MAJOR.MINOR.PATCH; the next is {suggested}."
        self.fields["campaigns"].label_from_instance = lambda c: f"{c.slug}: {c.name} ({c.language}, {c.level} level)"

    def clean_version(self) -> str:
        version = self.cleaned_data["version"].strip()
        if Release.objects.filter(version=version).exists():
            raise ValidationError(f"Release {version} already exists, and releases never change: choose a new version.")
        return version

    def clean_creators(self) -> list[str]:
        lines = [line.strip() for line in self.cleaned_data["creators"].splitlines() if line.strip()]
        for number, line in enumerate(lines, start=1):
            try:
                Creator.parse(line)
            except ValueError as error:
                raise ValidationError(f"Line {number}: {error}") from None
        return lines

    def clean(self) -> dict:
        data = super().clean()
        if data.get("policy") and not data.get("campaigns"):
            self.add_error("policy", "A filtering policy applies to campaign ratings: choose campaigns too.")
        if data.get("machine_annotators") and not data.get("campaigns"):
            self.add_error(
                "machine_annotators", "Machine-made ratings are the answers to campaigns: choose campaigns too."
            )
        return data
