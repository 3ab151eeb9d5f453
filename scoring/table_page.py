"""The read behind a table's page (the referee's entry page, the players' and spectators'
view): what it shows, gathered once so the referee views stay thin. Above the services and
selectors it reads (who may enter and confirm is theirs to say)."""

from __future__ import annotations

from django.utils import timezone

from scoring.models import TableMatch
from scoring.selectors import name_people
from scoring.services import common, confirmation, reports
from tournaments.access import can_enter_table, is_chief


def table_page_data(table: TableMatch, user, *, chief: bool | None = None) -> dict:
    """What a table's page shows (the referee's entry page, the players' and spectators'
    view): the board, the record in words, who may enter and confirm, the reports, the audit
    for the chief referee. ``table`` comes with its match, event and pairs loaded."""
    event = table.match.round.stage.event
    engine = event.scorer()
    if chief is None:
        chief = is_chief(user, event.tournament)
    _state, described = common.replay_table(table)
    names = common.side_names(table)
    deadline = None
    if table.started_at and engine.time_limit_minutes:
        deadline = table.started_at + timezone.timedelta(minutes=engine.time_limit_minutes)
    filed = list(table.reports.all())
    audit = list(table.audit.all()[:50]) if chief else []
    # People by the names they are known by (钱立, not a login name): one or two queries,
    # only when the page shows someone.
    if table.submitted_by_id or table.confirmed_by_id or audit:
        name_people(event.tournament, [table], "submitted_by", "confirmed_by")
        name_people(event.tournament, audit, "actor")
    opponents = confirmation.opponents_may_confirm(user, table)
    return {
        "tournament": event.tournament,
        "event": event,
        "table": table,
        "rules": engine.rules,
        "engine": engine,
        "board": engine.board(table.state, names),
        "title": engine.table_title(table.number, table.table_number),
        "history": list(reversed(described)),
        "home_name": names["A"],
        "away_name": names["B"],
        "can_enter": can_enter_table(user, table, chief=chief),
        "may_confirm": confirmation.may_confirm(user, table),
        "opponents_confirm": opponents,
        "who_confirms": confirmation.who_may_confirm(table),
        "opponents_name": names.get(opponents, ""),
        "chief": chief,
        "deadline": deadline,
        "reports": filed,
        "proposals": [
            t
            for t in ("A", "B")
            if engine.records("penalty")
            and sum(1 for r in filed if r.team == t and r.upheld and r.penalty_id is None)
            >= reports.UPHELD_REPORTS_FOR_A_DEDUCTION
        ],
        "audit": audit,
    }
