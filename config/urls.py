from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("core.urls")),
    path("accounts/", include("core.account_urls")),
    # Before the campaigns' pages: /curate/synonyms/ is a page, not a campaign ("synonyms" is a reserved slug).
    path("curate/", include("annotators.urls")),
    path("curate/", include("annotation.curate.urls")),
    path("api/annotation/", include("annotation.api")),
    path("api/probing/", include("probing.api_urls")),
    path("api/annotators/", include("annotators.api")),
    path("api/", include("config.api_urls")),
    path("reports/", include("annotation.reports.urls")),
    path("annotate/", include("annotation.crowd.urls")),
    path("build/", include("building.pages.urls")),
    path("review/", include("building.pages.review_urls")),
    path("releases/", include("releases.urls")),
    path("probing/", include("probing.urls")),
    path("", include("datasets.urls")),
]

handler404 = "config.errors.not_found"
