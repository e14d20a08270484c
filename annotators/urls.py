from django.urls import path

from annotators import views

app_name = "annotators"

urlpatterns = [
    path("<slug:slug>/machines/", views.machine_annotators, name="campaign"),
    path("<slug:slug>/machines/<int:job_id>/<str:verb>/", views.job_action, name="job_action"),
]
