from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from annotation.report_views import language_report_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("curate/", include("annotation.curator_urls")),
    path("api/annotation/", include("annotation.api")),
    path("api/probing/", include("probing.api_urls")),
    path("api/", include("config.api_urls")),
    path("reports/<str:language>/", language_report_view, name="language_report"),
    path("annotate/", include("annotation.urls")),
    # /build/ itself: the build jobs, whose page links to generating variants and counting a corpus.
    path("build/", RedirectView.as_view(pattern_name="build_jobs"), name="build"),
    path("build/", include("building.urls")),
    path("review/", include("building.review_urls")),
    path("releases/", include("releases.urls")),
    path("probing/", include("probing.urls")),
    path("", include("datasets.urls")),
]

handler404 = "config.errors.not_found"
