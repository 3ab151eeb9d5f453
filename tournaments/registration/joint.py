"""Who may be a joint team's (联队) member units. That a joint team and its members are one
side in an event is a registration rule (:func:`tournaments.registration.rules.joint_team_clashes`)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.models import Entry, Pair, Unit


def joint_team_member_problems(team, members) -> list[str]:
    """Why ``members`` may not be the member units of the joint team ``team`` (new, or one
    whose members change): a unit belongs to one joint team at most; a unit may not join a
    joint team that plays an event it has entered on its own; and a unit whose players
    play in the joint team's entries stays in it (their entries would name a unit that is
    not part of the team)."""
    problems = []
    others = Unit.objects.filter(kind=Unit.Kind.JOINT, members__in=members).exclude(pk=team.pk)
    for other in others.prefetch_related("members").distinct():
        for unit in (m for m in members if m in other.members.all()):
            problems.append(
                _("%(unit)s已是联队%(team)s的组成单位，一个单位只能属于一个联队。")
                % {"unit": unit.name, "team": other.name}
            )
    if team.pk is None:
        return problems
    entered = Entry.objects.filter(unit=team, status=Entry.Status.REGISTERED)
    alone = (
        Entry.objects.filter(
            unit__in=members,
            status=Entry.Status.REGISTERED,
            event__in=entered.values("event"),
        )
        .select_related("unit", "event")
        .order_by("unit_id", "event_id")
    )
    for entry in alone:
        problems.append(
            _(
                "%(unit)s已在%(event)s单独报名，联队%(team)s也报名了%(event)s，同一项目联队和它的组成单位只能有一方参赛。"
            )
            % {"unit": entry.unit.name, "event": entry.event.name, "team": team.name}
        )
    playing = set(
        Entry.objects.filter(unit=team, player__isnull=False).values_list("player__unit", flat=True)
    )
    for seat in ("first", "second"):
        playing |= set(
            Pair.objects.filter(entry__unit=team).values_list(f"{seat}__unit", flat=True)
        )
    kept = {m.pk for m in members}
    for unit in team.members.exclude(pk__in=kept).filter(pk__in=playing):
        problems.append(
            _("联队%(team)s的报名中有%(unit)s的选手，%(unit)s不能移出联队（请先修改报名）。")
            % {"unit": unit.name, "team": team.name}
        )
    return problems
