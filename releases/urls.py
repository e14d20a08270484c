"""Release pages, mounted at /releases/."""

from django.urls import path

from releases import deposit_views, job_views, views

urlpatterns = [
    path("", views.releases, name="releases"),
    path("jobs/<int:pk>/", job_views.release_job, name="release_job"),
    path("jobs/<int:pk>.json", job_views.release_job_json, name="release_job_json"),
    path("<str:version>/", views.release_detail, name="release"),
    path("<str:version>/publish/", views.release_publish, name="release_publish"),
    path("<str:version>/download.zip", views.release_zip, name="release_zip"),
    path("<str:version>/deposit.zip", deposit_views.release_deposit, name="release_deposit"),
    path("<str:version>/doi/", deposit_views.release_doi, name="release_doi"),
    path("<str:version>/files/<path:path>", views.release_file, name="release_file"),
    path("<str:version>/diff/", views.release_diff_choose, name="release_diff_choose"),
    path("<str:version>/diff/<str:other>.json", views.release_diff, {"as_json": True}, name="release_diff_json"),
    path("<str:version>/diff/<str:other>/", views.release_diff, name="release_diff"),
]
