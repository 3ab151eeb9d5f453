"""The organiser's set-up writes: a new tournament (新建比赛), a new year's tournament copied
from an earlier one (复制往届比赛), a venue removed, a unit renamed or removed; one
transaction each.

A copy carries over what a union sets up once and keeps from year to year — the notice and
its rules, venues, events with their rule sets, units and joint teams (联队), officials with
their logins — and nothing of what the day produced: entries, players, draws, results. It
starts as a draft (草稿), its registration not yet open.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from tournaments.models import Entry, Event, Match, Official, Tournament, Unit, Venue


class SetupError(UserError):
    """A set-up write refused, with the message the organiser reads."""

    def __init__(self, message: str, code: str = "setup_refused"):
        super().__init__(code, message)


def may_create_tournaments(user) -> bool:
    """Staff (the first organiser account is a superuser) and anyone who organises a
    tournament already may start a new one."""
    if not user.is_authenticated:
        return False
    if user.is_staff or user.is_superuser:
        return True
    return Official.objects.filter(user=user, role=Official.Role.ORGANISER).exists()


def _organiser_name(user) -> str:
    return (user.get_full_name() or user.get_username())[: Official.name.field.max_length]


@transaction.atomic
def create_tournament(*, form, user) -> Tournament:
    """Save a valid :class:`tournaments.setup.forms.NewTournamentForm` as a draft; a creator who is not a superuser
    becomes its organiser (组织者), so its pages are theirs."""
    tournament = form.save(commit=False)
    tournament.status = Tournament.Status.DRAFT
    tournament.save()
    if not user.is_superuser:
        Official.objects.create(
            tournament=tournament,
            name=_organiser_name(user),
            role=Official.Role.ORGANISER,
            user=user,
        )
    return tournament


# Columns never copied: the row's identity and what the day produced.
_NOT_COPIED = {"id", "tournament", "created_at", "updated_at"}
_TOURNAMENT_NEW = {"slug", "name", "notice_title", "status"}
_EVENT_DAY = {"drawn_at", "version", "changed_at", "venue"}


def _fields(obj, skip: set[str]) -> dict:
    """The concrete columns of ``obj`` by attribute name, minus ``skip`` (new columns are
    carried over without a change here)."""
    return {
        f.attname: getattr(obj, f.attname)
        for f in obj._meta.concrete_fields
        if f.name not in skip and f.attname not in skip
    }


@transaction.atomic
def copy_tournament(*, source: Tournament, user, **new) -> Tournament:
    """The new year's tournament from ``source``: ``new`` gives its slug, name, notice title
    and dates (starts_on, start_time, registration_deadline, leaders_meeting_at)."""
    fields = _fields(source, _NOT_COPIED | _TOURNAMENT_NEW)
    fields.update(new)
    fields.setdefault("registration_deadline", None)
    fields.setdefault("leaders_meeting_at", None)
    fields["notice_date"] = None
    copy = Tournament.objects.create(status=Tournament.Status.DRAFT, **fields)

    venues = {}
    for venue in source.venues.all():
        venues[venue.pk] = Venue.objects.create(tournament=copy, **_fields(venue, _NOT_COPIED))
    for event in source.events.all():
        Event.objects.create(
            tournament=copy,
            venue=venues.get(event.venue_id),
            **_fields(event, _NOT_COPIED | _EVENT_DAY),
        )
    units = {}
    old_units = list(source.units.prefetch_related("members"))
    for unit in old_units:
        units[unit.pk] = Unit.objects.create(tournament=copy, **_fields(unit, _NOT_COPIED))
    for unit in old_units:
        members = [units[m.pk] for m in unit.members.all() if m.pk in units]
        if members:
            units[unit.pk].members.set(members)
    for official in source.officials.all():
        Official.objects.create(tournament=copy, **_fields(official, _NOT_COPIED))
    if (
        not user.is_superuser
        and not copy.officials.filter(user=user, role=Official.Role.ORGANISER).exists()
    ):
        Official.objects.create(
            tournament=copy, name=_organiser_name(user), role=Official.Role.ORGANISER, user=user
        )
    return copy


@transaction.atomic
def delete_venue(*, venue: Venue) -> None:
    """Remove a venue no tie of a current draw is scheduled at (its events keep no venue)."""
    in_use = Match.objects.filter(venue=venue, round__stage__draw__undone_at__isnull=True).exclude(
        Q(status=Match.Status.BYE)
    )
    if in_use.exists():
        raise SetupError(
            _("场地“%(name)s”已排入赛程，不能删除；请先在赛程中改用其他场地。")
            % {"name": venue.name}
        )
    venue.delete()


@transaction.atomic
def save_unit(*, form) -> Unit:
    """Save a valid :class:`tournaments.manage.forms.UnitForm` of a unit that exists: a new
    name carries over to the entries named after it (a team's entry is its unit's name; a
    pair or a player shares a name with another unit's and reads 张伟（体育）)."""
    unit = form.instance
    old = Unit.objects.select_for_update().get(pk=unit.pk).name
    saved = form.save()
    if saved.name == old:
        return saved
    for entry in Entry.objects.filter(unit=saved).select_related("event"):
        if entry.name == old:
            entry.name = saved.name
        elif entry.name.endswith(f"（{old}）"):
            entry.name = entry.name[: -len(old) - 2] + f"（{saved.name}）"
        else:
            continue
        if Entry.objects.filter(event=entry.event, name=entry.name).exclude(pk=entry.pk).exists():
            raise SetupError(
                _("改名后%(event)s中会有两个“%(name)s”，请换一个名称。")
                % {"event": entry.event.name, "name": entry.name}
            )
        entry.save(update_fields=["name"])
    return saved


def unit_removal_problem(unit: Unit) -> str:
    """Why ``unit`` (a unit or a joint team) may not be removed, or "": nothing it holds
    may be lost — its entries (withdrawn ones too: draws and results name them), its
    players, its place in a joint team."""
    entries = unit.entries.count()
    if entries:
        return _(
            "“%(name)s”已有%(n)s个报名（含已退赛的），不能删除，以免丢失报名、抽签和成绩；"
            "不再参赛请在报名页办理退赛。"
        ) % {"name": unit.name, "n": entries}
    if unit.players.exists():
        return _("“%(name)s”还有选手名单，不能删除。") % {"name": unit.name}
    team = unit.joint_teams.first()
    if team is not None:
        return _("“%(name)s”是联队%(team)s的组成单位，请先在联队中去掉它，再删除。") % {
            "name": unit.name,
            "team": team.name,
        }
    return ""


@transaction.atomic
def delete_unit(*, unit: Unit) -> None:
    """Remove a unit or a joint team that holds nothing (:func:`unit_removal_problem`).
    Its leaders lose it (their accounts stay, for the other units they lead) and its
    unused invitation links die with it."""
    unit = Unit.objects.select_for_update().get(pk=unit.pk)
    problem = unit_removal_problem(unit)
    if problem:
        raise SetupError(problem)
    unit.delete()
