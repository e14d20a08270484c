"""PostgreSQL's binary COPY for many rows of one table: bulk reads and insert-if-absent writes.

A bytea travels as raw bytes in binary COPY, and as hex text (twice the bytes, parsed on both
sides) in an INSERT or a SELECT through psycopg2. Only the column types the probe cache uses are
encoded: text, integers, booleans, bytea and timestamps; the types come from the Django fields.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np
from django.apps import apps
from django.db import connection, connections, transaction

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


@dataclass
class Block:
    """Consecutive rows of binary COPY output in which every field has the same length (NULLs alike).

    ``columns[j]``, for ``n`` rows: None where the field is NULL in every row; for bytea a read-only
    (n, length) uint8 array over the COPY bytes (no copy; ``.view("<f4")`` reads float32 values);
    for text a list of str; for integers an int64 array; for booleans a bool array.
    """

    n: int
    columns: list


def decode_blocks(data: bytes, kinds: Sequence[str]) -> list[Block]:
    """The rows of binary COPY output, in blocks of one layout, each read as arrays.

    A run of rows whose fields all have the lengths of its first row is read with one numpy record
    type instead of field by field: rows of fixed-size vectors come back as one strided array per
    column. Where the next row differs (a NULL, a longer text), a new block starts: any COPY output
    is read, the fewer layouts the fewer blocks.
    """
    view = memoryview(data)
    if bytes(view[:11]) != SIGNATURE:
        raise ValueError("not PostgreSQL binary COPY data")
    if bytes(view[-2:]) != b"\xff\xff":
        raise ValueError("binary COPY data without its trailer")
    codes = [_code(kind) for kind in kinds]
    position = 19 + int.from_bytes(view[15:19], "big", signed=True)
    end = len(data) - 2
    blocks = []
    while position < end:
        lengths, size = _layout(view, position, len(kinds))
        record = np.dtype(
            [("fields", ">i2")]
            + [
                item
                for j, length in enumerate(lengths)
                for item in ((f"n{j}", ">i4"), *(((f"v{j}", f"V{length}"),) if length > 0 else ()))
            ]
        )
        count = (end - position) // size
        if not count:
            raise ValueError("binary COPY data cut off in the middle of a row")
        rows = np.frombuffer(data, dtype=record, count=count, offset=position)
        same = rows["fields"] == len(kinds)
        for j, length in enumerate(lengths):
            same &= rows[f"n{j}"] == length
        n = len(rows) if same.all() else int(np.argmin(same))  # row 0 has this layout by construction
        columns, offset = [], position + 2
        for code, length in zip(codes, lengths, strict=True):
            offset += 4
            columns.append(_column(data, code, length, n, offset, size))
            offset += max(length, 0)
        blocks.append(Block(n, columns))
        position += n * size
    return blocks


def _layout(view: memoryview, position: int, fields: int) -> tuple[list[int], int]:
    """The field lengths of the row at ``position`` (-1 for NULL) and its size in bytes."""
    if int.from_bytes(view[position : position + 2], "big", signed=True) != fields:
        raise ValueError(f"binary COPY row with other than {fields} fields")
    lengths, offset = [], position + 2
    for _ in range(fields):
        length = int.from_bytes(view[offset : offset + 4], "big", signed=True)
        lengths.append(length)
        offset += 4 + max(length, 0)
    return lengths, offset - position


def _column(data: bytes, code: int, length: int, n: int, offset: int, stride: int):
    if length < 0:
        return None
    if code == BYTES:
        return np.ndarray((n, length), dtype=np.uint8, buffer=data, offset=offset, strides=(stride, 1))
    if code == TEXT_CODE:
        if not length:
            return [""] * n
        values = np.ndarray((n,), dtype=f"V{length}", buffer=data, offset=offset, strides=(stride,))
        return [value.decode("utf-8") for value in values.tolist()]
    if code == INT:
        return np.ndarray((n,), dtype=f">i{length}", buffer=data, offset=offset, strides=(stride,)).astype(np.int64)
    return np.ndarray((n,), dtype=np.uint8, buffer=data, offset=offset, strides=(stride,)) != 0


def select(
    table: str, columns: Sequence[str], key: str, keys: Sequence[str], nulls_apart: Sequence[str] = ()
) -> list[Block]:
    """``columns`` of the rows whose ``key`` column is one of ``keys``, as ``decode_blocks`` gives them.

    ``nulls_apart``: columns that are NULL in some rows: those rows come after the others, so that
    the rows of one layout stay together (few blocks); otherwise in no particular order.
    """
    quote = connection.ops.quote_name
    names = ", ".join(quote(c) for c in columns)
    order = f" ORDER BY {', '.join(f'({quote(c)} IS NULL)' for c in nulls_apart)}" if nulls_apart else ""
    out = io.BytesIO()
    with connection.cursor() as cursor:
        query = cursor.mogrify(
            f"SELECT {names} FROM {quote(table)} WHERE {quote(key)} = ANY(%s){order}", [list(keys)]
        ).decode()
        cursor.cursor.copy_expert(f"COPY ({query}) TO STDOUT (FORMAT binary)", out)
    return decode_blocks(out.getvalue(), _types(table, columns))


def insert_new(
    table: str, columns: Sequence[str], rows: Sequence[Sequence], unique: str, using: str = "default"
) -> None:
    """Insert the rows whose ``unique`` value the table lacks; leave those it has (in a transaction).

    Straight into the table first; when another writer got a row there first, again through a
    temporary table and ``INSERT ... ON CONFLICT DO NOTHING``.
    """
    kinds = _types(table, columns)
    connection = connections[using]
    quote = connection.ops.quote_name
    names = ", ".join(quote(c) for c in columns)
    with connection.cursor() as cursor:
        try:
            with transaction.atomic(using=using):
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
