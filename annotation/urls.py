from django.urls import path

from annotation import views

app_name = "annotation"

urlpatterns = [
    path("<slug:slug>/start/", views.start, name="start"),
    path("<slug:slug>/consent/", views.consent, name="consent"),
    path("<slug:slug>/instructions/", views.instructions, name="instructions"),
    path("<slug:slug>/", views.rate, name="rate"),
    path("<slug:slug>/training/<uuid:token>/", views.feedback, name="feedback"),
    path("<slug:slug>/training-ended/", views.training_failed, name="training_failed"),
    path("<slug:slug>/done/", views.done, name="done"),
]
