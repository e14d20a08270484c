"""A release's creators and the curator's responsible-use words; the DOI entered after a deposit (issue 34).

On SQLite, Django adds a column by rebuilding the table (copy, drop, rename), and the release files'
immutability triggers name ``datasets_release``: they are dropped first and made again last
(datasets/migrations/0005_release_triggers.py says so). PostgreSQL adds the columns in place and keeps them.
"""

import importlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

TRIGGERS = importlib.import_module("datasets.migrations.0005_release_triggers")


def sqlite_triggers(create: bool):
    def run(apps, schema_editor) -> None:
        if schema_editor.connection.vendor == "sqlite":
            for statement in TRIGGERS.SQLITE if create else TRIGGERS.SQLITE_REVERSE:
                schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('releases', '0003_release_job'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(sqlite_triggers(create=False), sqlite_triggers(create=True)),
        migrations.AddField(
            model_name='release',
            name='biases',
            field=models.TextField(blank=True, help_text="The curator's words on its known biases."),
        ),
        migrations.AddField(
            model_name='release',
            name='creators',
            field=models.JSONField(blank=True, default=list, help_text='Authors as deposits name them: [{name, affiliation, orcid}].'),
        ),
        migrations.AddField(
            model_name='release',
            name='intended_use',
            field=models.TextField(blank=True, help_text="The curator's words on what the release is for."),
        ),
        migrations.AddField(
            model_name='release',
            name='limitations',
            field=models.TextField(blank=True, help_text="The curator's words on what it cannot tell."),
        ),
        migrations.CreateModel(
            name='ReleaseDOI',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('doi', models.CharField(max_length=200, unique=True)),
                ('previous_doi', models.CharField(blank=True, help_text='The DOI of the version before it.', max_length=200)),
                ('recorded_at', models.DateTimeField(auto_now_add=True)),
                ('recorded_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('release', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='doi_record', to='releases.release')),
            ],
        ),
        migrations.CreateModel(
            name='ReleaseDOIFile',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('path', models.CharField(max_length=300)),
                ('sha256', models.CharField(max_length=64)),
                ('size', models.PositiveBigIntegerField()),
                ('content', models.BinaryField()),
                ('record', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='files', to='releases.releasedoi')),
            ],
            options={
                'ordering': ['record', 'path'],
                'constraints': [models.UniqueConstraint(fields=('record', 'path'), name='release_doi_file_unique_path')],
            },
        ),
        migrations.RunPython(sqlite_triggers(create=True), sqlite_triggers(create=False)),
    ]
