"""BuildJob, FrequencyTable and VariantChange move here from the datasets app, with their tables and rows.

State only: the tables stay ``datasets_buildjob``, ``datasets_frequencytable`` and
``datasets_variantchange`` (``Meta.db_table``), so no row is copied. The content types follow
(permissions and admin history with them). datasets/migrations/0009_building_models_moved_to_building.py
then removes the models from the datasets state. ``Variant`` stays in datasets: the importers write it.
"""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migrations_support import move_content_types


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("datasets", "0008_release_moved_to_releases"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="BuildJob",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("kind", models.CharField(choices=[("generate_variants", "Generate variants"), ("count_corpus", "Count a corpus")], max_length=20)),
                        ("language", models.CharField(blank=True, max_length=8)),
                        ("options", models.JSONField(blank=True, default=dict)),
                        ("status", models.CharField(choices=[("queued", "Queued"), ("running", "Running"), ("done", "Done"), ("failed", "Failed"), ("cancelled", "Cancelled")], db_index=True, default="queued", max_length=10)),
                        ("total", models.PositiveBigIntegerField(default=0, help_text="Units of work (compounds, corpus chunks).")),
                        ("done", models.PositiveBigIntegerField(default=0)),
                        ("done_parts", models.JSONField(blank=True, default=list, help_text="Indices of finished chunks.")),
                        ("message", models.TextField(blank=True)),
                        ("result", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("started_at", models.DateTimeField(blank=True, null=True)),
                        ("finished_at", models.DateTimeField(blank=True, null=True)),
                        ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "datasets_buildjob",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="FrequencyTable",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("name", models.CharField(max_length=200)),
                        ("language", models.CharField(db_index=True, max_length=8, validators=[django.core.validators.RegexValidator("^[a-z]{2,3}(-[A-Za-z]{2,4})?$", "Use an ISO 639 code such as en, pt or pt-BR.")])),
                        ("source", models.CharField(choices=[("corpus", "Counted in a corpus"), ("wordfreq", "wordfreq (compounds estimated)")], default="corpus", max_length=10)),
                        ("corpus_path", models.CharField(blank=True, max_length=500)),
                        ("corpus_format", models.CharField(blank=True, max_length=20)),
                        ("corpus_bytes", models.BigIntegerField(blank=True, null=True)),
                        ("tokens", models.BigIntegerField(default=0, help_text="Tokens counted in the whole corpus.")),
                        ("counts", models.JSONField(default=dict, help_text="{word or compound (lower case): count}")),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("job", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to="building.buildjob")),
                    ],
                    options={
                        "db_table": "datasets_frequencytable",
                        "ordering": ["-created_at"],
                    },
                ),
                migrations.CreateModel(
                    name="VariantChange",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("at", models.DateTimeField(auto_now_add=True, db_index=True)),
                        ("action", models.CharField(choices=[("approve", "Approved"), ("edit", "Edited"), ("reject", "Rejected"), ("reset", "Back to pending")], max_length=10)),
                        ("before", models.JSONField()),
                        ("after", models.JSONField()),
                        ("note", models.CharField(blank=True, max_length=300)),
                        ("user", models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("variant", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="changes", to="datasets.variant")),
                    ],
                    options={
                        "db_table": "datasets_variantchange",
                        "ordering": ["-at", "-id"],
                    },
                ),
            ],
        ),
        move_content_types("datasets", "building", ["buildjob", "frequencytable", "variantchange"]),
    ]
