from django.urls import path
from django.views.generic import RedirectView

from building.pages import generate_views, views

urlpatterns = [
    # /build/ itself: the build jobs, whose page links to generating variants and counting a corpus.
    path("", RedirectView.as_view(pattern_name="build_jobs"), name="build"),
    path("generate/", generate_views.generate_variants_view, name="generate_variants"),
    path("corpus/", views.corpus_count, name="corpus_count"),
    path("corpus/tables/<int:pk>/apply/", views.apply_frequency_table_view, name="apply_frequency_table"),
    path("jobs/", views.build_jobs, name="build_jobs"),
    path("jobs/<int:pk>/", views.build_job, name="build_job"),
    path("jobs/<int:pk>.json", views.build_job_json, name="build_job_json"),
    path("jobs/<int:pk>/cancel/", views.cancel_build_job_view, name="cancel_build_job"),
]
