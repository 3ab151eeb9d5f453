"""The workbook writer: the blank form of an event (:func:`template_workbook`) and the sheets
every form the app writes shares — title, headers, drop-downs and the 说明 sheet, every text
cell made inert (:func:`~.safety.make_inert`) before the file is saved."""

from __future__ import annotations

import io

from django.utils import timezone
from openpyxl import Workbook
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from tournaments.models import Event, Unit
from tournaments.registration.spreadsheets.layout import (
    EXAMPLE_PREFIX,
    FIRST,
    GENDER,
    HEADER_ROW,
    NAME,
    NO,
    NUMBER,
    ON_SITE,
    PLAYER_UNIT,
    SECOND,
    STATE_COLUMNS,
    STATUS,
    TITLE_ROW,
    UNIT,
    WIDTHS,
    YES,
    columns_for,
)
from tournaments.registration.spreadsheets.safety import make_inert


def template_workbook(event: Event, *, unit: Unit | None = None) -> bytes:
    """A blank form for the event: title, headers, one example row and the 说明 sheet; a
    unit's own form names that unit in its example row."""
    return write_workbook(event, rows=[], example=_example_row(event, unit))


def _example_row(event: Event, unit: Unit | None = None) -> dict:
    if unit is None:
        units = list(event.tournament.units.order_by("id"))
        plain = [u for u in units if u.kind != Unit.Kind.JOINT]
        unit = (plain or units or [None])[0]
    label = f"{EXAMPLE_PREFIX}：{unit.name if unit else '某单位'}"
    people = {
        FIRST + NAME: "张三",
        FIRST + GENDER: "男",
        SECOND + NAME: "李四",
        SECOND + GENDER: "女",
        NAME: "张三",
        GENDER: "男",
    }
    return {UNIT: label, NUMBER: 1, **people}


