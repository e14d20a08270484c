from django.urls import path

from datasets import build_views, generate_views

urlpatterns = [
    path("generate/", generate_views.generate_variants_view, name="generate_variants"),
    path("corpus/", build_views.corpus_count, name="corpus_count"),
    path("corpus/tables/<int:pk>/apply/", build_views.apply_frequency_table_view, name="apply_frequency_table"),
    path("jobs/", build_views.build_jobs, name="build_jobs"),
    path("jobs/<int:pk>/", build_views.build_job, name="build_job"),
    path("jobs/<int:pk>.json", build_views.build_job_json, name="build_job_json"),
    path("jobs/<int:pk>/cancel/", build_views.cancel_build_job_view, name="cancel_build_job"),
]
