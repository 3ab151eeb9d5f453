"""The printed documents, under t/<tournament>/."""

from django.urls import path

from tournaments.documents import views

app_name = "documents"
urlpatterns = [
    path("results.pdf", views.results_pdf, name="results-pdf"),
    path("results.png", views.results_png, name="results-png"),
    path("standings.pdf", views.standings_pdf, name="standings-pdf"),
    path("standings.png", views.standings_png, name="standings-png"),
    path("schedule.pdf", views.day_pdf, name="day-pdf"),
    path("<slug:event_slug>/draw.pdf", views.draw_pdf, name="draw-pdf"),
    path("<slug:event_slug>/bracket.pdf", views.bracket_pdf, name="bracket-pdf"),
    path("<slug:event_slug>/bracket.png", views.bracket_png, name="bracket-png"),
    path("<slug:event_slug>/scoresheets.pdf", views.scoresheets_pdf, name="scoresheets-pdf"),
    path("<slug:event_slug>/scoresheets/", views.scoresheets_page, name="scoresheets"),
    path(
        "<slug:event_slug>/scoresheets/<int:build_id>.pdf",
        views.scoresheets_file,
        name="scoresheets-file",
    ),
    path("<slug:event_slug>/tablecards.pdf", views.table_cards_pdf, name="tablecards-pdf"),
]
