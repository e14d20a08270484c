"""Cache rows inserted the fast way read back through the ORM exactly as Django's own inserts do, first writer winning."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.db import connections
from django.db.utils import ConnectionHandler
from django.utils import timezone

from probing.models import CachedScores, CachedVectors
from probing.run.cache import ROW_FIELDS
from probing.run.new_rows import insert_new

VECTOR_COLUMNS = ROW_FIELDS  # the vector cache's own columns, its layers among them
SCORE_COLUMNS = ("key", "model", "names", "offsets", "logprobs")


def vector_row(key: str, value: float, span: bool) -> tuple:
    sentence = np.full(3, value, dtype="<f4").tobytes()
    layers = (sentence * 2, 2, "float32") if span else (None, 0, "")
    return (key, "m" * 64, sentence, sentence[::-1] if span else None, 3, 7, 1, not span, *layers)


def fields(objects, columns) -> list[tuple]:
    return [tuple(bytes(v) if isinstance(v, memoryview) else v for v in row) for row in objects.values_list(*columns)]


@pytest.fixture
def sqlite(django_db_blocker, tmp_path):
    """A SQLite file holding the two cache tables, as the embedded default's database would (INSERT OR IGNORE)."""
    connections.settings["sqlite"] = ConnectionHandler(
        {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "cache.sqlite3")}}
    ).settings["default"]
    django_db_blocker.unblock()
    try:
        with connections["sqlite"].schema_editor() as editor:
            editor.create_model(CachedVectors)
            editor.create_model(CachedScores)
        yield "sqlite"
    finally:
        connections["sqlite"].close()
        del connections["sqlite"]
        del connections.settings["sqlite"]
        django_db_blocker.restore()


def rows_read_back_as_the_orm_writes_them_and_the_first_writer_wins(alias: str) -> None:
    before = timezone.now()
    rows = [vector_row("a", 0.5, span=True), vector_row("b", -1.25, span=False)]
    insert_new(CachedVectors, VECTOR_COLUMNS, rows, using=alias)
    insert_new(
        CachedVectors, VECTOR_COLUMNS, [vector_row("a", 9.0, span=False), vector_row("c", 2.0, True)], using=alias
    )
    objects = CachedVectors.objects.using(alias)
    assert fields(objects.order_by("key"), VECTOR_COLUMNS) == [*rows, vector_row("c", 2.0, True)]
    assert all(
        before <= stamp <= timezone.now() + timedelta(seconds=1)
        for stamp in objects.values_list("created_at", flat=True)
    )
    # The same row through Django's own insert reads back the same, field by field.
    CachedVectors.objects.using(alias).create(**dict(zip(VECTOR_COLUMNS, vector_row("d", 0.5, True), strict=True)))
    [fast, orm] = fields(objects.filter(key__in=["a", "d"]).order_by("key"), VECTOR_COLUMNS[1:])
    assert fast == orm


def scores_with_quotes_and_a_duplicate_in_one_batch(alias: str) -> None:
    names = 'it\'s\x1f"quoted"\x1f; DROP TABLE x'
    logprobs = np.array([np.nan, -0.5, -1e-9]).tobytes()
    rows = [("k", "m", names, np.zeros(6, "<i4").tobytes(), logprobs), ("k", "m", "later", b"", b"")]
    insert_new(CachedScores, SCORE_COLUMNS, rows, using=alias)
    insert_new(CachedScores, SCORE_COLUMNS, [], using=alias)  # nothing to write: no query
    [row] = fields(CachedScores.objects.using(alias), SCORE_COLUMNS)
    assert row[:3] == ("k", "m", names) and np.array_equal(
        np.frombuffer(row[4]), np.frombuffer(logprobs), equal_nan=True
    )


@pytest.mark.django_db
def test_on_the_test_database_by_binary_copy():
    rows_read_back_as_the_orm_writes_them_and_the_first_writer_wins("default")
    scores_with_quotes_and_a_duplicate_in_one_batch("default")


def test_on_sqlite_by_insert_or_ignore(sqlite):
    rows_read_back_as_the_orm_writes_them_and_the_first_writer_wins(sqlite)
    scores_with_quotes_and_a_duplicate_in_one_batch(sqlite)
