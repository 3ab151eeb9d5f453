"""Registration's rules asked directly, with no database: each takes what was submitted and
what is saved, and lists its problems."""

from types import SimpleNamespace

import pytest

from tournaments.registration import rules
from tournaments.registration.rules import EntryForm, PersonForm, Problem


def unit(pk, name):
    return SimpleNamespace(pk=pk, name=name)


SPORT, ADMIN, TEACHING, PHYSICS = unit(1, "体育"), unit(2, "行政"), unit(3, "教务"), unit(4, "物理")
JOINT = unit(5, "教务物理联队")
ROSTER = rules.Roster.of(
    [SPORT, ADMIN, TEACHING, PHYSICS, JOINT],
    lambda u: [TEACHING, PHYSICS] if u is JOINT else [],
)


def pair(a, b, unit=""):
    return (PersonForm(a, unit=unit), PersonForm(b, unit=unit))


def test_a_roster_finds_units_by_the_name_people_type():
    assert ROSTER.named("  体育 ") is SPORT
    assert ROSTER.named("体 育") is SPORT  # as people type it: the space between is dropped
    assert ROSTER.named("体育部") is None
    assert ROSTER.name_of(5) == "教务物理联队"
    assert ROSTER.named("體育") is SPORT  # a traditional form is the same name
    # Where an old database holds two spellings of one name, the one stored clean wins.
    old = rules.Roster.of([unit(1, "体育\u3000"), unit(2, "体育")], lambda u: [])
    assert old.named("体育").pk == 2


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"locked": True, "organiser": True}, "本项目已抽签"),
        ({"open_status": "报名已截止"}, "本比赛现在不接受报名（报名已截止）"),
        ({"deadline": "2026-11-25 12:00"}, "报名已于2026-11-25 12:00截止"),
    ],
)
def test_the_gate_refuses_a_whole_submission(kwargs, expected):
    args = {"locked": False, "organiser": False, "open_status": None, "deadline": None} | kwargs
    assert expected in rules.gate(**args).message


def test_the_organiser_passes_the_gate_after_the_deadline_but_not_after_the_draw():
    assert rules.gate(locked=False, organiser=True, open_status="x", deadline="y") is None
    assert rules.gate(locked=False, organiser=False, open_status=None, deadline=None) is None


@pytest.mark.parametrize(
    ("person", "message"),
    [
        (PersonForm(" "), "选手的姓名为空。"),
        (PersonForm("张" * 51), "选手的姓名过长（最多50个字）。"),
        (PersonForm("张伟", gender="未知"), "选手的性别“未知”无法识别，请填“男”或“女”。"),
        (PersonForm("张伟", unit="行政"), "选手的单位“行政”不属于体育。"),
    ],
)
def test_a_person_needs_a_name_a_gender_people_write_and_their_own_unit(person, message):
    problems = []
    assert rules.resolve_person(ROSTER, problems, "第3行", "选手", person, SPORT) is None
    assert problems == [Problem("第3行", message)]


def test_a_joint_teams_player_names_a_member_unit():
    problems = []
    got = rules.resolve_person(
        ROSTER, problems, "", "选手", PersonForm("李娜", "女", "物理"), JOINT
    )
    assert got == (PHYSICS, "李娜", "F") and problems == []
    assert rules.resolve_person(ROSTER, problems, "", "选手", PersonForm("李娜"), JOINT) is None
    assert "须写明所属单位（联队教务物理联队由教务、物理组成）" in problems[0].message


def test_a_leader_enters_their_own_unit_only_and_never_on_site():
    problems = []
    form = EntryForm("行政", where="第2行")
    assert rules.entry_unit(ROSTER, problems, form, organiser=False, leader_units={1}) is None
    assert (
        rules.entry_unit(ROSTER, problems, EntryForm("无名"), organiser=True, leader_units=None)
        is None
    )
    on_site = EntryForm("体育", on_site=True)
    assert rules.entry_unit(ROSTER, problems, on_site, organiser=False, leader_units={1}) is None
    assert [p.message for p in problems] == [
        "您只能为本单位报名（行政不是您领队的单位）。",
        "单位“无名”不在本比赛的单位名单中。",
        "现场报名只能由组织者办理。",
    ]
    assert rules.entry_unit(ROSTER, problems, on_site, organiser=True, leader_units=None) is SPORT


