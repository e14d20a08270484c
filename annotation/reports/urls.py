"""The type/token report of a language's imported reference data (/reports/<language>/), for curators."""

from django.urls import path

from annotation.reports import views as report_views

urlpatterns = [
    path("<str:language>/", report_views.language_report_view, name="language_report"),
]
