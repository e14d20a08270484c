"""The curator's page of model-proposed synonyms (``/curate/synonyms/``): ask a model, see what it proposed.

What the page starts runs on the model's queue (``tasks.start_proposals``), as ``propose_synonyms``
without ``--inline`` does; what it shows is read from the stored requests and proposals. Proposals are
candidates for the variant generator, never approved variants: the review page is where curators decide.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotators import synonym_prompts
from annotators.actions import ANSWERING_KINDS
from annotators.tasks import start_proposals
from building.models import SynonymRequest
from core.permissions import curator_required
from datasets.models import Collection, Compound
from datasets.vocabulary import compound_key
from probing.models import EmbeddingModel

SHOWN = 50  # the latest requests the page lists


class ProposeForm(forms.Form):
    model = forms.ModelChoiceField(
        queryset=EmbeddingModel.objects.filter(kind__in=ANSWERING_KINDS, active=True).order_by("name"),
        to_field_name="name",
        help_text="An openai_chat endpoint or a causal_lm folder registered by an administrator.",
    )
    collection = forms.ModelChoiceField(queryset=Collection.objects.order_by("slug"), to_field_name="slug")
    language = forms.CharField(max_length=8, help_text="The compounds' language, e.g. en or pt.")
    compounds = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Only these compounds, one per line or comma-separated; blank: every compound of the collection.",
    )
    template = forms.ChoiceField(
        choices=[("", "the language's default"), *((name, name) for name in sorted(synonym_prompts.TEMPLATES))],
        required=False,
    )

    def clean(self):
        data = super().clean()
        if not (collection := data.get("collection")) or not (language := data.get("language")):
            return data
        compounds = Compound.objects.filter(collection=collection, language=language)
        if texts := [t.strip() for t in data.get("compounds", "").replace(",", "\n").splitlines() if t.strip()]:
            wanted = {compound_key(text) for text in texts}
            compounds = compounds.filter(key__in=wanted)
            if missing := wanted - set(compounds.values_list("key", flat=True)):
                self.add_error("compounds", f"Not in {collection.slug}/{language}: {', '.join(sorted(missing))}.")
        if not compounds.exists():
            self.add_error("language", f"{collection.slug} has no compounds in {language!r}.")
        data["compound_ids"] = list(compounds.values_list("pk", flat=True))
        return data


@require_http_methods(["GET", "POST"])
@curator_required
def proposals_page(request: HttpRequest) -> HttpResponse:
    form = ProposeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        start_proposals(data["model"], data["compound_ids"], data["template"] or None, None, request.user)
        messages.success(
            request, f"{len(data['compound_ids'])} compounds sent to {data['model'].name}: proposals appear below."
        )
        return redirect("annotators:proposals")
    requests = (
        SynonymRequest.objects.select_related("compound").prefetch_related("proposals").order_by("-updated_at")
    )[:SHOWN]
    status = 400 if request.method == "POST" else 200
    return render(request, "annotators/proposals.html", {"form": form, "requests": requests}, status=status)
