"""Registration's rules (the seed notices'), each a function of what was submitted and what
is already saved, with no database: :func:`tournaments.registration.services.check_entries`
reads the tournament once and asks them in turn, and the tests ask them directly.

Each rule appends :class:`Problem` values (where — "第3行", "第2对" — and the rule broken) to
the list it is given, so one submission lists every problem at once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from guandan_cup.inputs import clean_name, name_key
from guandan_cup.words import listing

MAX_NAME_LENGTH = 50
_GENDERS = {"男": "M", "m": "M", "male": "M", "女": "F", "f": "F", "female": "F", "": ""}

# A person as checked: (their unit, their name as stored, "M"/"F"/"").
Person = tuple[object, str, str]


def parse_gender(value) -> str | None:
    """'男'/'女' (or M/F) -> 'M'/'F'; blank -> ''; anything else -> None."""
    key = name_key(value)
    return _GENDERS.get(key)


# The parts of a person as submitted, as PersonForm's ``at`` and ``fields`` name them.
PARTS = ("name", "gender", "unit")


@dataclass
class PersonForm:
    name: str
    gender: str = ""  # as typed: 男 / 女 / blank
    unit: str = ""  # the player's own unit; blank = the entry's unit
    # How the submission names this person, in its own words ("第1对选手1" on the web form);
    # blank: the rules' words (the Excel headers', "第1对选手一").
    label: str = ""
    # Where each part (PARTS) is, as the reader finds it ("第12行 C列"): a problem of that
    # part is placed there rather than at the entry's ``where``.
    at: dict[str, str] = field(default_factory=dict)
    # The form field of each part (a web form's "p1_1_unit"): a problem marks it.
    fields: dict[str, str] = field(default_factory=dict)


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
    # Where its unit was typed ("第9–11行 A列"), for a problem of the unit.
    at: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Problem:
    where: str
    message: str
    # The form fields at fault (a web form marks them); none for a problem of the whole entry.
    fields: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.where}：{self.message}" if self.where else self.message


@dataclass
class Checked:
    """An entry with its unit and the people of it that were resolved; ``complete`` when it
    passed all its own checks (an incomplete one is still checked against the others, so
    one submission lists every problem at once, and is never saved)."""

    form: EntryForm
    unit: object
    pairs: list[tuple[Person, Person]]
    player: Person | None
    complete: bool = True
    # Of an incomplete entry: the people resolved whose partner was not.
    others: list[Person] = field(default_factory=list)
    # The forms of people(), in the same order (where each was typed).
    typed: list[PersonForm] = field(default_factory=list)

    def people(self) -> list[Person]:
        if self.player:
            return [self.player]
        return [p for pair in self.pairs for p in pair] + self.others

    def spots(self) -> list[tuple[Person, str, tuple[str, ...]]]:
        """Each person with where their name was typed and its form field (the entry's
        ``where`` and no field when the submission does not say)."""
        typed = self.typed or [PersonForm("")] * len(self.people())
        return [
            (
                person,
                form.at.get("name") or self.form.where,
                (form.fields["name"],) if "name" in form.fields else (),
            )
            for person, form in zip(self.people(), typed, strict=True)
        ]


@dataclass
class Roster:
    """The tournament's units as registration reads them: by normalised name, and each joint
    team's (联队) member units."""

    by_name: dict[str, object]
    members: dict[int, list[object]]

    @classmethod
    def of(cls, units: Iterable, members_of) -> Roster:
        """``units`` in id order; ``members_of(unit)`` its member units. Keyed by the
        name's key (:func:`name_key`) — where two units of an old database share one (they
        are listed on the organiser's dashboard, 需要核对的名称), the first stands."""
        by_name, members = {}, {}
        for unit in units:
            key = name_key(unit.name)
            first = by_name.get(key)
            if first is None or (
                first.name != clean_name(first.name) and unit.name == clean_name(unit.name)
            ):
                by_name[key] = unit
            members[unit.pk] = list(members_of(unit))
        return cls(by_name, members)

    def named(self, name: str):
        return self.by_name.get(name_key(name))

    def name_of(self, pk: int) -> str:
        return next(u.name for u in self.by_name.values() if u.pk == pk)


# ------------------------------------------------------------------- the whole submission


def gate(*, locked: bool, organiser: bool, open_status: str | None, deadline: str | None):
    """Why nothing of this submission can be taken: the draw is made (pairs are fixed), or —
    for a leader — registration is not open (``open_status`` is the tournament's status when
    it is not 报名中) or its deadline (``deadline``, as shown) has passed."""
    if locked:
        return Problem("", _("本项目已抽签，配对选手不得重组；如需变动只能退赛。"))
    if organiser:
        return None
    if open_status is not None:
        return Problem("", _("本比赛现在不接受报名（%(status)s）。") % {"status": open_status})
    if deadline is not None:
        return Problem(
            "",
            _("报名已于%(deadline)s截止；截止后只能由组织者现场报名。") % {"deadline": deadline},
        )
    return None


# --------------------------------------------------------------------------- one entry


