from django.db import migrations

DEFAULTS = [
    ("none", None, 0, "Keeps every annotator."),
    ("rho>=0.2", 0.2, 3, "Garcia et al. (2021), footnote: drop annotators whose Spearman rho with the others is < 0.2."),
    ("rho>=0.4", 0.4, 3, "Garcia et al. (2021), footnote: the stricter threshold, rho < 0.4 removed."),
]


def create(apps, schema_editor):
    FilterPolicy = apps.get_model("annotation", "FilterPolicy")
    for name, min_rho, min_items, description in DEFAULTS:
        FilterPolicy.objects.get_or_create(
            name=name, defaults={"min_rho": min_rho, "min_items": min_items, "description": description}
        )


def remove(apps, schema_editor):
    apps.get_model("annotation", "FilterPolicy").objects.filter(name__in=[d[0] for d in DEFAULTS]).delete()


class Migration(migrations.Migration):
    dependencies = [("annotation", "0004_filter_policy")]
    operations = [migrations.RunPython(create, remove)]
