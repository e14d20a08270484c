"""BuildJob, FrequencyTable and VariantChange leave the datasets state: they live in the building app now.

State only: their tables and rows stay; see building/migrations/0001_initial.py.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("datasets", "0008_release_moved_to_releases"),
        ("building", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(model_name="frequencytable", name="job"),
                migrations.RemoveField(model_name="variantchange", name="user"),
                migrations.RemoveField(model_name="variantchange", name="variant"),
                migrations.DeleteModel(name="FrequencyTable"),
                migrations.DeleteModel(name="BuildJob"),
                migrations.DeleteModel(name="VariantChange"),
            ],
        ),
    ]
