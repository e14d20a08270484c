"""``/healthz`` (core/views.py): for load balancers and Docker's healthcheck."""

from django.urls import path

from core.views import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
]
