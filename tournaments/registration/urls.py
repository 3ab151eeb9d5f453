"""Team leaders (and organisers) register their unit's entries, under t/<tournament>/."""

from django.urls import path

from tournaments.registration import views

app_name = "registration"
urlpatterns = [
    path("register/", views.register_home, name="home"),
    path("units/<int:unit_id>/", views.unit_entries, name="unit"),
    path("units/<int:unit_id>/<slug:event_slug>/add/", views.add_entry, name="add-entry"),
    path("units/<int:unit_id>/<slug:event_slug>/form.xlsx", views.unit_form, name="unit-form"),
    path("units/<int:unit_id>/<slug:event_slug>/import/", views.unit_import, name="unit-import"),
    path("entries/<int:entry_id>/", views.edit_entry, name="entry-edit"),
    path("entries/<int:entry_id>/withdraw/", views.withdraw, name="withdraw"),
]
