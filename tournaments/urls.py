"""The tournaments app's URLs: the front door here, each concern's pages in its own conf."""

from django.urls import include, path

from tournaments import views

TOURNAMENT = "t/<slug:slug>/"
EVENT = "t/<slug:slug>/<slug:event_slug>/"

front_door = [
    path("", views.tournament_list, name="list"),
    path(TOURNAMENT, views.tournament_detail, name="detail"),
    path(TOURNAMENT + "notice.pdf", views.notice_pdf, name="notice-pdf"),
]

urlpatterns = [
    # The day's timeline before the events' pages: "schedule" is not an event.
    path(TOURNAMENT, include("tournaments.day.urls")),
    # What every phone and the projector poll comes next: Django tries patterns in order.
    path(EVENT, include("tournaments.live.urls")),
    path("", include((front_door, "tournaments"))),
    path(TOURNAMENT, include("tournaments.documents.urls")),
    path(TOURNAMENT, include("tournaments.standings.urls")),
    path(TOURNAMENT, include("tournaments.registration.urls")),
    path(TOURNAMENT, include("tournaments.manage.urls")),
    path("", include("tournaments.setup.urls")),
    path(TOURNAMENT, include("tournaments.links.urls")),
    path(EVENT, include("tournaments.draw.urls")),
]
