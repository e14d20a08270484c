from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from annotation.report_views import language_report_view

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("curate/", include("annotation.curator_urls")),
    path("api/annotation/", include("annotation.api")),
    path("api/probing/", include("probing.api_urls")),
    path("api/", include("datasets.api.urls")),
    path("reports/<str:language>/", language_report_view, name="language_report"),
    path("annotate/", include("annotation.urls")),
    path("build/", include("datasets.build_urls")),
    path("review/", include("datasets.review_urls")),
    path("releases/", include("datasets.release_urls")),
    path("probing/", include("probing.urls")),
    path("", include("datasets.urls")),
]
