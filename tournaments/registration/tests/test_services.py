"""The registration checks of the notices, through the service every form and import uses."""

import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from guandan_cup.inputs import clean_name, name_key
from tournaments.models import Entry, Event, Pair, Player, Tournament, Unit
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    RegistrationError,
    register_entries,
    update_entry,
    withdraw_entry,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
BEFORE = dt.datetime(2026, 11, 20, 9, 0, tzinfo=SHANGHAI)
DEADLINE = dt.datetime(2026, 11, 25, 12, 0, tzinfo=SHANGHAI)
AFTER = dt.datetime(2026, 11, 26, 9, 0, tzinfo=SHANGHAI)


@pytest.fixture
def cup(make_tournament):
    t = make_tournament(registration_deadline=DEADLINE, one_event_per_person=True)
    for name in ["体育", "行政", "教务", "物理"]:
        Unit.objects.create(tournament=t, name=name, kind=Unit.Kind.UNION_GROUP)
    joint = Unit.objects.create(tournament=t, name="教务物理联队", kind=Unit.Kind.JOINT)
    joint.members.set(Unit.objects.filter(tournament=t, name__in=["教务", "物理"]))
    return t


@pytest.fixture
def team_event(cup):
    return Event.objects.create(
        tournament=cup,
        slug="guandan",
        name="掼蛋团体赛",
        discipline=Event.Discipline.GUANDAN_TEAM,
        ruleset="nantong2014",
    )


@pytest.fixture
def pairs_event(cup):
    return Event.objects.create(
        tournament=cup,
        slug="pairs",
        name="掼蛋",
        discipline=Event.Discipline.GUANDAN_PAIRS,
        ruleset="anhui2021",
        advance_registration_required=True,
    )


@pytest.fixture
def chess(cup):
    return Event.objects.create(
        tournament=cup, slug="xiangqi", name="象棋", discipline=Event.Discipline.XIANGQI
    )


def team(
    unit="体育", names=("甲一", "甲二", "甲三", "甲四", "甲五", "甲六"), units=("",) * 6, **kw
):
    people = [PersonForm(n, "男", u) for n, u in zip(names, units, strict=True)]
    return EntryForm(
        unit=unit, pairs=[(people[i], people[i + 1]) for i in range(0, len(people), 2)], **kw
    )


def pair(unit="体育", a="张三", b="李四", **kw):
    return EntryForm(unit=unit, pairs=[(PersonForm(a, "男"), PersonForm(b, "女"))], **kw)


def single(unit="体育", name="王五", gender="男", **kw):
    return EntryForm(unit=unit, player=PersonForm(name, gender), **kw)


def snapshot():
    return (
        list(Entry.objects.order_by("pk").values_list("pk", "name", "status", "on_site")),
        list(
            Pair.objects.order_by("pk").values_list("entry_id", "number", "first_id", "second_id")
        ),
        list(Player.objects.order_by("pk").values_list("pk", "name", "gender", "unit_id")),
    )


def refused(**kwargs) -> list[str]:
    before = snapshot()
    with pytest.raises(RegistrationError) as excinfo:
        register_entries(**kwargs)
    assert snapshot() == before, "a refused registration changed saved data"
    return [str(p) for p in excinfo.value.problems]


def test_a_unit_registers_its_team_of_three_pairs(team_event):
    [entry] = register_entries(
        event=team_event,
        forms=[team()],
        organiser=False,
        leader_units={team_event.tournament.units.get(name="体育").pk},
        now=BEFORE,
    )
    assert entry.name == "体育"
    assert [str(p) for p in entry.pairs.order_by("number")] == [
        "甲一、甲二",
        "甲三、甲四",
        "甲五、甲六",
    ]
    assert not entry.on_site


def test_a_team_must_have_exactly_its_number_of_pairs(team_event):
    short = team(names=("甲一", "甲二", "甲三", "甲四"), units=("",) * 4, where="第3–4行")
    problems = refused(event=team_event, forms=[short], organiser=True, now=BEFORE)
    assert problems == ["第3–4行：每队须报3对选手，这里有2对。"]


