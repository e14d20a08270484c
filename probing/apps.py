from django.apps import AppConfig


class ProbingConfig(AppConfig):
    name = "probing"
    verbose_name = "Probing"

    def ready(self) -> None:
        from datasets.releases.signals import release_published
        from probing.scheduling import on_release_published

        release_published.connect(on_release_published, dispatch_uid="probing_release_published")
