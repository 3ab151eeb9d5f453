"""The chief referee's correction of a table's record (更正), with a reason: the old events
kept, marked undone, and the tie and the bracket worked out again. A correction of a
confirmed result is confirmed again by a second person — or, where the tournament says so,
is made by two members of the arbitration panel and stands at once
(:mod:`scoring.services.confirmation`)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from scoring.engines.board import words
from scoring.models import TableEvent, TableMatch
from scoring.services import common, confirmation, ties
from scoring.services.common import TableError
from tournaments.draw import plan as draw_plan
from tournaments.models import Match


@transaction.atomic
def correct_table(
    *,
    table: TableMatch,
    events: list[dict],
    reason: str,
    user,
    expected_version: int | None = None,
    cosigner=None,
) -> TableMatch:
    """The chief referee replaces a table's record (after submission or confirmation) with a
    reason. The old events stay, marked undone; a finished record is submitted again in the
    corrector's name, to be confirmed by a second person; the tie and the bracket are
    re-derived when who won the table changed.

    Where the tournament has the arbitration panel sign corrections of confirmed results,
    ``user`` and ``cosigner`` (whose password the page has checked) must be two members of
    the panel: the corrected result then stands confirmed at once, in both their names."""
    reason = plain_text(reason, limit=300)
    if not reason:
        raise TableError("no_reason", _("更正必须写明原因。"))
    table = common.locked(table)
    common.check_version(table, expected_version)
    common.check_pairing_known(table.match)  # not while the tie's pairing is 待定
    panel = confirmation.needs_panel(table)
    if panel:
        confirmation.check_panel_correction(table, user, cosigner)
    state, _described = common.replay_table(table, events)  # validates the whole new record
    engine = common.scorer(table)
    before = table.state
    now = timezone.now()
    actor = common.known_user(user)
    table.events.filter(undone_at__isnull=True).update(undone_at=now, undone_by=actor)
    seq = (table.events.aggregate(m=Max("seq"))["m"] or 0) + 1
    stamp = now.strftime("%Y%m%d%H%M%S%f")
    TableEvent.objects.bulk_create(
        [
            TableEvent(
                table=table,
                seq=seq + i,
                payload=engine.normalise(e),
                key=f"correction-{stamp}-{i}",
                reason=reason[:200],
                created_by=actor,
            )
            for i, e in enumerate(events)
        ]
    )
    old_winner, old_status = table.winner, table.status
    common.save_state(table, state)
    if not engine.match_over(state) and table.status != TableMatch.Status.OPEN:
        # The corrected record is unfinished: the table is played on and submitted again.
        table.status = TableMatch.Status.OPEN
        table.submitted_by = table.submitted_at = table.confirmed_by = table.confirmed_at = None
        table.save(
            update_fields=["status", "submitted_by", "submitted_at", "confirmed_by", "confirmed_at"]
        )
    elif panel:
        # Two panel members signed it: the corrected result stands, confirmed by the second.
        table.status = TableMatch.Status.CONFIRMED
        table.submitted_by, table.submitted_at = actor, now
        table.confirmed_by, table.confirmed_at = cosigner, now
        table.save(
            update_fields=["status", "submitted_by", "submitted_at", "confirmed_by", "confirmed_at"]
        )
    elif table.status in (TableMatch.Status.SUBMITTED, TableMatch.Status.CONFIRMED):
        # The second person, always: a corrected result is the corrector's, submitted by
        # them, and stands once someone else confirms it (scoring.services.confirmation).
        table.status = TableMatch.Status.SUBMITTED
        table.submitted_by, table.submitted_at = actor, now
        table.confirmed_by = table.confirmed_at = None
        table.save(
            update_fields=["status", "submitted_by", "submitted_at", "confirmed_by", "confirmed_at"]
        )
    summary = words("更正记录")
    if panel:
        names = {"a": common.person_name(actor), "b": common.person_name(cosigner)}
        summary = (
            words("更正记录（仲裁组%(a)s、%(b)s共同署名，即时生效）", **names)
            if table.status == TableMatch.Status.CONFIRMED
            else words("更正记录（仲裁组%(a)s、%(b)s共同署名）", **names)
        )
    common.audit(table, user, "correct", summary, before=before, after=table.state, reason=reason)
    table.match.round.stage.event.bump_version()
    if table.status == TableMatch.Status.CONFIRMED:
        _tie_after_panel_correction(table, user, reason, old_winner)
    elif old_status == TableMatch.Status.CONFIRMED and (
        old_winner != table.winner or table.status == TableMatch.Status.OPEN
    ):
        # Who won the table changed (or it plays on): the tie is worked out again from its
        # confirmed tables — without this one until its corrected result is confirmed. The
        # same winner with other details leaves the tie as it is meanwhile.
        ties.redecide_tie(table.match, user, reason)
    return table


def _tie_after_panel_correction(table: TableMatch, user, reason: str, old_winner: str) -> None:
    """The panel's corrected result stands: a decided tie whose table changed hands is
    worked out again; an undecided one moves on as after a confirmation."""
    match = (
        Match.objects.select_for_update()
        .select_related("round__stage__event")
        .get(pk=table.match_id)
    )
    if match.is_decided:
        if old_winner != table.winner:
            ties.redecide_tie(match, user, reason)
        else:
            ties.update_tie(match, user)
        return
    try:
        ties.after_confirmation(table, user)
    except draw_plan.ResultError as err:
        raise TableError(err.code, err.message) from None
