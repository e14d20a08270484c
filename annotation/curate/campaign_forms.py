"""The campaign form: what a curator sets when creating or editing a campaign, in sections.

The sections follow the questions a researcher answers when setting up a study: what is rated,
by whom and how many items each, what quality is asked for, and how workers are paid and leave.
"""

from __future__ import annotations

from django import forms

from annotation.allocation import settings_problems
from annotation.models import CAMPAIGN_SETTINGS, LOW_CODE_MINIMUM, Campaign, completion_code
from annotation.timing import low_code_minimum
from datasets import vocabulary
from datasets.forms import language_choices
from datasets.models import Collection

ANY_CLASS = ""
PICK = "pick"
ITEM_CLASS_CHOICES = [(ANY_CLASS, "Any class"), *vocabulary.CLASS_CHOICES]
# Columns fixed once a campaign has items: they decide which items it has.
ITEM_SCOPE_FIELDS = ("collection", "language", "level")
RESERVED_SLUGS = {"new", "synonyms"}  # pages under /curate/ (annotators: the proposals page)


class ItemChoiceForm(forms.Form):
    item_class = forms.ChoiceField(
        label="Items",
        choices=ITEM_CLASS_CHOICES,
        required=False,
        help_text="Token level: the naturalistic sentences with text of the collection's compounds in "
        "this language; type level: the compounds. Optionally only one compositionality class.",
    )


def _with_code(setting: str) -> tuple[str, ...]:
    # The completion code next to the completion URL (the API leaves it to the model's random default).
    return ("completion_code", setting) if setting == "completion_url" else (setting,)


def allocation_problems(values: dict) -> dict[str, str]:
    """``allocation.settings_problems`` of a form's or a request's values (model defaults where one is missing)."""
    defaults = Campaign()
    return settings_problems(
        *(
            values.get(name, getattr(defaults, name))
            for name in ("allocation", "ratings_per_item", "min_ratings_per_item", "budget_money", "pay_per_rating")
        )
    )


