"""Excel registration forms (报名表): template, export, import and the two commands."""

import io
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openpyxl import Workbook, load_workbook

from tournaments.models import Entry, Event, Pair, Player, Tournament, Unit
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    Problem,
    RegistrationError,
    register_entries,
    withdraw_entry,
)
from tournaments.registration.spreadsheets import imports
from tournaments.registration.spreadsheets.export import export_workbook
from tournaments.registration.spreadsheets.imports import import_workbook, parse_workbook
from tournaments.registration.spreadsheets.layout import COLUMNS
from tournaments.registration.spreadsheets.safety import MAX_FILE_BYTES, MAX_ROWS
from tournaments.registration.spreadsheets.template import template_workbook

TEAM_HEADERS = list(COLUMNS[Event.EntryKind.TEAM])
PAIR_HEADERS = list(COLUMNS[Event.EntryKind.PAIR])
SINGLE_HEADERS = list(COLUMNS[Event.EntryKind.SINGLE])
NO_DATA = "没有报名数据"


# ---------------------------------------------------------------- helpers


def xlsx(rows, *, title="测试杯 报名表", merge=None) -> bytes:
    """A workbook whose first sheet has an optional title row, then ``rows`` as given."""
    book = Workbook()
    sheet = book.active
    if title is not None:
        sheet.append([title])
    for row in rows:
        sheet.append(list(row))
    for cells in merge or []:
        sheet.merge_cells(cells)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def sheet_rows(data: bytes, sheet=0) -> list[tuple]:
    book = load_workbook(io.BytesIO(data))
    return list(book.worksheets[sheet].iter_rows(values_only=True))


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in (Entry, Pair, Player)}


def messages(problems) -> list[str]:
    return [str(problem) for problem in problems]


def person(player: Player) -> tuple[str, str, str]:
    return (player.name, player.gender, player.unit.name)


def snapshot(event: Event) -> list[tuple]:
    """The registered entries of an event, field by field, in entry order."""
    rows = []
    for entry in event.entries.filter(status=Entry.Status.REGISTERED).order_by("id"):
        rows.append(
            (
                entry.unit.name,
                entry.name,
                entry.on_site,
                entry.participation_award_only,
                person(entry.player) if entry.player else None,
                [
                    (pair.number, person(pair.first), person(pair.second))
                    for pair in entry.pairs.order_by("number")
                ],
            )
        )
    return rows


@pytest.fixture
def demo(demo):
    """The demo tournaments as they were before the draw: entries can still be added."""
    from tournaments.draw.make import undo_draw

    for tournament in demo.values():
        for event in tournament.events.all():
            undo_draw(event=event)
        Tournament.objects.filter(pk=tournament.pk).update(
            status=Tournament.Status.REGISTRATION_CLOSED
        )
        tournament.refresh_from_db()
    return demo


def copy_tournament(source: Tournament, make_tournament, slug: str) -> Tournament:
    """A new tournament with the same units (joint teams too) and empty copies of the
    events, so an import there meets no saved entries."""
    copy = make_tournament(
        slug=slug,
        name=source.name,
        one_event_per_person=source.one_event_per_person,
        registration_deadline=source.registration_deadline,
        status=Tournament.Status.REGISTRATION_CLOSED,  # a fresh copy, not yet drawn
    )
    units = {}
    for unit in source.units.order_by("id"):
        units[unit.name] = Unit.objects.create(tournament=copy, name=unit.name, kind=unit.kind)
    for unit in source.units.filter(kind=Unit.Kind.JOINT):
        units[unit.name].members.set([units[m.name] for m in unit.members.all()])
    for event in source.events.all():
        Event.objects.create(
            tournament=copy,
            slug=event.slug,
            name=event.name,
            discipline=event.discipline,
            entry_kind=event.entry_kind,
            pairs_per_team=event.pairs_per_team,
            ruleset=event.ruleset,
            advance_registration_required=event.advance_registration_required,
            order=event.order,
        )
    return copy


@pytest.fixture
def cup(make_tournament):
    """A fresh tournament with union groups, a joint team and one event of each kind."""
    tournament = make_tournament()
    for name in ["体育", "行政", "历史", "后勤", "实验技术", "教务", "物理"]:
        Unit.objects.create(tournament=tournament, name=name, kind=Unit.Kind.UNION_GROUP)
    joint = Unit.objects.create(tournament=tournament, name="教务物理联队", kind=Unit.Kind.JOINT)
    joint.members.set(Unit.objects.filter(tournament=tournament, name__in=["教务", "物理"]))
    for slug, discipline in [
        ("team", Event.Discipline.GUANDAN_TEAM),
        ("pairs", Event.Discipline.GUANDAN_PAIRS),
        ("chess", Event.Discipline.XIANGQI),
    ]:
        Event.objects.create(
            tournament=tournament, slug=slug, name=slug, discipline=discipline, ruleset="anhui2021"
        )
    return tournament


def team_rows(unit, names, *, start=1, on_site=""):
    """Rows of one team: ``names`` is a list of (first, second) names."""
    return [
        [unit, start + i, first, "男", "", second, "女", "", on_site]
        for i, (first, second) in enumerate(names)
    ]


# ---------------------------------------------------------------- template


