"""Fresh planner statistics after a bulk write.

PostgreSQL plans a join from the statistics of its tables. Rows written by a bulk import or a
generation run are not in them until autovacuum analyses the table, which it cannot do before the
writing transaction commits, and may do minutes later: meanwhile the planner takes tables of
tens of thousands of rows for nearly empty ones and picks nested loops that take hours (seen: a
count of variants per language after importing the public data). ``ANALYZE`` samples the rows
the current transaction can see, its own uncommitted ones included, and costs milliseconds.
"""

from __future__ import annotations

from django.db import connection, models


def analyze(*tables: type[models.Model]) -> None:
    """Refresh the planner statistics of these models' tables (PostgreSQL; SQLite plans without them)."""
    if connection.vendor != "postgresql" or not tables:
        return
    names = ", ".join(connection.ops.quote_name(model._meta.db_table) for model in tables)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {names}")
