"""probing.run.pgcopy: binary COPY rows read back as blocks of one layout, equal to what was written,
whatever the mix of NULLs and lengths; and a select on PostgreSQL that keeps NULLs apart."""

import numpy as np
import pytest

from probing.embedding.base import Vectors
from probing.models import CachedVectors
from probing.run import pgcopy
from probing.run.cache import DatabaseVectorCache

KINDS = ("CharField", "BinaryField", "BinaryField", "IntegerField", "BigIntegerField", "BooleanField")


def rows_of(blocks: list[pgcopy.Block]) -> list[tuple]:
    """Back to one tuple per row: bytes for bytea, plain values for the rest."""
    out = []
    for block in blocks:
        for i in range(block.n):
            row = []
            for column in block.columns:
                if column is None:
                    row.append(None)
                elif isinstance(column, list):
                    row.append(column[i])
                elif column.ndim == 2:
                    row.append(column[i].tobytes())
                else:
                    row.append(column[i].item())
            out.append(tuple(row))
    return out


def written(rows) -> bytes:
    return pgcopy.encode_rows(rows, KINDS).getvalue()


def test_rows_of_one_layout_are_one_block_of_arrays():
    rng = np.random.default_rng(0)
    rows = [(f"{i:04d}", rng.bytes(16), rng.bytes(16), i, -(2**40) - i, i % 2 == 0) for i in range(50)]
    blocks = pgcopy.decode_blocks(written(rows), KINDS)
    assert [block.n for block in blocks] == [50]
    assert rows_of(blocks) == rows
    vectors = blocks[0].columns[1].view("<f4")
    assert vectors.shape == (50, 4) and not vectors.flags.writeable  # float32 views of the bytes read
    assert vectors[3].tobytes() == rows[3][1]


def test_mixed_nulls_and_lengths_come_back_in_order_in_as_many_blocks_as_layouts_change():
    rows = [
        ("a", b"\x01" * 8, None, 1, 10, True),
        ("b", b"\x02" * 8, None, 2, 20, False),
        ("ccc", b"\x03" * 8, b"\x09" * 8, 3, 30, True),  # a longer key and a span
        ("ddd", b"\x04" * 8, b"\x08" * 8, 4, 40, False),
        ("é", b"", None, 0, 0, False),  # two UTF-8 bytes, an empty bytea
        ("f", b"\x05" * 8, None, None, 50, True),  # a NULL integer
    ]
    blocks = pgcopy.decode_blocks(written(rows), KINDS)
    assert [block.n for block in blocks] == [2, 2, 1, 1]
    assert rows_of(blocks) == rows


def test_no_rows_and_bad_input():
    assert pgcopy.decode_blocks(written([]), KINDS) == []
    with pytest.raises(ValueError, match="not PostgreSQL binary COPY"):
        pgcopy.decode_blocks(b"PGCOPY\n\xff\r\n\x01" + bytes(10), KINDS)
    with pytest.raises(ValueError, match="trailer"):
        pgcopy.decode_blocks(written([("a", b"", b"", 1, 1, True)])[:-2], KINDS)
    cut = written([("a", b"\x01" * 8, None, 1, 1, True)])
    with pytest.raises(ValueError, match="cut off"):  # a row longer than what is left: no endless loop
        pgcopy.decode_blocks(cut[:-6] + cut[-2:], KINDS)


@pytest.mark.django_db
def test_select_keeps_rows_with_a_null_span_apart():
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("binary COPY is PostgreSQL's")
    rng = np.random.default_rng(1)
    stored = {
        f"key-{i:02d}": Vectors(
            rng.normal(size=8).astype(np.float32),
            None if i % 3 == 0 else rng.normal(size=8).astype(np.float32),
            tokens=i,
            span_truncated=i % 3 == 0,
        )
        for i in range(30)
    }
    DatabaseVectorCache("model-a").put_many(stored)
    columns = ("key", "sentence", "span", "tokens", "oov", "span_truncated")
    table = CachedVectors._meta.db_table
    blocks = pgcopy.select(table, columns, "key", list(stored), nulls_apart=("span",))
    assert [block.n for block in blocks] == [20, 10]  # interleaved in the table, two layouts read
    read = DatabaseVectorCache("model-a").get_many(list(stored))
    for key, vectors in stored.items():
        assert np.array_equal(read[key].sentence, vectors.sentence)
        assert (read[key].span is None) == (vectors.span is None)
        assert vectors.span is None or np.array_equal(read[key].span, vectors.span)
        assert (read[key].tokens, read[key].span_truncated) == (vectors.tokens, vectors.span_truncated)
