"""A joint team (联队) and its member units are one side in an event: where the joint team
has an entry its members field none of their own, and the other way round (Nantong: 教务
plays inside 教务物理联队, not beside it)."""

from __future__ import annotations

from django.utils.translation import gettext as _


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
