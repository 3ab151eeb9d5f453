"""Bad input everywhere: hypothesis posts random and hostile values to every URL that writes
(enumerated from the URL resolver), as a user allowed to write there, and checks that

- the server never answers 500 (the test client re-raises any exception a view lets out);
- a refused request (4xx, or a redirect carrying an error message) changes nothing at all:
  every row of the tournaments and scoring apps and every account is the same before and after;
- an accepted request changes only what its user may change: rows of the tournament in the
  URL, and, for a team leader or a table's referee, only their own unit's or table's rows.

Hostile values: empty, huge, wrong types, ids of other tournaments' rows, NUL bytes, lone
surrogates (sent as the invalid UTF-8 a broken client would send), RTL marks, emoji, digits
that are not ASCII (², ٣, １), SQL and HTML injections, invisible and bidi characters (zero-width
space and joiner, soft hyphen, U+202E, isolates). ``FUZZ_EXAMPLES`` sets the number of examples
per URL (default 20).

Names come as invisible twins of people and units already registered too ("甲组\u200b双a"):
after every accepted request nobody is in one event twice, nor in two events where the notice
says so, and no two units or officials share a name, however the names were typed.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlencode

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import constants as message_levels
from django.db import transaction
from django.db.models import Q
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guandan_cup.inputs import clean_name, name_key
from scoring.models import TableMatch
from scoring.services import players
from scoring.services.players import call_referee
from scoring.services.reports import add_report, rule_report
from scoring.services.tables import record_event, submit_table
from scoring.tests.utils import assign_referee
from tests.snapshots import app_models, changes, snapshot
from tournaments.draw.make import draw_event
from tournaments.models import Entry, Event, Match, Official, Player, Tournament, Unit
from tournaments.ops import backup
from tournaments.registration.services import EntryForm, PersonForm, register_entries

User = get_user_model()
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "20"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)

# --------------------------------------------------------------------------- hostile values

NASTY = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",  # a lone surrogate: goes out as the bytes ED A0 80, invalid UTF-8
    "名\udfff字",
    "\u202e反向\u202c",
    "\u200f\u200e",
    "\ufeff",
    "\u200b",
    "张\u200b三",
    "\u00ad",
    "\u200d",
    "\u2066甲\u2069",
    "\u2060\u180e",
    "😀🀄️👨‍👩‍👧",
    "𠜎𠜱",
    "Ａ１２",
    "²",
    "٣",
    "１０",
    "-1",
    "0",
    "00",
    "1e309",
    "NaN",
    "9" * 30,
    "9" * 5000,
    "-" + "9" * 30,
    "2147483648",
    "32768",
    "65536",
    "3.5",
    "null",
    "true",
    "[]",
    "{}",
    '{"a": [1, 2]}',
    '[{"order": ["A", "A", "B", "B"]}]',
    "'; DROP TABLE tournaments_entry; --",
    "1 OR 1=1",
    '" OR ""="',
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(1)>',
    "{{ 7*7 }}{% debug %}",
    "{name}{0}{",
    "%s%s%n",
    "../../etc/passwd",
    "x" * 301,
    "长" * 5000,
    "\n\r\t",
    "9999-12-31T23:59",
    "0001-01-01T00:00",
    "2021-02-30T25:61",
    "2026-05-01",
    "12:00",
]


EDGE_TIMES = ["0001-01-01T00:00", "9999-12-31T23:59", "2026-02-29T10:00", "1899-12-31T23:59"]
EDGE_DATES = ["0001-01-01", "9999-12-31", "2026-02-29", "1970-01-01"]


INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\u202e", "\u202c", "\u2066", "\u2069", "\ufeff"]


def twins(*names: str) -> list[str]:
    """Each name, and invisibly different spellings of it (which are the same name)."""
    out = list(names)
    for name in names:
        out += [name[:1] + "\u200b" + name[1:], "\u202e" + name, name + "\u00ad"]
        out.append("\u2066" + name[:-1] + "\u200d" + name[-1:] + "\u2069")
    return out


def hostile() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(NASTY),
        st.sampled_from(EDGE_TIMES + EDGE_DATES),
        st.text(max_size=40),
        st.integers(min_value=-(2**70), max_value=2**70).map(str),
        st.lists(st.sampled_from(NASTY), min_size=2, max_size=3).map("".join),
        st.lists(st.sampled_from(INVISIBLE), min_size=1, max_size=3).map("".join),
    )


@dataclass(frozen=True)
class Valid:
    """The plausible values of one form field (or a strategy that draws them)."""

    choices: tuple | st.SearchStrategy

    def strategy(self) -> st.SearchStrategy:
        if isinstance(self.choices, st.SearchStrategy):
            return self.choices
        return st.sampled_from(self.choices)


def value(*valid) -> Valid:
    return Valid(tuple(str(v) for v in valid) or ("",))


def when(*valid) -> Valid:
    """A date or time: plausible (the calendar's edges come as hostile values)."""
    return value(*valid)


def form(fields: dict[str, Valid], optional: dict[str, Valid] | None = None):
    """A form that is valid except for up to three fields spoilt with a hostile value (an
    unexpected field among them, sometimes): so requests get past the first check often
    enough to reach the services, and every field meets every hostile value."""

    @st.composite
    def build(draw):
        data = {name: draw(v.strategy(), label=name) for name, v in fields.items()}
        for name, v in (optional or {}).items():
            if draw(st.booleans(), label=f"with {name}"):
                data[name] = draw(v.strategy(), label=name)
        names = sorted(data) + ["unexpected"]
        most = min(3, max(1, len(names) // 3))
        spoilt = draw(st.lists(st.sampled_from(names), max_size=most, unique=True), label="spoilt")
        for name in spoilt:
            data[name] = draw(hostile(), label=f"hostile {name}")
        return data

    return build()


def json_value() -> st.SearchStrategy:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True),
        st.sampled_from(["A", "B", "AABB", "order", "penalty", "time_up", "forfeit"]),
        st.text(max_size=10),
    )
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, max_size=5),
            st.dictionaries(
                st.sampled_from(
                    [
                        "order",
                        "penalty",
                        "team",
                        "levels",
                        "kind",
                        "time_up",
                        "forfeit",
                        "reason",
                        "x",
                    ]
                ),
                inner,
                max_size=4,
            ),
        ),
        max_leaves=12,
    )


def events_json() -> st.SearchStrategy[str]:
    good = [
        [{"order": list("AABB")}, {"time_up": True}],
        [{"order": list("BBAA")}, {"penalty": {"team": "A", "levels": 2}}, {"time_up": True}],
    ]
    return st.one_of(
        st.sampled_from(good).map(json.dumps),
        st.sampled_from(good).map(json.dumps),
        json_value().map(lambda v: json.dumps(v, allow_nan=True)),
        hostile(),
    )


# --------------------------------------------------------------------------- the world


