"""The API at /api/: one router over the viewsets of every app, the OpenAPI schema and its documentation page.

Each app keeps its viewsets (datasets/api/views.py, building/api.py, releases/api.py); annotation and probing mount
their own routers at /api/annotation/ and /api/probing/ (config/urls.py).
"""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from building import api as building_api
from config.api_docs import APIDocsView
from datasets.api import views as dataset_views
from releases import api as release_api

app_name = "api"

router = DefaultRouter()
router.register("compounds", dataset_views.CompoundViewSet, basename="compound")
router.register("sentences", dataset_views.SentenceViewSet, basename="sentence")
router.register("variants", building_api.VariantViewSet, basename="variant")
router.register("releases", release_api.ReleaseViewSet, basename="release")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", APIDocsView.as_view(), name="docs"),
    re_path(
        rf"^releases/(?P<version>{release_api.VERSION_PATTERN})/files/(?P<path>.+)$",
        release_api.ReleaseViewSet.as_view({"get": "file"}),
        name="release-file",
    ),
    *router.urls,
]
