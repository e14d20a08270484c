from django.urls import path

from annotation import curator_views as views
from annotation import report_views

app_name = "curator"

urlpatterns = [
    path("", views.campaign_list, name="campaigns"),
    path("new/", views.campaign_create, name="create"),
    path("<slug:slug>/", views.campaign_dashboard_view, name="dashboard"),
    path("<slug:slug>/report/", report_views.campaign_report_view, name="report"),
    path("<slug:slug>/edit/", views.campaign_edit, name="edit"),
    path("<slug:slug>/items/", views.campaign_items, name="items"),
    path("<slug:slug>/status/", views.campaign_status, name="status"),
    path("<slug:slug>/export/<str:table>.<str:fmt>", views.campaign_export, name="export"),
]
