from django.urls import path
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from datasets.api import views

app_name = "api"

router = DefaultRouter()
router.register("compounds", views.CompoundViewSet, basename="compound")
router.register("sentences", views.SentenceViewSet, basename="sentence")
router.register("variants", views.VariantViewSet, basename="variant")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    *router.urls,
]