def test_the_template_has_a_title_the_chinese_headers_and_one_grey_example_row(demo):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    data = template_workbook(event)
    book = load_workbook(io.BytesIO(data))
    sheet = book.worksheets[0]
    title = sheet["A1"].value
    assert event.tournament.name in title and event.name in title and "报名表" in title
    assert [c.value for c in sheet[2]] == TEAM_HEADERS
    example = [c.value for c in sheet[3]]
    assert example[0] == "示例：体育"
    assert sheet["A3"].font.italic and sheet["A3"].font.color.rgb.endswith("808080")
    assert sheet.max_row == 3  # one example row and nothing else
    assert sheet.freeze_panes == "A3"
    assert sheet.column_dimensions["A"].width >= 12


def test_each_entry_kind_has_its_own_headers(demo):
    anhui = demo["anhui-2021"]
    assert sheet_rows(template_workbook(anhui.events.get(slug="guandan")))[1] == tuple(PAIR_HEADERS)
    for slug in ["xiangqi", "badminton", "table-tennis"]:
        event = anhui.events.get(slug=slug)
        assert sheet_rows(template_workbook(event))[1] == ("单位", "姓名", "性别", "现场报名")


def test_the_template_offers_drop_downs_for_gender_unit_and_pair_number(demo):
    event = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    book = load_workbook(io.BytesIO(template_workbook(event)))
    sheet = book.worksheets[0]
    by_column = {}
    for validation in sheet.data_validations.dataValidation:
        for cell_range in validation.sqref.ranges:
            by_column[cell_range.coord.split(":")[0].rstrip("0123456789")] = validation
    assert by_column["D"].formula1 == '"男,女"' and by_column["G"].formula1 == '"男,女"'
    assert by_column["I"].formula1 == '"是,否"'
    assert (by_column["B"].type, by_column["B"].formula1, by_column["B"].formula2) == (
        "whole",
        "1",
        "3",
    )
    # 单位 and 所属单位 refer to the unit list on the 说明 sheet.
    unit_range = by_column["A"].formula1
    assert unit_range.startswith("'说明'!") and by_column["E"].formula1 == unit_range
    notes = book["说明"]
    start, end = unit_range.split("!")[1].replace("$", "").replace("A", "").split(":")
    listed = [notes.cell(row=r, column=1).value for r in range(int(start), int(end) + 1)]
    assert listed == list(event.tournament.units.order_by("id").values_list("name", flat=True))
    assert "教务物理联队" in listed


def test_the_instructions_sheet_lists_the_rules_that_apply(demo):
    nantong = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    text = "\n".join(
        str(c.value) for c in load_workbook(io.BytesIO(template_workbook(nantong)))["说明"]["A"]
    )
    assert "每队3对选手" in text
    assert "报名截止时间：2014年5月12日 00:00" in text
    assert "男女不限" in text
    assert "教务物理联队由教务、物理组成" in text
    assert "现场报名" in text
    assert "每人只能参加一个比赛项目" not in text

    anhui = Event.objects.get(tournament__slug="anhui-2021", slug="guandan")
    text = "\n".join(
        str(c.value) for c in load_workbook(io.BytesIO(template_workbook(anhui)))["说明"]["A"]
    )
    assert "2021年1月26日 12:00" in text
    assert "每人只能参加一个比赛项目" in text
    assert "现场报名者只获参与奖" in text


def test_importing_the_untouched_template_imports_nothing_and_says_there_are_no_data_rows(demo):
    before = counts()
    for event in Event.objects.all():
        result = import_workbook(event=event, data=template_workbook(event))
        assert len(result.problems) == 1, event
        assert NO_DATA in result.problems[0].message
        assert result.entries == [] and result.forms == []
    assert counts() == before


def test_a_filled_in_template_imports_and_its_example_row_is_ignored(cup):
    event = cup.events.get(slug="team")
    book = load_workbook(io.BytesIO(template_workbook(event)))
    sheet = book.worksheets[0]
    for row in team_rows("体育", [("甲一", "甲二"), ("甲三", "甲四"), ("甲五", "甲六")]):
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    result = import_workbook(event=event, data=out.getvalue())
    assert result.problems == []
    assert [e.name for e in result.entries] == ["体育"]
    assert result.forms[0].where == "第4–6行"  # Excel's numbering: title, header, example


# ---------------------------------------------------------------- round trips


def test_nantong_team_event_round_trips_through_excel_into_an_empty_event(demo, make_tournament):
    source = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    data = export_workbook(source)
    rows = sheet_rows(data)
    assert rows[1] == (*TEAM_HEADERS, "状态", "状态原因")
    assert len(rows) == 2 + 8 * 3
    joint_rows = [r for r in rows[2:] if r[0] == "教务物理联队"]
    assert [r[1] for r in joint_rows] == [1, 2, 3]
    assert {r[4] for r in joint_rows} | {r[7] for r in joint_rows} <= {"教务", "物理"}
    assert all(r[4] is None and r[7] is None for r in rows[2:] if r[0] == "体育")

    copy = copy_tournament(source.tournament, make_tournament, "nantong-copy")
    target = copy.events.get(slug="guandan")
    result = import_workbook(event=target, data=data)
    assert result.problems == []
    assert len(result.entries) == 8
    assert snapshot(target) == snapshot(source)


