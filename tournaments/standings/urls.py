"""The units' standings across the day's events, under t/<tournament>/."""

from django.urls import path

from tournaments.standings import views

app_name = "standings"
urlpatterns = [
    path("standings/", views.standings_page, name="page"),
    path("standings.json", views.standings_json_view, name="json"),
]
