"""The two seed tournaments (the Nantong 2014 and Anhui 2021 notices, in ops/demo_data/), with made-up players, for `load_demo`.

Loading is idempotent: every row is found by its natural key (slug, name) and updated in
place, and the made-up names come from a random generator seeded with the tournament's slug,
so a second run finds everything as the first left it.
"""

import datetime as dt
import random
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from django.db import transaction

from tournaments.draw import make as draw_make
from tournaments.draw import selectors as draw_selectors
from tournaments.models import DayPlan, Draw, Event, EventHall, Official, Tournament, Unit, Venue
from tournaments.registration.services import EntryForm, PersonForm, register_entries

DATA_DIR = Path(__file__).resolve().parent / "demo_data"
SHANGHAI = ZoneInfo("Asia/Shanghai")

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红建文辉力国鹏斌宇浩凯健俊帆帅旭宁亮林雪琳晨欣怡佳悦雯婷倩颖慧巍峰波志海军晖彬"


def _text(name: str) -> str:
    return (DATA_DIR / name).read_text(encoding="utf-8")


def _at(year, month, day, hour=0, minute=0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, minute, tzinfo=SHANGHAI)


class NameMaker:
    """Made-up Chinese names, unique within one tournament, the same on every run."""

    def __init__(self, seed: str):
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def __call__(self) -> str:
        while True:
            given = self.rng.choice(GIVEN)
            if self.rng.random() < 0.6:
                given += self.rng.choice(GIVEN)
            name = self.rng.choice(SURNAMES) + given
            if name not in self.used:
                self.used.add(name)
                return name


@dataclass
class DemoEvent:
    slug: str
    name: str
    discipline: str
    venue: str
    # The courts or tables of its venue it may use on the day plan (blank: all of them).
    places: str = ""
    ruleset: str = ""
    advance_registration_required: bool = False
    rules_summary: str = ""
    # (unit name, number of entries); a team entry is the unit itself.
    entries: list[tuple[str, int]] = field(default_factory=list)
    # "physical": lots 1, 2, 3 … in the order of ``entries`` (the notice's own draw);
    # an int: a random draw with that seed, so the demo is the same on every machine.
    draw: str | int | None = None


@dataclass
class DemoTournament:
    slug: str
    fields: dict
    venues: list[tuple[str, int]]  # each hall's name and its number of tables or courts
    officials: list[tuple[str, str]]
    units: list[tuple[str, str]]
    joint_units: list[tuple[str, list[str]]]
    events: list[DemoEvent]
    # The day plan's hours and breaks (全天赛程), as the organiser would set them.
    day: dict = field(default_factory=dict)


NANTONG_TEAMS = ["体育", "行政", "教务物理联队", "生物数学联队", "历史", "实验技术", "后勤", "政治"]

