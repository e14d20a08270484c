from django.urls import path

from annotation.curate import planner_views, preview_views, study_views, views
from annotation.payments import views as payment_views
from annotation.reports import views as report_views

app_name = "curator"

urlpatterns = [
    path("", views.campaign_list, name="campaigns"),
    path("new/", views.campaign_create, name="create"),
    path("<slug:slug>/", views.campaign_dashboard_view, name="dashboard"),
    path("<slug:slug>/report/", report_views.campaign_report_view, name="report"),
    path("<slug:slug>/report/stamp.json", report_views.campaign_report_stamp, name="report_stamp"),
    path("<slug:slug>/preview/", preview_views.campaign_preview, name="preview"),
    path("<slug:slug>/edit/", views.campaign_edit, name="edit"),
    path("<slug:slug>/items/", views.campaign_items, name="items"),
    path("<slug:slug>/items/pick/", study_views.items_pick, name="items_pick"),
    path("<slug:slug>/status/", views.campaign_status, name="status"),
    path("<slug:slug>/export/<str:table>.<str:fmt>", views.campaign_export, name="export"),
    path("<slug:slug>/checks/", study_views.checks, name="checks"),
    path("<slug:slug>/checks/add/", study_views.check_add, name="check_add"),
    path("<slug:slug>/checks/<int:item_id>/", study_views.check_edit, name="check_edit"),
    path("<slug:slug>/checks/<int:item_id>/remove/", study_views.check_remove, name="check_remove"),
    path("<slug:slug>/examples/add/", study_views.example_add, name="example_add"),
    path("<slug:slug>/examples/<int:example_id>/", study_views.example_edit, name="example_edit"),
    path("<slug:slug>/examples/<int:example_id>/remove/", study_views.example_remove, name="example_remove"),
    path("<slug:slug>/quality/", study_views.quality, name="quality"),
    path("<slug:slug>/planner/", planner_views.planner_page, name="planner"),
    path("<slug:slug>/payments/", payment_views.payments_page, name="payments"),
    path("<slug:slug>/payments/prolific/", payment_views.prolific_reconcile, name="prolific"),
    path("<slug:slug>/payments/<str:name>", payment_views.payment_download, name="payment_file"),
]