@dataclass
class World:
    """The demo (nantong drawn, anhui drawn), and fuzz-cup open for registration; who acts."""

    cup: Tournament
    nantong: Tournament
    organiser: object
    leader: object
    referee: object
    chief: object
    table: TableMatch  # nantong, assigned to ``referee``
    sport_table: TableMatch  # nantong's badminton match, assigned to ``referee`` too
    own_units: list[Unit]
    own_entries: list[Entry]
    ids: dict = field(default_factory=dict)  # pools of ids: own and other tournaments'
    url: str = ""  # the URL of the current example

    @property
    def sport_referee(self):
        return self.referee


def person(name, gender="男", unit=""):
    return PersonForm(name, gender, unit)


@pytest.fixture(scope="module")
def shared_world(django_db_setup, django_db_blocker):
    """Built once for the module (loading the demo for each URL would cost more than all
    the examples): committed to the test database, and flushed away at the end."""
    from django.core.management import call_command

    with django_db_blocker.unblock():
        try:
            yield build_world()
        finally:
            call_command("flush", interactive=False, verbosity=0)


@pytest.fixture
def world(shared_world, db):
    """The shared world; what a test adds (its prepared state) is rolled back after it."""
    shared_world.ids.pop("prepared", None)
    return shared_world


def build_world() -> World:
    from tournaments.ops.demo import load_demo

    demo = {t.slug: t for t in load_demo()}
    nantong, anhui = demo["nantong-2014"], demo["anhui-2021"]
    cup = Tournament.objects.create(
        slug="fuzz-cup",
        name="模糊测试杯",
        organiser_name="测试工会",
        notice_title="关于举行模糊测试杯的通知",
        notice_text="一、比赛时间",
        starts_on=dt.date(2026, 12, 1),
        status=Tournament.Status.REGISTRATION_OPEN,
    )
    venue = cup.venues.create(name="活动中心", tables=12)
    a = Unit.objects.create(tournament=cup, name="甲组", kind=Unit.Kind.UNION_GROUP)
    b = Unit.objects.create(tournament=cup, name="乙组", kind=Unit.Kind.UNION_GROUP)
    c = Unit.objects.create(tournament=cup, name="丙组", kind=Unit.Kind.UNION_GROUP)
    joint = Unit.objects.create(tournament=cup, name="甲乙联队", kind=Unit.Kind.JOINT)
    joint.members.set([a, b])
    team = Event.objects.create(
        tournament=cup,
        slug="team",
        name="掼蛋团体",
        discipline="guandan_team",
        pairs_per_team=3,
        ruleset="nantong2014",
        venue=venue,
    )
    pairs = Event.objects.create(
        tournament=cup,
        slug="pairs",
        name="掼蛋双人",
        discipline="guandan_pairs",
        ruleset="anhui2021",
    )
    single = Event.objects.create(tournament=cup, slug="single", name="象棋", discipline="xiangqi")
    register_entries(
        event=team,
        forms=[
            EntryForm(
                unit=u.name,
                pairs=[(person(f"{u.name}{i}a"), person(f"{u.name}{i}b")) for i in range(3)],
            )
            for u in (b, c)
        ],
        organiser=True,
    )
    register_entries(
        event=pairs,
        forms=[
            EntryForm(unit=u.name, pairs=[(person(f"{u.name}双a"), person(f"{u.name}双b"))])
            for u in (a, b, c)
        ],
        organiser=True,
    )
    register_entries(
        event=single,
        forms=[EntryForm(unit=u.name, player=person(f"{u.name}棋")) for u in (a, b, c)],
        organiser=True,
    )
    organiser = User.objects.create_user("fuzz-organiser")
    leader = User.objects.create_user("fuzz-leader")
    referee = User.objects.create_user("fuzz-referee")
    chief = User.objects.create_user("fuzz-chief")
    for t in (cup, nantong):
        Official.objects.create(tournament=t, name="组织者", role="organiser", user=organiser)
    Official.objects.create(tournament=nantong, name="裁判", role="referee", user=referee)
    Official.objects.create(tournament=nantong, name="裁判长", role="chief_referee", user=chief)
    a.leaders.add(leader)
    joint.leaders.add(leader)
    match = (
        Match.objects.filter(round__stage__event__tournament=nantong, round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .first()
    )
    table = match.tables.order_by("number").first()
    assign_referee(TableMatch.objects.filter(pk=table.pk), referee)
    table.refresh_from_db()
    # A badminton match in nantong, refereed by the same referee (games, rallies, first server).
    badminton = Event.objects.create(
        tournament=nantong, slug="badminton", name="羽毛球", discipline="badminton"
    )
    for name, unit_name in (("周羽", "体育"), ("吴球", "行政")):
        unit = nantong.units.get(name=unit_name)
        player = Player.objects.create(tournament=nantong, unit=unit, name=name)
        Entry.objects.create(event=badminton, unit=unit, name=name, player=player)
    draw_event(event=badminton, seed=1)
    sport_table = TableMatch.objects.get(match__round__stage__event=badminton)
    assign_referee(TableMatch.objects.filter(pk=sport_table.pk), referee)
    sport_table.refresh_from_db()
    own_entries = list(Entry.objects.filter(unit__in=[a, joint]).order_by("pk"))
    other = {
        "entry": list(
            Entry.objects.exclude(event__tournament=cup).values_list("pk", flat=True)[:3]
        ),
        "unit": list(Unit.objects.exclude(tournament=cup).values_list("pk", flat=True)[:3]),
        "venue": list(anhui.venues.values_list("pk", flat=True)[:2]),
        "table": list(
            TableMatch.objects.exclude(match__round__stage__event__tournament=nantong).values_list(
                "pk", flat=True
            )[:3]
        ),
        "user": [organiser.pk, leader.pk, 10**9],
        "official": list(anhui.officials.values_list("pk", flat=True)[:2]) + [10**9],
    }
    return World(
        cup=cup,
        nantong=nantong,
        organiser=organiser,
        leader=leader,
        referee=referee,
        chief=chief,
        table=table,
        sport_table=sport_table,
        own_units=[a, joint],
        own_entries=own_entries,
        ids=other,
    )


# --------------------------------------------------------------------------- the endpoints


@dataclass(frozen=True)
class Endpoint:
    """A URL that writes: who posts, where, and what (a strategy over form data)."""

    actor: str  # organiser | leader | referee | chief
    tournament: str  # cup | nantong
    url: Callable[[World, st.DataObject], str]
    data: Callable[[World], st.SearchStrategy[dict]]
    htmx: bool = False
    creates_users: bool = False
    resets_passwords: bool = False  # of this tournament's leaders and officials, nothing else
    upload: bool = False
    prepare: Callable[[World], None] | None = None  # the state in which the URL can succeed
    creates_tournament: bool = False  # rows of a tournament this request made are its own


def _entry_fields(w: World, prefix: str = "") -> st.SearchStrategy[dict]:
    """An entry form: team, pair and single fields all present (the form reads its own)."""
    if prefix is None:  # add-entry: the form's prefix is the event of the URL
        prefix = w.url.rstrip("/").split("/")[-2] + "-"
    fields = {}
    for pair in range(1, 4):
        for seat in (1, 2):
            p = f"{prefix}p{pair}_{seat}"
            # Mostly a new person; sometimes one already entered in this or another event.
            fields[f"{p}_name"] = value(*[f"队员{pair}{seat}"] * 4, *twins("甲组双a", "乙组棋"))
            fields[f"{p}_gender"] = value("男", "女", "")
            fields[f"{p}_unit"] = value("甲组", "乙组")
    fields[f"{prefix}s_name"] = value("新棋手", *twins("乙组棋", "甲组双a"))
    fields[f"{prefix}s_gender"] = value("男", "女")
    fields[f"{prefix}s_unit"] = value("甲组", "")
    fields[f"{prefix}on_site"] = value("", "on")
    return form(fields)


def _event_slug(d: st.DataObject) -> str:
    return d.draw(st.sampled_from(["team", "pairs", "single"]))


def _cup(w, name, *args):
    return reverse(name, args=[w.cup.slug, *args])


def _nantong_table(w, name, *args):
    return reverse(name, args=[w.nantong.slug, "guandan", w.table.pk, *args])


def _ids(*pools) -> list[str]:
    return [str(i) for pool in pools for i in pool]


def _draw_data(w: World) -> st.SearchStrategy[dict]:
    entries = list(Entry.objects.filter(event__tournament=w.cup).values_list("pk", flat=True))
    lot_keys = st.sampled_from(_ids(entries, w.ids["entry"]) + ["x", "", "²", "-1"])
    return form(
        {
            "method": value("random", "physical"),
            "seed": value("", "2014", "0"),
            "format": value("knockout", "groups", "swiss"),
            "third_place": value("on", ""),
            "qualifiers": value("", "2", "4"),
            "groups": value("1", "2", "3"),
            "advance": value("1", "2"),
            "swiss_rounds": value("1", "3", "5"),
            "win_points": value("2", "3"),
            "draw_points": value("1"),
            "loss_points": value("0"),
        },
        optional={
            "lots": Valid(st.dictionaries(lot_keys, st.sampled_from("12345"), max_size=5)),
            "seeds": Valid(st.dictionaries(lot_keys, st.sampled_from("12"), max_size=3)),
        },
    ).map(_flatten_lots)


def _flatten_lots(data: dict) -> dict:
    out = {k: v for k, v in data.items() if k not in ("lots", "seeds")}
    for prefix in ("lot", "seed"):
        numbers = data.get(prefix + "s")
        if isinstance(numbers, dict):
            out.update({f"{prefix}-{key}": n for key, n in numbers.items()})
        elif numbers is not None:
            out[f"{prefix}-"] = numbers  # spoilt
    return out


def _schedule_data(w: World) -> st.SearchStrategy[dict]:
    event = Event.objects.get(tournament=w.nantong, slug="guandan")
    rounds = list(event.stages.values_list("rounds__pk", flat=True))
    matches = list(Match.objects.filter(round__stage__event=event).values_list("pk", flat=True)[:4])
    venues = _ids(w.nantong.venues.values_list("pk", flat=True), w.ids["venue"])
    users = _ids([w.referee.pk, w.chief.pk], w.ids["user"])
    fields = {
        "auto": value("", "1"),
        "start": when("2026-12-01T08:00", "2026-12-01 08:00"),
        "minutes": value("60", "10", "9", "100000"),
        "venue": value(*venues),
    }
    for r in rounds[:2]:
        fields[f"round-{r}"] = when("2026-12-01T08:00", "")
    for m in matches:
        fields[f"table-{m}"] = value("1", "4", "")
        fields[f"venue-{m}"] = value(*venues)
        fields[f"referee-{m}"] = value(*users, "")
    return form(fields)


def _day_plan_data(w: World) -> st.SearchStrategy[dict]:
    fields = {
        "action": value("preview", "save", "replan", "add-duty", "remove-duty"),
        "fingerprint": value("0" * 16),
        "from_minute": value("600", ""),
        "official": value(
            *_ids(w.nantong.officials.values_list("pk", flat=True), w.ids["official"])
        ),
        "venue": value(*_ids(w.nantong.venues.values_list("pk", flat=True), w.ids["venue"])),
        "from": when("08:30", ""),
        "until": when("12:00", ""),
        "duty": value("1", ""),
        "day-starts_at": when("08:30", "14:00"),
        "day-ends_at": when("17:30", "18:00"),
        "day-breaks": value("12:00-13:30", "", "12:00-13:30, 15:00-15:10"),
        "day-changeover_minutes": value("5", "0"),
    }
    for event in w.nantong.events.all():
        fields[f"event-{event.pk}-minutes"] = value("60", "30")
        fields[f"event-{event.pk}-rest"] = value("0", "10")
        for venue in w.nantong.venues.all():
            fields[f"event-{event.pk}-hall-{venue.pk}"] = value("全部", "1-6", "", "1, 4-6")
    for official in w.nantong.officials.filter(role__in=["referee", "chief_referee"]):
        fields[f"official-{official.pk}-on_duty"] = value("on", "")
        fields[f"official-{official.pk}-duty_from"] = when("08:00", "")
        fields[f"official-{official.pk}-duty_until"] = when("18:00", "")
    return form(fields)


def _xlsx_upload(w: World) -> st.SearchStrategy[dict]:
    def workbook(cells: list[str]) -> bytes:
        from openpyxl import load_workbook

        from tournaments.registration.spreadsheets.template import template_workbook

        book = load_workbook(
            io.BytesIO(template_workbook(Event.objects.get(tournament=w.cup, slug="pairs")))
        )
        sheet = book.worksheets[0]
        row = sheet.max_row + 1
        for column, text in enumerate(cells, start=1):
            # openpyxl refuses control characters itself; a real file cannot hold them.
            sheet.cell(
                row=row,
                column=column,
                value="".join(ch for ch in text if ch >= " " and not 0xD800 <= ord(ch) <= 0xDFFF),
            )
        out = io.BytesIO()
        book.save(out)
        return out.getvalue()

    # The pairs event's columns: 单位, 选手一姓名, 性别, 所属单位, 选手二姓名, 性别, 所属单位, 现场报名.
    row = ["甲组", "新甲", "男", "甲组", "新乙", "女", "", "否"]
    choices = {0: twins("甲组"), 1: ["新甲", *twins("甲组双a", "乙组棋")]}
    cells = form({str(i): value(*choices.get(i, [v])) for i, v in enumerate(row)}).map(
        lambda c: [c.get(str(i), "") for i in range(len(row))]
    )
    good = cells.map(workbook)
    files = st.one_of(
        good,
        good,
        good,
        st.binary(max_size=2000),
        st.just(b"PK\x03\x04" + b"\x00" * 100),
    )
    return form({"file": Valid(files), "confirm": value(""), "name": value("报名表.xlsx")})


def _table_data(**fields) -> Callable[[World], st.SearchStrategy[dict]]:
    def make(w: World) -> st.SearchStrategy[dict]:
        version = TableMatch.objects.get(pk=w.table.pk).version
        base = {"key": value("k1", "k" * 64), "version": value(version, version - 1)}
        base.update(fields)
        return form(base)

    return make


def _dealt(w: World) -> None:
    record_event(table=w.table, event={"order": list("AABB")}, key="prep-1")


def _over(w: World) -> None:
    _dealt(w)
    record_event(table=w.table, event={"time_up": True}, key="prep-2")


def _submitted(w: World) -> None:
    _over(w)
    submit_table(table=w.table, user=w.referee)


def _three_upheld(w: World) -> None:
    _dealt(w)
    for n in range(3):
        report = add_report(table=w.table, team="A", description=f"违规{n}")
        rule_report(report=report, upheld=True, user=w.chief)


def _one_event_per_person(w: World) -> None:
    """The notice's 每人限报一项, so that an invisible twin of someone in another event meets it."""
    Tournament.objects.filter(pk=w.cup.pk).update(one_event_per_person=True)


def _a_report(w: World) -> int:
    report = add_report(table=w.table, team="A", description="偷看", user=w.referee)
    return report.pk


def _players_enter(w: World) -> None:
    Tournament.objects.filter(pk=w.nantong.pk).update(result_entry="players")


def _play(w: World, name: str, table=None) -> str:
    """The players' link of the table (or a forged one: another table's number)."""
    return reverse(name, args=[players.make_code(table or w.table)])


def _players_over(w: World) -> None:
    _players_enter(w)
    _over(w)


def _players_submitted(w: World) -> None:
    _players_over(w)
    submit_table(table=w.table, side="A")


ENDPOINTS: dict[str, Endpoint] = {
    # Team leaders (领队): their own units' entries in fuzz-cup.
    "registration:add-entry": Endpoint(
        "leader",
        "cup",
        lambda w, d: _cup(
            w,
            "registration:add-entry",
            d.draw(st.sampled_from([u.pk for u in w.own_units] * 3 + w.ids["unit"])),
            _event_slug(d),
        ),
        lambda w: _entry_fields(w, None),
        prepare=_one_event_per_person,
    ),
    "registration:entry-edit": Endpoint(
        "leader",
        "cup",
        lambda w, d: _cup(
            w, "registration:entry-edit", d.draw(st.sampled_from([e.pk for e in w.own_entries]))
        ),
        lambda w: _entry_fields(w),
        prepare=_one_event_per_person,
    ),
    "registration:withdraw": Endpoint(
        "leader",
        "cup",
        lambda w, d: _cup(
            w, "registration:withdraw", d.draw(st.sampled_from([e.pk for e in w.own_entries]))
        ),
        lambda w: form({"reason": value("受伤"), "next": value("manage", "")}),
    ),
    # Organisers (组织者).
    "manage:status": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:status"),
        lambda w: form({"action": value("open", "close", "draft")}),
    ),
    "manage:settings": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:settings"),
        lambda w: form(
            {
                "name": value("模糊测试杯"),
                "organiser_name": value("测试工会"),
                "starts_on": when("2026-12-01"),
                "start_time": value("08:30", ""),
                "registration_deadline": when("2026-11-20T12:00", ""),
                "leaders_meeting_at": when("2026-11-25T16:00", ""),
                "leaders_meeting_place": value("会议室"),
                "one_event_per_person": value("on", ""),
                "notice_title": value("通知"),
                "notice_addressee": value("各工会小组："),
                "notice_text": value("一、比赛时间"),
                "notice_date": when("2026-11-01", ""),
                "rules_title": value("规则"),
                "rules_text": value("一、规则"),
                "certificate_title": value("荣誉证书"),
                "certificate_text": value("{name}荣获{prize}", "{name"),
                "certificate_signature": value("工会"),
            }
        ),
    ),
    "manage:event-new": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:event-new"),
        lambda w: _event_fields(w),
    ),
    "manage:event-edit": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:event-edit", _event_slug(d)),
        lambda w: _event_fields(w),
    ),
    "manage:units": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:units"),
        lambda w: form(
            {
                "name": value("丁组", *twins("甲组")),
                "kind": value("union_group", "joint", "department"),
                "members": Valid(
                    st.one_of(
                        st.just([]),
                        st.lists(
                            st.sampled_from(
                                _ids(w.cup.units.values_list("pk", flat=True), w.ids["unit"])
                            ),
                            max_size=3,
                        ),
                    )
                ),
            }
        ),
    ),
    "manage:unit-edit": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "manage:unit-edit",
            d.draw(st.sampled_from(_ids(w.cup.units.values_list("pk", flat=True), w.ids["unit"]))),
        ),
        lambda w: form(
            {
                "name": value("丁组", "甲乙丙联队", *twins("甲组", "甲乙联队")),
                "kind": value("union_group", "joint", "department"),
                "members": Valid(
                    st.lists(
                        st.sampled_from(
                            _ids(w.cup.units.values_list("pk", flat=True), w.ids["unit"])
                        ),
                        max_size=3,
                    )
                ),
            }
        ),
    ),
    "manage:unit-delete": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "manage:unit-delete",
            d.draw(st.sampled_from(_ids(w.cup.units.values_list("pk", flat=True), w.ids["unit"]))),
        ),
        lambda w: form({"confirm": value("1", "", "0")}),
    ),
    "manage:add-leader": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "manage:add-leader",
            d.draw(st.sampled_from([u.pk for u in w.own_units] + w.ids["unit"])),
        ),
        lambda w: form(
            {"username": value("leader-new", "fuzz-leader"), "password": value("Leader-2026-pass")}
        ),
        creates_users=True,
    ),
    "links:leader-invite": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "links:leader-invite",
            d.draw(st.sampled_from([u.pk for u in w.own_units] + w.ids["unit"])),
        ),
        lambda w: form({"name": value("领队甲", "x" * 51), "account": value("", "1")}),
        creates_users=True,
    ),
    "manage:reset-password": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "manage:reset-password",
            d.draw(st.sampled_from([w.leader.pk, w.organiser.pk, w.chief.pk] + w.ids["user"])),
        ),
        lambda w: form({"confirm": value("1", ""), "back": value("units", "officials")}),
        resets_passwords=True,
    ),
    "manage:officials": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:officials"),
        lambda w: form(
            {
                "name": value("王裁判", *twins("组织者")),
                "role": value(*Official.Role.values),
                "username": value("", "ref-new", "fuzz-chief"),
                "password": value("Referee-2026-pass", ""),
            }
        ),
        creates_users=True,
    ),
    "registration:unit-import": Endpoint(
        "leader",
        "cup",
        lambda w, d: _cup(
            w,
            "registration:unit-import",
            d.draw(st.sampled_from([u.pk for u in w.own_units])),
            "pairs",
        ),
        _xlsx_upload,
        upload=True,
    ),
    "manage:entries-import": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "manage:entries-import", "pairs"),
        _xlsx_upload,
        upload=True,
    ),
    # The organiser's set-up: a new tournament, a copy of this one, its venues.
    "setup:new": Endpoint(
        "organiser",
        "cup",
        lambda w, d: reverse("setup:new"),
        lambda w: form(
            {
                "name": value("新比赛"),
                "slug": value("fuzz-new", "fuzz-cup", "Fuzz_2027"),
                "organiser_name": value("测试工会"),
                "starts_on": when("2027-05-01"),
                "start_time": value("08:30", ""),
                "registration_deadline": when("2027-04-20T12:00", "2027-05-02T12:00", ""),
                "leaders_meeting_at": when("2027-04-25T16:00", ""),
                "notice_title": value("通知"),
                "notice_text": value("一、比赛时间"),
                "confirmation": value("official", "chief"),
            }
        ),
        creates_tournament=True,
    ),
    "setup:copy": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "setup:copy"),
        lambda w: form(
            {
                "slug": value("fuzz-cup-2027", "fuzz-cup", "nantong-2014"),
                "name": value("模糊测试杯（第二届）", *twins("模糊测试杯")),
                "notice_title": value("关于举行第二届的通知"),
                "starts_on": when("2027-12-01"),
                "start_time": value("08:30", ""),
                "registration_deadline": when("2027-11-20T12:00", "2027-12-02T08:00", ""),
                "leaders_meeting_at": when("2027-11-25T16:00", ""),
            }
        ),
        creates_tournament=True,
    ),
    "setup:venues": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "setup:venues"),
        lambda w: form(
            {
                "name": value("二楼大厅", *twins("活动中心")),
                "tables": value("12", "1", "200", "0", "201"),
                "order": value("0", "", "3"),
            }
        ),
    ),
    "setup:venue-edit": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "setup:venue-edit",
            d.draw(
                st.sampled_from(_ids(w.cup.venues.values_list("pk", flat=True), w.ids["venue"]))
            ),
        ),
        lambda w: form(
            {
                "name": value("活动中心", "新名字"),
                "tables": value("12", "30", "0"),
                "order": value("0", ""),
            }
        ),
    ),
    "setup:venue-delete": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(
            w,
            "setup:venue-delete",
            d.draw(
                st.sampled_from(_ids(w.cup.venues.values_list("pk", flat=True), w.ids["venue"]))
            ),
        ),
        lambda w: form({"confirm": value("1", "")}),
    ),
    "draw:draw": Endpoint(
        "organiser",
        "cup",
        lambda w, d: _cup(w, "draw:draw", _event_slug(d)),
        _draw_data,
        prepare=lambda w: Tournament.objects.filter(pk=w.cup.pk).update(
            status=Tournament.Status.REGISTRATION_CLOSED  # the draw follows registration
        ),
    ),
    "draw:undo": Endpoint(
        "organiser",
        "nantong",
        lambda w, d: reverse("draw:undo", args=[w.nantong.slug, "guandan"]),
        lambda w: form({"confirm": value("1", "", "0")}),
    ),
    "draw:schedule": Endpoint(
        "organiser",
        "nantong",
        lambda w, d: reverse("draw:schedule", args=[w.nantong.slug, "guandan"]),
        _schedule_data,
    ),
    "day:queue": Endpoint(
        "chief",
        "nantong",
        lambda w, d: reverse("day:queue", args=[w.nantong.slug, w.nantong.venues.first().pk]),
        lambda w: form(
            {
                "action": value("call", "hold", "release", "front"),
                "match": value(w.table.match_id),
            }
        ),
    ),
    "day:plan": Endpoint(
        "organiser",
        "nantong",
        lambda w, d: reverse("day:plan", args=[w.nantong.slug]),
        _day_plan_data,
    ),
    # The table's referee (裁判), on a phone: htmx requests.
    "scoring:deal": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:deal"),
        _table_data(deal=value("A2", "A3", "A4", "B2", "B3", "B4")),
        htmx=True,
    ),
    "scoring:game": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: reverse("scoring:game", args=[w.nantong.slug, "badminton", w.sport_table.pk]),
        lambda w: form(
            {
                "key": value("k1", "k" * 64),
                "version": value(TableMatch.objects.get(pk=w.sport_table.pk).version),
                "home": value("21", "30", "19", "22", "0"),
                "away": value("17", "29", "21", "20", "30"),
            }
        ),
        htmx=True,
    ),
    "scoring:point": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: reverse("scoring:point", args=[w.nantong.slug, "badminton", w.sport_table.pk]),
        lambda w: form({"key": value("k1", "k2"), "side": value("home", "away")}),
        htmx=True,
    ),
    "scoring:first-server": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: reverse(
            "scoring:first-server", args=[w.nantong.slug, "badminton", w.sport_table.pk]
        ),
        lambda w: form({"key": value("k1"), "side": value("home", "away")}),
        htmx=True,
    ),
    # The players' link (扫码录分): anyone with a table's code; a referee's phone here too.
    "scoring:play-deal": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-deal"),
        _table_data(deal=value("A2", "B4", "A", "C2")),
        htmx=True,
        prepare=_players_enter,
    ),
    "scoring:play-game": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-game", w.sport_table),
        lambda w: form(
            {
                "key": value("k1"),
                "version": value(TableMatch.objects.get(pk=w.sport_table.pk).version),
                "home": value("21", "-1", "999"),
                "away": value("18", "x"),
            }
        ),
        htmx=True,
        prepare=_players_enter,
    ),
    "scoring:play-point": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-point", w.sport_table),
        lambda w: form({"key": value("k1"), "side": value("home", "away")}),
        htmx=True,
        prepare=_players_enter,
    ),
    "scoring:play-first-server": Endpoint(
        "sport_referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-first-server", w.sport_table),
        lambda w: form({"key": value("k1"), "side": value("home", "away")}),
        htmx=True,
        prepare=_players_enter,
    ),
    "scoring:play-time-up": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-time-up"),
        _table_data(),
        htmx=True,
        prepare=lambda w: (_players_enter(w), _dealt(w)),
    ),
    "scoring:play-undo": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-undo"),
        _table_data(),
        htmx=True,
        prepare=lambda w: (_players_enter(w), _dealt(w)),
    ),
    "scoring:play-submit": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-submit"),
        _table_data(side=value("A", "B", "", "AB")),
        htmx=True,
        prepare=_players_over,
    ),
    "scoring:play-confirm": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-confirm"),
        _table_data(side=value("A", "B", "")),
        htmx=True,
        prepare=_players_submitted,
    ),
    "scoring:play-call": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _play(w, "scoring:play-call"),
        _table_data(
            kind=value("dispute", "help", "other"), side=value("A", "B", "", "C"), note=value("")
        ),
        htmx=True,
        prepare=_players_enter,
    ),
    "scoring:resolve-call": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:resolve-call"),
        lambda w: form({}),
        htmx=True,
        prepare=lambda w: call_referee(table=w.table, side="A", kind="help", key="prep-call"),
    ),
    "scoring:reopen": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:reopen"),
        _table_data(),
        htmx=True,
        prepare=_submitted,
    ),
    "scoring:lock": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:lock"),
        lambda w: form({"locked": value("1", "0", "")}),
        htmx=True,
    ),
    "links:list": Endpoint(
        "chief",
        "nantong",
        lambda w, d: reverse("links:list", args=[w.nantong.slug]),
        lambda w: form(
            {
                "official": value(
                    *_ids(
                        w.nantong.officials.filter(role="referee").values_list("pk", flat=True),
                        w.ids["official"],
                    )
                ),
                "day": when("", "2026-12-01", "2099-01-01"),
            }
        ),
    ),
    "scoring:penalty": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:penalty"),
        _table_data(
            team=value("A", "B"),
            kind=value("levels", "back_to_2", "disqualify"),
            levels=value("1", "2", "13"),
            confirm=value("1", ""),
            reason=value("拖延"),
            reported_by=value("", "甲"),
        ),
        htmx=True,
    ),
    "scoring:time-up": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:time-up"),
        _table_data(),
        htmx=True,
        prepare=_dealt,
    ),
    "scoring:start": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:start"),
        _table_data(),
        htmx=True,
    ),
    "scoring:forfeit": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:forfeit"),
        _table_data(
            team=value("A", "B"),
            reason=value("late_over_10_min", "stoppage_over_5_min", "withdrew"),
            confirm=value("1", ""),
        ),
        htmx=True,
    ),
    "scoring:undo": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:undo"),
        _table_data(),
        htmx=True,
        prepare=_dealt,
    ),
    "scoring:submit": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:submit"),
        _table_data(),
        htmx=True,
        prepare=_over,
    ),
    "scoring:report": Endpoint(
        "referee",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:report"),
        _table_data(team=value("A", "B"), description=value("偷看"), reported_by=value("乙")),
        htmx=True,
    ),
    "scoring:checkin": Endpoint(
        "referee",
        "nantong",
        lambda w, d: reverse("scoring:checkin", args=[w.nantong.slug, w.table.match.round_id]),
        lambda w: form(
            {
                "table": value(*_ids([w.table.pk] * 3, w.ids["table"])),
                "team": value("A", "B"),
            },
            optional={"forfeit_missing": value("1"), "confirm": value("1")},
        ),
    ),
    # The chief referee (裁判长).
    "scoring:confirm": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:confirm"),
        _table_data(),
        htmx=True,
        prepare=_submitted,
    ),
    "scoring:rule-report": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:rule-report", _a_report(w)),
        lambda w: form({"upheld": value("yes", "no")}),
        htmx=True,
    ),
    "scoring:report-deduction": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:report-deduction"),
        _table_data(team=value("A", "B")),
        htmx=True,
        prepare=_three_upheld,
    ),
    "scoring:correct": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:correct"),
        lambda w: form({"events": Valid(events_json()), "reason": value("核对")}),
        htmx=True,
        prepare=_submitted,
    ),
    "scoring:correction": Endpoint(
        "chief",
        "nantong",
        lambda w, d: _nantong_table(w, "scoring:correction"),
        lambda w: form(
            {
                "events": Valid(events_json()),
                "action": value("save", "change", "pick"),
                "mode": value("replace", "insert", "delete", "append"),
                "index": value("0", "1"),
                "entry": value("deal", "penalty", "time_up", "forfeit"),
                "deal": value("A2", "B4"),
                "reason": value("核对"),
                "version": value(0, 1),
            }
        ),
        prepare=_submitted,
    ),
    "scoring:ruling": Endpoint(
        "chief",
        "nantong",
        lambda w, d: reverse("scoring:ruling", args=[w.nantong.slug, w.table.match_id]),
        lambda w: form({"reason": value("已按原对阵赛完", "")}),
        prepare=lambda w: Match.objects.filter(pk=w.table.match_id).update(
            needs_review=True, review_note="本场对阵应为…"
        ),
    ),
    "scoring:replay": Endpoint(
        "chief",
        "nantong",
        lambda w, d: reverse("scoring:replay", args=[w.nantong.slug, w.table.match_id]),
        lambda w: form(
            {"reason": value("对阵有误", ""), "confirm": value("1")},
        ),
        prepare=lambda w: Match.objects.filter(pk=w.table.match_id).update(
            needs_review=True, review_note="本场对阵应为…"
        ),
    ),
    "scoring:whistle": Endpoint(
        "chief",
        "nantong",
        lambda w, d: reverse("scoring:whistle", args=[w.nantong.slug, w.table.match.round_id]),
        lambda w: form({}, optional={"confirm": value("1"), "early": value("1")}),
    ),
}