def test_every_anhui_event_round_trips_through_excel_into_an_empty_copy(demo, make_tournament):
    anhui = demo["anhui-2021"]
    late = anhui.events.get(slug="guandan").entries.order_by("id")[1]
    late.on_site, late.participation_award_only = True, True
    late.save()
    chess = anhui.events.get(slug="xiangqi").entries.order_by("id").last()
    chess.on_site = True
    chess.save()
    withdraw_entry(entry=anhui.events.get(slug="badminton").entries.first(), reason="受伤")

    copy = copy_tournament(anhui, make_tournament, "anhui-copy")
    for source in anhui.events.all():
        data = export_workbook(source)
        target = copy.events.get(slug=source.slug)
        result = import_workbook(event=target, data=data)
        assert result.problems == [], source.slug
        assert snapshot(target) == snapshot(source), source.slug
    assert snapshot(copy.events.get(slug="guandan"))[1][2:4] == (True, True)
    assert snapshot(copy.events.get(slug="xiangqi"))[-1][2:4] == (True, False)
    assert copy.events.get(slug="badminton").entries.count() == (
        anhui.events.get(slug="badminton").entries.count() - 1
    )


def test_a_name_that_looks_like_a_formula_is_exported_as_text_not_a_formula(cup):
    event = cup.events.get(slug="chess")
    form = EntryForm(unit="体育", player=PersonForm(name="=HYPERLINK(1)", gender="男"))
    register_entries(event=event, forms=[form], organiser=True)
    data = export_workbook(event)
    cell = load_workbook(io.BytesIO(data)).worksheets[0]["B3"]
    assert (cell.value, cell.data_type) == ("=HYPERLINK(1)", "s")
    forms, problems = parse_workbook(event, data)
    assert problems == [] and forms[0].player.name == "=HYPERLINK(1)"


def test_an_exported_file_marks_on_site_entries_with_是(demo):
    event = Event.objects.get(tournament__slug="anhui-2021", slug="xiangqi")
    event.entries.filter(pk=event.entries.order_by("id").first().pk).update(on_site=True)
    rows = sheet_rows(export_workbook(event))
    assert rows[2][3] == "是"
    assert {r[3] for r in rows[3:]} == {None}


def test_joint_team_players_in_a_pair_event_keep_their_own_unit(cup):
    event = cup.events.get(slug="pairs")
    headers = sheet_rows(template_workbook(event))[1]
    assert headers == ("单位", "选手一姓名", "选手一性别", "选手一所属单位") + (
        "选手二姓名",
        "选手二性别",
        "选手二所属单位",
        "现场报名",
    )
    data = xlsx([headers, ["教务物理联队", "钱一", "男", "教务", "钱二", "女", "物理", ""]])
    result = import_workbook(event=event, data=data)
    assert result.problems == []
    exported = export_workbook(event)
    event.entries.all().delete()
    assert import_workbook(event=event, data=exported).problems == []
    (entry,) = snapshot(event)
    assert entry[5] == [(1, ("钱一", "M", "教务"), ("钱二", "F", "物理"))]


# ---------------------------------------------------------------- errors in many rows


def test_a_team_file_with_errors_in_several_rows_lists_them_all_and_saves_nothing(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS]
    rows += team_rows("体育", [("甲一", "甲二"), ("", "甲四"), ("甲五", "甲六")])  # 3–5
    rows += team_rows("行政", [("乙一", "乙二"), ("乙三", "乙四"), ("乙五", "乙六")])  # 6–8
    rows[-2][6] = "未知"  # 行政, row 7, 选手二性别
    rows += team_rows("化学", [("丙一", "丙二"), ("丙三", "丙四"), ("丙五", "丙六")])  # 9–11
    rows += team_rows("历史", [("丁一", "丁二"), ("丁三", "丁四")])  # 12–13
    rows += team_rows("后勤", [("戊一", "戊二"), ("戊三", "戊四"), ("戊五", "戊六")])  # 14–16
    rows[-1][1] = 2  # 后勤, row 16: 对序号 2 again
    rows += [
        ["教务物理联队", 1, "王五", "男", "教务", "己二", "女", "物理", ""],  # 17
        ["教务物理联队", 2, "己三", "男", "物理", "王五", "男", "教务", ""],  # 18
        ["教务物理联队", 3, "己五", "男", "教务", "己六", "女", "物理", ""],  # 19
    ]
    rows += team_rows("实验技术", [("庚一", "庚二"), ("庚三", "庚四"), ("庚五", "庚六")])
    rows[-1][1] = 4  # row 22: no 4th pair
    before = counts()

    result = import_workbook(event=event, data=xlsx(rows))

    assert messages(result.problems) == [
        "第4行 C列：第2对选手一的姓名为空。",
        "第7行 G列：第2对选手二的性别“未知”无法识别，请填“男”或“女”。",
        "第9–11行 A列：单位“化学”不在本比赛的单位名单中。",
        "第12–13行：每队须报3对选手，这里有2对。",
        "第16行 B列：后勤的对序号2与第15行重复。",
        "第17行 C列、第18行 F列：王五（教务）在本次报名中出现了2次，同一项目每人只能报一次。",
        "第22行 B列：对序号“4”有误，须是1到3的整数（每队3对）。",
    ]
    assert result.entries == []
    assert counts() == before


