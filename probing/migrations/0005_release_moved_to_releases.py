"""ProbeRun.release points at releases.Release (the model moved from datasets; its table did not).

State only: the column and its foreign-key constraint already reference datasets_release, the
table the moved model keeps, so the database is left as it is.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("probing", "0004_elmo_kind"),
        ("releases", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.AlterField(
                    model_name="proberun",
                    name="release",
                    field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name="probe_runs", to="releases.release"),
                ),
            ],
        ),
    ]
