"""Who may confirm a table's result (确认结果): the second person, always. Whoever entered,
submitted or corrected the current result never confirms it; among the others, the
tournament's setting (``Tournament.confirmation``) says who does: any second official (a
referee or the chief referee and arbitration panel), only the chief referee and the panel,
or also the opposing pair at the table, on the referee's phone.

A correction of a confirmed result is confirmed again the same way — or, where the
tournament says so (``Tournament.correction_signoff``), it is made by two members of the
arbitration panel (仲裁组) at once, the second co-signing with their password, and stands
confirmed at once."""

from __future__ import annotations

from django.utils.translation import gettext as _

from scoring.models import TableCall, TableMatch
from scoring.services.common import TableError, person_name
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


def open_calls(table: TableMatch):
    """The table's calls for the referee (呼叫裁判) not resolved yet."""
    return TableCall.objects.filter(table=table, resolved_at__isnull=True)


def may_confirm(user, table: TableMatch) -> bool:
    """Whether ``user`` may confirm the table's submitted result as a second official.

    The players' link (``Tournament.result_entry``): with ``players`` a result the players
    submitted is the other side's to confirm — an official confirms it only when the players
    called for one (the referee who came resolves the call, correcting the record first if
    need be, even one they entered themselves) or as chief referee; with ``both`` any
    second official may, as for a referee's result."""
    if not user.is_authenticated or table.status != TableMatch.Status.SUBMITTED:
        return False
    if open_calls(table).exists() and can_enter_table(user, table):
        return True
    if user.pk in authors(table):
        return False
    tournament = table.match.round.stage.event.tournament
    if table.submitted_side and tournament.result_entry == Tournament.ResultEntry.PLAYERS:
        return is_chief(user, tournament)
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


def check_players_confirm(table: TableMatch, side: str) -> None:
    """Refuse a confirmation from the table's link unless it is the players of the side
    that did not submit the result, and the players submitted it."""
    if side not in ("A", "B"):
        raise TableError("invalid_side", _("请选择是哪一方确认结果。"))
    if not table.submitted_side:
        raise TableError(
            "submitted_by_official", _("这一结果由裁判提交，须由另一位裁判或裁判长确认。")
        )
    if side == table.submitted_side:
        raise TableError(
            "same_side",
            _("提交结果的一方不能自己确认：请交给对方（%(other)s方）核对并确认。")
            % {"other": other_side(side)},
        )
    if open_calls(table).exists():
        raise TableError("called", _("已呼叫裁判：请等裁判到场处理。"))


def other_side(side: str) -> str:
    return "B" if side == "A" else "A"


def who_may_confirm(table: TableMatch) -> str:
    """The sentence the others read instead of the button."""
    if table.submitted_side:
        return _("待对方（%(other)s方）选手在本台二维码页面确认；有异议时呼叫裁判") % {
            "other": other_side(table.submitted_side)
        }
    setting = table.match.round.stage.event.tournament.confirmation
    if setting == Tournament.Confirmation.CHIEF:
        return _("待裁判长或仲裁组确认（录入、提交或更正结果的人不能确认）")
    if setting == Tournament.Confirmation.OPPONENTS:
        return _("待另一位裁判确认，或由对方选手在本机确认")
    return _("待另一位裁判确认（录入、提交或更正结果的人不能确认）")


PANEL_ROLES = (Official.Role.ARBITRATION_LEADER, Official.Role.ARBITRATION)


def is_panel(user, tournament: Tournament) -> bool:
    """Whether ``user`` sits on this tournament's arbitration panel (仲裁组组长 or 成员)."""
    return bool(getattr(user, "is_authenticated", False)) and (
        Official.objects.filter(tournament=tournament, user=user, role__in=PANEL_ROLES).exists()
    )


def panel_cosigners(tournament: Tournament, user) -> list:
    """The other panel members with a login, who may co-sign ``user``'s correction."""
    officials = (
        Official.objects.filter(tournament=tournament, role__in=PANEL_ROLES, user__isnull=False)
        .exclude(user=user)
        .select_related("user")
        .order_by("role", "id")
    )
    seen, people = set(), []
    for official in officials:
        if official.user_id not in seen and official.user.is_active:
            seen.add(official.user_id)
            people.append(official.user)
    return people


def needs_panel(table: TableMatch) -> bool:
    """Whether correcting this table takes two panel members: its result is confirmed and
    the tournament has the panel sign corrections of confirmed results."""
    tournament = table.match.round.stage.event.tournament
    return (
        tournament.correction_signoff == Tournament.CorrectionSignoff.PANEL
        and table.status == TableMatch.Status.CONFIRMED
    )


def check_panel_correction(table: TableMatch, user, cosigner) -> None:
    """Refuse a panel correction unless the corrector and the co-signer (whose password the
    page has checked) are two different members of this tournament's panel."""
    tournament = table.match.round.stage.event.tournament
    if not is_panel(user, tournament):
        raise TableError(
            "not_panel", _("本比赛已确认结果的更正须由仲裁组成员办理；你不是仲裁组成员。")
        )
    if cosigner is None:
        raise TableError(
            "no_cosigner", _("请选择第二位仲裁组成员，并由其输入密码共同署名后再保存。")
        )
    if cosigner.pk == user.pk:
        raise TableError("same_cosigner", _("共同署名的须是另一位仲裁组成员，不能是你本人。"))
    if not is_panel(cosigner, tournament):
        raise TableError(
            "cosigner_not_panel",
            _("%(name)s不是本比赛的仲裁组成员，不能共同署名。") % {"name": person_name(cosigner)},
        )


def correction_way(table: TableMatch) -> str:
    """The sentence the correction page shows before the tap: how the corrected result
    will stand."""
    if needs_panel(table):
        return _(
            "本比赛规定：已确认结果的更正须由两名仲裁组成员署名。请选择第二位仲裁组成员并由其"
            "输入密码；保存后更正的结果立即生效，记录中写明两人姓名。"
        )
    if table.status in (TableMatch.Status.SUBMITTED, TableMatch.Status.CONFIRMED):
        return _("保存后，更正的结果以你的名义重新提交，须由另一人确认后才生效（%(who)s）。") % {
            "who": who_may_confirm(table)
        }
    return _("保存后记录即更正；这一台的结果仍须照常提交和确认。")