DEMOS = [
    DemoTournament(
        slug="nantong-2014",
        fields=dict(
            name="第二届“轻松假日”教工扑克牌（掼蛋）比赛",
            organiser_name="江苏省南通中学工会",
            notice_title="江苏省南通中学工会关于举行第二届“轻松假日”教工扑克牌比赛的通知",
            notice_addressee="各工会小组：",
            notice_text=_text("nantong-2014-notice.txt"),
            notice_date=dt.date(2014, 5, 8),
            rules_title="江苏省南通中学教工扑克牌（掼蛋）比赛规则",
            rules_text=_text("nantong-2014-rules.txt"),
            starts_on=dt.date(2014, 5, 24),
            start_time=dt.time(14, 0),
            # “各工会小组的报名表于5月12日前报工会文体委员”
            registration_deadline=_at(2014, 5, 12),
            leaders_meeting_at=_at(2014, 5, 16, 16, 50),
            leaders_meeting_place="科学楼底楼会议室",
            one_event_per_person=False,
            status=Tournament.Status.DRAWN,
        ),
        venues=[("本校教工活动中心", 12)],
        day=dict(starts_at=dt.time(14, 0), ends_at=dt.time(18, 0), breaks=""),
        officials=[],
        units=[
            (name, Unit.Kind.UNION_GROUP)
            for name in [
                "体育",
                "行政",
                "教务",
                "物理",
                "生物",
                "数学",
                "历史",
                "实验技术",
                "后勤",
                "政治",
            ]
        ],
        joint_units=[("教务物理联队", ["教务", "物理"]), ("生物数学联队", ["生物", "数学"])],
        events=[
            DemoEvent(
                slug="guandan",
                name="掼蛋团体赛",
                discipline=Event.Discipline.GUANDAN_TEAM,
                venue="本校教工活动中心",
                ruleset="nantong2014",
                rules_summary="以工会小组为单位，每队三对选手同时出场，获得两组或三组胜利的工会小组为胜方；"
                "每场1小时，到时按级数判定，同级以该副牌上游方为胜；迟到十分钟以上者判负。",
                entries=[(team, 1) for team in NANTONG_TEAMS],
                # 附：分组结果及赛程安排 — A组 体育——行政, B组 教务物理联队——生物数学联队 …
                draw="physical",
            )
        ],
    ),
    DemoTournament(
        slug="anhui-2021",
        fields=dict(
            name="安徽农业大学教职工棋、牌、球比赛",
            organiser_name="安徽农业大学工会",
            notice_title="关于举办教职工棋、牌、球比赛的通知",
            notice_addressee="各系、实验中心：",
            notice_text=_text("anhui-2021-notice.txt"),
            notice_date=None,
            rules_title="安徽农业大学教职工扑克牌比赛规程",
            rules_text=_text("anhui-2021-rules.txt"),
            starts_on=dt.date(2021, 1, 27),
            start_time=None,
            registration_deadline=_at(2021, 1, 26, 12, 0),
            leaders_meeting_at=None,
            leaders_meeting_place="",
            one_event_per_person=True,
            status=Tournament.Status.DRAWN,
        ),
        # 球类比赛在一楼: four badminton courts (1–4) and four table-tennis tables (5–8).
        venues=[("轻纺楼四楼会议室", 8), ("轻纺楼3A09", 4), ("轻纺楼一楼", 8)],
        day=dict(starts_at=dt.time(8, 30), ends_at=dt.time(17, 30), breaks="12:00-13:30"),
        officials=[
            ("肖慧", Official.Role.CHIEF_REFEREE),
            ("周铃", Official.Role.REFEREE),
            ("梁勇", Official.Role.REFEREE),
        ],
        units=[
            ("农学系", Unit.Kind.DEPARTMENT),
            ("园艺系", Unit.Kind.DEPARTMENT),
            ("植物保护系", Unit.Kind.DEPARTMENT),
            ("动物科技系", Unit.Kind.DEPARTMENT),
            ("林学系", Unit.Kind.DEPARTMENT),
            ("茶学系", Unit.Kind.DEPARTMENT),
            ("经济管理系", Unit.Kind.DEPARTMENT),
            ("信息与计算机系", Unit.Kind.DEPARTMENT),
            ("实验中心", Unit.Kind.LAB_CENTRE),
        ],
        joint_units=[],
        events=[
            DemoEvent(
                slug="guandan",
                name="掼蛋",
                discipline=Event.Discipline.GUANDAN_PAIRS,
                venue="轻纺楼四楼会议室",
                ruleset="anhui2021",
                advance_registration_required=True,
                draw=202101271,
                rules_summary="每二人一组，抽签分组进行淘汰赛；按1、3、5级方式升级，A必打，三次打A不过退回2；"
                "三局两胜，每场两个半小时，到时鸣哨进入“突然死亡法”。牌类比赛需提前报名，现场报名只获参与奖。",
                entries=[
                    ("农学系", 2),
                    ("园艺系", 2),
                    ("植物保护系", 1),
                    ("动物科技系", 2),
                    ("林学系", 1),
                    ("经济管理系", 2),
                    ("信息与计算机系", 1),
                    ("实验中心", 1),
                ],
            ),
            DemoEvent(
                slug="xiangqi",
                name="象棋",
                discipline=Event.Discipline.XIANGQI,
                venue="轻纺楼3A09",
                draw=202101272,
                rules_summary="三局二胜制，前二盘每人先手一次，第三盘猜先手，若第三盘和棋则后手赢；个人抽签淘汰赛。",
                entries=[
                    ("农学系", 2),
                    ("园艺系", 1),
                    ("植物保护系", 2),
                    ("茶学系", 2),
                    ("经济管理系", 1),
                    ("实验中心", 2),
                ],
            ),
            DemoEvent(
                slug="badminton",
                name="羽毛球",
                discipline=Event.Discipline.BADMINTON,
                venue="轻纺楼一楼",
                places="1-4",
                draw=202101273,
                rules_summary="三局二胜制，每局21分，每球得分制；个人抽签淘汰赛。",
                entries=[
                    ("农学系", 1),
                    ("园艺系", 2),
                    ("动物科技系", 2),
                    ("林学系", 2),
                    ("茶学系", 1),
                    ("信息与计算机系", 2),
                    ("实验中心", 2),
                ],
            ),
            DemoEvent(
                slug="table-tennis",
                name="乒乓球",
                discipline=Event.Discipline.TABLE_TENNIS,
                venue="轻纺楼一楼",
                places="5-8",
                draw=202101274,
                rules_summary="个人抽签淘汰赛。",
                entries=[
                    ("植物保护系", 2),
                    ("动物科技系", 1),
                    ("林学系", 1),
                    ("茶学系", 2),
                    ("经济管理系", 2),
                    ("信息与计算机系", 1),
                    ("实验中心", 1),
                ],
            ),
        ],
    ),
]


