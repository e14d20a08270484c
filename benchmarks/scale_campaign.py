"""The synthetic campaign of ``benchmarks/scale.py``: ratings bulk-loaded into PostgreSQL, then timed pieces.

A token-level campaign whose items are every sentence of one language; ``add_campaign`` writes its
annotators through the ORM and its assignments and ratings with ``COPY`` (a million rows in a
minute: the rating pages' per-row path would take hours). ``agreement_pieces`` times, in this
process, each step that the report's agreement table takes, so that a step growing faster than
the ratings is named rather than guessed.
"""

from __future__ import annotations

import io
import time
import uuid

from benchmarks.synthetic import rating_plan


def add_campaign(slug: str, language: str, n_ratings: int, items_per_annotator: int, seed: int = 0):
    """A closed campaign over every ``language`` sentence with ``n_ratings`` ratings; (campaign, seconds to load)."""
    from django.db import connection
    from django.utils import timezone

    from annotation.models import Annotator, Assignment, Campaign, Item, Rating
    from datasets.models import Sentence

    started = time.perf_counter()
    sentences = list(
        Sentence.objects.filter(compound__language=language).order_by("pk").values_list("pk", "compound_id")
    )
    collection_id = Sentence.objects.filter(pk=sentences[0][0]).values_list("compound__collection_id", flat=True).get()
    campaign = Campaign.objects.create(
        name=f"Scale {n_ratings}",
        slug=slug,
        collection_id=collection_id,
        language=language,
        level=Campaign.Level.TOKEN,
        ratings_per_item=max(1, n_ratings // len(sentences)),
        status=Campaign.Status.CLOSED,
    )
    Item.objects.bulk_create(
        [Item(campaign=campaign, compound_id=c, sentence_id=s, order_key=i) for i, (s, c) in enumerate(sentences)],
        batch_size=5000,
    )
    item_ids = list(Item.objects.filter(campaign=campaign).order_by("order_key").values_list("pk", flat=True))
    plan = rating_plan(n_ratings, len(item_ids), items_per_annotator, seed)
    n_annotators = int(plan["annotator"].max()) + 1
    Annotator.objects.bulk_create(
        [
            Annotator(campaign=campaign, platform=Annotator.Platform.PROLIFIC, external_id=f"scale-{i}")
            for i in range(n_annotators)
        ],
        batch_size=5000,
    )
    annotator_ids = list(Annotator.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    now = timezone.now().isoformat()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {Assignment._meta.db_table}")
        base = cursor.fetchone()[0] + 1
        rows = io.StringIO()
        for i, (a, t) in enumerate(zip(plan["annotator"], plan["item"], strict=True)):
            rows.write(
                f"{base + i}\t{item_ids[t]}\t{annotator_ids[a]}\t{uuid.uuid4()}\tsubmitted\t{now}\t{now}\t{now}\n"
            )
        rows.seek(0)
        columns = ("id", "item_id", "annotator_id", "token", "status", "reserved_at", "expires_at", "submitted_at")
        cursor.cursor.copy_from(rows, Assignment._meta.db_table, columns=columns)  # psycopg2's COPY … FROM STDIN
        rows = io.StringIO()
        for i, (a, t, h, m, c) in enumerate(
            zip(plan["annotator"], plan["item"], plan["head"], plan["modifier"], plan["compound"], strict=True)
        ):
            rows.write(f"{base + i}\t{base + i}\t{item_ids[t]}\t{annotator_ids[a]}\t{h}\t{m}\t{c}\t12.5\t{now}\n")
        rows.seek(0)
        columns = ("id", "assignment_id", "item_id", "annotator_id", "head_score", "modifier_score", "compound_score")
        cursor.cursor.copy_from(rows, Rating._meta.db_table, columns=(*columns, "seconds", "created_at"))
        for model in (Assignment, Rating):
            table = model._meta.db_table
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))")
            cursor.execute(f"ANALYZE {table}")
    return campaign, time.perf_counter() - started


def agreement_pieces(campaign) -> dict[str, float]:
    """Seconds of the report's steps on ``campaign``: its read, annotator rows, reliability, and the agreement
    table's triples and value counts (``matrix_s``), bootstraps and top-k annotator searches (question
    "compound_score", interval). ``matrix_cells`` is the annotators × items matrix the table no longer builds."""
    from annotation.analysis import triples
    from annotation.analysis.agreement import SCORE_DOMAIN, _annotators_of_pairable, _bootstrap_counts
    from annotation.analysis.reliability import annotator_reliability
    from annotation.analysis.top_k import top_pair, top_triple
    from annotation.reports.analysis_data import campaign_ratings
    from annotation.reports.build import _gold_accuracy

    seconds: dict[str, float] = {}

    def timed(label, function, *args):
        started = time.perf_counter()
        value = function(*args)
        seconds[label] = round(time.perf_counter() - started, 3)
        return value

    def counted(ratings):
        t = triples.triples(ratings, "compound_score", SCORE_DOMAIN)
        return t, triples.value_counts(t)

    ratings = timed("read_s", campaign_ratings, campaign.pk)
    timed("annotator_rows_s", _gold_accuracy, campaign)  # the dashboard's rows: gold accuracy, quality flags
    timed("reliability_s", annotator_reliability, ratings, "compound_score")  # rho and alpha-if-removed per annotator
    t, counts = timed("matrix_s", counted, ratings)
    timed("bootstrap_full_s", _bootstrap_counts, counts, _annotators_of_pairable(t, counts), "interval", 1000, 0, 0.95)
    pair, _ = timed("top2_s", top_pair, t)
    picked, _ = timed("top3_s", top_triple, t, pair)
    _, sub = triples.common_items(t, picked)
    timed("bootstrap_top3_s", _bootstrap_counts, sub, 3, "interval", 1000, 0, 0.95)
    seconds["matrix_cells"] = t.n_annotators * t.n_items
    return seconds
