"""What a migration needs when a model moves from one app to another (Django only; no app imports).

A moved model keeps its table (``Meta.db_table``), so its rows never move. What Django keys by app
label must follow it: the model's content type, and with it the permissions (``auth_permission``
points at the content type) and the admin log entries.
"""

from __future__ import annotations

from django.db import migrations


def move_content_types(old_app: str, new_app: str, models: list[str]) -> migrations.RunPython:
    """A reversible RunPython that relabels the content types of ``models`` (lower-case names) from ``old_app`` to ``new_app``.

    A fresh database has no content types yet at this point (Django creates them after
    ``migrate``): nothing to do then. When the new label exists already, the old row is left alone.
    """

    def relabel(apps, source: str, target: str) -> None:
        content_type = apps.get_model("contenttypes", "ContentType")
        for model in models:
            if not content_type.objects.filter(app_label=target, model=model).exists():
                content_type.objects.filter(app_label=source, model=model).update(app_label=target)

    def forwards(apps, schema_editor) -> None:
        relabel(apps, old_app, new_app)

    def backwards(apps, schema_editor) -> None:
        relabel(apps, new_app, old_app)

    return migrations.RunPython(forwards, backwards)
