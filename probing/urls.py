"""Probe run pages, mounted at /probing/."""

from django.urls import path

from probing import views

urlpatterns = [
    path("", views.probe_runs, name="probe_runs"),
    path("compare/", views.probe_compare, name="probe_compare"),
    path("leaderboard/", views.probe_leaderboard, name="probe_leaderboard"),
    path("compare/figures/<slug:measure>.<slug:fmt>", views.probe_compare_figure, name="probe_compare_figure"),
    path("runs/<int:pk>/", views.probe_run, name="probe_run"),
    path("runs/<int:pk>.json", views.probe_run_json, name="probe_run_json"),
    path("runs/<int:pk>/report.json", views.probe_run_report, name="probe_run_report"),
    path("runs/<int:pk>/cancel/", views.probe_run_cancel, name="probe_run_cancel"),
    path("runs/<int:pk>/resume/", views.probe_run_resume, name="probe_run_resume"),
    path("runs/<int:pk>/<slug:table>.csv", views.probe_run_csv, name="probe_run_csv"),
    path("runs/<int:pk>/figures/<slug:key>.<slug:fmt>", views.probe_run_figure, name="probe_run_figure"),
]