def _event_fields(w: World) -> st.SearchStrategy[dict]:
    venues = _ids(w.cup.venues.values_list("pk", flat=True), w.ids["venue"])
    return form(
        {
            "name": value("新项目"),
            # Valid together; the other choices (an even team size, a reserved slug, a
            # guandan event without rules …) come as hostile values and from the edit URL.
            "slug": value("new-event", "team"),
            "discipline": value("guandan_team", "xiangqi", "guandan_pairs"),
            "entry_kind": value(""),
            "pairs_per_team": value("3", "1", "2"),
            "ruleset": value("nantong2014", "anhui2021"),
            "advance_registration_required": value("on", ""),
            "venue": value(*venues, ""),
            "rules_summary": value("说明"),
            "order": value("0", "1"),
        }
    )


# Pages that only read, and URLs that are not the apps' own writes (accounts and language
# are the other half of the trust issue; admin is Django's).
READ_ONLY = {
    "tournaments:list",
    "day:timeline",
    "day:json",
    "day:hall-screen",
    "standings:page",
    "standings:json",
    "tournaments:detail",
    "tournaments:notice-pdf",
    "documents:results-pdf",
    "documents:day-pdf",
    "documents:draw-pdf",
    "documents:bracket-pdf",
    "documents:scoresheets-pdf",
    "documents:scoresheets",
    "documents:scoresheets-file",
    "documents:bracket-png",
    "documents:results-png",
    "documents:standings-pdf",
    "documents:standings-png",
    "registration:home",
    "registration:unit",
    "manage:dashboard",
    "manage:entries",
    "manage:entries-template",
    "manage:entries-export",
    "registration:unit-form",
    "live:bracket",
    "live:bracket-json",
    "live:match",
    "live:match-json",
    "scoring:table",
    "scoring:table-qr",
    "scoring:play-table",
    "documents:tablecards-pdf",
    "scoring:desk",
    "scoring:audit",
    "scoring:my-tables",
    "accounts-home",
    "password_change_done",
    "healthz",
    "service-worker",
    "readyz",
    "live:screen",
    "scoring:board",
}
# Accounts are Django's own forms (login, password change) and pages whose tests are in
# tests/test_accounts.py and the permission matrix; a login link's token is a random path.
NOT_THE_APPS = {
    "login",
    "logout",
    "set_language",
    "password_change",
    "accounts-logout-everywhere",
    "accounts-login-link",
    "links:revoke",
}
# Downloads (PDF, PNG, xlsx) only read too; their own tests cover them, and rendering one per
# example would only make this slow.
DOWNLOADS = {
    "tournaments:notice-pdf",
    "documents:results-pdf",
    "documents:day-pdf",
    "documents:draw-pdf",
    "documents:bracket-pdf",
    "documents:scoresheets-pdf",
    "documents:scoresheets-file",
    "documents:tablecards-pdf",
    # the pictures to share: their own bad requests are in documents/tests/test_pictures.py
    "documents:bracket-png",
    "documents:results-png",
    "documents:standings-pdf",
    "documents:standings-png",
    "manage:entries-template",
    "manage:entries-export",
    "registration:unit-form",
}


