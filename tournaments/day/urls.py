"""The day plan's pages, under t/<tournament>/ (before the events' own, so that no event
slug hides them)."""

from django.urls import path

from tournaments.day import views

app_name = "day"
urlpatterns = [
    path("manage/day/", views.plan_page, name="plan"),
    path("schedule/", views.timeline_page, name="timeline"),
    path("schedule.json", views.timeline_json, name="json"),
    path("schedule/halls/<int:venue_id>/", views.hall_screen_page, name="hall-screen"),
    path("referee/halls/<int:venue_id>/queue/", views.queue_page, name="queue"),
]
