"""Layer sweeps in the vector cache, shard plans for texts shared between shards, and a faster cache table.

On PostgreSQL the cache table becomes unlogged (no write-ahead log: its rows can always be computed
again, and a crash empties it rather than corrupting it) and its vector columns are stored without
compression (float bytes do not compress; trying costs time on every write).
"""

from django.db import migrations, models

VECTOR_COLUMNS = ("sentence", "span", "layers")


def faster_cache_table(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name("probing_cachedvectors")
    storage = ", ".join(f"ALTER COLUMN {schema_editor.quote_name(c)} SET STORAGE EXTERNAL" for c in VECTOR_COLUMNS)
    schema_editor.execute(f"ALTER TABLE {table} {storage}")
    schema_editor.execute(f"ALTER TABLE {table} SET UNLOGGED")


def logged_cache_table(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    table = schema_editor.quote_name("probing_cachedvectors")
    schema_editor.execute(f"ALTER TABLE {table} SET LOGGED")


class Migration(migrations.Migration):
    dependencies = [
        ("probing", "0005_release_moved_to_releases"),
    ]

    operations = [
        migrations.AddField(
            model_name="cachedvectors",
            name="layer_count",
            field=models.PositiveSmallIntegerField(default=0, help_text="Swept layers in ``layers``."),
        ),
        migrations.AddField(
            model_name="cachedvectors",
            name="layer_dtype",
            field=models.CharField(blank=True, help_text="float32 or float16.", max_length=8),
        ),
        migrations.AddField(
            model_name="cachedvectors",
            name="layers",
            field=models.BinaryField(
                blank=True,
                help_text="A layer sweep's vectors: (sentence and span, layer, dim), little-endian.",
                null=True,
            ),
        ),
        migrations.AddField(
            model_name="probeshard",
            name="plan",
            field=models.JSONField(
                blank=True,
                default=dict,
                help_text="Texts shared with other shards: {'borrowed': [[item, owner shard]], 'lent': [[text, start, end]]}.",
            ),
        ),
        migrations.RunPython(faster_cache_table, logged_cache_table, elidable=True),
    ]