def test_an_anhui_file_with_errors_in_several_rows_lists_them_all_and_saves_nothing(demo):
    anhui = demo["anhui-2021"]
    event = anhui.events.get(slug="xiangqi")
    card_player = (
        anhui.events.get(slug="guandan").entries.filter(unit__name="农学系").first().pairs.first()
    ).first
    chess_player = event.entries.filter(unit__name="园艺系").first().player
    rows = [
        SINGLE_HEADERS,
        ["农学系", card_player.name, "男", ""],  # 3: already in 掼蛋
        ["化学系", "赵一", "男", ""],  # 4: unknown unit
        ["园艺系", "", "女", ""],  # 5: blank name
        ["茶学系", "钱七", "未知", ""],  # 6: bad gender
        ["林学系", "孙八", "男", ""],  # 7
        ["林学系", "孙 八", "", ""],  # 8: the same person again
        ["园艺系", chess_player.name, "", ""],  # 9: already in this event
        ["经济管理系", "李九", "男", "可能"],  # 10: bad 现场报名
        [None, None, None, None],  # 11: blank, skipped
        ["实验中心", "周十", "女", "否"],  # 12: fine
    ]
    before = counts()

    result = import_workbook(event=event, data=xlsx(rows))

    assert messages(result.problems) == [
        f"第3行 B列：{card_player.name}（农学系）已报名掼蛋，每人只能参加一个比赛项目。",
        "第4行 A列：单位“化学系”不在本比赛的单位名单中。",
        "第5行 B列：选手的姓名为空。",
        "第6行 C列：选手的性别“未知”无法识别，请填“男”或“女”。",
        "第7行 B列、第8行 B列：孙八（林学系）在本次报名中出现了2次，同一项目每人只能报一次。",
        f"第9行 B列：{chess_player.name}（园艺系）已报名本项目，同一项目每人只能报一次。",
        "第10行 D列：现场报名“可能”无法识别，请填“是”或留空。",
    ]
    assert counts() == before


def test_a_duplicate_against_saved_entries_is_caught(demo, cup):
    # A person already in the event, and a unit that already has its team.
    nantong = Event.objects.get(tournament__slug="nantong-2014", slug="guandan")
    sports = nantong.entries.get(unit__name="体育").pairs.get(number=1)
    rows = [TEAM_HEADERS] + team_rows(
        "体育", [("新一", "新二"), ("新三", "新四"), ("新五", "新六")]
    )
    result = import_workbook(event=nantong, data=xlsx(rows))
    assert messages(result.problems) == ["第3–5行：体育已在本项目报了一队。"]
    rows = [TEAM_HEADERS] + team_rows(
        "教务", [(sports.first.name, "新二"), ("新三", "新四"), ("新五", "新六")]
    )
    # 教务 ≠ 体育: the same name is another person; but 教务 plays inside 教务物理联队.
    assert messages(import_workbook(event=nantong, data=xlsx(rows)).problems) == [
        "第3–5行：教务是联队教务物理联队的组成单位，教务物理联队已在本项目报名，"
        "教务不能再单独报名。"
    ]

    # The same file twice into a fresh event: the second time everything is a duplicate.
    event = cup.events.get(slug="chess")
    data = xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""], ["行政", "李四", "女", ""]])
    assert len(import_workbook(event=event, data=data).entries) == 2
    before = counts()
    assert messages(import_workbook(event=event, data=data).problems) == [
        "第3行 B列：张三（体育）已报名本项目，同一项目每人只能报一次。",
        "第4行 B列：李四（行政）已报名本项目，同一项目每人只能报一次。",
    ]
    assert counts() == before


def test_pair_numbers_must_be_whole_numbers_within_the_team_size(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS]
    for unit, numbers in [("体育", [0, 1, 2]), ("行政", ["一", 2, 3]), ("历史", [1.5, 2, 3])]:
        team = team_rows(unit, [(f"{unit}{i}a", f"{unit}{i}b") for i in range(3)])
        for row, number in zip(team, numbers, strict=True):
            row[1] = number
        rows += team
    rows += team_rows("后勤", [("后a", "后b"), ("后c", "后d"), ("后e", "后f")])
    rows[-2][1] = None  # 后勤 row 13 leaves 对序号 blank, the others do not
    result = import_workbook(event=event, data=xlsx(rows))
    assert messages(result.problems) == [
        "第3行 B列：对序号“0”有误，须是1到3的整数（每队3对）。",
        "第6行 B列：对序号“一”有误，须是1到3的整数（每队3对）。",
        "第9行 B列：对序号“1.5”有误，须是1到3的整数（每队3对）。",
        "第13行 B列：未填写对序号。",
    ]


# ---------------------------------------------------------------- reading what people type


def test_names_are_trimmed_and_kept_as_typed_units_and_headers_matched_by_key(cup):
    event = cup.events.get(slug="chess")
    rows = [
        ["　单 位　", "姓　名", "性别（男/女）", "现场报名*"],
        [" 体 育 ", "張 三", "男 ", None],
        ["行政", "ＡＢＣ", "Ｍ", "否"],
        ["历史", "  John   Smith ", "女", "是"],
    ]
    result = import_workbook(event=event, data=xlsx(rows))
    assert result.problems == []
    assert snapshot(event) == [
        ("体育", "張 三", False, False, ("張 三", "M", "体育"), []),
        ("行政", "ＡＢＣ", False, False, ("ＡＢＣ", "M", "行政"), []),
        ("历史", "John Smith", True, False, ("John Smith", "F", "历史"), []),
    ]