def test_a_joint_team_names_each_players_member_unit(team_event):
    units = ("教务", "物理", "教务", "物理", "教务", "")
    problems = refused(
        event=team_event, forms=[team(unit="教务物理联队", units=units)], organiser=True, now=BEFORE
    )
    assert problems == ["第3对选手二须写明所属单位（联队教务物理联队由教务、物理组成）。"]
    register_entries(
        event=team_event,
        forms=[team(unit="教务物理联队", units=units[:5] + ("物理",))],
        organiser=True,
        now=BEFORE,
    )
    assert set(Player.objects.values_list("unit__name", flat=True)) == {"教务", "物理"}


def test_a_player_of_another_unit_cannot_join_a_team(team_event):
    units = ("行政", "", "", "", "", "")
    problems = refused(event=team_event, forms=[team(units=units)], organiser=True, now=BEFORE)
    assert problems == ["第1对选手一的单位“行政”不属于体育。"]


def test_a_unit_fields_one_team_per_event(team_event):
    register_entries(event=team_event, forms=[team()], organiser=True, now=BEFORE)
    second = team(names=("乙一", "乙二", "乙三", "乙四", "乙五", "乙六"))
    assert refused(event=team_event, forms=[second], organiser=True, now=BEFORE) == [
        "体育已在本项目报了一队。"
    ]


def test_nobody_plays_twice_in_one_event(pairs_event):
    register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    problems = refused(
        event=pairs_event,
        forms=[pair(a="张三", b="赵六", where="第4行")],
        organiser=True,
        now=BEFORE,
    )
    assert problems == ["第4行：张三（体育）已报名本项目，同一项目每人只能报一次。"]


def test_the_same_person_twice_in_one_submission_is_caught(pairs_event):
    forms = [pair(where="第2行"), pair(a="张三", b="钱七", where="第3行")]
    problems = refused(event=pairs_event, forms=forms, organiser=True, now=BEFORE)
    assert problems == ["第2行、第3行：张三（体育）在本次报名中出现了2次，同一项目每人只能报一次。"]


def test_a_pair_is_two_different_people(pairs_event):
    problems = refused(
        event=pairs_event, forms=[pair(a="张三", b="张 三")], organiser=True, now=BEFORE
    )
    assert problems == ["这一对两名选手是同一人（张三）。"]


def test_each_person_enters_one_event_only_when_the_tournament_says_so(pairs_event, chess):
    register_entries(event=chess, forms=[single(name="张三")], organiser=True, now=BEFORE)
    problems = refused(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    assert problems == ["张三（体育）已报名象棋，每人只能参加一个比赛项目。"]
    Tournament.objects.filter(pk=chess.tournament_id).update(one_event_per_person=False)
    pairs_event.refresh_from_db()
    register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)