def resolve_person(roster: Roster, problems, where, label, person: PersonForm, entry_unit):
    """The person as stored — (unit, name, gender) — or None with the problem recorded: a
    name, a gender people write, and a unit that is the entry's or one of its joint team's.
    The person is named as the submission names them (``person.label``, else ``label``);
    each problem is placed at its part (``person.at``, else ``where``) and marks its field."""
    label = person.label or label

    def problem(part: str, message: str) -> None:
        field_name = person.fields.get(part)
        fields = (field_name,) if field_name else ()
        problems.append(Problem(person.at.get(part) or where, message, fields))

    name = clean_name(person.name)
    if not name:
        problem("name", _("%(who)s的姓名为空。") % {"who": label})
        return None
    if len(name) > MAX_NAME_LENGTH:
        message = _("%(who)s的姓名过长（最多%(n)s个字）。") % {"who": label, "n": MAX_NAME_LENGTH}
        problem("name", message)
        return None
    gender = parse_gender(person.gender)
    if gender is None:
        message = _("%(who)s的性别“%(value)s”无法识别，请填“男”或“女”。") % {
            "who": label,
            "value": person.gender,
        }
        problem("gender", message)
        return None
    members = roster.members.get(entry_unit.pk, [])
    unit_name = clean_name(person.unit)
    if not unit_name:
        if members:
            message = _("%(who)s须写明所属单位（联队%(team)s由%(units)s组成）。") % {
                "who": label,
                "team": entry_unit.name,
                "units": listing(m.name for m in members),
            }
            problem("unit", message)
            return None
        return (entry_unit, name, gender)
    unit = roster.named(unit_name)
    if unit is None or unit.pk not in {entry_unit.pk, *(m.pk for m in members)}:
        message = _("%(who)s的单位“%(unit)s”不属于%(team)s。") % {
            "who": label,
            "unit": unit_name,
            "team": entry_unit.name,
        }
        problem("unit", message)
        return None
    return (unit, name, gender)


def entry_unit(roster: Roster, problems, form: EntryForm, *, organiser, leader_units):
    """The unit an entry is for, or None: one of the tournament's, the leader's own, and an
    on-site entry only from the organiser."""
    unit = roster.named(form.unit)
    if unit is None:
        message = _("单位“%(unit)s”不在本比赛的单位名单中。") % {
            "unit": clean_name(form.unit) or "—"
        }
        problems.append(Problem(form.at.get("unit") or form.where, message))
        return None
    if not organiser and (leader_units is None or unit.pk not in leader_units):
        message = _("您只能为本单位报名（%(unit)s不是您领队的单位）。") % {"unit": unit.name}
        problems.append(Problem(form.where, message))
        return None
    if form.on_site and not organiser:
        problems.append(Problem(form.where, _("现场报名只能由组织者办理。")))
        return None
    return unit


def single(roster: Roster, problems, form: EntryForm, unit) -> Checked | None:
    """An individual event's entry: one player."""
    if form.player is None or form.pairs:
        problems.append(Problem(form.where, _("个人项目每个报名只有一名选手。")))
        return None
    player = resolve_person(roster, problems, form.where, _("选手"), form.player, unit)
    return Checked(form, unit, [], player, typed=[form.player]) if player is not None else None


def _seat_label(team: bool, number: int, seat: int) -> str:
    # The same words as the Excel headers (选手一姓名 …).
    if team:
        text = _("第%(n)s对选手一") if seat == 1 else _("第%(n)s对选手二")
        return text % {"n": number}
    return _("选手一") if seat == 1 else _("选手二")


def pairs(roster: Roster, problems, form: EntryForm, unit, *, wanted: int | None):
    """A pairs event's entry (one pair) or a team's (``wanted`` pairs, 每个工会小组报三组选手):
    every person resolved, no pair of one person twice. An entry with a problem comes back
    incomplete, with the people it resolved (a team of the wrong size has its people
    checked too), or None when it has none."""
    team = wanted is not None
    ok = True
    if len(form.pairs) != (wanted if team else 1):
        if team:
            message = _("每队须报%(wanted)s对选手，这里有%(got)s对。") % {
                "wanted": wanted,
                "got": len(form.pairs),
            }
        else:
            message = _("双人项目每个报名是一对（两名）选手。")
        problems.append(Problem(form.where, message))
        ok = False
    found, typed, others, others_typed = [], [], [], []
    for number, (first, second) in enumerate(form.pairs, start=1):
        a = resolve_person(roster, problems, form.where, _seat_label(team, number, 1), first, unit)
        b = resolve_person(roster, problems, form.where, _seat_label(team, number, 2), second, unit)
        if a is None or b is None:
            ok = False
            for person, typed_as in ((a, first), (b, second)):
                if person is not None:
                    others.append(person)
                    others_typed.append(typed_as)
        elif (a[0].pk, name_key(a[1])) == (b[0].pk, name_key(b[1])):
            label = _("第%(n)s对") % {"n": number} if team else _("这一对")
            message = _("%(pair)s两名选手是同一人（%(name)s）。") % {"pair": label, "name": a[1]}
            at = [p.at["name"] for p in (first, second) if "name" in p.at]
            fields = tuple(p.fields["name"] for p in (first, second) if "name" in p.fields)
            problems.append(Problem(listing(at) or form.where, message, fields))
            ok = False
        else:
            found.append((a, b))
            typed += [first, second]
    if not found and not others and not ok:
        return None
    return Checked(form, unit, found, None, complete=ok, others=others, typed=typed + others_typed)


