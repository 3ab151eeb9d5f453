"""Reports (举报) and the arbitration panel's rulings: three upheld reports against a pair
bring a deduction of levels (Anhui: 三次举报…属实，实施扣级)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from scoring import selectors
from scoring.engines.board import words
from scoring.models import Report, TableMatch
from scoring.services import common, tables
from scoring.services.common import TableError

UPHELD_REPORTS_FOR_A_DEDUCTION = 3  # Anhui: 三次举报…属实，实施扣级


@transaction.atomic
def add_report(
    *,
    table: TableMatch,
    team: str,
    description: str,
    reported_by: str = "",
    user=None,
    key: str = "",
) -> Report:
    """Record a report (举报). With the phone's ``key``, a resend after a dropped connection
    finds the report already there and records nothing twice."""
    key = common.phone_key(key, limit=64)
    table = common.locked(table)
    if key:
        existing = Report.objects.filter(table=table, key=key).first()
        if existing is not None:
            return existing
    if team not in ("A", "B"):
        raise TableError("invalid_team", _("请选择被举报的一方。"))
    description = " ".join(plain_text(description).split())
    reported_by = plain_text(reported_by, limit=100)
    if not description:
        raise TableError("no_description", _("请写明举报内容。"))
    report = Report.objects.create(
        table=table,
        team=team,
        description=description[:200],
        reported_by=reported_by[:100],
        created_by=common.known_user(user),
        key=key,
    )
    common.audit(table, user, "report", words("举报%(t)s：%(d)s", t=team, d=description))
    table.match.round.stage.event.bump_version()
    return report


@transaction.atomic
def rule_report(*, report: Report, upheld: bool, user) -> int:
    """The arbitration panel rules; returns how many upheld reports against that pair have
    not yet led to a deduction (the page proposes the deduction at three)."""
    report.upheld, report.ruled_by, report.ruled_at = bool(upheld), user, timezone.now()
    report.save(update_fields=["upheld", "ruled_by", "ruled_at"])
    common.audit(
        report.table,
        user,
        "report_ruling",
        words("举报属实") if upheld else words("举报不属实"),
    )
    report.table.match.round.stage.event.bump_version()
    return selectors.pending_upheld(report.table, report.team)


@transaction.atomic
def apply_report_deduction(
    *, table: TableMatch, team: str, user, key: str, expected_version: int | None = None
) -> TableMatch:
    key = common.phone_key(key)
    if key and table.events.filter(key=key).exists():
        return table  # a resend of a deduction already recorded
    reports = list(
        Report.objects.select_for_update()
        .filter(table=table, team=team, upheld=True, penalty__isnull=True)
        .order_by("created_at")
    )
    if len(reports) < UPHELD_REPORTS_FOR_A_DEDUCTION:
        raise TableError("not_enough_reports", _("属实的举报不足三次。"))
    deduction = common.scorer(table).deduction(team)
    if deduction is None:
        raise TableError("no_levels", _("这个项目没有级数，不能扣级。"))
    table, _text, _created = tables.record_event(
        table=table,
        event=deduction,
        user=user,
        key=key,
        expected_version=expected_version,
        reason=_("三次举报属实，扣级"),
    )
    penalty = table.events.get(key=key)
    Report.objects.filter(pk__in=[r.pk for r in reports[:UPHELD_REPORTS_FOR_A_DEDUCTION]]).update(
        penalty=penalty
    )
    return table
