from rest_framework.routers import DefaultRouter

from probing import api

app_name = "probing_api"

router = DefaultRouter()
router.register("models", api.EmbeddingModelViewSet, basename="model")
router.register("runs", api.ProbeRunViewSet, basename="run")

urlpatterns = router.urls