def load_demo() -> list[Tournament]:
    return [_load(demo) for demo in DEMOS]


@transaction.atomic
def _load(demo: DemoTournament) -> Tournament:
    # Registration comes before the draw: the final status is set once both are done.
    fields = {**demo.fields, "status": Tournament.Status.REGISTRATION_CLOSED}
    tournament, created = Tournament.objects.get_or_create(slug=demo.slug, defaults=fields)
    venues = {}
    for order, (name, tables) in enumerate(demo.venues):
        venues[name], _ = Venue.objects.update_or_create(
            tournament=tournament, name=name, defaults={"order": order, "tables": tables}
        )
    if demo.day:
        DayPlan.objects.update_or_create(tournament=tournament, defaults=demo.day)
    for name, role in demo.officials:
        Official.objects.get_or_create(tournament=tournament, name=name, role=role)
    units = {}
    for name, kind in demo.units:
        units[name], _ = Unit.objects.update_or_create(
            tournament=tournament, name=name, defaults={"kind": kind}
        )
    for name, member_names in demo.joint_units:
        joint, _ = Unit.objects.update_or_create(
            tournament=tournament, name=name, defaults={"kind": Unit.Kind.JOINT}
        )
        joint.members.set([units[m] for m in member_names])
        units[name] = joint

    names = NameMaker(demo.slug)
    for order, spec in enumerate(demo.events):
        event, _ = Event.objects.update_or_create(
            tournament=tournament,
            slug=spec.slug,
            defaults=dict(
                name=spec.name,
                discipline=spec.discipline,
                entry_kind=Event.DEFAULT_ENTRY_KIND[spec.discipline],
                ruleset=spec.ruleset,
                advance_registration_required=spec.advance_registration_required,
                venue=venues[spec.venue],
                rules_summary=spec.rules_summary,
                order=order,
            ),
        )
        if spec.places:
            EventHall.objects.update_or_create(
                event=event, venue=venues[spec.venue], defaults={"places": spec.places}
            )
        forms = []
        for unit_name, count in spec.entries:
            unit = units[unit_name]
            # A joint team's players belong to its member units, alternately.
            member_names = [m.name for m in unit.members.all()]
            forms += [_entry_form(event, unit.name, member_names, names) for _ in range(count)]
        if not event.entries.exists():
            # Through the registration service, so the demo obeys the same checks as a
            # real registration (typed in by the organiser from forms handed in on time).
            register_entries(event=event, forms=forms, organiser=True)
        if spec.draw is not None and draw_selectors.current_draw(event) is None:
            _draw(event, spec)
    if created:
        Tournament.objects.filter(pk=tournament.pk).update(status=demo.fields["status"])
        tournament.refresh_from_db()
    return tournament


def _draw(event: Event, spec: DemoEvent) -> None:
    if spec.draw == "physical":
        entries = list(event.entries.order_by("pk"))
        lots = {entry.pk: number for number, entry in enumerate(entries, start=1)}
        draw_make.draw_event(event=event, method=Draw.Method.PHYSICAL, lots=lots)
    else:
        draw_make.draw_event(event=event, seed=spec.draw)


