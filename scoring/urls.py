from django.urls import path

from scoring.views import desk, table

T = "t/<slug:slug>/<slug:event_slug>/tables/<int:table_id>/"

urlpatterns = [
    path(T, table.table_page, name="scoring-table"),
    path(T + "qr.svg", table.table_qr, name="scoring-table-qr"),
    path(T + "deal/", table.record_deal, name="scoring-deal"),
    path(T + "game/", table.record_game, name="scoring-game"),
    path(T + "point/", table.record_point, name="scoring-point"),
    path(T + "first-server/", table.record_first_server, name="scoring-first-server"),
    path(T + "penalty/", table.record_penalty, name="scoring-penalty"),
    path(T + "time-up/", table.record_time_up, name="scoring-time-up"),
    path(T + "forfeit/", table.record_forfeit, name="scoring-forfeit"),
    path(T + "undo/", table.undo, name="scoring-undo"),
    path(T + "submit/", table.submit, name="scoring-submit"),
    path(T + "report/", table.report, name="scoring-report"),
    path(T + "confirm/", table.confirm, name="scoring-confirm"),
    path(T + "reports/<int:report_id>/rule/", table.rule_report, name="scoring-rule-report"),
    path(T + "report-deduction/", table.report_deduction, name="scoring-report-deduction"),
    path(T + "correct/", table.correct, name="scoring-correct"),
    path("t/<slug:slug>/referee/", desk.desk, name="scoring-desk"),
    path("t/<slug:slug>/<slug:event_slug>/board/", desk.board, name="scoring-board"),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/whistle/",
        desk.whistle,
        name="scoring-whistle",
    ),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/checkin/",
        desk.checkin_page,
        name="scoring-checkin",
    ),
    path("t/<slug:slug>/referee/audit/", desk.audit_page, name="scoring-audit"),
]
