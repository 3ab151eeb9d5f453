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

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.inputs import normalise_name
from tournaments.draw.status import event_finished
from tournaments.models import Entry, Event, Pair, Player, Tournament, Unit
from tournaments.registration.joint import joint_team_clashes

MAX_NAME_LENGTH = 50
_GENDERS = {"男": "M", "m": "M", "male": "M", "女": "F", "f": "F", "female": "F", "": ""}


def parse_gender(value) -> str | None:
    """'男'/'女' (or M/F) -> 'M'/'F'; blank -> ''; anything else -> None."""
    key = normalise_name(value).lower()
    return _GENDERS.get(key)


@dataclass
class PersonForm:
    name: str
    gender: str = ""  # as typed: 男 / 女 / blank
    unit: str = ""  # the player's own unit; blank = the entry's unit


@dataclass
class EntryForm:
    """One entry as submitted: a unit's team of pairs, one pair, or one player."""

    unit: str
    pairs: list[tuple[PersonForm, PersonForm]] = field(default_factory=list)
    player: PersonForm | None = None
    # True/False as the organiser marked it; None = decide by the clock (after the
    # deadline an organiser's entry is an on-site one).
    on_site: bool | None = None
    where: str = ""  # "第3行" / "第3–5行" for messages; blank for a single web form


@dataclass(frozen=True)
class Problem:
    where: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}：{self.message}" if self.where else self.message