def _person(names: NameMaker, unit: str = "") -> PersonForm:
    gender = "女" if names.rng.random() < 0.4 else "男"
    return PersonForm(names(), gender, unit)


def _entry_form(event: Event, unit: str, members: list[str], names: NameMaker) -> EntryForm:
    if event.entry_kind == Event.EntryKind.SINGLE:
        return EntryForm(unit=unit, player=_person(names), on_site=False)
    count = event.tables_per_match
    seat_units = members or [""]
    pairs = [
        (
            _person(names, seat_units[(2 * n) % len(seat_units)]),
            _person(names, seat_units[(2 * n + 1) % len(seat_units)]),
        )
        for n in range(count)
    ]
    return EntryForm(unit=unit, pairs=pairs, on_site=False)


def _random_record(engine, rng, strength: float) -> list[dict]:
    """A random, legal record of one table: guandan deals, chess games, or badminton and
    table-tennis games (now and then point by point, and now and then a forfeit)."""
    from scoring.engines.simulate import random_rally, random_table, random_xiangqi

    if engine.controls.get("deals"):
        return random_table(engine.rules, rng, strength=strength)[0]
    if rng.random() < 0.06:
        loser = "home" if rng.random() < 0.5 else "away"
        return [{"forfeit": {"side": loser, "reason": "withdrawn"}}]
    if engine.controls.get("chess_games"):
        return random_xiangqi(engine.rules, rng, strength=strength)[0]
    by_point = rng.random() < 0.2
    return random_rally(engine.rules, rng, strength=strength, by_point=by_point)[0]


def play_demo(*, seed: int = 2014, only: str | None = None) -> int:
    """Play every match of the demo tournaments to the end through the referee services:
    each table's deals (or chess and rally games) recorded one by one, submitted by a
    (made-up) referee and confirmed by a (made-up) chief referee. Repeatable: the same
    seed, the same results."""
    import random

    from django.contrib.auth import get_user_model

    from scoring.services import tables as services
    from tournaments.models import Match

    rng = random.Random(seed)
    played = 0
    User = get_user_model()
    for demo in DEMOS:
        if only is not None and demo.slug != only:
            continue
        tournament = Tournament.objects.get(slug=demo.slug)
        # Named as their officials, so headers and lists read 示例裁判, not the login name.
        referee, _ = User.objects.get_or_create(
            username=f"{demo.slug}-referee", defaults={"first_name": "示例裁判"}
        )
        chief, _ = User.objects.get_or_create(
            username=f"{demo.slug}-chief", defaults={"first_name": "示例裁判长"}
        )
        for user in (referee, chief):
            if user.has_usable_password():
                user.set_unusable_password()
                user.save(update_fields=["password"])
        Official.objects.get_or_create(
            tournament=tournament,
            name="示例裁判",
            role=Official.Role.REFEREE,
            defaults={"user": referee},
        )
        Official.objects.get_or_create(
            tournament=tournament,
            name="示例裁判长",
            role=Official.Role.CHIEF_REFEREE,
            defaults={"user": chief},
        )
        for event in tournament.events.all():
            engine = event.scorer()
            while True:
                ready = list(
                    Match.objects.filter(
                        round__stage__event=event,
                        round__stage__draw__undone_at__isnull=True,
                        status__in=[Match.Status.PENDING, Match.Status.IN_PROGRESS],
                        home__isnull=False,
                        away__isnull=False,
                    )
                    .select_related("round__stage__event")
                    .order_by("round__number", "index")
                )
                if not ready:
                    break
                for match in ready:
                    strength = rng.uniform(0.35, 0.65)
                    for table in services.ensure_tables(match):
                        table.refresh_from_db()
                        if table.status in (table.Status.CONFIRMED, table.Status.NOT_PLAYED):
                            continue  # done, or stopped: the tie was decided on the others
                        if table.status == table.Status.OPEN and not table.is_over:
                            events = _random_record(engine, rng, strength)
                            for index, event_json in enumerate(events):
                                services.record_event(
                                    table=table,
                                    event=event_json,
                                    user=referee,
                                    key=f"demo-{table.pk}-{index}",
                                )
                            table.refresh_from_db()
                        if table.status == table.Status.OPEN:
                            services.submit_table(table=table, user=referee)
                        services.confirm_table(table=table, user=chief)
                    played += 1
    return played
