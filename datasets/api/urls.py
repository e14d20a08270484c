from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from datasets.api import releases, views

app_name = "api"

router = DefaultRouter()
router.register("compounds", views.CompoundViewSet, basename="compound")
router.register("sentences", views.SentenceViewSet, basename="sentence")
router.register("variants", views.VariantViewSet, basename="variant")
router.register("releases", releases.ReleaseViewSet, basename="release")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    re_path(
        rf"^releases/(?P<version>{releases.VERSION_PATTERN})/files/(?P<path>.+)$",
        releases.ReleaseViewSet.as_view({"get": "file"}),
        name="release-file",
    ),
    *router.urls,
]
