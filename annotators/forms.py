"""The curator's form that attaches a model to a campaign as a machine annotator."""

from __future__ import annotations

from django import forms

from annotators import config, prompts
from annotators.actions import ANSWERING_KINDS, MAX_SAMPLES
from probing.models import EmbeddingModel


class AttachModelForm(forms.Form):
    model = forms.ModelChoiceField(
        queryset=EmbeddingModel.objects.filter(kind__in=ANSWERING_KINDS, active=True).order_by("name"),
        to_field_name="name",
        help_text="An openai_chat endpoint or a causal_lm folder registered by an administrator.",
    )
    template = forms.ChoiceField(choices=[("", "the campaign language's default")] + [(n, n) for n in sorted(prompts.TEMPLATES)], required=False)  # fmt: skip
    samples = forms.IntegerField(min_value=1, max_value=MAX_SAMPLES, initial=1, help_text="Answers per item, each with its own seed.")  # fmt: skip
    temperature = forms.FloatField(min_value=0.0, max_value=2.0, initial=config.DEFAULTS["temperature"])
    seed = forms.IntegerField(min_value=0, initial=config.DEFAULTS["seed"])
    structured = forms.BooleanField(required=False, initial=True, help_text="Send the answer's JSON schema (structured output).")  # fmt: skip
    logprobs = forms.BooleanField(required=False, initial=True, help_text="Ask for the digits' log-probabilities.")

    def settings(self) -> dict:
        data = self.cleaned_data
        return {k: data[k] for k in ("temperature", "seed", "structured", "logprobs")}
