"""The organiser's set-up pages: a new tournament at new/, the rest under t/<tournament>/."""

from django.urls import path

from tournaments.setup import views

app_name = "setup"
urlpatterns = [
    path("new/", views.new_tournament, name="new"),
    path("t/<slug:slug>/manage/copy/", views.copy_tournament, name="copy"),
    path("t/<slug:slug>/manage/venues/", views.venues, name="venues"),
    path("t/<slug:slug>/manage/venues/<int:venue_id>/", views.venue_edit, name="venue-edit"),
    path(
        "t/<slug:slug>/manage/venues/<int:venue_id>/delete/",
        views.venue_delete,
        name="venue-delete",
    ),
]
