"""Curator page that starts a variant-generation job (the job page shows its progress)."""

from __future__ import annotations

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from building.models import BuildJob, FrequencyTable
from building.rules.nc_rand.pools import PoolFileError, read_pool_data
from building.storage import store_upload
from building.tasks import start_generation_job
from building.variants.resources import GenerationOptions
from building.variants.sentence_similarity import BUNDLED_E5, BUNDLED_E5_ENPT, BUNDLED_MINILM, NO_CONTEXT_MODEL
from core.permissions import curator_required
from datasets import vocabulary
from datasets.forms import collection_choices, language_choices
from datasets.models import Compound

POOL_DIR = "pools"
CONTEXT_MODEL_CHOICES = [
    ("", "Default: the language's model (multilingual e5, 4-bit)"),
    (BUNDLED_E5_ENPT, "multilingual e5, English and Portuguese vocabulary (4-bit)"),
    (BUNDLED_E5, "multilingual e5, full vocabulary (4-bit)"),
    (BUNDLED_MINILM, "all-MiniLM-L6-v2 (English only)"),
    (NO_CONTEXT_MODEL, "None: the lexicon's order"),
]


class GenerateVariantsForm(forms.Form):
    """Which compounds to (re)generate, and the optional resources to use."""

    language = forms.ChoiceField()
    collection = forms.ChoiceField(required=False)
    compounds = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One per line or comma-separated; empty: every compound of the language (and collection).",
    )
    frequency_table = forms.ChoiceField(
        required=False, help_text="For NC_Rand matching (default: the newest counted corpus, else wordfreq)."
    )
    pool_file = forms.FileField(
        required=False,
        label="Random-compound pool",
        help_text="A text file, one two-word compound per line; replaces the default pool (lexicon entries).",
    )
    neutral = forms.BooleanField(required=False, initial=True, label="Create neutral sentences and their variants")
    context_model = forms.ChoiceField(
        required=False,
        label="Context model",
        choices=CONTEXT_MODEL_CHOICES,
        help_text="Ranks synonyms by how well they fit the compound's sentences.",
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["language"].choices = language_choices()
        self.fields["collection"].choices = collection_choices()
        tables = FrequencyTable.objects.filter(source=FrequencyTable.Source.CORPUS).defer("counts")
        self.fields["frequency_table"].choices = [("", "Default")] + [(t.pk, str(t)) for t in tables]

    def clean(self) -> dict:
        data = super().clean()
        if self.errors:
            return data
        query = Compound.objects.filter(language=data["language"])
        if data.get("collection"):
            query = query.filter(collection__slug=data["collection"])
        names = [n.strip() for line in data.get("compounds", "").splitlines() for n in line.split(",") if n.strip()]
        if names:
            keys = {vocabulary.compound_key(n) for n in names}
            query = query.filter(key__in=keys)
            missing = keys - set(query.values_list("key", flat=True))
            if missing:
                raise forms.ValidationError(f"Not in the dataset: {', '.join(sorted(missing))}.")
        data["selected"] = list(query.order_by("collection__slug", "key"))
        if not data["selected"]:
            raise forms.ValidationError("No compounds match.")
        table = data.get("frequency_table")
        if table and not FrequencyTable.objects.filter(pk=table, language=data["language"]).exists():
            self.add_error("frequency_table", "That table is for another language.")
        return data


@curator_required
def generate_variants_view(request: HttpRequest) -> HttpResponse:
    form = GenerateVariantsForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        pool = ""
        if upload := data["pool_file"]:
            try:
                read_pool_data(upload.name, upload.read())  # a bad line is reported now, not in a worker later
            except PoolFileError as exc:
                form.add_error("pool_file", str(exc))
            else:
                upload.seek(0)
                pool = store_upload(upload, POOL_DIR).name
        if not form.errors:
            options = GenerationOptions(
                frequency_table=int(data["frequency_table"]) if data["frequency_table"] else None,
                pool_storage=pool,
                neutral=data["neutral"],
                context_model=data.get("context_model") or "",
            )
            job = start_generation_job(data["selected"], options, user=request.user)
            return redirect("build_job", pk=job.pk)
    recent = BuildJob.objects.filter(kind=BuildJob.Kind.GENERATE_VARIANTS).defer("options")[:10]
    return render(request, "datasets/build/generate.html", {"form": form, "recent": recent})