class RegistrationError(UserError):
    """Input a user can fix; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("registration_refused", "；".join(str(p) for p in problems))


@dataclass
class _Checked:
    form: EntryForm
    unit: Unit
    pairs: list[tuple[tuple[Unit, str, str], tuple[Unit, str, str]]]
    player: tuple[Unit, str, str] | None


def deadline_passed(tournament: Tournament, now=None) -> bool:
    now = now or timezone.now()
    return tournament.registration_deadline is not None and now >= tournament.registration_deadline


def check_entries(
    event: Event,
    forms: list[EntryForm],
    *,
    organiser: bool,
    leader_units: set[int] | None = None,
    replacing: Entry | None = None,
    now=None,
) -> tuple[list[Problem], list[_Checked]]:
    """Every problem with the submitted entries; nothing is written."""
    tournament = event.tournament
    problems: list[Problem] = []
    checked: list[_Checked] = []

    def problem(where: str, message: str) -> None:
        problems.append(Problem(where, message))

    if event.entries_locked:
        problem("", _("本项目已抽签，配对选手不得重组；如需变动只能退赛。"))
        return problems, checked
    if not organiser:
        if tournament.status != Tournament.Status.REGISTRATION_OPEN:
            problem(
                "",
                _("本比赛现在不接受报名（%(status)s）。")
                % {"status": tournament.get_status_display()},
            )
            return problems, checked
        if deadline_passed(tournament, now):
            deadline = timezone.localtime(tournament.registration_deadline)
            problem(
                "",
                _("报名已于%(deadline)s截止；截止后只能由组织者现场报名。")
                % {"deadline": deadline.strftime("%Y-%m-%d %H:%M")},
            )
            return problems, checked

    # Keyed by the normalised name, which every unit is stored as — except the clashes an old
    # database left (listed on the organiser's dashboard): there the row stored exactly as
    # the normalised name is the one meant.
    units: dict[str, Unit] = {}
    for u in tournament.units.prefetch_related("members").order_by("id"):
        key = normalise_name(u.name)
        if key not in units or u.name == key:
            units[key] = u
    kind = event.entry_kind

    def resolve_person(where: str, label: str, person: PersonForm, entry_unit: Unit):
        name = normalise_name(person.name)
        if not name:
            problem(where, _("%(who)s的姓名为空。") % {"who": label})
            return None
        if len(name) > MAX_NAME_LENGTH:
            problem(
                where,
                _("%(who)s的姓名过长（最多%(n)s个字）。") % {"who": label, "n": MAX_NAME_LENGTH},
            )
            return None
        gender = parse_gender(person.gender)
        if gender is None:
            problem(
                where,
                _("%(who)s的性别“%(value)s”无法识别，请填“男”或“女”。")
                % {"who": label, "value": person.gender},
            )
            return None
        members = list(entry_unit.members.all())
        unit_name = normalise_name(person.unit)
        if not unit_name:
            if members:
                problem(
                    where,
                    _("%(who)s须写明所属单位（联队%(team)s由%(units)s组成）。")
                    % {
                        "who": label,
                        "team": entry_unit.name,
                        "units": "、".join(m.name for m in members),
                    },
                )
                return None
            unit = entry_unit
        else:
            unit = units.get(unit_name)
            allowed = {entry_unit.pk, *(m.pk for m in members)}
            if unit is None or unit.pk not in allowed:
                problem(
                    where,
                    _("%(who)s的单位“%(unit)s”不属于%(team)s。")
                    % {"who": label, "unit": unit_name, "team": entry_unit.name},
                )
                return None
        return (unit, name, gender)

    for form in forms:
        where = form.where
        unit = units.get(normalise_name(form.unit))
        if unit is None:
            problem(
                where,
                _("单位“%(unit)s”不在本比赛的单位名单中。")
                % {"unit": normalise_name(form.unit) or "—"},
            )
            continue
        if not organiser and (leader_units is None or unit.pk not in leader_units):
            problem(
                where, _("您只能为本单位报名（%(unit)s不是您领队的单位）。") % {"unit": unit.name}
            )
            continue
        if form.on_site and not organiser:
            problem(where, _("现场报名只能由组织者办理。"))
            continue
        pairs, player = [], None
        if kind == Event.EntryKind.SINGLE:
            if form.player is None or form.pairs:
                problem(where, _("个人项目每个报名只有一名选手。"))
                continue
            player = resolve_person(where, _("选手"), form.player, unit)
            if player is None:
                continue
        else:
            wanted = event.pairs_per_team if kind == Event.EntryKind.TEAM else 1
            if len(form.pairs) != wanted:
                if kind == Event.EntryKind.TEAM:
                    problem(
                        where,
                        _("每队须报%(wanted)s对选手，这里有%(got)s对。")
                        % {"wanted": wanted, "got": len(form.pairs)},
                    )
                else:
                    problem(where, _("双人项目每个报名是一对（两名）选手。"))
                continue
            ok = True
            for number, (first, second) in enumerate(form.pairs, start=1):
                label = _("第%(n)s对") % {"n": number} if kind == Event.EntryKind.TEAM else ""

                def seat_label(number, seat):
                    # The same words as the Excel headers (选手一姓名 …).
                    if kind == Event.EntryKind.TEAM:
                        text = _("第%(n)s对选手一") if seat == 1 else _("第%(n)s对选手二")
                        return text % {"n": number}
                    return _("选手一") if seat == 1 else _("选手二")

                a = resolve_person(where, seat_label(number, 1), first, unit)
                b = resolve_person(where, seat_label(number, 2), second, unit)
                if a is None or b is None:
                    ok = False
                    continue
                if (a[0].pk, a[1]) == (b[0].pk, b[1]):
                    problem(
                        where,
                        _("%(pair)s两名选手是同一人（%(name)s）。")
                        % {"pair": label or _("这一对"), "name": a[1]},
                    )
                    ok = False
                    continue
                pairs.append((a, b))
            if not ok:
                continue
        checked.append(_Checked(form, unit, pairs, player))

    # The checks across entries run over every form that passed its own checks, so one
    # submission lists all of its problems at once.
    # Who is in this submission, and where.
    people: Counter = Counter()
    places: dict[tuple[int, str], list[str]] = {}
    for item in checked:
        persons = [item.player] if item.player else [p for pair in item.pairs for p in pair]
        for unit, name, _gender in persons:
            people[(unit.pk, name)] += 1
            wheres = places.setdefault((unit.pk, name), [])
            if item.form.where not in wheres:
                wheres.append(item.form.where)
    place = {key: "、".join(w for w in wheres if w) for key, wheres in places.items()}
    for (unit_pk, name), count in people.items():
        if count > 1:
            unit_name = next(u.name for u in units.values() if u.pk == unit_pk)
            problem(
                place[(unit_pk, name)],
                _("%(name)s（%(unit)s）在本次报名中出现了%(n)s次，同一项目每人只能报一次。")
                % {"name": name, "unit": unit_name, "n": count},
            )

    # Against what is saved: the same event, and (where the notice says so) other events.
    active = Entry.objects.filter(event__tournament=tournament, status=Entry.Status.REGISTERED)
    if replacing is not None:
        active = active.exclude(pk=replacing.pk)
    saved: dict[tuple[int, str], list[str]] = {}
    for entry in active.select_related("event", "player").prefetch_related(
        "pairs__first", "pairs__second"
    ):
        persons = (
            [entry.player]
            if entry.player
            else [p for pair in entry.pairs.all() for p in (pair.first, pair.second)]
        )
        for person in persons:
            saved.setdefault((person.unit_id, normalise_name(person.name)), []).append(
                entry.event.slug
            )
    event_names = dict(tournament.events.values_list("slug", "name"))
    for key in people:
        events = saved.get(key, [])
        unit_name = next(u.name for u in units.values() if u.pk == key[0])
        who = {"name": key[1], "unit": unit_name}
        if event.slug in events:
            problem(
                place[key], _("%(name)s（%(unit)s）已报名本项目，同一项目每人只能报一次。") % who
            )
        elif tournament.one_event_per_person and events:
            problem(
                place[key],
                _("%(name)s（%(unit)s）已报名%(event)s，每人只能参加一个比赛项目。")
                % {**who, "event": event_names.get(events[0], events[0])},
            )

    # A joint team (联队) and its member units are one side in an event.
    fielded = set(active.filter(event=event).values_list("unit_id", flat=True))
    for item in checked:
        for message in joint_team_clashes(item.unit, units.values(), fielded, checked):
            problem(item.form.where, message)

    # A unit fields one team per team event (每个工会小组报三组选手).
    if kind == Event.EntryKind.TEAM:
        existing = set(active.filter(event=event).values_list("unit_id", flat=True))
        seen: set[int] = set()
        for item in checked:
            if item.unit.pk in existing or item.unit.pk in seen:
                problem(
                    item.form.where, _("%(unit)s已在本项目报了一队。") % {"unit": item.unit.name}
                )
            seen.add(item.unit.pk)
    return problems, checked


def _entry_name(event: Event, item: _Checked, taken: set[str]) -> str:
    if event.entry_kind == Event.EntryKind.TEAM:
        name = item.unit.name
    elif item.player is not None:
        name = item.player[1]
    else:
        name = "/".join(p[1] for p in item.pairs[0])
    if name in taken:  # two 张伟 from different units
        name = f"{name}（{item.unit.name}）"
    return name


def _person(tournament: Tournament, person: tuple[Unit, str, str]) -> Player:
    unit, name, gender = person
    player, created = Player.objects.get_or_create(
        tournament=tournament, unit=unit, name=name, defaults={"gender": gender}
    )
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
    reason = normalise_name(reason)
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