def test_the_header_row_is_found_after_blank_rows_and_among_extra_columns(cup):
    event = cup.events.get(slug="pairs")
    rows = [
        [],
        [None, "报名表（请于截止前交回）"],
        [],
        [None, "序号", *PAIR_HEADERS[:3], "备注", *PAIR_HEADERS[3:], "联系电话"],
        [None, 1, "体育", "甲一", "男", "", "甲二", "女", "", "13800000000"],
        [None, 2, "行政", "乙一", "男", "", "", "女", "", ""],
    ]
    result = import_workbook(event=event, data=xlsx(rows, title=None))
    assert messages(result.problems) == ["第6行 G列：选手二的姓名为空。"]
    rows[-1][6] = "乙二"
    result = import_workbook(event=event, data=xlsx(rows, title=None))
    assert result.problems == []
    assert [e.name for e in result.entries] == ["甲一/甲二", "乙一/乙二"]
    assert Player.objects.filter(tournament=cup, phone="13800000000").count() == 0


def test_numbers_from_excel_are_read_as_text(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS]
    rows += [
        ["体育", 1.0, 2024, "男", None, "甲二", "女", None, None],
        ["体育", "２", "甲三", "男", None, "甲四", "女", None, None],
        ["体育", "3.0", "甲五", None, None, "甲六", None, None, None],
    ]
    result = import_workbook(event=event, data=xlsx(rows))
    assert result.problems == []
    pairs = result.entries[0].pairs.order_by("number")
    assert [(p.number, p.first.name) for p in pairs] == [(1, "2024"), (2, "甲三"), (3, "甲五")]


def test_a_team_is_grouped_by_unit_with_merged_unit_cells_and_ordered_by_pair_number(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS]
    rows += [
        ["体育", 3, "甲五", "男", None, "甲六", "女", None, None],  # 3
        [None, 1, "甲一", "男", None, "甲二", "女", None, None],  # 4 (merged 单位)
        [None, 2, "甲三", "男", None, "甲四", "女", None, None],  # 5 (merged 单位)
        ["行政", None, "乙一", "男", None, "乙二", "女", None, "是"],  # 6
        ["行政", None, "乙三", "男", None, "乙四", "女", None, None],  # 7
        ["行政", None, "乙五", "男", None, "乙六", "女", None, None],  # 8
        [None, 1, None, None, None, None, None, None, None],  # 9: pre-typed, nobody in it
        [None, 2, None, None, None, None, None, None, None],  # 10
    ]
    result = import_workbook(event=event, data=xlsx(rows, merge=["A3:A5"]))
    assert result.problems == []
    assert [f.where for f in result.forms] == ["第3–5行", "第6–8行"]
    sports, admin = snapshot(event)
    assert [(n, a[0], b[0]) for n, a, b in sports[5]] == [
        (1, "甲一", "甲二"),
        (2, "甲三", "甲四"),
        (3, "甲五", "甲六"),
    ]
    # Blank 对序号 throughout a team: the rows' order; 是 on any row makes it on site.
    assert [a[0] for _n, a, _b in admin[5]] == ["乙一", "乙三", "乙五"]
    assert admin[2] is True


def test_a_team_split_over_separate_rows_is_named_by_all_its_rows(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS]
    rows += team_rows("体育", [("甲一", "甲二"), ("甲三", "甲四")])  # 3–4
    rows += team_rows("行政", [("乙一", "乙二")])  # 5
    rows += team_rows("体育", [("甲五", "甲六")], start=3)  # 6
    result = import_workbook(event=event, data=xlsx(rows))
    assert messages(result.problems) == ["第5行：每队须报3对选手，这里有1对。"]
    assert [f.where for f in result.forms] == ["第3–4、6行", "第5行"]


def test_on_site_entries_of_an_advance_registration_event_get_the_participation_award_only(demo):
    anhui = demo["anhui-2021"]
    event = anhui.events.get(slug="guandan")
    rows = [
        PAIR_HEADERS,
        ["农学系", "新甲", "男", "新乙", "女", "是"],
        ["园艺系", "新丙", "男", "新丁", "女", "否"],
    ]
    result = import_workbook(event=event, data=xlsx(rows))
    assert result.problems == []
    late, regular = result.entries
    assert (late.on_site, late.participation_award_only) == (True, True)
    assert (regular.on_site, regular.participation_award_only) == (False, False)


# ---------------------------------------------------------------- unreadable files


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "文件是空的"),
        (b"not a spreadsheet at all", "这不是Excel文件（.xlsx）"),
        ("单位,姓名\n体育,张三\n".encode(), "这不是Excel文件（.xlsx）"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "旧版Excel文件（.xls）"),
    ],
    ids=["empty", "text", "csv", "xls"],
)
def test_a_file_that_is_not_xlsx_gives_a_clear_problem(cup, data, expected):
    result = import_workbook(event=cup.events.get(slug="chess"), data=data)
    assert len(result.problems) == 1
    assert expected in result.problems[0].message
    assert result.problems[0].where == ""