def _url_names(patterns, namespace="") -> set[str]:
    names = set()
    for p in patterns:
        if isinstance(p, URLResolver):
            if p.namespace == "admin" or getattr(p, "app_name", None) == "admin":
                continue
            inner = f"{namespace}{p.namespace}:" if p.namespace else namespace
            names |= _url_names(p.url_patterns, inner)
        elif isinstance(p, URLPattern) and p.name:
            names.add(namespace + p.name)
    return names


def test_every_url_is_fuzzed_as_a_write_or_known_to_only_read():
    names = _url_names(get_resolver().url_patterns)
    unknown = names - set(ENDPOINTS) - READ_ONLY - NOT_THE_APPS
    assert not unknown, f"new URLs: add them to ENDPOINTS (if they write) or READ_ONLY: {unknown}"
    assert set(ENDPOINTS) <= names and names >= READ_ONLY


# --------------------------------------------------------------------------- snapshots


def owner(name: str, row: dict, before: dict, after: dict) -> int:
    """The id of the tournament a row belongs to, followed through the snapshots in memory
    (the rows it points to are in ``after``, or in ``before`` if they were deleted)."""
    model = MODELS[name]
    for step in filter(None, backup.tournament_path(model).split("__")):
        f = model._meta.get_field(step)
        pk = row[f.attname]
        model = f.related_model
        row = after[backup.label(model)].get(pk) or before[backup.label(model)][pk]
    return row["id"]


