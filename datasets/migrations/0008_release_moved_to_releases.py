"""Release and ReleaseFile leave the datasets state: they live in the releases app now.

State only: their tables (datasets_release, datasets_releasefile), rows and triggers stay; see
releases/migrations/0001_initial.py. It runs after every foreign key to them points at
releases.Release (probing/migrations/0005_release_moved_to_releases.py).
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0007_published_overlap_and_length"),
        ("releases", "0001_initial"),
        ("probing", "0005_release_moved_to_releases"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(model_name="releasefile", name="release"),
                migrations.DeleteModel(name="ReleaseFile"),
                migrations.DeleteModel(name="Release"),
            ],
        ),
    ]
