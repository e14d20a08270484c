"""Raw exports of a campaign: one row per rating, per suggested paraphrase, per skip ("don't know this
expression"), per annotator (with quality flags), or per machine answer. Every row says its
``annotator_origin``: human, simulated (the demo's panel) or machine (a model's answers, a table of their own).

Rows are generated from a single ``select_related`` query read with ``.iterator()``, and the
CSV and JSON writers yield text chunk by chunk, so an export of any size streams in constant
memory (``streaming_response``).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator

from django.db.models import Prefetch, QuerySet
from django.http import StreamingHttpResponse

from annotation.curate.dashboard import annotator_rows, ratings_frame
from annotation.models import Annotator, Campaign, Item, MachineAnswer, Rating, Skip, SuggestedParaphrase

CHUNK = 2000
# Where a row comes from: shared by both tables.
CONTEXT_FIELDS = [
    "campaign",
    "rating_id",
    "item_id",
    "role",
    "compound",
    "language",
    "sentence_id",
    "sentence_slot",
    "annotator_id",
    "platform",
    "external_id",
    "annotator_origin",
]
RATING_FIELDS = [
    *CONTEXT_FIELDS,
    "head_score",
    "modifier_score",
    "compound_score",
    "seconds",
    "created_at",
    "paraphrases",
]
PARAPHRASE_FIELDS = [*CONTEXT_FIELDS, "position", "paraphrase", "created_at"]
SKIP_FIELDS = [*(name for name in CONTEXT_FIELDS if name != "rating_id"), "skip_id", "reason", "seconds", "created_at"]
ANNOTATOR_FIELDS = [
    "campaign",
    "annotator_id",
    "platform",
    "external_id",
    "study_id",
    "session_id",
    "assignment_id",
    "status",
    "simulated",
    "items_done",
    "skipped",
    "median_seconds",
    "same_answer_share",
    "attention_failures",
    "rho",
    "gold_accuracy",
    "attention_accuracy",
    "flagged",
    "flags",
    "reason",
]
# A model's answers (annotation.models.machine): never in the tables above, always labelled "machine".
MACHINE_FIELDS = [
    *(name for name in CONTEXT_FIELDS if name not in ("rating_id", "annotator_id", "platform", "external_id")),
    "answer_id",
    "machine_annotator",
    "model",
    "model_kind",
    "model_identity",
    "template",
    "template_version",
    "settings",
    "sample",
    "valid",
    "head_score",
    "modifier_score",
    "compound_score",
    "distributions",
    "paraphrases",
    "error",
    "raw_text",
    "attempts",
    "prompt_tokens",
    "completion_tokens",
    "cached",
    "created_at",
]
TABLES = {
    "ratings": RATING_FIELDS,
    "paraphrases": PARAPHRASE_FIELDS,
    "skips": SKIP_FIELDS,
    "annotators": ANNOTATOR_FIELDS,
    "machine_answers": MACHINE_FIELDS,
}
FORMATS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}


def _rating_columns(rating: Rating) -> dict:
    columns = {"rating_id": rating.id, **_item_columns(rating.item, rating.annotator)}
    return {name: columns[name] for name in CONTEXT_FIELDS}  # in the tables' column order


def _item_columns(item: Item, annotator: Annotator) -> dict:
    return _place(item) | {
        "annotator_id": annotator.pk,
        "platform": annotator.platform,
        "external_id": annotator.external_id,
        "annotator_origin": origin(annotator),
    }


def _place(item: Item) -> dict:
    """Where a row comes from: the campaign, the item, its compound and sentence."""
    return {
        "campaign": item.campaign.slug,
        "item_id": item.id,
        "role": item.role,
        "compound": item.compound.text,
        "language": item.compound.language,
        "sentence_id": item.sentence_id,
        "sentence_slot": item.sentence.slot if item.sentence_id else None,
    }


def origin(annotator: Annotator) -> str:
    """Who gave a rating: a person, or a simulated annotator of the demo (machine answers have their own table)."""
    return "simulated" if annotator.simulated else "human"


def machine_answer_rows(campaign: Campaign) -> Iterator[dict]:
    """One dict per machine answer (columns ``MACHINE_FIELDS``), valid or not, with the model, template and settings."""
    answers = (
        MachineAnswer.objects.filter(item__campaign=campaign)
        .select_related("item__campaign", "item__compound", "item__sentence", "annotator")
        .order_by("annotator_id", "item_id")
    )
    for answer in answers.iterator(chunk_size=CHUNK):
        item, machine = answer.item, answer.annotator
        yield _place(item) | {
            "annotator_origin": "machine",
            "answer_id": answer.id,
            "machine_annotator": machine.label,
            "model": machine.model_name,
            "model_kind": machine.model_kind,
            "model_identity": json.dumps(machine.model_identity, sort_keys=True),
            "template": machine.template_name,
            "template_version": machine.template_version,
            "settings": json.dumps(machine.settings, sort_keys=True),
            "sample": machine.sample,
            "valid": answer.valid,
            "head_score": answer.head_score,
            "modifier_score": answer.modifier_score,
            "compound_score": answer.compound_score,
            "distributions": json.dumps(answer.distributions, sort_keys=True) if answer.distributions else "",
            "paraphrases": ";".join(answer.paraphrases or []),
            "error": answer.error,
            "raw_text": answer.raw_text,
            "attempts": answer.attempts,
            "prompt_tokens": answer.prompt_tokens,
            "completion_tokens": answer.completion_tokens,
            "cached": answer.cached,
            "created_at": answer.created_at.isoformat(),
        }


def ratings_queryset(campaign: Campaign) -> QuerySet[Rating]:
    return (
        Rating.objects.filter(item__campaign=campaign)
        .select_related("item__campaign", "item__compound", "item__sentence", "annotator")
        .prefetch_related(Prefetch("paraphrases", queryset=SuggestedParaphrase.objects.order_by("position")))
        .order_by("created_at", "id")
    )


def rating_rows(campaign: Campaign) -> Iterator[dict]:
    """One dict per rating (columns ``RATING_FIELDS``), paraphrases joined by ";"."""
    for rating in ratings_queryset(campaign).iterator(chunk_size=CHUNK):
        yield _rating_columns(rating) | {
            "head_score": rating.head_score,
            "modifier_score": rating.modifier_score,
            "compound_score": rating.compound_score,
            "seconds": rating.seconds,
            "created_at": rating.created_at.isoformat(),
            "paraphrases": ";".join(p.text for p in rating.paraphrases.all()),
        }


def paraphrase_rows(campaign: Campaign) -> Iterator[dict]:
    """One dict per suggested paraphrase (columns ``PARAPHRASE_FIELDS``)."""
    paraphrases = (
        SuggestedParaphrase.objects.filter(rating__item__campaign=campaign)
        .select_related(
            "rating__item__campaign", "rating__item__compound", "rating__item__sentence", "rating__annotator"
        )
        .order_by("rating__created_at", "rating_id", "position")
    )
    for paraphrase in paraphrases.iterator(chunk_size=CHUNK):
        yield _rating_columns(paraphrase.rating) | {
            "position": paraphrase.position,
            "paraphrase": paraphrase.text,
            "created_at": paraphrase.rating.created_at.isoformat(),
        }


def skip_rows(campaign: Campaign) -> Iterator[dict]:
    """One dict per skip (columns ``SKIP_FIELDS``): the item went back to the pool, the worker said why."""
    skips = (
        Skip.objects.filter(item__campaign=campaign)
        .select_related("item__campaign", "item__compound", "item__sentence", "annotator")
        .order_by("created_at", "id")
    )
    for skip in skips.iterator(chunk_size=CHUNK):
        yield _item_columns(skip.item, skip.annotator) | {
            "skip_id": skip.id,
            "reason": skip.reason,
            "seconds": skip.seconds,
            "created_at": skip.created_at.isoformat(),
        }


def annotator_export_rows(campaign: Campaign) -> Iterator[dict]:
    """One dict per annotator (columns ``ANNOTATOR_FIELDS``): ids, progress and the quality flags with their reasons."""
    annotators = Annotator.objects.filter(campaign=campaign).in_bulk()
    for row in annotator_rows(campaign, ratings_frame(campaign)):
        annotator = annotators[row.id]
        yield {
            "campaign": campaign.slug,
            "annotator_id": row.id,
            "platform": row.platform,
            "external_id": row.external_id,
            "study_id": annotator.study_id,
            "session_id": annotator.session_id,
            "assignment_id": annotator.assignment_id,
            "status": annotator.status,
            "simulated": row.simulated,
            "items_done": row.items_done,
            "skipped": row.skipped,
            "median_seconds": row.median_seconds,
            "same_answer_share": row.same_answer_share,
            "attention_failures": row.attention_failures,
            "rho": row.rho,
            "gold_accuracy": row.gold_accuracy,
            "attention_accuracy": row.attention_accuracy,
            "flagged": row.flagged,
            "flags": ";".join(row.flags),
            "reason": row.reason,
        }


def rows(campaign: Campaign, table: str) -> Iterator[dict]:
    if table == "ratings":
        return rating_rows(campaign)
    if table == "paraphrases":
        return paraphrase_rows(campaign)
    if table == "skips":
        return skip_rows(campaign)
    if table == "annotators":
        return annotator_export_rows(campaign)
    if table == "machine_answers":
        return machine_answer_rows(campaign)
    raise ValueError(f"unknown export table {table!r}")


class _Echo:
    """A file-like object whose write returns the text, for csv.writer in a generator."""

    def write(self, value: str) -> str:
        return value


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value: object) -> object:
    """Text a spreadsheet would run as a formula ("=HYPERLINK(…)") gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def csv_chunks(data: Iterable[dict], fields: list[str]) -> Iterator[str]:
    writer = csv.DictWriter(_Echo(), fieldnames=fields)
    yield writer.writeheader()
    for row in data:
        yield writer.writerow({key: spreadsheet_safe(value) for key, value in row.items()})


def json_chunks(data: Iterable[dict]) -> Iterator[str]:
    """A JSON array written one row at a time."""
    yield "["
    for i, row in enumerate(data):
        yield ("," if i else "") + "\n" + json.dumps(row, ensure_ascii=False)
    yield "\n]\n"


def chunks(campaign: Campaign, table: str, fmt: str) -> Iterator[str]:
    data = rows(campaign, table)
    if fmt == "csv":
        return csv_chunks(data, TABLES[table])
    if fmt == "json":
        return json_chunks(data)
    raise ValueError(f"unknown export format {fmt!r}")


def filename(campaign: Campaign, table: str, fmt: str) -> str:
    return f"{campaign.slug}-{table}.{fmt}"


def streaming_response(campaign: Campaign, table: str, fmt: str) -> StreamingHttpResponse:
    """A download of ``table`` (ratings or paraphrases) as ``fmt`` (csv or json)."""
    if table not in TABLES or fmt not in FORMATS:
        raise ValueError(f"unknown export {table}.{fmt}")
    response = StreamingHttpResponse(chunks(campaign, table, fmt), content_type=FORMATS[fmt])
    response["Content-Disposition"] = f'attachment; filename="{filename(campaign, table, fmt)}"'
    return response
