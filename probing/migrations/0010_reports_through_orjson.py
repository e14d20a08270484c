"""Probe reports and shard results are written through orjson (core.json_columns): no change to the schema.

The encoder is part of a JSONField's definition, so Django records it in a migration; no SQL runs.
"""

from django.db import migrations, models

import core.json_columns


class Migration(migrations.Migration):
    dependencies = [
        ("probing", "0009_cache_rows_inline"),
    ]

    operations = [
        migrations.AlterField(
            model_name="proberun",
            name="report",
            field=models.JSONField(blank=True, default=dict, encoder=core.json_columns.FastJSONEncoder),
        ),
        migrations.AlterField(
            model_name="probeshard",
            name="result",
            field=models.JSONField(blank=True, default=dict, encoder=core.json_columns.FastJSONEncoder),
        ),
    ]
