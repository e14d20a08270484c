from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("core.account_urls")),
    path("curate/", include("annotation.curator_urls")),
    path("api/annotation/", include("annotation.api")),
    path("api/probing/", include("probing.api_urls")),
    path("api/", include("config.api_urls")),
    path("reports/", include("annotation.report_urls")),
    path("annotate/", include("annotation.urls")),
    path("build/", include("building.urls")),
    path("review/", include("building.review_urls")),
    path("releases/", include("releases.urls")),
    path("probing/", include("probing.urls")),
    path("", include("datasets.urls")),
]

handler404 = "config.errors.not_found"