def write_workbook(
    event: Event, *, rows: list[dict], example: dict | None, states: bool = False
) -> bytes:
    """The event's form as .xlsx bytes: ``rows`` ({header: value}) below the headers, after
    the greyed ``example`` row if there is one; with ``states``, the 状态 columns too."""
    tournament = event.tournament
    columns = columns_for(event) + (STATE_COLUMNS if states else ())
    units = [u.name for u in tournament.units.order_by("id")]

    book = Workbook()
    sheet = book.active
    sheet.title = "报名表"
    notes = book.create_sheet("说明")

    thin = Side(style="thin", color="999999")
    border = Border(left=thin, right=thin, top=thin, bottom=thin)
    title = sheet.cell(row=TITLE_ROW, column=1, value=f"{tournament.name} {event.name}报名表")
    title.font = Font(bold=True, size=14)
    title.alignment = Alignment(horizontal="center", vertical="center")
    sheet.merge_cells(
        start_row=TITLE_ROW, start_column=1, end_row=TITLE_ROW, end_column=len(columns)
    )
    sheet.row_dimensions[TITLE_ROW].height = 28
    for index, header in enumerate(columns, start=1):
        cell = sheet.cell(row=HEADER_ROW, column=index, value=header)
        cell.font = Font(bold=True)
        cell.fill = PatternFill("solid", fgColor="DDEBF7")
        cell.alignment = Alignment(horizontal="center", vertical="center")
        cell.border = border
        width = next(w for key, w in WIDTHS.items() if header.endswith(key))
        sheet.column_dimensions[get_column_letter(index)].width = width
    sheet.freeze_panes = sheet.cell(row=HEADER_ROW + 1, column=1)

    row_number = HEADER_ROW + 1
    if example is not None:
        grey = Font(italic=True, color="808080")
        for index, header in enumerate(columns, start=1):
            cell = sheet.cell(row=row_number, column=index, value=example.get(header))
            cell.font = grey
        row_number += 1
    for values in rows:
        for index, header in enumerate(columns, start=1):
            value = values.get(header)
            cell = sheet.cell(row=row_number, column=index, value=value if value != "" else None)
            cell.border = border
        row_number += 1

    unit_range = _write_notes(notes, event, columns, units)
    _add_validations(sheet, event, columns, unit_range, last_row=max(row_number + 200, 300))

    make_inert(book)  # names, titles and notes alike: no cell of the app's is a formula
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _write_notes(notes, event: Event, columns: tuple[str, ...], units: list[str]) -> str | None:
    """The 说明 sheet: the rules that apply to this form, then the list of units (which the
    单位 drop-down refers to). Returns that list's cell range."""
    tournament = event.tournament
    kind = event.entry_kind
    lines = [f"{tournament.name} {event.name}报名说明", ""]
    if kind == Event.EntryKind.TEAM:
        n = event.pairs_per_team
        lines.append(
            f"1. 本项目为团体赛：每个单位报一队，每队{n}对选手（不多不少），"
            f"每对占一行，“{NUMBER}”填1–{n}；同一队各行的“{UNIT}”相同（可合并单元格）。"
        )
    elif kind == Event.EntryKind.PAIR:
        lines.append("1. 本项目为双人项目：每对选手（两人）占一行；一个单位可报多对。")
    else:
        lines.append("1. 本项目为个人项目：每名选手占一行；一个单位可报多人。")
    lines.append(f"2. “{UNIT}”须是本比赛的单位名称，见本页下方的单位名单（可从下拉列表选择）。")
    lines.append(f"3. 男女不限；“{GENDER}”填“男”或“女”，也可留空。")
    joint = list(tournament.units.filter(kind=Unit.Kind.JOINT).prefetch_related("members"))
    if any(header.endswith(PLAYER_UNIT) for header in columns):
        if joint:
            teams = "；".join(
                f"{team.name}由{'、'.join(m.name for m in team.members.all())}组成"
                for team in joint
            )
            lines.append(
                f"4. “{PLAYER_UNIT}”只在联队需要填写：联队选手须填本人所在单位（{teams}）；"
                "其他单位留空即可。"
            )
        else:
            lines.append(f"4. “{PLAYER_UNIT}”留空即为本队单位（仅联队需要填写）。")
    else:
        lines.append("4. 姓名中的空格和全角字符会自动整理；请勿填写工号、电话等其他信息。")
    if tournament.registration_deadline:
        deadline = timezone.localtime(tournament.registration_deadline)
        when = f"{deadline.year}年{deadline.month}月{deadline.day}日 {deadline:%H:%M}"
        lines.append(f"5. 报名截止时间：{when}。截止后只能由组织者现场报名。")
    else:
        lines.append("5. 报名截止时间以比赛通知为准；截止后只能由组织者现场报名。")
    on_site = f"6. “{ON_SITE}”：截止后在现场报名的填“{YES}”，按时报名的留空（或填“{NO}”）。"
    if event.advance_registration_required:
        on_site += "本项目须提前报名，现场报名者只获参与奖。"
    lines.append(on_site)
    rules = ["7. 同一项目每人只能报一次。"]
    if tournament.one_event_per_person:
        rules.append("每人只能参加一个比赛项目（已报其他项目的选手不能再报本项目）。")
    lines.append("".join(rules))
    lines.append(
        f"8. 以“{EXAMPLE_PREFIX}”开头的行不会导入，可以删除；请勿修改表头。"
        "整个文件没有错误才会导入，有错误时会逐行列出，什么也不保存。"
    )
    if STATUS in columns:
        lines.append(
            f"9. “{STATUS}”列出每个报名的状态：再次导入时只导入“已报名”（或留空）的行，"
            "已退赛、资格终止、取消资格的报名不导入，导入结果会列出它们。"
        )
    for row, text in enumerate(lines, start=1):
        notes.cell(row=row, column=1, value=text)
    notes["A1"].font = Font(bold=True, size=13)
    notes.column_dimensions["A"].width = 110
    for row in range(3, len(lines) + 1):
        notes.cell(row=row, column=1).alignment = Alignment(wrap_text=True, vertical="top")

    start = len(lines) + 2
    notes.cell(row=start, column=1, value="单位名单").font = Font(bold=True)
    for offset, name in enumerate(units, start=1):
        notes.cell(row=start + offset, column=1, value=name)
    if not units:
        return None
    return f"'{notes.title}'!$A${start + 1}:$A${start + len(units)}"


def _add_validations(sheet, event, columns, unit_range, *, last_row: int) -> None:
    first_row = HEADER_ROW + 1

    def add(headers: set[str], validation: DataValidation) -> None:
        ranges = [
            f"{letter}{first_row}:{letter}{last_row}"
            for index, header in enumerate(columns, start=1)
            if header in headers
            for letter in [get_column_letter(index)]
        ]
        if not ranges:
            return
        validation.sqref = " ".join(ranges)  # type: ignore[assignment]
        sheet.add_data_validation(validation)

    def choice(formula: str, message: str) -> DataValidation:
        return DataValidation(
            type="list",
            formula1=formula,
            allow_blank=True,
            showErrorMessage=True,
            errorTitle="输入有误",
            error=message,
        )

    genders = {GENDER, FIRST + GENDER, SECOND + GENDER}
    player_units = {PLAYER_UNIT, FIRST + PLAYER_UNIT, SECOND + PLAYER_UNIT}
    add(genders, choice('"男,女"', "请填“男”或“女”，也可留空。"))
    add({ON_SITE}, choice(f'"{YES},{NO}"', f"请填“{YES}”或留空。"))
    if unit_range:
        add({UNIT}, choice(unit_range, "请从单位名单中选择（见“说明”页）。"))
        add(player_units, choice(unit_range, "请从单位名单中选择，或留空。"))
    if event.entry_kind == Event.EntryKind.TEAM:
        add(
            {NUMBER},
            DataValidation(
                type="whole",
                operator="between",
                formula1="1",
                formula2=str(event.pairs_per_team),
                allow_blank=True,
                showErrorMessage=True,
                errorTitle="输入有误",
                error=f"对序号是1到{event.pairs_per_team}的整数。",
            ),
        )
