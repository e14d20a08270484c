"""Cache rows written the fastest way each database offers, the first writer of a key winning.

Both probe caches (``probing.run.cache``'s vectors, ``probing.run.score_cache``'s log-probabilities)
only insert, never update: two workers computing the same text at once store one row. On PostgreSQL
the rows travel by binary COPY (``probing.run.pgcopy``) without waiting for the disk (a row lost in a
crash is computed again). On SQLite, the embedded default a single GPU machine runs on, they go in one
``executemany`` of ``INSERT OR IGNORE``: Django's ``bulk_create`` prepared every value of every row
through its field, which cost 3.7 s of a 22 s likelihood run of the tiny LLaMA over the public release,
more than a quarter of its time outside the model.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connections, transaction
from django.db.models import Model
from django.utils import timezone

from probing.run import pgcopy


def insert_new(
    model: type[Model], columns: Sequence[str], rows: Sequence[Sequence], unique: str = "key", using: str = "default"
) -> None:
    """Insert ``rows`` (values of ``columns``; ``created_at`` is set to now) whose ``unique`` value the table lacks."""
    if not rows:
        return
    connection = connections[using]
    now = timezone.now()
    table = model._meta.db_table
    if connection.vendor == "postgresql":
        with transaction.atomic(using=using):
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL synchronous_commit TO OFF")
            pgcopy.insert_new(table, (*columns, "created_at"), [(*row, now) for row in rows], unique, using=using)
        return
    if connection.vendor == "sqlite":
        quote = connection.ops.quote_name
        names = ", ".join(quote(c) for c in (*columns, "created_at"))
        marks = ", ".join(["%s"] * (len(columns) + 1))
        stamp = connection.ops.adapt_datetimefield_value(now)
        with transaction.atomic(using=using), connection.cursor() as cursor:
            cursor.executemany(
                f"INSERT OR IGNORE INTO {quote(table)} ({names}) VALUES ({marks})", [(*row, stamp) for row in rows]
            )
        return
    objects = [model(**dict(zip(columns, row, strict=True))) for row in rows]
    model.objects.using(using).bulk_create(objects, batch_size=500, ignore_conflicts=True)
