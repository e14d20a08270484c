"""Curation pages, mounted at /review/ (curators only)."""

from django.urls import path, re_path

from building.pages import review_views

urlpatterns = [
    path("", review_views.review_queue, name="review_queue"),
    path("compounds/<int:pk>/", review_views.review_compound, name="review_compound"),
    path(
        "compounds/<int:pk>/approve-unflagged/",
        review_views.review_approve_unflagged,
        name="review_approve_unflagged",
    ),
    re_path(
        r"^variants/(?P<pk>[0-9]+)/(?P<action>approve|reject|edit|reset)/$",
        review_views.review_variant,
        name="review_variant",
    ),
]
