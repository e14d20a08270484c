"""Building jobs get one shard row per part, coordinated by ``core.shards`` like probe shards.

The jobs made before keep their rows and their ``done``/``done_parts``; each gets its shard rows
here, done for the parts in ``done_parts`` and pending for the others (a resume can take them).
"""

import django.db.models.deletion
from django.db import migrations, models


def parts_of(options: dict) -> int:
    """How many parts a job was cut into: generation batches, or corpus chunks."""
    if "ranges" in options:
        return len(options["ranges"])
    return int(options.get("parts") or 0)


def shards_from_done_parts(apps, schema_editor):
    BuildJob = apps.get_model("building", "BuildJob")
    BuildShard = apps.get_model("building", "BuildShard")
    shards = []
    for job in BuildJob.objects.only("id", "options", "done_parts", "finished_at").iterator():
        done = set(job.done_parts or [])
        shards += [
            BuildShard(
                job_id=job.pk,
                index=index,
                status="done" if index in done else "pending",
                finished_at=job.finished_at if index in done else None,
            )
            for index in range(parts_of(job.options or {}))
        ]
    BuildShard.objects.bulk_create(shards, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("building", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="buildjob",
            name="done_parts",
            field=models.JSONField(
                blank=True, default=list, help_text="Indices of finished parts (their BuildShard rows are done)."
            ),
        ),
        migrations.CreateModel(
            name="BuildShard",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("index", models.PositiveIntegerField()),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Pending"),
                            ("running", "Running"),
                            ("done", "Done"),
                            ("failed", "Failed"),
                        ],
                        db_index=True,
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("attempts", models.PositiveIntegerField(default=0, help_text="Times a worker claimed it.")),
                (
                    "worker",
                    models.CharField(
                        blank=True, help_text="The host and process that claimed it last.", max_length=200
                    ),
                ),
                (
                    "heartbeat_at",
                    models.DateTimeField(
                        blank=True, help_text="Last sign of life of its worker while running.", null=True
                    ),
                ),
                ("error", models.TextField(blank=True)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                (
                    "job",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="shards", to="building.buildjob"
                    ),
                ),
            ],
            options={
                "ordering": ["job", "index"],
                "constraints": [models.UniqueConstraint(fields=("job", "index"), name="build_shard_unique_index")],
            },
        ),
        migrations.RunPython(shards_from_done_parts, migrations.RunPython.noop),
    ]
