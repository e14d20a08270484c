"""PostgreSQL's binary COPY for many rows of one table: bulk reads and insert-if-absent writes.

A bytea travels as raw bytes in binary COPY, and as hex text (twice the bytes, parsed on both
sides) in an INSERT or a SELECT through psycopg2. Only the column types the probe cache uses are
encoded: text, integers, booleans, bytea and timestamps; the types come from the Django fields.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from django.apps import apps
from django.db import connection, transaction

SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
INT4 = {"IntegerField", "PositiveIntegerField", "AutoField"}
INT2 = {"SmallIntegerField", "PositiveSmallIntegerField"}
INT8 = {"BigIntegerField", "PositiveBigIntegerField", "BigAutoField"}
TEXT = {"CharField", "TextField", "SlugField"}
UNIQUE_VIOLATION = "23505"


def _types(table: str, columns: Sequence[str]) -> list[str]:
    model = next(m for m in apps.get_models() if m._meta.db_table == table)
    fields = {field.column: field for field in model._meta.concrete_fields}
    return [fields[column].get_internal_type() for column in columns]


def _field(value, kind: str) -> bytes:
    if value is None:
        return b"\xff\xff\xff\xff"
    if kind in TEXT:
        data = value.encode("utf-8")
    elif kind == "BinaryField":
        data = bytes(value)
    elif kind in INT4:
        data = struct.pack("!i", value)
    elif kind in INT2:
        data = struct.pack("!h", value)
    elif kind in INT8:
        data = struct.pack("!q", value)
    elif kind == "BooleanField":
        data = b"\x01" if value else b"\x00"
    elif kind == "DateTimeField":
        delta = value - EPOCH
        data = struct.pack("!q", (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds)
    else:
        raise TypeError(f"no binary COPY encoding for {kind}")
    return struct.pack("!i", len(data)) + data


def encode_rows(rows: Iterable[Sequence], kinds: Sequence[str]) -> io.BytesIO:
    out = io.BytesIO()
    out.write(SIGNATURE + struct.pack("!ii", 0, 0))
    count = struct.pack("!h", len(kinds))
    for row in rows:
        out.write(count + b"".join(_field(value, kind) for value, kind in zip(row, kinds, strict=True)))
    out.write(struct.pack("!h", -1))
    out.seek(0)
    return out


def decode_rows(data: bytes, kinds: Sequence[str]) -> list[tuple]:
    """The rows of binary COPY output; bytea fields stay memoryviews of ``data`` (no copy)."""
    view = memoryview(data)
    if bytes(view[:11]) != SIGNATURE:
        raise ValueError("not PostgreSQL binary COPY data")
    codes = [_code(kind) for kind in kinds]
    from_bytes = int.from_bytes
    position = 19 + from_bytes(view[15:19], "big", signed=True)
    rows = []
    while from_bytes(view[position : position + 2], "big", signed=True) != -1:
        position += 2
        row = []
        for code in codes:  # one loop for every row: the per-field branches stay inline
            length = from_bytes(view[position : position + 4], "big", signed=True)
            position += 4
            if length < 0:
                row.append(None)
                continue
            field = view[position : position + length]
            position += length
            if code == BYTES:
                row.append(field)
            elif code == TEXT_CODE:
                row.append(str(field, "utf-8"))
            elif code == INT:
                row.append(from_bytes(field, "big", signed=True))
            else:
                row.append(field[0] != 0)
        rows.append(tuple(row))
    return rows


BYTES, TEXT_CODE, INT, BOOL = range(4)


def _code(kind: str) -> int:
    if kind == "BinaryField":
        return BYTES
    if kind in TEXT:
        return TEXT_CODE
    if kind in INT4 | INT2 | INT8:
        return INT
    if kind == "BooleanField":
        return BOOL
    raise TypeError(f"no binary COPY decoding for {kind}")


def select(table: str, columns: Sequence[str], key: str, keys: Sequence[str]) -> list[tuple]:
    """``columns`` of the rows whose ``key`` column is one of ``keys``, in no particular order."""
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    out = io.BytesIO()
    with connection.cursor() as cursor:
        query = cursor.mogrify(
            f"SELECT {names} FROM {connection.ops.quote_name(table)} WHERE {connection.ops.quote_name(key)} = ANY(%s)",
            [list(keys)],
        ).decode()
        cursor.cursor.copy_expert(f"COPY ({query}) TO STDOUT (FORMAT binary)", out)
    return decode_rows(out.getvalue(), _types(table, columns))


def insert_new(table: str, columns: Sequence[str], rows: Sequence[Sequence], unique: str) -> None:
    """Insert the rows whose ``unique`` value the table lacks; leave those it has (in a transaction).

    Straight into the table first; when another writer got a row there first, again through a
    temporary table and ``INSERT ... ON CONFLICT DO NOTHING``.
    """
    kinds = _types(table, columns)
    quote = connection.ops.quote_name
    names = ", ".join(quote(c) for c in columns)
    with connection.cursor() as cursor:
        try:
            with transaction.atomic():
                copy = f"COPY {quote(table)} ({names}) FROM STDIN (FORMAT binary)"
                cursor.cursor.copy_expert(copy, encode_rows(rows, kinds))
            return
        except Exception as error:  # psycopg's own error: copy_expert bypasses Django's wrapping
            if getattr(error, "pgcode", None) != UNIQUE_VIOLATION:
                raise
        staging = quote("probing_copy_in")
        cursor.execute(f"CREATE TEMP TABLE {staging} AS SELECT {names} FROM {quote(table)} WITH NO DATA")
        cursor.cursor.copy_expert(f"COPY {staging} ({names}) FROM STDIN (FORMAT binary)", encode_rows(rows, kinds))
        cursor.execute(
            f"INSERT INTO {quote(table)} ({names}) SELECT {names} FROM {staging} ON CONFLICT ({quote(unique)}) DO NOTHING"
        )
        cursor.execute(f"DROP TABLE {staging}")
