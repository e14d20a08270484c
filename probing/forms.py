"""The runs page's form: what a curator chooses to start a probe run (release, model, config overrides)."""

from __future__ import annotations

from django import forms

from probing.likelihood.scores import CAUSAL
from probing.models import EmbeddingModel
from releases.models import Release, version_key


class StartRunForm(forms.Form):
    """A published release, a registered model and optional overrides of the model's config."""

    release = forms.ModelChoiceField(Release.objects.none(), to_field_name="version", empty_label=None)
    model = forms.ModelChoiceField(EmbeddingModel.objects.order_by("name"), to_field_name="name", empty_label=None)
    layers = forms.CharField(
        required=False,
        max_length=100,
        help_text="Hidden-state layers averaged, such as -4,-3,-2,-1 (blank: the model's default).",
    )
    include_special_tokens = forms.TypedChoiceField(
        required=False,
        choices=[("", "Model default"), ("yes", "Yes"), ("no", "No")],
        coerce=lambda value: {"yes": True, "no": False}.get(value),
        empty_value=None,
        label="Special tokens in the sentence mean",
    )
    batch_size = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=4096,
        help_text="Texts per forward pass. A language model (likelihood run) takes this setting only.",
    )
    max_length = forms.IntegerField(required=False, min_value=8, max_value=32768)
    similarity = forms.BooleanField(
        required=False,
        label="Similarity measures too",
        help_text=(
            "A causal language model's likelihood run also computes Sim, Affinity and Scaled Similarity from the "
            "hidden states of the same forward pass (each text runs once); layers, special tokens and max length "
            "then set how they are pooled."
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        releases = sorted(Release.objects.published().defer("manifest"), key=lambda r: version_key(r.version))
        self.fields["release"].queryset = Release.objects.published()
        self.fields["release"].choices = [(r.version, f"{r.version} {r.title}".strip()) for r in reversed(releases)]

    def clean_layers(self) -> list[int] | None:
        text = self.cleaned_data["layers"].strip()
        if not text:
            return None
        try:
            return [int(part) for part in text.replace(" ", ",").split(",") if part]
        except ValueError:
            raise forms.ValidationError("Whole numbers separated by commas, such as -4,-3,-2,-1.") from None

    def clean(self) -> dict:
        data = super().clean()
        model = data.get("model")
        if data.get("similarity") and model is not None and model.kind != CAUSAL:
            self.add_error(
                "similarity",
                f"{model.name} is a {model.kind} model: only a causal language model's run gives both families "
                "from one pass (an embedding model's run is a similarity run already)",
            )
        return data

    def overrides(self) -> dict:
        """The config values given (the rest comes from the model's defaults); pooling goes to the similarity part."""
        data = self.cleaned_data
        pooling = ["layers", "include_special_tokens", "max_length"]
        given = {name: data[name] for name in [*pooling, "batch_size"] if data.get(name) is not None}
        if not data.get("similarity"):
            return given
        return {
            **{name: value for name, value in given.items() if name not in pooling},
            "similarity": {name: value for name, value in given.items() if name in pooling},
        }
