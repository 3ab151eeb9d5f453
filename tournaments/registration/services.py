"""Registration (报名): the checks of the notices and the one place that writes entries.

An entry form, a row group of an Excel sheet and a command-line import all become
:class:`EntryForm` values; :func:`check_entries` lists every problem with where it is
("第3行", "第2对") and the rule it breaks; :func:`register_entries` writes all of them in one
transaction or nothing at all.

Rules (seed notices): a deadline (报名截止) after which only the organiser may add entries,
flagged 现场报名 — and, for events that require advance registration, 参与奖 only (Anhui:
“牌类比赛需提前报名，若现场报名，只获参与奖”); each person in one event only where the
tournament says so (Anhui: “只能参加一个比赛项目”); nobody twice in one event; a team has
exactly its number of pairs (Nantong: 每个工会小组报三组选手); pairs are fixed once the draw is
made (“配对选手不得重组”) — after that only withdrawal is possible.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.inputs import name_key, plain_text
from tournaments.draw.status import event_finished
from tournaments.models import Entry, Event, Pair, Player, Tournament
from tournaments.models.names import key_of
from tournaments.registration import rules
from tournaments.registration.rules import Checked, EntryForm, PersonForm, Problem

__all__ = [
    "EntryForm",
    "PersonForm",
    "Problem",
    "RegistrationError",
    "check_entries",
    "deadline_passed",
    "register_entries",
    "update_entry",
    "withdraw_entry",
]


class RegistrationError(UserError):
    """Input a user can fix; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("registration_refused", "；".join(str(p) for p in problems))


def deadline_passed(tournament: Tournament, now=None) -> bool:
    now = now or timezone.now()
    return tournament.registration_deadline is not None and now >= tournament.registration_deadline


def _gate(event: Event, *, organiser: bool, now) -> Problem | None:
    tournament = event.tournament
    open_status = deadline = None
    if tournament.status != Tournament.Status.REGISTRATION_OPEN:
        open_status = tournament.get_status_display()
    elif deadline_passed(tournament, now):
        deadline = timezone.localtime(tournament.registration_deadline).strftime("%Y-%m-%d %H:%M")
    return rules.gate(
        locked=event.entries_locked, organiser=organiser, open_status=open_status, deadline=deadline
    )


def _saved_people(active) -> tuple[dict[tuple[int, str], list[str]], dict[tuple[int, str], str]]:
    """Each registered person — (unit pk, name key) — with the events (slugs) they are in,
    and with their name as registered."""
    saved: dict[tuple[int, str], list[str]] = {}
    names: dict[tuple[int, str], str] = {}
    for entry in active.select_related("event", "player").prefetch_related(
        "pairs__first", "pairs__second"
    ):
        persons = (
            [entry.player]
            if entry.player
            else [p for pair in entry.pairs.all() for p in (pair.first, pair.second)]
        )
        for person in persons:
            key = (person.unit_id, name_key(person.name))
            saved.setdefault(key, []).append(entry.event.slug)
            names.setdefault(key, person.name)
    return saved, names


def check_entries(
    event: Event,
    forms: list[EntryForm],
    *,
    organiser: bool,
    leader_units: set[int] | None = None,
    replacing: Entry | None = None,
    now=None,
) -> tuple[list[Problem], list[Checked]]:
    """Every problem with the submitted entries; nothing is written. The rules are
    :mod:`tournaments.registration.rules`; this reads what they are asked about."""
    refused = _gate(event, organiser=organiser, now=now)
    if refused is not None:
        return [refused], []
    tournament = event.tournament
    roster = rules.Roster.of(
        tournament.units.prefetch_related("members").order_by("id"), lambda u: u.members.all()
    )
    problems: list[Problem] = []
    checked: list[Checked] = []
    for form in forms:
        unit = rules.entry_unit(
            roster, problems, form, organiser=organiser, leader_units=leader_units
        )
        if unit is None:
            continue
        if event.entry_kind == Event.EntryKind.SINGLE:
            item = rules.single(roster, problems, form, unit)
        else:
            team = event.entry_kind == Event.EntryKind.TEAM
            item = rules.pairs(
                roster, problems, form, unit, wanted=event.pairs_per_team if team else None
            )
        if item is not None:
            checked.append(item)

    # The checks across entries run over every entry and the people of it that were
    # resolved (a team with a problem too), so one submission lists all of its problems
    # at once.
    where = rules.places(checked)
    rules.repeated(roster, problems, checked, where)
    active = Entry.objects.filter(event__tournament=tournament, status=Entry.Status.REGISTERED)
    if replacing is not None:
        active = active.exclude(pk=replacing.pk)
    saved, saved_names = _saved_people(active)
    rules.already_entered(
        roster,
        problems,
        where,
        saved,
        event=event.slug,
        one_event=tournament.one_event_per_person,
        event_names=dict(tournament.events.values_list("slug", "name")),
        # A clash names the person as registered (张三丰, when 張三豐 was typed).
        names={**rules.people_names(checked), **saved_names},
        fields=rules.name_fields(checked),
    )
    fielded = set(active.filter(event=event).values_list("unit_id", flat=True))
    for item in checked:
        for message in rules.joint_team_clashes(roster, item.unit, fielded, checked):
            problems.append(Problem(item.form.where, message))
    if event.entry_kind == Event.EntryKind.TEAM:
        rules.one_team_per_unit(problems, checked, fielded)
    return problems, checked