MODELS = {
    backup.label(m): m
    for model in app_models()
    for m in [model, *(f.remote_field.through for f in model._meta.many_to_many)]
}


# What each actor may change inside the tournament of the URL, beyond which the test fails:
# (model label, row) -> allowed?
def _leader_may(w: World) -> Callable[[str, dict], bool]:
    units = {u.pk for u in w.own_units} | {m.pk for u in w.own_units for m in u.members.all()}

    def may(name, row):
        if name == "tournaments.entry":
            return row["unit_id"] in units
        if name == "tournaments.pair":
            return Entry.objects.filter(pk=row["entry_id"], unit__in=units).exists()
        if name == "tournaments.player":
            return row["unit_id"] in units
        return False

    return may


def _referee_may(w: World, table: TableMatch | None = None) -> Callable[[str, dict], bool]:
    t = table or w.table

    def may(name, row):
        if name in ("scoring.tableevent", "scoring.report", "scoring.tablecall"):
            return row["table_id"] == t.pk
        if name == "scoring.tablematch":
            return row["id"] == t.pk
        if name == "scoring.checkin":
            return row["match_id"] == t.match_id
        if name == "scoring.auditentry":
            return row["table_id"] in (t.pk, None) and row["match_id"] in (t.match_id, None)
        if name == "tournaments.match":
            return row["id"] == t.match_id
        if name == "tournaments.event":
            return row["id"] == t.match.round.stage.event_id
        return False

    return may


