from django.urls import path

from scoring import views

T = "t/<slug:slug>/<slug:event_slug>/tables/<int:table_id>/"

urlpatterns = [
    path(T, views.table_page, name="scoring-table"),
    path(T + "qr.svg", views.table_qr, name="scoring-table-qr"),
    path(T + "deal/", views.record_deal, name="scoring-deal"),
    path(T + "game/", views.record_game, name="scoring-game"),
    path(T + "point/", views.record_point, name="scoring-point"),
    path(T + "first-server/", views.record_first_server, name="scoring-first-server"),
    path(T + "penalty/", views.record_penalty, name="scoring-penalty"),
    path(T + "time-up/", views.record_time_up, name="scoring-time-up"),
    path(T + "forfeit/", views.record_forfeit, name="scoring-forfeit"),
    path(T + "undo/", views.undo, name="scoring-undo"),
    path(T + "submit/", views.submit, name="scoring-submit"),
    path(T + "report/", views.report, name="scoring-report"),
    path(T + "confirm/", views.confirm, name="scoring-confirm"),
    path(T + "reports/<int:report_id>/rule/", views.rule_report, name="scoring-rule-report"),
    path(T + "report-deduction/", views.report_deduction, name="scoring-report-deduction"),
    path(T + "correct/", views.correct, name="scoring-correct"),
    path("t/<slug:slug>/referee/", views.desk, name="scoring-desk"),
    path("t/<slug:slug>/<slug:event_slug>/board/", views.board, name="scoring-board"),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/whistle/",
        views.whistle,
        name="scoring-whistle",
    ),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/checkin/",
        views.checkin_page,
        name="scoring-checkin",
    ),
    path("t/<slug:slug>/referee/audit/", views.audit_page, name="scoring-audit"),
]
