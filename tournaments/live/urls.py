"""What every phone and the projector poll, under t/<tournament>/<event>/."""

from django.urls import path

from tournaments.live import screen, views

app_name = "live"
urlpatterns = [
    path("bracket/", views.bracket_page, name="bracket"),
    path("bracket.json", views.bracket_json_view, name="bracket-json"),
    path("screen/", screen.screen_page, name="screen"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("matches/<int:match_id>.json", views.match_json_view, name="match-json"),
]
