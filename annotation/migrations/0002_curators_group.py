from django.db import migrations

CURATORS = "curators"


def create_curators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name=CURATORS)


def remove_curators(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=CURATORS).delete()


class Migration(migrations.Migration):
    """The role that may create campaigns, see dashboards and export ratings."""

    dependencies = [("annotation", "0001_initial"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_curators, remove_curators)]