CHIEF_MAY_NOT = {
    "tournaments.tournament",
    "tournaments.unit",
    "tournaments.player",
    "tournaments.pair",
    "tournaments.official",
    "tournaments.venue",
    "tournaments.draw",
}


def check_changes(endpoint: Endpoint, w: World, before, after):
    tournament = w.cup if endpoint.tournament == "cup" else w.nantong
    may = {
        "leader": _leader_may(w),
        "referee": _referee_may(w),
        "sport_referee": _referee_may(w, w.sport_table),
        "chief": lambda name, row: name not in CHIEF_MAY_NOT,
        "organiser": lambda name, row: True,
    }[endpoint.actor]
    made = {
        pk
        for name, pk, old, new in changes(before, after)
        if name == "tournaments.tournament" and old is None
    }
    assert endpoint.creates_tournament or not made, "a tournament was created"
    for name, pk, old, new in changes(before, after):
        if name == "auth.user":
            if endpoint.resets_passwords and old is not None and new is not None:
                changed = {k for k in new if old.get(k) != new[k]}
                people = set(
                    User.objects.filter(
                        Q(led_units__tournament=tournament)
                        | Q(official_roles__tournament=tournament)
                    ).values_list("pk", flat=True)
                )
                assert changed == {"password"} and pk in people, f"an account changed: {changed}"
                assert not new.get("is_staff") and not new.get("is_superuser")
                continue
            assert endpoint.creates_users and old is None, f"an account changed: {old} -> {new}"
            continue
        tid = owner(name, new if new is not None else old, before, after)
        if tid in made:
            assert old is None, f"{name} #{pk} changed in the tournament just made"
            continue  # the new tournament's own rows (a copy's events, units, officials …)
        assert tid == tournament.pk, f"{name} #{pk} of another tournament changed: {old} -> {new}"
        if name == "tournaments.event" and old is not None and new is not None:
            changed = {k for k in new if old.get(k) != new[k]}
            if changed <= {"version", "wide_version", "changed_at"}:
                continue  # the live pages' version: every write to the event grows it
        if name == "tournaments.tournament" and old is not None and new is not None:
            changed = {k for k in new if old.get(k) != new[k]}
            if changed <= {"status", "updated_at"} and new["status"] in (
                Tournament.Status.RUNNING,
                Tournament.Status.FINISHED,
            ):
                # The day's status follows what happened (tournaments.draw.status): the
                # first result makes it 比赛中, the last placing 已结束; no page sets it.
                continue
        for row in (old, new):
            if row is not None:
                assert may(name, row), f"{endpoint.actor} may not change {name}: {old} -> {new}"


