"""Read-only pages: the dataset overview with a compound list, and one page per compound.

The working dataset (scores, classes, paraphrases, gold synonyms) is for signed-in curators:
crowd workers must not be able to look up the answers of the items they rate. Everyone else
gets a landing page; published releases (the release pages and API) stay public.
"""

from __future__ import annotations

from itertools import groupby

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Count, Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from core.permissions import curator_required, is_curator
from datasets import vocabulary
from datasets.actions import choose_gold_synonym
from datasets.forms import CollectionLanguageFilter
from datasets.models import Compound, Paraphrase, Sentence, Variant

COMPOUNDS_PER_PAGE = 50
UNCLASSIFIED = "none"
# Display order of sentence kinds and variant (probe) kinds: the vocabulary's order, not the alphabet's.
SENTENCE_KIND_ORDER = {kind: position for position, (kind, _) in enumerate(vocabulary.SENTENCE_KIND_CHOICES)}
VARIANT_KIND_ORDER = {kind: position for position, (kind, _) in enumerate(vocabulary.VARIANT_KIND_CHOICES)}


class CompoundFilterForm(CollectionLanguageFilter):
    """The GET filters of the compound list; an invalid field is reported and ignored."""

    q = forms.CharField(
        required=False, max_length=200, label="Search", widget=forms.TextInput(attrs={"type": "search"})
    )

    def __init__(self, *args, summary: list[dict], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        collections = {row["collection"]: row["collection_name"] for row in summary}
        languages = sorted({row["language"] for row in summary})
        self.fields["collection"].choices = [("", "All collections"), *collections.items()]
        self.fields["language"].choices = [("", "Any language")] + [
            (code, f"{vocabulary.language_name(code)} ({code})") for code in languages
        ]
        # "class" is a keyword, hence a field added here rather than declared above.
        self.fields["class"] = forms.ChoiceField(
            required=False,
            label="Class",
            choices=[("", "Any class"), *vocabulary.CLASS_CHOICES, (UNCLASSIFIED, "Unclassified")],
        )
        self.order_fields(["collection", "language", "class", "q"])

    def filter(self, queryset):
        queryset = super().filter(queryset)
        data = self.cleaned_data
        if compound_class := data.get("class"):
            if compound_class == UNCLASSIFIED:
                queryset = queryset.filter(compositionality_class__isnull=True)
            else:
                queryset = queryset.filter(compositionality_class=compound_class)
        if q := (data.get("q") or "").strip():
            queryset = queryset.filter(Q(key__contains=vocabulary.compound_key(q)) | Q(text__icontains=q))
        return queryset


def dataset_summary() -> list[dict]:
    """Per collection and language: compounds by class, sentences (how many unavailable), variants.

    Three aggregate queries whatever the size of the dataset.
    """
    rows: dict[tuple[str, str], dict] = {}
    class_counts = {}
    for value, short in vocabulary.CLASS_SHORT.items():
        class_counts[f"class_{short}"] = Count("id", filter=Q(compositionality_class=value))
    for row in (
        Compound.objects.order_by()
        .values("collection__slug", "collection__name", "language")
        .annotate(
            total=Count("id"),
            unclassified=Count("id", filter=Q(compositionality_class__isnull=True)),
            **class_counts,
        )
    ):
        key = (row["collection__slug"], row["language"])
        rows[key] = {
            "collection": row["collection__slug"],
            "collection_name": row["collection__name"] or row["collection__slug"],
            "language": row["language"],
            "language_name": vocabulary.language_name(row["language"]),
            "compounds": row["total"],
            "unclassified": row["unclassified"],
            "by_class": [(short, row[f"class_{short}"]) for short in vocabulary.CLASS_SHORT.values()],
            "sentences": 0,
            "unavailable": 0,
            "variants": 0,
        }
    for row in (
        Sentence.objects.order_by()
        .values("compound__collection__slug", "compound__language")
        .annotate(total=Count("id"), unavailable=Count("id", filter=Q(available=False)))
    ):
        if summary := rows.get((row["compound__collection__slug"], row["compound__language"])):
            summary["sentences"] = row["total"]
            summary["unavailable"] = row["unavailable"]
    for row in (
        Variant.objects.order_by()
        .values("sentence__compound__collection__slug", "sentence__compound__language")
        .annotate(total=Count("id"))
    ):
        key = (row["sentence__compound__collection__slug"], row["sentence__compound__language"])
        if summary := rows.get(key):
            summary["variants"] = row["total"]
    return [rows[key] for key in sorted(rows)]


def home(request: HttpRequest) -> HttpResponse:
    if not is_curator(request.user):
        return render(request, "datasets/landing.html")
    summary = dataset_summary()
    form = CompoundFilterForm(request.GET or None, summary=summary)
    compounds = Compound.objects.with_counts().select_related("collection")
    compounds = compounds.order_by("collection__slug", "language", "key")
    if form.is_bound:
        compounds = form.filter(compounds)
    page = Paginator(compounds, COMPOUNDS_PER_PAGE).get_page(request.GET.get("page"))
    page_groups = [
        {
            "collection": collection,
            "language": language,
            "language_name": vocabulary.language_name(language),
            "compounds": list(members),
        }
        for (collection, language), members in groupby(
            page.object_list, key=lambda compound: (compound.collection, compound.language)
        )
    ]
    return render(
        request,
        "datasets/home.html",
        {
            "summary": summary,
            "form": form,
            "page": page,
            "page_groups": page_groups,
            "filtered": form.is_bound and any(request.GET.get(name) for name in form.fields),
            "class_short": vocabulary.CLASS_SHORT,
        },
    )


def format_frequency(value: float | None) -> str:
    """Frequencies span many orders of magnitude (per million words: 0.0004 to 50,000)."""
    if value is None:
        return "–"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


@curator_required
def compound_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """One compound with everything attached to it, in a fixed number of queries."""
    compound = get_object_or_404(
        Compound.objects.select_related("collection").prefetch_related(
            Prefetch(
                "sentences",
                queryset=Sentence.objects.order_by().prefetch_related(
                    Prefetch("variants", queryset=Variant.objects.order_by()),
                    Prefetch("paraphrases", queryset=Paraphrase.objects.order_by("-frequency", "text")),
                ),
            ),
            Prefetch(
                "paraphrases",
                queryset=Paraphrase.objects.filter(level=vocabulary.TYPE_LEVEL).order_by("-frequency", "text"),
                to_attr="type_paraphrases",
            ),
        ),
        pk=pk,
    )
    sentences = sorted(compound.sentences.all(), key=lambda s: (SENTENCE_KIND_ORDER.get(s.kind, 99), s.slot))
    groups: dict[str, list[Sentence]] = {}
    for sentence in sentences:
        groups.setdefault(sentence.kind, []).append(sentence)
        sentence.variant_list = sorted(
            sentence.variants.all(), key=lambda x: (VARIANT_KIND_ORDER.get(x.kind, 99), x.rank, x.isolated)
        )
    kind_labels = dict(vocabulary.SENTENCE_KIND_CHOICES)
    frequencies = [
        ("compound", compound.frequency),
        ("modifier", compound.modifier_frequency),
        ("head", compound.head_frequency),
    ]
    if all(value is None for _, value in frequencies):
        frequencies = []
    return render(
        request,
        "datasets/compound_detail.html",
        {
            "compound": compound,
            "language_name": vocabulary.language_name(compound.language),
            "sentence_groups": [
                {"kind": kind, "label": kind_labels.get(kind, kind), "sentences": members}
                for kind, members in groups.items()
            ],
            "sentence_count": len(sentences),
            "unavailable_count": sum(not s.available for s in sentences),
            "type_paraphrases": compound.type_paraphrases,
            "frequencies": [(label, format_frequency(value)) for label, value in frequencies],
        },
    )


@require_POST
@curator_required
def choose_gold_synonym_view(request: HttpRequest, pk: int) -> HttpResponse:
    """A curator picks the compound's gold synonym (recorded with who and when)."""
    compound = get_object_or_404(Compound, pk=pk)
    try:
        choose_gold_synonym(compound, request.POST.get("gold_synonym", ""), request.user)
        messages.success(request, f"Gold synonym of {compound.text} set to {compound.gold_synonym!r}.")
    except ValueError as exc:
        messages.error(request, str(exc).capitalize() + ".")
    return redirect("compound", pk=compound.pk)
