from django.urls import path

from annotation.crowd import entry_views as views
from annotation.crowd import rating_views

app_name = "annotation"

urlpatterns = [
    path("<slug:slug>/start/", views.start, name="start"),
    path("<slug:slug>/resume/", views.resume, name="resume"),
    path("<slug:slug>/consent/", views.consent, name="consent"),
    path("<slug:slug>/instructions/", views.instructions, name="instructions"),
    path("<slug:slug>/", rating_views.rate, name="rate"),
    path("<slug:slug>/training/<uuid:token>/", rating_views.feedback, name="feedback"),
    path("<slug:slug>/screened-out/", rating_views.screened_out, name="screened_out"),
    path("<slug:slug>/full/", rating_views.full, name="full"),
    path("<slug:slug>/done/", rating_views.done, name="done"),
]