def test_a_zip_that_is_not_a_workbook_or_a_damaged_workbook_gives_a_clear_problem(cup):
    event = cup.events.get(slug="chess")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("readme.txt", "hello")
    assert (
        "这不是Excel文件" in import_workbook(event=event, data=out.getvalue()).problems[0].message
    )
    good = xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""]])
    result = import_workbook(event=event, data=good[: len(good) // 2])
    assert len(result.problems) == 1 and result.problems[0].where == ""


def test_wrong_headers_name_the_missing_ones(cup):
    result = import_workbook(
        event=cup.events.get(slug="pairs"),
        data=xlsx([["单位", "姓名", "性别"], ["体育", "张三", "男"]]),
    )
    assert messages(result.problems) == [
        "找不到完整的表头：缺少“选手一姓名”、“选手二姓名”。"
        "本项目的报名表须有“单位”、“选手一姓名”、“选手二姓名”等列。"
    ]
    result = import_workbook(event=cup.events.get(slug="chess"), data=xlsx([["名字", "年龄"]]))
    assert "找不到表头行" in result.problems[0].message


def test_a_team_form_imported_into_a_pair_event_is_refused(cup):
    rows = [TEAM_HEADERS] + team_rows("体育", [("甲一", "甲二")])
    result = import_workbook(event=cup.events.get(slug="pairs"), data=xlsx(rows))
    assert messages(result.problems) == [
        "第2行：表头有“对序号”，这是团体赛的报名表；请使用pairs的报名表模板。"
    ]


def test_files_over_5_mb_and_sheets_over_5000_rows_are_refused(cup):
    event = cup.events.get(slug="chess")
    result = import_workbook(event=event, data=b"PK" + b"\0" * MAX_FILE_BYTES)
    assert messages(result.problems) == [
        "文件太大（超过5MB）；请删去多余的工作表或图片，或分成几个文件导入。"
    ]
    book = Workbook()
    sheet = book.active
    sheet.append(SINGLE_HEADERS)
    sheet.append(["体育", "张三", "男", ""])
    sheet.cell(row=MAX_ROWS + 1, column=1, value="行政")
    sheet.cell(row=MAX_ROWS + 1, column=2, value="李四")
    out = io.BytesIO()
    book.save(out)
    result = import_workbook(event=event, data=out.getvalue())
    assert messages(result.problems) == ["表格超过5000行，无法导入；请分成几个文件。"]
    assert not event.entries.exists()


def test_an_uploaded_file_object_is_read_like_bytes(cup):
    from django.core.files.uploadedfile import SimpleUploadedFile

    event = cup.events.get(slug="chess")
    upload = SimpleUploadedFile("报名表.xlsx", xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""]]))
    upload.read()  # a view may have read it already
    forms, problems = parse_workbook(event, upload)
    assert problems == [] and forms[0].player.name == "张三"


_GOOD = xlsx([TEAM_HEADERS] + team_rows("体育", [("甲一", "甲二")]))


def _damaged(changes: list[tuple[int, int]]) -> bytes:
    """A valid workbook with a few bytes overwritten."""
    data = bytearray(_GOOD)
    for index, value in changes:
        data[index] = value
    return bytes(data)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.one_of(
        st.binary(max_size=2000),
        st.binary(max_size=500).map(lambda tail: b"PK\x03\x04" + tail),
        st.lists(st.tuples(st.integers(0, len(_GOOD) - 1), st.integers(0, 255)), max_size=8).map(
            _damaged
        ),
    )
)
def test_reading_any_bytes_gives_problems_never_an_exception(data):
    event = Event(name="掼蛋", entry_kind=Event.EntryKind.TEAM, pairs_per_team=3)
    forms, problems = parse_workbook(event, data)
    assert all(isinstance(p, Problem) for p in problems)
    assert forms or problems


# ---------------------------------------------------------------- dry run, locks, save-time errors


def test_a_dry_run_returns_the_forms_and_saves_nothing(cup):
    event = cup.events.get(slug="team")
    rows = [TEAM_HEADERS] + team_rows(
        "体育", [("甲一", "甲二"), ("甲三", "甲四"), ("甲五", "甲六")]
    )
    before = counts()
    result = import_workbook(event=event, data=xlsx(rows), dry_run=True)
    assert result.problems == [] and result.entries == []
    assert [f.unit for f in result.forms] == ["体育"]
    assert counts() == before


def test_nothing_is_imported_into_an_event_after_its_draw(cup):
    event = cup.events.get(slug="chess")
    event.drawn_at = timezone.now()
    event.save()
    result = import_workbook(event=event, data=xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""]]))
    assert messages(result.problems) == ["本项目已抽签，配对选手不得重组；如需变动只能退赛。"]
    assert not event.entries.exists()


def test_a_registration_error_at_save_time_comes_back_as_problems(cup, monkeypatch):
    def refuse(**kwargs):
        raise RegistrationError([Problem("第3行", "张三（体育）已报名本项目。")])

    monkeypatch.setattr(imports, "register_entries", refuse)
    event = cup.events.get(slug="chess")
    result = import_workbook(event=event, data=xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""]]))
    assert messages(result.problems) == ["第3行：张三（体育）已报名本项目。"]
    assert result.entries == []


def test_the_importing_organiser_is_recorded(cup, django_user_model):
    user = django_user_model.objects.create_user("organiser", password="x")
    event = cup.events.get(slug="chess")
    result = import_workbook(
        event=event, data=xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""]]), user=user
    )
    assert result.entries[0].registered_by == user


# ---------------------------------------------------------------- commands


def run(*args) -> tuple[int, str, str]:
    out, err = StringIO(), StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exc:
        code = exc.code
    return code, out.getvalue(), err.getvalue()


def test_import_command_dry_run_saves_nothing_and_exits_0(cup, tmp_path):
    path = tmp_path / "报名表.xlsx"
    path.write_bytes(xlsx([SINGLE_HEADERS, ["体育", "张三", "男", ""], ["行政", "李四", "", ""]]))
    before = counts()
    code, out, _err = run("import_entries", "test-cup", "chess", str(path), "--dry-run")
    assert code == 0
    assert "可导入2个报名" in out and "未保存" in out
    assert counts() == before
    code, out, _err = run("import_entries", "test-cup", "chess", str(path))
    assert code == 0 and "已导入2个报名" in out
    assert cup.events.get(slug="chess").entries.count() == 2