def _seen(name: str) -> str:
    """A name as a reader tells it apart, worked out here apart from the app's own cleaning:
    without control and format characters, then by its key."""
    return name_key("".join(ch for ch in name if unicodedata.category(ch)[0] != "C"))


def check_registrations(w: World) -> None:
    """However names were typed: nobody is in one event twice, nor in two events where the
    notice says so; no two units, nor two officials of one role, share a name by its key;
    and every person's and unit's name is stored clean (nothing invisible left)."""
    cup = Tournament.objects.get(pk=w.cup.pk)
    in_events: dict[tuple[int, str], list[int]] = {}
    entries = Entry.objects.with_people().filter(
        event__tournament=cup, status=Entry.Status.REGISTERED
    )
    for entry in entries:
        people = (
            [entry.player]
            if entry.player_id
            else [p for pair in entry.pairs.all() for p in (pair.first, pair.second)]
        )
        for person in people:
            key = (person.unit_id, _seen(person.name))
            in_events.setdefault(key, []).append(entry.event_id)
    for key, events in in_events.items():
        assert len(events) == len(set(events)), f"{key} entered one event twice"
        if cup.one_event_per_person:
            assert len(set(events)) == 1, f"{key} entered {len(set(events))} events"
    units = list(cup.units.values_list("name", flat=True))
    officials = list(cup.officials.values_list("name", "role"))
    players = list(cup.players.values_list("name", flat=True))
    # Stored as typed less what cannot be seen; no two units one name by its key.
    assert all(name == clean_name(name) for name in units + players)
    assert not [n for n, c in Counter(_seen(u) for u in units).items() if c > 1]
    assert not [k for k, c in Counter((_seen(n), r) for n, r in officials).items() if c > 1]


