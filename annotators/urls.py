from django.urls import path

from annotators import proposal_views, views

app_name = "annotators"

urlpatterns = [
    path("synonyms/", proposal_views.proposals_page, name="proposals"),
    path("<slug:slug>/machines/", views.machine_annotators, name="campaign"),
    path("<slug:slug>/machines/<int:job_id>/<str:verb>/", views.job_action, name="job_action"),
]
