"""Who may confirm a table's result (确认结果): the second person, always. Whoever entered,
submitted or corrected the current result never confirms it; among the others, the
tournament's setting (``Tournament.confirmation``) says who does: any second official (a
referee or the chief referee and arbitration panel), only the chief referee and the panel,
or also the opposing pair at the table, on the referee's phone."""

from __future__ import annotations

from django.utils.translation import gettext as _

from scoring.models import TableMatch
from tournaments.access import can_enter_table, is_chief
from tournaments.models import Official, Tournament


def authors(table: TableMatch) -> set[int]:
    """The people behind the table's current result: who recorded each event still in its
    record (a correction's events are the corrector's), and who submitted it."""
    ids = set(
        table.events.filter(undone_at__isnull=True, created_by__isnull=False).values_list(
            "created_by_id", flat=True
        )
    )
    if table.submitted_by_id:
        ids.add(table.submitted_by_id)
    return ids


def is_official(user, tournament: Tournament) -> bool:
    return user.is_authenticated and (
        is_chief(user, tournament)
        or Official.objects.filter(
            tournament=tournament, user=user, role=Official.Role.REFEREE
        ).exists()
    )


def may_confirm(user, table: TableMatch) -> bool:
    """Whether ``user`` may confirm the table's submitted result as a second official."""
    if not user.is_authenticated or table.status != TableMatch.Status.SUBMITTED:
        return False
    if user.pk in authors(table):
        return False
    tournament = table.match.round.stage.event.tournament
    if tournament.confirmation == Tournament.Confirmation.CHIEF:
        return is_chief(user, tournament)
    return is_official(user, tournament)


def opponents_may_confirm(user, table: TableMatch) -> str:
    """The side ("A" or "B") whose pair may confirm the result on this user's phone — the
    pair the result goes against — where the tournament allows it; "" otherwise."""
    tournament = table.match.round.stage.event.tournament
    if (
        tournament.confirmation != Tournament.Confirmation.OPPONENTS
        or table.status != TableMatch.Status.SUBMITTED
        or table.winner not in ("A", "B")
        or not can_enter_table(user, table)
    ):
        return ""
    return "B" if table.winner == "A" else "A"


def who_may_confirm(table: TableMatch) -> str:
    """The sentence the others read instead of the button."""
    setting = table.match.round.stage.event.tournament.confirmation
    if setting == Tournament.Confirmation.CHIEF:
        return _("待裁判长或仲裁组确认（录入、提交或更正结果的人不能确认）")
    if setting == Tournament.Confirmation.OPPONENTS:
        return _("待另一位裁判确认，或由对方选手在本机确认")
    return _("待另一位裁判确认（录入、提交或更正结果的人不能确认）")
