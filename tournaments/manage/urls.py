"""The organiser's pages, under t/<tournament>/."""

from django.urls import path

from tournaments.manage import views

app_name = "manage"
urlpatterns = [
    path("manage/", views.dashboard, name="dashboard"),
    path("manage/status/", views.change_status, name="status"),
    path("manage/settings/", views.edit_tournament, name="settings"),
    path("manage/events/new/", views.edit_event, name="event-new"),
    path("manage/events/<slug:event_slug>/", views.edit_event, name="event-edit"),
    path("manage/units/", views.units, name="units"),
    path("manage/units/<int:unit_id>/", views.unit_edit, name="unit-edit"),
    path("manage/units/<int:unit_id>/delete/", views.unit_delete, name="unit-delete"),
    path("manage/units/<int:unit_id>/leader/", views.add_leader, name="add-leader"),
    path("manage/entries/", views.entries, name="entries"),
    path("manage/officials/", views.officials, name="officials"),
    path(
        "manage/accounts/<int:user_id>/reset-password/",
        views.reset_password,
        name="reset-password",
    ),
    path(
        "<slug:event_slug>/entries/template.xlsx", views.entries_template, name="entries-template"
    ),
    path("<slug:event_slug>/entries/export.xlsx", views.entries_export, name="entries-export"),
    path("<slug:event_slug>/entries/import/", views.entries_import, name="entries-import"),
]
