"""The referee pages: a table's entry page and its actions, the desk, board, check-in, audit."""

from django.urls import path

from scoring.views import correction, desk, players, referee, table

T = "t/<slug:slug>/<slug:event_slug>/tables/<int:table_id>/"
P = "play/<str:code>/"

app_name = "scoring"
urlpatterns = [
    path(T, table.table_page, name="table"),
    path(T + "qr.svg", table.table_qr, name="table-qr"),
    path(T + "deal/", table.record_deal, name="deal"),
    path(T + "game/", table.record_game, name="game"),
    path(T + "point/", table.record_point, name="point"),
    path(T + "first-server/", table.record_first_server, name="first-server"),
    path(T + "penalty/", table.record_penalty, name="penalty"),
    path(T + "time-up/", table.record_time_up, name="time-up"),
    path(T + "start/", table.start, name="start"),
    path(T + "forfeit/", table.record_forfeit, name="forfeit"),
    path(T + "undo/", table.undo, name="undo"),
    path(T + "submit/", table.submit, name="submit"),
    path(T + "report/", table.report, name="report"),
    path(T + "confirm/", table.confirm, name="confirm"),
    path(T + "reports/<int:report_id>/rule/", table.rule_report, name="rule-report"),
    path(T + "report-deduction/", table.report_deduction, name="report-deduction"),
    path(T + "correct/", table.correct, name="correct"),
    path(T + "resolve-call/", table.resolve_call, name="resolve-call"),
    path(T + "reopen/", table.reopen, name="reopen"),
    path(T + "lock/", table.lock, name="lock"),
    path(T + "correction/", correction.correction_page, name="correction"),
    # The players' link (扫码录分): one table, no account (scoring.services.players).
    path(P, players.page, name="play-table"),
    path(P + "deal/", players.record_deal, name="play-deal"),
    path(P + "game/", players.record_game, name="play-game"),
    path(P + "point/", players.record_point, name="play-point"),
    path(P + "first-server/", players.record_first_server, name="play-first-server"),
    path(P + "time-up/", players.record_time_up, name="play-time-up"),
    path(P + "undo/", players.undo, name="play-undo"),
    path(P + "submit/", players.submit, name="play-submit"),
    path(P + "confirm/", players.confirm, name="play-confirm"),
    path(P + "call/", players.call, name="play-call"),
    path("t/<slug:slug>/referee/", desk.desk, name="desk"),
    path("t/<slug:slug>/referee/mine/", referee.my_tables, name="my-tables"),
    path("t/<slug:slug>/<slug:event_slug>/board/", desk.board, name="board"),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/whistle/",
        desk.whistle,
        name="whistle",
    ),
    path(
        "t/<slug:slug>/referee/rounds/<int:round_id>/checkin/",
        desk.checkin_page,
        name="checkin",
    ),
    path("t/<slug:slug>/referee/audit/", desk.audit_page, name="audit"),
    path("t/<slug:slug>/referee/matches/<int:match_id>/ruling/", desk.ruling, name="ruling"),
    path("t/<slug:slug>/referee/matches/<int:match_id>/replay/", desk.replay, name="replay"),
]