# ------------------------------------------------------------------------ across entries


def places(checked: list[Checked]) -> dict[tuple[int, str], str]:
    """Each person of the submission — (unit pk, name key) — and where they are in it (where
    their name was typed: "第17行 C列、第18行 H列")."""
    found: dict[tuple[int, str], list[str]] = {}
    for item in checked:
        for (unit, name, _gender), where, _fields in item.spots():
            wheres = found.setdefault((unit.pk, name_key(name)), [])
            if where not in wheres:
                wheres.append(where)
    return {key: listing(w for w in wheres if w) for key, wheres in found.items()}


def name_fields(checked: list[Checked]) -> dict[tuple[int, str], tuple[str, ...]]:
    """Each person of the submission — (unit pk, name key) — and the form fields their name
    was typed in (a problem of that person marks them)."""
    found: dict[tuple[int, str], tuple[str, ...]] = {}
    for item in checked:
        for (unit, name, _gender), _where, fields in item.spots():
            key = (unit.pk, name_key(name))
            found[key] = found.get(key, ()) + fields
    return found


def people_names(checked: list[Checked]) -> dict[tuple[int, str], str]:
    """Each person of the submission — (unit pk, name key) — by the name as typed first."""
    found: dict[tuple[int, str], str] = {}
    for item in checked:
        for unit, name, _gender in item.people():
            found.setdefault((unit.pk, name_key(name)), name)
    return found


def repeated(roster: Roster, problems, checked: list[Checked], where) -> None:
    """Nobody twice in one submission (同一项目每人只能报一次); the problem marks every field
    the name was typed in."""
    people = Counter(
        (unit.pk, name_key(name)) for item in checked for unit, name, _g in item.people()
    )
    shown = people_names(checked)
    for key, count in people.items():
        if count > 1:
            message = _(
                "%(name)s（%(unit)s）在本次报名中出现了%(n)s次，同一项目每人只能报一次。"
            ) % {"name": shown[key], "unit": roster.name_of(key[0]), "n": count}
            problems.append(Problem(where[key], message, name_fields(checked).get(key, ())))


def already_entered(
    roster, problems, where, saved, *, event, one_event, event_names, names, fields=None
) -> None:
    """Nobody entered twice in the event, nor — where the notice says so (Anhui: 只能参加
    一个比赛项目) — in two events. ``saved`` is each saved person's events (slugs), keyed as
    ``where`` is, by (unit pk, name key); ``names`` the names as typed; ``fields`` the form
    fields each name was typed in (:func:`name_fields`)."""
    fields = fields or {}
    for key in where:
        events = saved.get(key, [])
        who = {"name": names.get(key, key[1]), "unit": roster.name_of(key[0])}
        if event in events:
            message = _("%(name)s（%(unit)s）已报名本项目，同一项目每人只能报一次。") % who
            problems.append(Problem(where[key], message, fields.get(key, ())))
        elif one_event and events:
            message = _("%(name)s（%(unit)s）已报名%(event)s，每人只能参加一个比赛项目。") % {
                **who,
                "event": event_names.get(events[0], events[0]),
            }
            problems.append(Problem(where[key], message, fields.get(key, ())))


def joint_team_clashes(roster: Roster, unit, fielded: set[int], checked) -> list[str]:
    """Why ``unit`` may not enter the event: a joint team (联队) and its member units are one
    side in an event (Nantong: 教务 plays inside 教务物理联队, not beside it). ``fielded``
    are the units with an active entry in the event, ``checked`` the submission's entries."""
    entering = fielded | {item.unit.pk for item in checked if item.unit.pk != unit.pk}
    found = []
    for team in roster.by_name.values():
        if team.pk in entering and unit.pk in {m.pk for m in roster.members.get(team.pk, [])}:
            found.append(
                _(
                    "%(unit)s是联队%(team)s的组成单位，%(team)s已在本项目报名，%(unit)s不能再单独报名。"
                )
                % {"unit": unit.name, "team": team.name}
            )
            break
    member = next((m for m in roster.members.get(unit.pk, []) if m.pk in entering), None)
    if member is not None:
        found.append(
            _("联队%(team)s的组成单位%(unit)s已在本项目单独报名，%(team)s不能再报名本项目。")
            % {"unit": member.name, "team": unit.name}
        )
    return found


def one_team_per_unit(problems, checked: list[Checked], fielded: set[int]) -> None:
    """A unit fields one team per team event (每个工会小组报三组选手)."""
    seen: set[int] = set()
    for item in checked:
        if item.unit.pk in fielded or item.unit.pk in seen:
            message = _("%(unit)s已在本项目报了一队。") % {"unit": item.unit.name}
            problems.append(Problem(item.form.where, message))
        seen.add(item.unit.pk)
