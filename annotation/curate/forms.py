"""Forms of the study setup pages: check items with gold answers, worked examples, quality thresholds, chosen items."""

from __future__ import annotations

from django import forms

from annotation.curate.study_setup import check_targets, item_compound_texts, item_targets
from annotation.examples import gives_away, sentence_parts
from annotation.models import Campaign, Item, QualityPolicy, WorkedExample
from datasets import vocabulary
from datasets.models import Compound, Sentence

SCORE_CHOICES = [("", "–"), *((str(i), str(i)) for i in range(6))]
CHECK_ROLE_CHOICES = [
    (Item.Role.TRAINING, "Practice item: before the real items, graded, with feedback"),
    (Item.Role.ATTENTION, "Attention check: among the real items, after every fifth"),
]


def score_field(label: str, required: bool = False) -> forms.TypedChoiceField:
    choices = SCORE_CHOICES[1:] if required else SCORE_CHOICES
    return forms.TypedChoiceField(label=label, choices=choices, coerce=int, empty_value=None, required=required)


def target_label(target: Sentence | Compound) -> str:
    if isinstance(target, Sentence):
        text = target.text if len(target.text) <= 90 else target.text[:89] + "…"
        return f"{target.compound.text} ({target.compound.collection.slug}, sentence {target.slot}): {text}"
    return f"{target.text} ({target.collection.slug})"


class GoldForm(forms.Form):
    """The expected answers of a check item (within the campaign's tolerance), and the feedback of a practice item."""

    gold_head = score_field("Expected head answer")
    gold_modifier = score_field("Expected modifier answer")
    gold_compound = score_field("Expected whole-compound answer")
    feedback = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Practice items: shown with the expected answers after the worker answered.",
    )

    def clean(self):
        data = super().clean()
        if all(data.get(name) is None for name in ("gold_head", "gold_modifier", "gold_compound")):
            raise forms.ValidationError("Give at least one expected answer: a check without one judges nothing.")
        return data

    def gold(self) -> dict:
        return {name: self.cleaned_data.get(name) for name in ("gold_head", "gold_modifier", "gold_compound")}


class CheckItemForm(GoldForm):
    """A new practice item or attention check of a campaign."""

    role = forms.ChoiceField(label="Kind", choices=CHECK_ROLE_CHOICES, widget=forms.RadioSelect)
    target = forms.ModelChoiceField(label="Item", queryset=Sentence.objects.none())

    field_order = ["role", "target", "gold_head", "gold_modifier", "gold_compound", "feedback"]

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["target"].queryset = check_targets(campaign)
        self.fields["target"].label_from_instance = target_label
        self.fields["target"].label = "Sentence" if campaign.level == Campaign.Level.TOKEN else "Compound"
        self.fields["target"].help_text = (
            f"Any {'sentence' if campaign.level == Campaign.Level.TOKEN else 'compound'} in {campaign.language}; "
            "one of the campaign's own items becomes a check item if nobody was given it yet."
        )


class ItemFilterForm(forms.Form):
    """The item picker's filters: a compositionality class, and words of the compound or sentence."""

    q = forms.CharField(label="Search", required=False, max_length=200, help_text="Words of the compound or sentence.")
    item_class = forms.ChoiceField(
        label="Class", required=False, choices=[("", "Any class"), *vocabulary.CLASS_CHOICES]
    )


class ItemPickForm(forms.Form):
    """Items chosen one by one among those of the campaign's scope not yet in it."""

    targets = forms.ModelMultipleChoiceField(
        label="Items", queryset=Sentence.objects.none(), widget=forms.CheckboxSelectMultiple
    )

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        ids = [target.pk for target in item_targets(campaign)]
        model = Sentence if campaign.level == Campaign.Level.TOKEN else Compound
        queryset = model.objects.filter(pk__in=ids)
        if model is Sentence:
            queryset = queryset.select_related("compound__collection").order_by("compound__text", "slot", "id")
        else:
            queryset = queryset.select_related("collection").order_by("text", "id")
        self.fields["targets"].queryset = queryset
        self.fields["targets"].label_from_instance = target_label


class WorkedExampleForm(forms.ModelForm):
    head_score = score_field("Head answer", required=True)
    modifier_score = score_field("Modifier answer", required=True)
    compound_score = score_field("Whole-compound answer", required=True)

    class Meta:
        model = WorkedExample
        fields = [
            "compound",
            "sentence",
            "head_score",
            "head_note",
            "modifier_score",
            "modifier_note",
            "compound_score",
            "compound_note",
            "paraphrases",
        ]
        widgets = {"sentence": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args, campaign: Campaign, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.instance.campaign = campaign

    def clean(self):
        data = super().clean()
        compound, sentence = data.get("compound", ""), data.get("sentence", "")
        if compound and sentence and not sentence_parts(sentence, compound)[1]:
            self.add_error("sentence", f"The sentence must contain the compound {compound!r}.")
        if compound and gives_away(compound, item_compound_texts(self.instance.campaign)):
            self.add_error(
                "compound", f"{compound} is rated in this campaign: the example would give its answers away."
            )
        return data


class QualityPolicyForm(forms.ModelForm):
    class Meta:
        model = QualityPolicy
        fields = [
            "min_median_seconds",
            "max_same_answer_share",
            "max_attention_failures",
            "min_rho",
            "min_items",
            "max_skip_share",
        ]
        labels = {
            "min_median_seconds": "Speeder: median seconds per item below",
            "max_same_answer_share": "Straight-lining: share of items with the same answers from",
            "max_attention_failures": "Attention checks failed: more than",
            "min_rho": "Low agreement: Spearman rho with the others below",
            "min_items": "Judge straight-lining and agreement from (items)",
            "max_skip_share": "Skipped often: share of items skipped above",
        }