def test_import_command_with_errors_prints_each_row_and_exits_1(cup, tmp_path):
    path = tmp_path / "报名表.xlsx"
    path.write_bytes(
        xlsx(
            [
                SINGLE_HEADERS,
                ["体育", "张三", "男", ""],
                ["化学", "李四", "", ""],
                ["行政", "", "", ""],
            ]
        )
    )
    before = counts()
    code, _out, err = run("import_entries", "test-cup", "chess", str(path))
    assert code == 1
    assert err.splitlines() == [
        "第4行 A列：单位“化学”不在本比赛的单位名单中。",
        "第5行 B列：选手的姓名为空。",
        "共2个问题，未导入任何报名。",
    ]
    assert counts() == before


def test_import_command_lists_a_duplicate_name_in_a_team_whose_numbers_are_wrong(cup, tmp_path):
    """A structural problem (a team's 对序号) hides no other problem: the name that team
    shares with another team is listed too, at both cells."""
    rows = [TEAM_HEADERS]
    rows += team_rows("体育", [("甲一", "甲二"), ("甲三", "甲四"), ("甲五", "甲六")])  # 3–5
    rows += team_rows("行政", [("乙一", "乙二"), ("乙三", "乙四"), ("乙五", "乙六")])  # 6–8
    rows[-1][1] = 7  # row 8, 对序号
    rows[-2][2] = "甲三"  # row 7, 选手一姓名: but 行政's 甲三 is another person (another unit)
    rows[-3][5] = "乙一"  # row 6, 选手二姓名: 乙一 twice in 行政
    path = tmp_path / "报名表.xlsx"
    path.write_bytes(xlsx(rows))
    before = counts()
    code, _out, err = run("import_entries", "test-cup", "team", str(path))
    assert code == 1
    assert err.splitlines() == [
        "第6行 C列、第6行 F列：第1对两名选手是同一人（乙一）。",
        "第8行 B列：对序号“7”有误，须是1到3的整数（每队3对）。",
        "共2个问题，未导入任何报名。",
    ]
    rows[-3][5] = "乙二"
    rows[-2][5] = "乙一"  # row 7, 选手二姓名: 乙一 of row 6 again, in another pair
    path.write_bytes(xlsx(rows))
    code, _out, err = run("import_entries", "test-cup", "team", str(path))
    assert err.splitlines() == [
        "第6行 C列、第7行 F列：乙一（行政）在本次报名中出现了2次，同一项目每人只能报一次。",
        "第8行 B列：对序号“7”有误，须是1到3的整数（每队3对）。",
        "共2个问题，未导入任何报名。",
    ]
    assert counts() == before


def test_export_then_import_commands_round_trip(demo, make_tournament, tmp_path):
    anhui = demo["anhui-2021"]
    copy = copy_tournament(anhui, make_tournament, "anhui-copy")
    for event in anhui.events.all():
        path = tmp_path / f"{event.slug}.xlsx"
        code, out, _err = run("export_entries", "anhui-2021", event.slug, str(path))
        count = event.entries.count()
        assert code == 0 and f"已导出{count}个报名" in out
        code, out, err = run("import_entries", "anhui-copy", event.slug, str(path))
        assert (code, err) == (0, "")
        assert f"已导入{count}个报名" in out
        assert snapshot(copy.events.get(slug=event.slug)) == snapshot(event)


@pytest.fixture
def played(db):
    """The demo tournaments drawn, and two 象棋 players out (资格终止) after forfeiting
    their first-round games (弃权), through the referee services as on the day."""
    from django.contrib.auth import get_user_model

    from scoring.models import TableMatch
    from scoring.services.tables import confirm_table, record_event, submit_table
    from tournaments.models import Match, Official
    from tournaments.ops.demo import load_demo

    demo = {t.slug: t for t in load_demo()}
    anhui = demo["anhui-2021"]
    User = get_user_model()
    referee, chief = User.objects.create_user("referee"), User.objects.create_user("chief")
    for who, name, role in ((referee, "周铃", "referee"), (chief, "肖慧", "chief_referee")):
        Official.objects.update_or_create(
            tournament=anhui, name=name, role=role, defaults={"user": who}
        )
    chess = anhui.events.get(slug="xiangqi")
    matches = (
        Match.objects.filter(round__stage__event=chess, round__number=1, status="pending")
        .exclude(home=None)
        .exclude(away=None)
        .order_by("index")[:2]
    )
    for match in matches:
        table = match.tables.get()
        forfeit = chess.scorer().forfeit("B", "withdrawn")
        record_event(table=table, event=forfeit, user=referee, key=f"ff-{table.pk}")
        submit_table(table=TableMatch.objects.get(pk=table.pk), user=referee)
        confirm_table(table=TableMatch.objects.get(pk=table.pk), user=chief)
    return demo


