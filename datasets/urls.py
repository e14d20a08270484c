from django.urls import path

from datasets import upload_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("compounds/<int:pk>/", views.compound_detail, name="compound"),
    path("compounds/<int:pk>/gold-synonym/", views.choose_gold_synonym_view, name="choose_gold_synonym"),
    path("upload/", upload_views.upload, name="datasets_upload"),
    path("upload/<str:token>/", upload_views.upload_preview, name="datasets_upload_preview"),
]