class CampaignForm(forms.ModelForm):
    completion_code = forms.CharField(
        required=False,
        max_length=Campaign._meta.get_field("completion_code").max_length,
        help_text="Shown to workers who finished (Prolific: the study's completion code); blank: a random code.",
    )
    confirm_low_minimum = forms.BooleanField(
        required=False,
        label=f"Yes, a code for fewer than {LOW_CODE_MINIMUM} rated items",
        help_text="Needed only when the minimum above is below that.",
    )
    completion_url = forms.URLField(
        required=False,
        assume_scheme="https",
        max_length=Campaign._meta.get_field("completion_url").max_length,
        help_text=Campaign._meta.get_field("completion_url").help_text,
    )

    class Meta:
        model = Campaign
        fields = [name for setting in CAMPAIGN_SETTINGS for name in _with_code(setting)]
        widgets = {
            "instructions": forms.Textarea(attrs={"rows": 6}),
            "consent_text": forms.Textarea(attrs={"rows": 4}),
        }
        labels = {
            "ratings_per_item": "Ratings per item (N; adaptive: the most)",
            "min_ratings_per_item": "Adaptive: the fewest ratings per item",
            "precision": "Adaptive: stop when the 95% interval is narrower than (points)",
            "precision_of": "Adaptive: the intervals watched",
            "budget_ratings": "Budget (ratings)",
            "budget_money": "Budget (money)",
            "max_items_per_annotator": "Items per worker",
            "min_items_for_code": "Completion code after (rated items)",
            "max_skip_share": "Skips allowed (share of a worker's items)",
            "expected_seconds_per_item": "Expected seconds per item",
            "reservation_minutes": "An unanswered item goes back after (minutes)",
            "seed": "Seed of the item order",
            "full_url": "Study full: return URL",
            "screen_out_code": "Screen-out code",
            "screen_out_url": "Screen-out URL",
        }
        help_texts = {
            "max_items_per_annotator": "Each worker is given at most this many items, then finishes. "
            "Blank: every item of the campaign.",
            "min_items_for_code": "Blank (recommended): the code needs every item a worker is given, less the "
            "allowed skips. A number is for open-ended studies; below 5 it must be confirmed.",
            "slug": "The study link's name: letters, digits and hyphens (filled from the name).",
        }

    # (title, what it answers, fields): the page shows the form in these sections, in this order.
    SECTIONS = (
        ("What is rated", "The items and what workers read first.", ("name", "slug", "collection", "language",
            "level", "item_class", "instructions", "consent_text", "status")),
        ("Who rates, and how many", "How many ratings each item gets and how much each worker does.", (
            "ratings_per_item", "max_items_per_annotator", "min_items_for_code", "confirm_low_minimum",
            "max_skip_share", "expected_seconds_per_item", "reservation_minutes", "seed")),
        ("Allocation and budget", "Fixed N, or adaptive: more ratings where workers disagree, fewer where they "
            "agree (the study planner compares the two on your pilot data).", (
            "allocation", "min_ratings_per_item", "precision", "precision_of", "budget_ratings", "pay_per_rating",
            "budget_money")),
        ("Quality", "How the practice items are graded (the thresholds that flag workers are on their own page).",
            ("training_pass_mark", "gold_tolerance")),
        ("Payment and the ends of the study", "What the platform needs: codes and return links.", (
            "completion_code", "completion_url", "full_url", "screen_out_code", "screen_out_url")),
    )  # fmt: skip

    def sections(self) -> list[tuple[str, str, list]]:
        """The form's fields in ``SECTIONS``, each section with the bound fields this form has."""
        return [
            (title, about, [self[name] for name in names if name in self.fields])
            for title, about, names in self.SECTIONS
        ]

    def finish_rule(self) -> str:
        """The study's end in one sentence, from the values this form holds (the page updates it as they change)."""
        values = {name: self[name].value() for name in ("max_items_per_annotator", "min_items_for_code")}
        per_worker = values["max_items_per_annotator"] or None
        minimum = values["min_items_for_code"] or None
        given = f"up to {per_worker} items" if per_worker else "every item of the campaign"
        code = (
            f"after {minimum} rated items"
            if minimum
            else "once every item they were given is rated or skipped within the allowance"
        )
        return f"Each worker is given {given}; the completion code comes {code}."

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["collection"].queryset = Collection.objects.order_by("slug")
        languages = language_choices()
        if self.instance.pk and self.instance.language not in dict(languages):
            languages.append((self.instance.language, self.instance.language))
        self.fields["language"] = forms.ChoiceField(
            choices=[("", "Choose a language"), *languages], help_text="Languages with compounds in the database."
        )
        if self.instance.pk and self.instance.items.exists():
            for name in ITEM_SCOPE_FIELDS:
                self.fields[name].disabled = True
                self.fields[name].help_text = "Fixed: the campaign has items."

    def clean_completion_code(self) -> str:
        return self.cleaned_data["completion_code"].strip() or self.instance.completion_code or completion_code()

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if slug in RESERVED_SLUGS:
            raise forms.ValidationError(f"{slug!r} is reserved for a page: choose another slug.")
        return slug

    def clean(self):
        data = super().clean()
        minimum = data.get("min_items_for_code")
        if problem := low_code_minimum(minimum, data.get("confirm_low_minimum", False), LOW_CODE_MINIMUM):
            self.add_error("min_items_for_code", problem)
        for name, problem in allocation_problems(data).items():
            self.add_error(name, problem)
        collection, language = data.get("collection"), data.get("language")
        if collection and language and not collection.compounds.filter(language=language).exists():
            self.add_error("language", f"The collection {collection} has no compounds in {language!r}.")
        return data


class CampaignCreateForm(CampaignForm, ItemChoiceForm):
    """A new campaign and the class of its first items (or none yet, to pick them one by one)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["item_class"].choices = [*ITEM_CLASS_CHOICES, (PICK, "None yet: pick items one by one next")]