def test_the_export_gives_every_entry_with_its_state_and_imports_again(
    played, make_tournament, tmp_path
):
    """象棋 has 10 entries, some of them out after forfeits (资格终止, 弃权): all 10 are
    exported with their 状态; imported into an empty copy, those still registered are
    taken and the others named as left out; the copy's export imports as well."""
    anhui = played["anhui-2021"]
    chess = anhui.events.get(slug="xiangqi")
    out = list(chess.entries.exclude(status=Entry.Status.REGISTERED).order_by("id"))
    assert chess.entries.count() == 10 and len(out) == 2
    kept = 10 - len(out)
    path = tmp_path / "象棋.xlsx"
    code, said, _err = run("export_entries", "anhui-2021", "xiangqi", str(path))
    assert code == 0
    assert "已导出10个报名" in said and f"其中{len(out)}个不是“已报名”状态" in said
    rows = sheet_rows(path.read_bytes())
    assert rows[1] == (*SINGLE_HEADERS, "状态", "状态原因")
    states = {row[1]: (row[4], row[5]) for row in rows[2:]}
    assert len(states) == 10
    for entry in out:
        assert states[entry.player.name] == ("资格终止", "弃权")
    assert sum(1 for state in states.values() if state == ("已报名", None)) == kept

    copy = copy_tournament(anhui, make_tournament, "anhui-copy")
    code, said, err = run("import_entries", "anhui-copy", "xiangqi", str(path))
    assert (code, err) == (0, "")
    left = [n for n, row in enumerate(rows, start=1) if row[4] == "资格终止"]
    assert said.splitlines() == [
        f"已导入{kept}个报名到{copy.events.get(slug='xiangqi')}。",
        f"另有{len(out)}个报名不是“已报名”状态，未导入：",
        *(f"第{n}行：{rows[n - 1][0]}的报名为“资格终止”（弃权），不导入。" for n in left),
    ]
    target = copy.events.get(slug="xiangqi")
    registered = chess.entries.filter(status=Entry.Status.REGISTERED)
    assert sorted(e.player.name for e in target.entries.all()) == sorted(
        e.player.name for e in registered
    )
    # Every other event goes the same way: what is registered comes back as it was.
    for source in anhui.events.exclude(slug="xiangqi"):
        result = import_workbook(
            event=copy.events.get(slug=source.slug), data=export_workbook(source)
        )
        assert result.problems == [], source.slug
        assert (
            len(result.left_out) == source.entries.exclude(status=Entry.Status.REGISTERED).count()
        )
        assert snapshot(copy.events.get(slug=source.slug)) == snapshot(source), source.slug
    # The copy's own export imports again (into a second copy) with nothing left out.
    again = copy_tournament(anhui, make_tournament, "anhui-copy-2")
    result = import_workbook(event=again.events.get(slug="xiangqi"), data=export_workbook(target))
    assert (result.problems, result.left_out, len(result.entries)) == ([], [], kept)


def test_a_state_the_form_does_not_write_is_a_problem_and_a_blank_one_is_registered(cup):
    event = cup.events.get(slug="chess")
    rows = [
        [*SINGLE_HEADERS, "状态"],
        ["体育", "张三", "男", "", ""],  # 3: blank, registered
        ["行政", "李四", "女", "", "已报名"],  # 4
        ["历史", "王五", "男", "", "退了"],  # 5: not a state
        ["后勤", "赵六", "男", "", "已退赛"],  # 6: left out
    ]
    result = import_workbook(event=event, data=xlsx(rows))
    assert messages(result.problems) == ["第5行 E列：状态“退了”无法识别，请填“已报名”或留空。"]
    assert messages(result.left_out) == ["第6行：后勤的报名为“已退赛”，不导入。"]
    del rows[3]
    result = import_workbook(event=event, data=xlsx(rows))
    assert result.problems == [] and len(result.entries) == 2


def test_a_withdrawn_team_and_the_units_new_team_are_told_apart(cup):
    """A unit whose team withdrew and registered again has both in the export: the rows
    of one 单位 go together only while their 状态 is the same."""
    event = cup.events.get(slug="team")
    rows = [[*TEAM_HEADERS, "状态", "状态原因"]]
    for row in team_rows("体育", [("甲一", "甲二"), ("甲三", "甲四"), ("甲五", "甲六")]):
        rows.append([*row, "已退赛", "换人"])
    for row in team_rows("体育", [("甲一", "乙二"), ("乙三", "乙四"), ("乙五", "乙六")]):
        rows.append([*row, "已报名", None])
    result = import_workbook(event=event, data=xlsx(rows))
    assert result.problems == []
    assert messages(result.left_out) == ["第3–5行：体育的报名为“已退赛”（换人），不导入。"]
    [entry] = result.entries
    assert [str(p) for p in entry.pairs.order_by("number")] == [
        "甲一、乙二",
        "乙三、乙四",
        "乙五、乙六",
    ]


def test_commands_refuse_unknown_tournaments_events_and_unreadable_paths(cup, tmp_path):
    with pytest.raises(CommandError, match="没有标识为“nope”的比赛"):
        call_command("import_entries", "nope", "chess", str(tmp_path / "x.xlsx"))
    with pytest.raises(CommandError, match="没有标识为“golf”的项目；可选：team, pairs, chess"):
        call_command("export_entries", "test-cup", "golf", str(tmp_path / "x.xlsx"))
    with pytest.raises(CommandError, match="无法读取文件"):
        call_command("import_entries", "test-cup", "chess", str(tmp_path / "missing.xlsx"))
    with pytest.raises(CommandError, match="无法写入文件"):
        call_command("export_entries", "test-cup", "chess", str(tmp_path / "no" / "x.xlsx"))
