"""A joint team (联队) and its member units are one side in an event: where the joint team
has an entry its members field none of their own, and the other way round (Nantong: 教务
plays inside 教务物理联队, not beside it)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournaments.models import Entry, Pair, Unit


def joint_team_clashes(unit, units, fielded: set[int], checked) -> list[str]:
    """Why ``unit`` may not enter the event: ``units`` are the tournament's units (members
    loaded), ``fielded`` the units with an active entry in the event, ``checked`` the other
    entries of the same submission (each with its ``unit``)."""
    entering = fielded | {item.unit.pk for item in checked if item.unit.pk != unit.pk}
    problems = []
    team = next((u for u in units if unit in u.members.all() and u.pk in entering), None)
    if team is not None:
        problems.append(
            _("%(unit)s是联队%(team)s的组成单位，%(team)s已在本项目报名，%(unit)s不能再单独报名。")
            % {"unit": unit.name, "team": team.name}
        )
    member = next((m for m in unit.members.all() if m.pk in entering), None)
    if member is not None:
        problems.append(
            _("联队%(team)s的组成单位%(unit)s已在本项目单独报名，%(team)s不能再报名本项目。")
            % {"unit": member.name, "team": unit.name}
        )
    return problems


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
