from django.urls import path

from tournaments import views
from tournaments.documents import views as views_documents
from tournaments.draw import views as views_bracket
from tournaments.links import views as views_links
from tournaments.live import screen as views_screen
from tournaments.live import views as live_views
from tournaments.manage import views as views_manage
from tournaments.registration import views as views_register

urlpatterns = [
    # What every phone and the projector poll comes first: Django tries patterns in order.
    path(
        "t/<slug:slug>/<slug:event_slug>/bracket/",
        live_views.bracket_page,
        name="tournaments-bracket",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/bracket.json",
        live_views.bracket_json_view,
        name="tournaments-bracket-json",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/screen/",
        views_screen.screen_page,
        name="tournaments-screen",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/matches/<int:match_id>/",
        live_views.match_page,
        name="tournaments-match",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/matches/<int:match_id>.json",
        live_views.match_json_view,
        name="tournaments-match-json",
    ),
    path("", views.tournament_list, name="tournaments-list"),
    path("t/<slug:slug>/", views.tournament_detail, name="tournaments-detail"),
    path("t/<slug:slug>/notice.pdf", views.notice_pdf, name="tournaments-notice-pdf"),
    path("t/<slug:slug>/results.pdf", views_documents.results_pdf, name="tournaments-results-pdf"),
    path(
        "t/<slug:slug>/<slug:event_slug>/draw.pdf",
        views_documents.draw_pdf,
        name="tournaments-draw-pdf",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/bracket.pdf",
        views_documents.bracket_pdf,
        name="tournaments-bracket-pdf",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/scoresheets.pdf",
        views_documents.scoresheets_pdf,
        name="tournaments-scoresheets-pdf",
    ),
    # Team leaders (and organisers) register entries.
    path("t/<slug:slug>/register/", views_register.register_home, name="tournaments-register"),
    path(
        "t/<slug:slug>/units/<int:unit_id>/", views_register.unit_entries, name="tournaments-unit"
    ),
    path(
        "t/<slug:slug>/units/<int:unit_id>/<slug:event_slug>/add/",
        views_register.add_entry,
        name="tournaments-add-entry",
    ),
    path(
        "t/<slug:slug>/entries/<int:entry_id>/",
        views_register.edit_entry,
        name="tournaments-entry-edit",
    ),
    path(
        "t/<slug:slug>/entries/<int:entry_id>/withdraw/",
        views_register.withdraw,
        name="tournaments-withdraw",
    ),
    # Organisers.
    path("t/<slug:slug>/manage/", views_manage.dashboard, name="tournaments-manage"),
    path(
        "t/<slug:slug>/manage/status/", views_manage.change_status, name="tournaments-manage-status"
    ),
    path(
        "t/<slug:slug>/manage/settings/",
        views_manage.edit_tournament,
        name="tournaments-manage-settings",
    ),
    path("t/<slug:slug>/manage/events/new/", views_manage.edit_event, name="tournaments-event-new"),
    path(
        "t/<slug:slug>/manage/events/<slug:event_slug>/",
        views_manage.edit_event,
        name="tournaments-event-edit",
    ),
    path("t/<slug:slug>/manage/units/", views_manage.units, name="tournaments-manage-units"),
    path(
        "t/<slug:slug>/manage/units/<int:unit_id>/leader/",
        views_manage.add_leader,
        name="tournaments-add-leader",
    ),
    path("t/<slug:slug>/manage/entries/", views_manage.entries, name="tournaments-manage-entries"),
    path(
        "t/<slug:slug>/manage/officials/",
        views_manage.officials,
        name="tournaments-manage-officials",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/entries/template.xlsx",
        views_manage.entries_template,
        name="tournaments-entries-template",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/entries/export.xlsx",
        views_manage.entries_export,
        name="tournaments-entries-export",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/entries/import/",
        views_manage.entries_import,
        name="tournaments-import",
    ),
    # One-time login links for referees (organisers and the chief referee).
    path(
        "t/<slug:slug>/referee/login-links/",
        views_links.login_links,
        name="tournaments-login-links",
    ),
    path(
        "t/<slug:slug>/referee/login-links/<int:link_id>/revoke/",
        views_links.revoke_login_link,
        name="tournaments-login-link-revoke",
    ),
    # The draw, the live bracket and its JSON.
    path("t/<slug:slug>/<slug:event_slug>/draw/", views_bracket.draw_page, name="tournaments-draw"),
    path(
        "t/<slug:slug>/<slug:event_slug>/draw/undo/",
        views_bracket.undo_draw,
        name="tournaments-draw-undo",
    ),
    path(
        "t/<slug:slug>/<slug:event_slug>/schedule/",
        views_bracket.schedule_page,
        name="tournaments-schedule",
    ),
]