# --------------------------------------------------------------------------- the requests


def post(client, url: str, data: dict, *, htmx: bool, upload: bool):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    if upload:
        from django.core.files.uploadedfile import SimpleUploadedFile

        name = data.get("name", "x.xlsx").encode("utf-8", "replace").decode("utf-8")
        content = data["file"]
        if isinstance(content, str):  # spoilt: a text where the file should be
            content = content.encode("utf-8", "surrogatepass")
        files = {"file": SimpleUploadedFile(name.replace("\x00", "") or "x", content)}
        form = {"confirm": data["confirm"].encode("utf-8", "replace").decode("utf-8")}
        return client.post(url, {**form, **files}, **headers)
    # Built by hand so lone surrogates go out as the invalid UTF-8 a broken client sends.
    body = urlencode(
        [(k, v) for k, vs in data.items() for v in (vs if isinstance(vs, list) else [vs])],
        encoding="utf-8",
        errors="surrogatepass",
    )
    return client.generic(
        "POST", url, body, content_type="application/x-www-form-urlencoded", **headers
    )


def refused(response) -> bool:
    """4xx, or an error message queued by this request (not one left from an earlier one)."""
    if response.status_code >= 400:
        return True
    queued = getattr(response.wsgi_request, "_messages", None)
    return any(m.level == message_levels.ERROR for m in getattr(queued, "_queued_messages", []))


RESULTS: dict[str, dict[str, int]] = {}


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
@FUZZ
@given(data=st.data())
def test_hostile_input_never_fails_the_server_or_changes_what_it_should_not(
    client, world, name, data
):
    endpoint = ENDPOINTS[name]
    client.force_login(getattr(world, endpoint.actor))
    if endpoint.prepare is not None and world.ids.get("prepared") != name:
        endpoint.prepare(world)  # once per URL, kept by its examples, rolled back after them
        world.ids["prepared"] = name
    # Each example starts from the same data: it runs in a savepoint that is rolled back.
    with transaction.atomic():
        url = world.url = endpoint.url(world, data)
        form = data.draw(endpoint.data(world), label="form")
        before = snapshot()
        response = post(client, url, form, htmx=endpoint.htmx, upload=endpoint.upload)
        assert response.status_code < 500
        after = snapshot()
        stats = RESULTS.setdefault(name, {"examples": 0, "refused": 0})
        stats["examples"] += 1
        if refused(response):
            stats["refused"] += 1
            assert after == before, f"a refused request changed: {changes(before, after)[:3]}"
        else:
            check_changes(endpoint, world, before, after)
            if endpoint.tournament == "cup":
                check_registrations(world)
        transaction.set_rollback(True)


@pytest.mark.parametrize("name", sorted(READ_ONLY - DOWNLOADS))
@settings(
    max_examples=max(3, EXAMPLES // 5),
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    form=st.dictionaries(
        st.sampled_from(["x", "key", "deal", "version", "table"]), hostile(), max_size=3
    )
)
def test_a_post_to_a_page_that_only_reads_changes_nothing(client, world, name, form):
    client.force_login(world.organiser)
    urls = {
        "tournaments:list": [],
        "tournaments:detail": [world.cup.slug],
        "registration:home": [world.cup.slug],
        "registration:unit": [world.cup.slug, world.own_units[0].pk],
        "standings:page": [world.cup.slug],
        "standings:json": [world.cup.slug],
        "manage:dashboard": [world.cup.slug],
        "manage:entries": [world.cup.slug],
        "scoring:desk": [world.nantong.slug],
        "scoring:audit": [world.nantong.slug],
        "scoring:my-tables": [world.nantong.slug],
        "scoring:board": [world.nantong.slug, "guandan"],
        "live:screen": [world.nantong.slug, "guandan"],
        "documents:scoresheets": [world.nantong.slug, "guandan"],
        "healthz": [],
        "service-worker": [],
        "readyz": [],
        "accounts-home": [],
        "password_change_done": [],
        "live:bracket": [world.nantong.slug, "guandan"],
        "live:bracket-json": [world.nantong.slug, "guandan"],
        "live:match": [world.nantong.slug, "guandan", world.table.match_id],
        "live:match-json": [world.nantong.slug, "guandan", world.table.match_id],
        "scoring:table": [world.nantong.slug, "guandan", world.table.pk],
        "scoring:table-qr": [world.nantong.slug, "guandan", world.table.pk],
        "scoring:play-table": [players.make_code(world.table)],
        "day:timeline": [world.nantong.slug],
        "day:json": [world.nantong.slug],
        "day:hall-screen": [world.nantong.slug, world.nantong.venues.first().pk],
    }
    before = snapshot()
    response = post(client, reverse(name, args=urls[name]), form, htmx=False, upload=False)
    assert response.status_code < 500
    assert snapshot() == before


@FUZZ
@given(data=st.data())
def test_an_invisible_twin_of_an_entered_person_is_refused_as_the_plain_name_is(
    client, world, data
):
    """甲组双a plays in the pairs event. With 每人限报一项, the same name with zero-width,
    soft-hyphen, BOM or bidi characters anywhere in it is refused in the chess event (one
    event per person) and in the pairs event (once per event), as the plain name is, and
    nothing is saved; a unit typed with them is the same unit."""
    Tournament.objects.filter(pk=world.cup.pk).update(one_event_per_person=True)
    client.force_login(world.leader)
    unit = world.own_units[0]
    assert unit.name == "甲组"
    twin = list("甲组双a")
    marks = data.draw(st.lists(st.sampled_from(INVISIBLE + ["\u2060", "\u200e"]), min_size=1))
    for mark in marks[:5]:
        twin.insert(data.draw(st.integers(min_value=0, max_value=len(twin))), mark)
    twin = "".join(twin)
    assert twin != "甲组双a" and name_key(twin) == name_key("甲组双a")
    posts = {
        "single": (
            {"single-s_name": twin, "single-s_gender": "男"},
            "已报名掼蛋双人，每人只能参加一个",
        ),
        "pairs": (
            {
                "pairs-p1_1_name": twin,
                "pairs-p1_1_gender": "男",
                "pairs-p1_2_name": "新来的",
                "pairs-p1_2_gender": "女",
            },
            "已报名本项目，同一项目每人只能报一次",
        ),
    }
    with transaction.atomic():
        before = snapshot()
        for event, (fields, refusal) in posts.items():
            url = reverse("registration:add-entry", args=[world.cup.slug, unit.pk, event])
            response = client.post(url, fields)
            assert response.status_code == 422
            assert f"甲组双a（甲组）{refusal}" in response.content.decode()
        assert snapshot() == before
        transaction.set_rollback(True)