def _entry_name(event: Event, item: Checked, taken: set[str]) -> str:
    if event.entry_kind == Event.EntryKind.TEAM:
        name = item.unit.name
    elif item.player is not None:
        name = item.player[1]
    else:
        name = "/".join(p[1] for p in item.pairs[0])
    if name in taken:  # two 张伟 from different units
        name = f"{name}（{item.unit.name}）"
    return name


def _person(tournament: Tournament, person: rules.Person) -> Player:
    unit, name, gender = person
    # The unit's player of this name by its key (張偉 is 张伟), else a new one as typed.
    player = Player.objects.filter(tournament=tournament, unit=unit, name_key=key_of(name)).first()
    created = player is None
    if created:
        player = Player.objects.create(tournament=tournament, unit=unit, name=name, gender=gender)
    if not created and gender and player.gender != gender:
        player.gender = gender
        player.save(update_fields=["gender"])
    return player


def _lock(event_pk: int) -> Event:
    """Lock the tournament row (PostgreSQL: SELECT … FOR UPDATE) for the rest of the
    transaction: registrations of one tournament then run one at a time, so two devices
    cannot both register one person (one event per person spans events) or both create
    the same new player."""
    event = Event.objects.select_related("tournament").get(pk=event_pk)
    Tournament.objects.select_for_update().filter(pk=event.tournament_id).first()
    return Event.objects.select_related("tournament").get(pk=event_pk)


@transaction.atomic
def register_entries(
    *,
    event: Event,
    forms: list[EntryForm],
    user=None,
    organiser: bool,
    leader_units: set[int] | None = None,
    now=None,
) -> list[Entry]:
    """Check and save all the entries, or none of them (raises RegistrationError)."""
    # Lock the event row so two leaders registering the same person at once cannot both pass.
    event = _lock(event.pk)
    problems, checked = check_entries(
        event, forms, organiser=organiser, leader_units=leader_units, now=now
    )
    if problems:
        raise RegistrationError(problems)
    tournament = event.tournament
    late = deadline_passed(tournament, now)
    taken = set(event.entries.values_list("name", flat=True))
    created = []
    for item in checked:
        on_site = item.form.on_site if item.form.on_site is not None else (organiser and late)
        name = _entry_name(event, item, taken)
        taken.add(name)
        entry = Entry.objects.create(
            event=event,
            unit=item.unit,
            name=name,
            player=_person(tournament, item.player) if item.player else None,
            on_site=on_site,
            participation_award_only=on_site and event.advance_registration_required,
            registered_by=user if getattr(user, "is_authenticated", False) else None,
        )
        for number, (first, second) in enumerate(item.pairs, start=1):
            Pair.objects.create(
                entry=entry,
                number=number,
                first=_person(tournament, first),
                second=_person(tournament, second),
            )
        created.append(entry)
    event.bump_version()
    return created


@transaction.atomic
def update_entry(
    *, entry: Entry, form: EntryForm, user=None, organiser: bool, leader_units=None, now=None
) -> Entry:
    """Change an entry's players before the draw (same checks as registering it)."""
    event = _lock(entry.event_id)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.status != Entry.Status.REGISTERED:
        raise RegistrationError([Problem("", _("已退赛的报名不能修改。"))])
    problems, checked = check_entries(
        event, [form], organiser=organiser, leader_units=leader_units, replacing=entry, now=now
    )
    if problems:
        raise RegistrationError(problems)
    item = checked[0]
    if item.unit.pk != entry.unit_id:
        raise RegistrationError([Problem("", _("报名单位不能修改；请退赛后重新报名。"))])
    tournament = event.tournament
    taken = set(event.entries.exclude(pk=entry.pk).values_list("name", flat=True))
    entry.name = _entry_name(event, item, taken)
    entry.player = _person(tournament, item.player) if item.player else None
    entry.save(update_fields=["name", "player"])
    entry.pairs.all().delete()
    for number, (first, second) in enumerate(item.pairs, start=1):
        Pair.objects.create(
            entry=entry,
            number=number,
            first=_person(tournament, first),
            second=_person(tournament, second),
        )
    event.bump_version()
    return entry


@transaction.atomic
def withdraw_entry(*, entry: Entry, reason: str, user=None) -> Entry:
    """Withdraw (退赛) an entry; it is kept, with the reason, never deleted."""
    reason = plain_text(reason, limit=Entry.status_reason.field.max_length)
    if not reason:
        raise RegistrationError([Problem("", _("请填写退赛原因。"))])
    entry = (
        Entry.objects.select_for_update(of=("self",))
        .select_related("event__tournament")
        .get(pk=entry.pk)
    )
    if entry.status != Entry.Status.REGISTERED:
        raise RegistrationError(
            [
                Problem(
                    "", _("该报名已经是“%(status)s”状态。") % {"status": entry.get_status_display()}
                )
            ]
        )
    if event_finished(entry.event):
        raise RegistrationError(
            [
                Problem(
                    "", _("%(event)s已经结束，名次已定，不能再退赛。") % {"event": entry.event.name}
                )
            ]
        )
    entry.status = Entry.Status.WITHDRAWN
    entry.status_reason = reason[:200]
    entry.save(update_fields=["status", "status_reason"])
    if entry.event.drawn_at is not None:
        # After the draw a withdrawal is a walkover for every opponent still to come.
        from tournaments.draw.results import entry_out

        entry_out(entry=entry, status=Entry.Status.WITHDRAWN, reason=entry.status_reason)
    else:
        entry.event.bump_version()
    return entry
