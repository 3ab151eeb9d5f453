"""The organiser's draw and schedule pages, under t/<tournament>/<event>/."""

from django.urls import path

from tournaments.draw import views

app_name = "draw"
urlpatterns = [
    path("draw/", views.draw_page, name="draw"),
    path("draw/undo/", views.undo_draw, name="undo"),
    path("schedule/", views.schedule_page, name="schedule"),
]
