from django.apps import AppConfig


class ProbingConfig(AppConfig):
    name = "probing"
    verbose_name = "Probing"
