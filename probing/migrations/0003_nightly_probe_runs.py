from django.conf import settings
from django.db import migrations
from django.utils import timezone

NAME = "nightly probe runs"
TASK = "probing.tasks.nightly_probe_runs_task"


def create(apps, schema_editor):
    CrontabSchedule = apps.get_model("django_celery_beat", "CrontabSchedule")
    PeriodicTask = apps.get_model("django_celery_beat", "PeriodicTask")
    PeriodicTasks = apps.get_model("django_celery_beat", "PeriodicTasks")
    schedule, _ = CrontabSchedule.objects.get_or_create(
        minute="0",
        hour="2",
        day_of_week="*",
        day_of_month="*",
        month_of_year="*",
        timezone=settings.CELERY_TIMEZONE,
    )
    PeriodicTask.objects.get_or_create(
        name=NAME,
        defaults={
            "task": TASK,
            "crontab": schedule,
            "enabled": True,
            "description": "Every active probing model on the newest published release, once per release, "
            "model and config (probing.run.scheduling).",
        },
    )
    # A running beat (DatabaseScheduler) reloads its schedule when this timestamp moves.
    PeriodicTasks.objects.update_or_create(ident=1, defaults={"last_update": timezone.now()})


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("probing", "0002_bundled_minilm"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
