"""Counts of what the database holds, per language (the shape ``dataset_stats`` prints)."""

from __future__ import annotations

from django.db.models import Count, Q

from datasets.models import Compound, Paraphrase, Sentence, Variant


def dataset_stats(collection: str | None = None) -> dict:
    compounds = Compound.objects.all()
    if collection:
        compounds = compounds.filter(collection__slug=collection)
    languages: dict[str, dict[str, int]] = {}
    for row in compounds.values("language").annotate(n=Count("id")).order_by("language"):
        languages[row["language"]] = {
            "compounds": row["n"],
            "sentences": 0,
            "sentences_unavailable": 0,
            "variants": 0,
            "paraphrases": 0,
        }
    sentences = (
        Sentence.objects.filter(compound__in=compounds)
        .values("compound__language")
        .annotate(n=Count("id"), unavailable=Count("id", filter=Q(available=False)))
    )
    for row in sentences:
        entry = languages[row["compound__language"]]
        entry["sentences"], entry["sentences_unavailable"] = row["n"], row["unavailable"]
    for model, field, name in ((Variant, "sentence__compound", "variants"), (Paraphrase, "compound", "paraphrases")):
        rows = model.objects.filter(**{f"{field}__in": compounds}).values(f"{field}__language").annotate(n=Count("id"))
        for row in rows:
            languages[row[f"{field}__language"]][name] = row["n"]
    return {"languages": languages}
