"""Release pages, mounted at /releases/."""

from django.urls import path

from datasets import release_views

urlpatterns = [
    path("", release_views.releases, name="releases"),
    path("<str:version>/", release_views.release_detail, name="release"),
    path("<str:version>/publish/", release_views.release_publish, name="release_publish"),
    path("<str:version>/download.zip", release_views.release_zip, name="release_zip"),
    path("<str:version>/files/<path:path>", release_views.release_file, name="release_file"),
    path("<str:version>/diff/", release_views.release_diff_choose, name="release_diff_choose"),
    path(
        "<str:version>/diff/<str:other>.json", release_views.release_diff, {"as_json": True}, name="release_diff_json"
    ),
    path("<str:version>/diff/<str:other>/", release_views.release_diff, name="release_diff"),
]
