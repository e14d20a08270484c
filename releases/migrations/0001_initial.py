"""Release and ReleaseFile move here from the datasets app, with their tables, rows and triggers.

State only: the tables stay ``datasets_release`` and ``datasets_releasefile`` (``Meta.db_table``), so
no row is copied and the immutability triggers of datasets/migrations/0005_release_triggers.py keep
guarding them. The content types follow (permissions and admin history with them).
datasets/migrations/0008_release_moved_to_releases.py removes the models from the datasets state
once probing's foreign key points here (probing/migrations/0005_release_moved_to_releases.py).
"""

import re

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from core.migrations_support import move_content_types


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("datasets", "0007_published_overlap_and_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Release",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("version", models.CharField(max_length=32, unique=True, validators=[django.core.validators.RegexValidator(re.compile("^(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)$"), "Use a semantic version MAJOR.MINOR.PATCH, such as 1.0.0.")])),
                        ("title", models.CharField(blank=True, max_length=200)),
                        ("description", models.TextField(blank=True)),
                        ("licence", models.CharField(default="CC-BY-4.0", max_length=100)),
                        ("citation", models.TextField(blank=True)),
                        ("languages", models.JSONField(default=list, help_text="Language codes, sorted.")),
                        ("status", models.CharField(choices=[("draft", "Draft"), ("published", "Published")], db_index=True, default="draft", max_length=10)),
                        ("scores", models.JSONField(default=dict, help_text="Where the scores come from (ScoreInfo).")),
                        ("counts", models.JSONField(default=dict, help_text="Per language: compounds, classes, sentences, variants.")),
                        ("manifest", models.JSONField(default=dict, help_text="manifest.json, parsed.")),
                        ("checksum", models.CharField(blank=True, help_text="sha256 of the manifest.json bytes.", max_length=64)),
                        ("zip_sha256", models.CharField(blank=True, max_length=64)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        ("published_at", models.DateTimeField(blank=True, null=True)),
                        ("created_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                        ("published_by", models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name="+", to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        "db_table": "datasets_release",
                        "ordering": ["-created_at", "-id"],
                    },
                ),
                migrations.CreateModel(
                    name="ReleaseFile",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("path", models.CharField(help_text="Relative path inside the release, with / separators.", max_length=300)),
                        ("sha256", models.CharField(max_length=64)),
                        ("size", models.PositiveBigIntegerField()),
                        ("media_type", models.CharField(blank=True, max_length=100)),
                        ("content", models.BinaryField()),
                        ("release", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="files", to="releases.release")),
                    ],
                    options={
                        "db_table": "datasets_releasefile",
                        "ordering": ["release", "path"],
                        "constraints": [models.UniqueConstraint(fields=("release", "path"), name="release_file_unique_path")],
                    },
                ),
            ],
        ),
        move_content_types("datasets", "releases", ["release", "releasefile"]),
    ]