def test_a_team_has_exactly_its_pairs_and_each_pair_two_people():
    problems = []
    short = EntryForm("体育", pairs=[pair("甲", "乙")])
    # Incomplete, never saved; its people are still checked against the others.
    checked = rules.pairs(ROSTER, problems, short, SPORT, wanted=3)
    assert not checked.complete and [(a[1], b[1]) for a, b in checked.pairs] == [("甲", "乙")]
    twice = EntryForm("体育", pairs=[pair("甲", "乙"), pair("丙", "丙"), pair("丁", "戊")])
    assert not rules.pairs(ROSTER, problems, twice, SPORT, wanted=3).complete
    alone = EntryForm("体育", pairs=[pair("丙", "丙")])
    assert rules.pairs(ROSTER, problems, alone, SPORT, wanted=None) is None  # nobody resolved
    assert [p.message for p in problems] == [
        "每队须报3对选手，这里有1对。",
        "第2对两名选手是同一人（丙）。",
        "这一对两名选手是同一人（丙）。",
    ]
    ok = rules.pairs(ROSTER, [], EntryForm("体育", pairs=[pair("甲", "乙")]), SPORT, wanted=None)
    assert [(a[1], b[1]) for a, b in ok.pairs] == [("甲", "乙")]


def test_a_team_names_the_seat_as_the_excel_headers_do():
    problems = []
    form = EntryForm("体育", pairs=[pair("甲", "乙"), pair("", "丁"), pair("戊", "己")])
    rules.pairs(ROSTER, problems, form, SPORT, wanted=3)
    assert problems == [Problem("", "第2对选手一的姓名为空。")]


def test_nobody_twice_in_one_submission_and_where_they_are_is_named():
    problems = []
    a = rules.single(
        ROSTER, problems, EntryForm("体育", player=PersonForm("张伟"), where="第3行"), SPORT
    )
    b = rules.single(
        ROSTER, problems, EntryForm("体育", player=PersonForm("张伟"), where="第5行"), SPORT
    )
    where = rules.places([a, b])
    rules.repeated(ROSTER, problems, [a, b], where)
    assert problems == [
        Problem("第3行、第5行", "张伟（体育）在本次报名中出现了2次，同一项目每人只能报一次。")
    ]


def test_someone_saved_in_this_or_another_event():
    problems = []
    a = rules.single(ROSTER, problems, EntryForm("体育", player=PersonForm("张伟")), SPORT)
    b = rules.single(ROSTER, problems, EntryForm("行政", player=PersonForm("王芳")), ADMIN)
    saved = {(1, "张伟"): ["chess"], (2, "王芳"): ["guandan"]}
    names = {"guandan": "掼蛋"}
    people = {(1, "张伟"): "张伟", (2, "王芳"): "王芳"}
    where = rules.places([a, b])
    rules.already_entered(
        ROSTER,
        problems,
        where,
        saved,
        event="chess",
        one_event=True,
        event_names=names,
        names=people,
    )
    assert [p.message for p in problems] == [
        "张伟（体育）已报名本项目，同一项目每人只能报一次。",
        "王芳（行政）已报名掼蛋，每人只能参加一个比赛项目。",
    ]
    problems.clear()
    rules.already_entered(
        ROSTER,
        problems,
        where,
        saved,
        event="chess",
        one_event=False,
        event_names=names,
        names=people,
    )
    assert len(problems) == 1  # another event is allowed where the notice allows it


def test_a_joint_team_and_its_members_are_one_side():
    team = rules.Checked(EntryForm("教务物理联队"), JOINT, [], None)
    alone = rules.Checked(EntryForm("教务"), TEACHING, [], None)
    assert rules.joint_team_clashes(ROSTER, TEACHING, {JOINT.pk}, []) == [
        "教务是联队教务物理联队的组成单位，教务物理联队已在本项目报名，教务不能再单独报名。"
    ]
    assert rules.joint_team_clashes(ROSTER, JOINT, set(), [team, alone]) == [
        "联队教务物理联队的组成单位教务已在本项目单独报名，教务物理联队不能再报名本项目。"
    ]
    assert rules.joint_team_clashes(ROSTER, SPORT, {JOINT.pk, TEACHING.pk}, []) == []


def test_a_unit_fields_one_team_per_team_event():
    problems = []
    first = rules.Checked(EntryForm("体育", where="第2行"), SPORT, [], None)
    again = rules.Checked(EntryForm("体育", where="第5行"), SPORT, [], None)
    other = rules.Checked(EntryForm("行政", where="第8行"), ADMIN, [], None)
    rules.one_team_per_unit(problems, [first, again, other], fielded={ADMIN.pk})
    assert problems == [
        Problem("第5行", "体育已在本项目报了一队。"),
        Problem("第8行", "行政已在本项目报了一队。"),
    ]
