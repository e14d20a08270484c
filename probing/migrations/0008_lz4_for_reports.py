"""Reports and shard results are compressed with LZ4 where PostgreSQL has it (14+, built with lz4).

A full-release report is about 3.8 MB of JSON: with PostgreSQL's default compression (pglz) writing
it spends about 40 ms compressing, and every report page spends time decompressing the parts it
reads; LZ4 does both several times faster for about the same size. Only values written from now on
are compressed this way; other databases, and a PostgreSQL without LZ4, are left as they are.
"""

from django.db import migrations

COLUMNS = [("probing_proberun", "report"), ("probing_probeshard", "result")]


def _has_lz4(schema_editor) -> bool:
    if schema_editor.connection.vendor != "postgresql":
        return False
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
        row = cursor.fetchone()
    return bool(row and "lz4" in row[0])


def _compress(method: str):
    def apply(apps, schema_editor) -> None:
        if not _has_lz4(schema_editor):
            return
        quote = schema_editor.quote_name
        for table, column in COLUMNS:
            schema_editor.execute(f"ALTER TABLE {quote(table)} ALTER COLUMN {quote(column)} SET COMPRESSION {method}")

    return apply


class Migration(migrations.Migration):
    dependencies = [("probing", "0007_shard_heartbeats")]

    operations = [migrations.RunPython(_compress("lz4"), _compress("default"))]