def test_a_withdrawn_entry_frees_its_players(pairs_event, chess):
    [entry] = register_entries(event=chess, forms=[single(name="张三")], organiser=True, now=BEFORE)
    # While 张三 plays chess, the one-event rule keeps them out of the pairs.
    assert refused(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    withdraw_entry(entry=entry, reason="身体不适")
    [pairs] = register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    assert pairs.status == Entry.Status.REGISTERED
    assert {p.name for p in (pairs.pairs.get().first, pairs.pairs.get().second)} == {"张三", "李四"}


def test_a_team_leader_registers_for_their_own_unit_only(pairs_event):
    own = {pairs_event.tournament.units.get(name="体育").pk}
    problems = refused(
        event=pairs_event, forms=[pair(unit="行政")], organiser=False, leader_units=own, now=BEFORE
    )
    assert problems == ["您只能为本单位报名（行政不是您领队的单位）。"]


def test_team_leaders_cannot_register_after_the_deadline(pairs_event):
    own = {pairs_event.tournament.units.get(name="体育").pk}
    problems = refused(
        event=pairs_event, forms=[pair()], organiser=False, leader_units=own, now=AFTER
    )
    assert problems == ["报名已于2026-11-25 12:00截止；截止后只能由组织者现场报名。"]


def test_team_leaders_cannot_register_while_registration_is_closed(pairs_event):
    Tournament.objects.filter(pk=pairs_event.tournament_id).update(
        status=Tournament.Status.REGISTRATION_CLOSED
    )
    pairs_event.refresh_from_db()
    own = {pairs_event.tournament.units.get(name="体育").pk}
    problems = refused(
        event=pairs_event, forms=[pair()], organiser=False, leader_units=own, now=BEFORE
    )
    assert problems == ["本比赛现在不接受报名（报名截止）。"]


def test_after_the_deadline_the_organiser_adds_on_site_entries_with_the_participation_award_only(
    pairs_event, chess
):
    [card] = register_entries(event=pairs_event, forms=[pair()], organiser=True, now=AFTER)
    assert card.on_site and card.participation_award_only
    # Chess may be entered on site with no flag (安徽: 象棋、羽毛球比赛可现场报名).
    [board] = register_entries(event=chess, forms=[single()], organiser=True, now=AFTER)
    assert board.on_site and not board.participation_award_only
    # An organiser typing in a form handed in on time says so.
    [late_typed] = register_entries(
        event=chess, forms=[single(name="孙八", on_site=False)], organiser=True, now=AFTER
    )
    assert not late_typed.on_site


def test_pairs_are_fixed_once_the_draw_is_made(pairs_event):
    [entry] = register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    Event.objects.filter(pk=pairs_event.pk).update(drawn_at=BEFORE)
    entry.refresh_from_db()
    with pytest.raises(RegistrationError) as excinfo:
        update_entry(entry=entry, form=pair(b="周九"), organiser=True, now=BEFORE)
    assert "配对选手不得重组" in str(excinfo.value)
    assert [str(p) for p in entry.pairs.all()] == ["张三、李四"]
    assert (
        "配对选手不得重组"
        in refused(
            event=pairs_event, forms=[pair(a="吴十", b="郑十一")], organiser=True, now=BEFORE
        )[0]
    )
    withdraw_entry(entry=entry, reason="弃权")
    entry.refresh_from_db()
    assert entry.status == Entry.Status.WITHDRAWN and entry.status_reason == "弃权"


def test_an_entry_can_be_changed_before_the_draw(pairs_event):
    [entry] = register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    update_entry(entry=entry, form=pair(b="周九"), organiser=True, now=BEFORE)
    entry.refresh_from_db()
    assert entry.name == "张三/周九"
    assert [str(p) for p in entry.pairs.all()] == ["张三、周九"]


def test_a_withdrawal_needs_a_reason_and_is_kept(pairs_event):
    [entry] = register_entries(event=pairs_event, forms=[pair()], organiser=True, now=BEFORE)
    with pytest.raises(RegistrationError, match="请填写退赛原因"):
        withdraw_entry(entry=entry, reason="  ")
    withdraw_entry(entry=entry, reason="出差")
    assert Entry.objects.filter(pk=entry.pk, status=Entry.Status.WITHDRAWN).exists()
    with pytest.raises(RegistrationError, match="已退赛"):
        withdraw_entry(entry=entry, reason="再次")


@pytest.mark.parametrize(
    ("form", "message"),
    [
        (single(name=" "), "选手的姓名为空。"),
        (single(gender="未知"), "选手的性别“未知”无法识别，请填“男”或“女”。"),
        (single(name="长" * 51), "选手的姓名过长（最多50个字）。"),
        (single(unit="不存在的系"), "单位“不存在的系”不在本比赛的单位名单中。"),
        (pair(), "个人项目每个报名只有一名选手。"),
    ],
)
def test_bad_rows_get_a_message_naming_the_rule(chess, form, message):
    assert refused(event=chess, forms=[form], organiser=True, now=BEFORE) == [message]


def test_every_problem_is_listed_and_nothing_is_saved(chess):
    forms = [
        single(where="第2行"),
        single(name="", where="第3行"),
        single(unit="无", where="第4行"),
        single(gender="x", where="第5行"),
    ]
    assert refused(event=chess, forms=forms, organiser=True, now=BEFORE) == [
        "第3行：选手的姓名为空。",
        "第4行：单位“无”不在本比赛的单位名单中。",
        "第5行：选手的性别“x”无法识别，请填“男”或“女”。",
    ]
    assert not Entry.objects.exists()


def test_two_players_with_the_same_name_in_different_units_get_distinct_entries(chess):
    register_entries(
        event=chess,
        forms=[single(unit="体育", name="张伟"), single(unit="行政", name="张伟")],
        organiser=True,
        now=BEFORE,
    )
    assert sorted(chess.entries.values_list("name", flat=True)) == ["张伟", "张伟（行政）"]


@pytest.mark.parametrize(
    ("typed", "stored", "key"),
    [
        (" 张三 ", "张三", "张三"),
        ("张 三", "张 三", "张三"),
        ("欧阳　修", "欧阳 修", "欧阳修"),
        ("ＡＢＣ", "ＡＢＣ", "abc"),
        ("John  Smith", "John Smith", "john smith"),
        ("阿卜杜·热合曼", "阿卜杜·热合曼", "阿卜杜·热合曼"),
        (None, "", ""),
    ],
)
def test_names_are_trimmed_and_kept_as_typed_and_compared_by_their_key(typed, stored, key):
    assert clean_name(typed) == stored
    assert name_key(typed) == key


def test_problems_across_entries_are_listed_with_the_problems_of_single_rows(chess, pairs_event):
    register_entries(event=chess, forms=[single(name="张三")], organiser=True, now=BEFORE)
    forms = [pair(where="第2行"), single(name="", where="第3行")]
    problems = refused(event=pairs_event, forms=forms[:1], organiser=True, now=BEFORE)
    assert problems == ["第2行：张三（体育）已报名象棋，每人只能参加一个比赛项目。"]
    forms = [
        single(name="", where="第3行"),
        single(name="王五", where="第4行"),
        single(name="王五", where="第5行"),
    ]
    assert refused(event=chess, forms=forms, organiser=True, now=BEFORE) == [
        "第3行：选手的姓名为空。",
        "第4行、第5行：王五（体育）在本次报名中出现了2次，同一项目每人只能报一次。",
    ]


def test_a_unit_saved_with_untidy_spacing_still_matches(chess):
    Unit.objects.filter(tournament=chess.tournament, name="行政").update(name="行政\u3000")
    [entry] = register_entries(event=chess, forms=[single(unit="行政")], organiser=True, now=BEFORE)
    assert entry.unit.name == "行政\u3000"


SPORTS_DAY = [
    ("guandan", "掼蛋", Event.Discipline.GUANDAN_PAIRS, "anhui2021"),
    ("xiangqi", "象棋", Event.Discipline.XIANGQI, ""),
    ("badminton", "羽毛球", Event.Discipline.BADMINTON, ""),
    ("table-tennis", "乒乓球", Event.Discipline.TABLE_TENNIS, ""),
]


@pytest.mark.parametrize(
    "first, second",
    [(a, b) for a in range(len(SPORTS_DAY)) for b in range(len(SPORTS_DAY)) if a != b],
)
def test_one_event_per_person_across_the_four_events_of_the_sports_day(cup, first, second):
    """安徽农大: 每人只能参加一个比赛项目 — whichever two of the four events."""
    events = [
        Event.objects.create(
            tournament=cup, slug=slug, name=name, discipline=discipline, ruleset=ruleset
        )
        for slug, name, discipline, ruleset in SPORTS_DAY
    ]

    def form(event, name):
        if event.entry_kind == Event.EntryKind.PAIR:
            return pair(a=name, b="李四")
        return single(name=name)

    register_entries(
        event=events[first], forms=[form(events[first], "张三")], organiser=True, now=BEFORE
    )
    problems = refused(
        event=events[second], forms=[form(events[second], "张三")], organiser=True, now=BEFORE
    )
    assert problems == [f"张三（体育）已报名{events[first].name}，每人只能参加一个比赛项目。"]
    # Someone else still enters the second event.
    register_entries(
        event=events[second], forms=[form(events[second], "赵六")], organiser=True, now=BEFORE
    )
