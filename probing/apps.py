from django.apps import AppConfig


class ProbingConfig(AppConfig):
    name = "probing"
    verbose_name = "Probing"

    def ready(self) -> None:
        # Imported here, as Django wants: the tasks import models, which are ready only now.
        from probing.tasks import on_release_published
        from releases.signals import release_published

        release_published.connect(on_release_published, dispatch_uid="probing_release_published")
