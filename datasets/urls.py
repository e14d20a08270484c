from django.urls import path

from datasets import views

urlpatterns = [
    path("", views.home, name="home"),
    path("compounds/<int:pk>/", views.compound_detail, name="compound"),
    path("compounds/<int:pk>/gold-synonym/", views.choose_gold_synonym_view, name="choose_gold_synonym"),
]
