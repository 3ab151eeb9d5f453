"""Excel registration forms (报名表): the template, the export and the import of one event.

The layout is one sheet with a title row, a header row and one row per pair (team events:
a team is several rows with the same 单位 and 对序号 1, 2, 3 …), per pair (pair events) or per
player (single events), plus a 说明 sheet with the rules that apply. An exported file imports
again into an empty copy of the event, so organisers can edit and re-import it.

Reading never raises for a bad file: every problem (an unreadable file, missing headers, a bad
row) comes back as a :class:`~tournaments.registration.services.Problem` naming the row as Excel shows
it ("第7行", "第7–9行"). All checks and all writes go through
:mod:`tournaments.registration.services`; nothing is saved unless the whole file is valid.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from dataclasses import dataclass, field

from django.utils import timezone
from django.utils.translation import gettext as _
from openpyxl import Workbook, load_workbook
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation

from tournaments.models import Entry, Event, Unit
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    Problem,
    RegistrationError,
    check_entries,
    normalise_name,
    register_entries,
)

# Limits for uploaded files. A registration form is a few dozen KB with one or two sheets;
# an .xlsx is a zip, so its directory is checked before openpyxl unpacks anything.
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_UNPACKED_BYTES = 50 * 1024 * 1024  # all members together, as the zip declares them
MAX_MEMBERS = 200  # files inside the zip (a sheet, its styles, strings … are one each)
MAX_RATIO = 100  # unpacked / packed size of one member over 1 MB (zip bombs)
RATIO_CHECKED_FROM = 1024 * 1024
MAX_ROWS = 5000
MAX_COLUMNS = 50  # with data; also bounds how wide a row openpyxl builds for us
HEADER_SEARCH_ROWS = 50  # the header row must be among a sheet's first rows
XLSX_SUFFIX = ".xlsx"
MACRO_SUFFIXES = (".xlsm", ".xltm", ".xlam", ".xlsb")

UNIT = "单位"
NUMBER = "对序号"
NAME = "姓名"
GENDER = "性别"
PLAYER_UNIT = "所属单位"
ON_SITE = "现场报名"
FIRST, SECOND = "选手一", "选手二"
EXAMPLE_PREFIX = "示例"
YES, NO = "是", "否"

COLUMNS: dict[str, tuple[str, ...]] = {
    Event.EntryKind.TEAM: (
        UNIT,
        NUMBER,
        FIRST + NAME,
        FIRST + GENDER,
        FIRST + PLAYER_UNIT,
        SECOND + NAME,
        SECOND + GENDER,
        SECOND + PLAYER_UNIT,
        ON_SITE,
    ),
    Event.EntryKind.PAIR: (
        UNIT,
        FIRST + NAME,
        FIRST + GENDER,
        SECOND + NAME,
        SECOND + GENDER,
        ON_SITE,
    ),
    Event.EntryKind.SINGLE: (UNIT, NAME, GENDER, ON_SITE),
}
# Columns a file may leave out: blank gender is allowed (男女不限), a blank 所属单位 is the
# entry's unit, a missing 现场报名 means a regular entry.
OPTIONAL = {
    FIRST + GENDER,
    SECOND + GENDER,
    GENDER,
    FIRST + PLAYER_UNIT,
    SECOND + PLAYER_UNIT,
    PLAYER_UNIT,
    ON_SITE,
}
# Pair and single layouts get 所属单位 columns only where a joint team (联队) could need them.
_JOINT_EXTRA = {
    Event.EntryKind.PAIR: {
        FIRST + GENDER: FIRST + PLAYER_UNIT,
        SECOND + GENDER: SECOND + PLAYER_UNIT,
    },
    Event.EntryKind.SINGLE: {GENDER: PLAYER_UNIT},
}
# Matched by the end of the header, so 所属单位 comes before 单位.
_WIDTHS = {PLAYER_UNIT: 14, UNIT: 18, NUMBER: 8, NAME: 12, GENDER: 10, ON_SITE: 10}
_GENDER_TEXT = {"M": "男", "F": "女"}
TITLE_ROW, HEADER_ROW = 1, 2


@dataclass
class ImportResult:
    """What an import did: ``entries`` created (none for a dry run or on any problem), the
    ``forms`` read from the file (what would be registered) and every ``problem``."""

    entries: list[Entry] = field(default_factory=list)
    forms: list[EntryForm] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------- writing


def columns_for(event: Event) -> tuple[str, ...]:
    """The headers of the event's form: :data:`COLUMNS`, plus 所属单位 for pair and single
    events of tournaments with joint teams (their players belong to the member units)."""
    columns = COLUMNS[event.entry_kind]
    extra = _JOINT_EXTRA.get(event.entry_kind)
    if not extra or not event.tournament.units.filter(kind=Unit.Kind.JOINT).exists():
        return columns
    result: list[str] = []
    for header in columns:
        result.append(header)
        if header in extra:
            result.append(extra[header])
    return tuple(result)


def template_workbook(event: Event) -> bytes:
    """A blank form for the event: title, headers, one example row and the 说明 sheet."""
    return _workbook(event, rows=[], example=_example_row(event))


def export_workbook(event: Event) -> bytes:
    """All registered entries of the event, in the layout of the template."""
    return _workbook(event, rows=_entry_rows(event), example=None)


def _entry_rows(event: Event) -> list[dict]:
    entries = (
        event.entries.filter(status=Entry.Status.REGISTERED)
        .select_related("unit", "player__unit")
        .prefetch_related("pairs__first__unit", "pairs__second__unit")
        .order_by("id")
    )
    rows = []
    for entry in entries:
        on_site = YES if entry.on_site else ""

        def person(prefix, player, entry=entry):
            own_unit = "" if player.unit_id == entry.unit_id else player.unit.name
            return {
                prefix + NAME: player.name,
                prefix + GENDER: _GENDER_TEXT.get(player.gender, ""),
                prefix + PLAYER_UNIT: own_unit,
            }

        if entry.player is not None:
            rows.append({UNIT: entry.unit.name, **person("", entry.player), ON_SITE: on_site})
            continue
        for pair in entry.pairs.all():
            rows.append(
                {
                    UNIT: entry.unit.name,
                    NUMBER: pair.number,
                    **person(FIRST, pair.first),
                    **person(SECOND, pair.second),
                    ON_SITE: on_site,
                }
            )
    return rows


def _example_row(event: Event) -> dict:
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


def _workbook(event: Event, *, rows: list[dict], example: dict | None) -> bytes:
    tournament = event.tournament
    columns = columns_for(event)
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
        width = next(w for key, w in _WIDTHS.items() if header.endswith(key))
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
            if isinstance(value, str) and value.startswith("="):
                cell.data_type = "s"  # a name, never a formula Excel would run
            cell.border = border
        row_number += 1

    unit_range = _write_notes(notes, event, columns, units)
    _add_validations(sheet, event, columns, unit_range, last_row=max(row_number + 200, 300))

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


# ---------------------------------------------------------------- reading


def _text(value) -> str:
    """A cell value as openpyxl gives it (str, int, float, bool, date, None) as clean text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return normalise_name(value)


def _header_key(value) -> str:
    """A header cell as a comparable key: full-width folded, spaces, '*' and notes in
    brackets dropped ("选手一 姓名（必填）" is 选手一姓名)."""
    text = normalise_name(_text(value))
    text = re.sub(r"\(.*?\)|\[.*?\]|【.*?】|[\s*:：]", "", text)
    return text


def _rows_text(rows: list[int]) -> str:
    """[7, 8, 9, 12] -> "第7–9、12行"."""
    numbers = sorted(set(rows))
    parts: list[str] = []
    start = prev = numbers[0]
    for n in numbers[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if n is not None:
            start = prev = n
    return _("第%(rows)s行") % {"rows": "、".join(parts)}


def _row_key(problem: Problem) -> int:
    match = re.search(r"\d+", problem.where)
    return int(match.group()) if match else 0


def _read_bytes(data) -> tuple[bytes | None, Problem | None]:
    too_big = Problem(
        "",
        _("文件太大（超过%(mb)sMB）；请删去多余的工作表或图片，或分成几个文件导入。")
        % {"mb": MAX_FILE_BYTES // (1024 * 1024)},
    )
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
    else:
        size = getattr(data, "size", None)
        if isinstance(size, int) and size > MAX_FILE_BYTES:
            return None, too_big
        try:
            if hasattr(data, "seek"):
                data.seek(0)
            raw = data.read(MAX_FILE_BYTES + 1)
        except (OSError, ValueError) as exc:
            return None, Problem("", _("无法读取文件：%(error)s") % {"error": exc})
        if isinstance(raw, str):
            return None, Problem("", _("无法读取文件：请以二进制方式打开（.xlsx）。"))
    if len(raw) > MAX_FILE_BYTES:
        return None, too_big
    return raw, None


def _not_xlsx(raw: bytes) -> Problem | None:
    if not raw:
        return Problem("", _("文件是空的。"))
    if raw.startswith(b"\xd0\xcf\x11\xe0"):
        return Problem(
            "",
            _("这是旧版Excel文件（.xls）；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"),
        )
    not_xlsx = Problem("", _("这不是Excel文件（.xlsx）；请使用本项目下载的报名表模板。"))
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
            members = len(infos)
            names = {info.filename for info in infos}
            unpacked = sum(info.file_size for info in infos)
            bomb = any(
                info.file_size > RATIO_CHECKED_FROM
                and info.file_size > MAX_RATIO * max(info.compress_size, 1)
                for info in infos
            )
            content_types = b""
            if "[Content_Types].xml" in names and members <= MAX_MEMBERS and not bomb:
                info = archive.getinfo("[Content_Types].xml")
                if info.file_size <= RATIO_CHECKED_FROM:
                    content_types = archive.read(info)
    except (
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        ValueError,
        EOFError,
        RuntimeError,
        NotImplementedError,
    ):
        return not_xlsx
    if "[Content_Types].xml" not in names or not any(n.startswith("xl/") for n in names):
        return not_xlsx
    if members > MAX_MEMBERS:
        return Problem(
            "",
            _("文件内部含有%(n)s个以上部件，不像报名表，无法导入；请使用本项目下载的报名表模板。")
            % {"n": MAX_MEMBERS},
        )
    if unpacked > MAX_UNPACKED_BYTES or bomb:
        return Problem("", _("文件解压后太大，无法导入；请只保留报名表。"))
    lowered = {n.lower() for n in names}
    if (
        any(n.endswith("vbaproject.bin") or n.startswith("xl/macrosheets/") for n in lowered)
        or b"macroenabled" in content_types.lower()
    ):
        return _macro_problem()
    return None


def _macro_problem() -> Problem:
    return Problem(
        "",
        _(
            "文件含有宏（.xlsm），为安全起见不能导入；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"
        ),
    )


def check_filename(name: str) -> Problem | None:
    """The upload's name must end in .xlsx: a clear word for .xls, .xlsm, .csv and the rest
    before the content is looked at (which is checked anyway: names can lie)."""
    lowered = (name or "").strip().lower()
    if lowered.endswith(XLSX_SUFFIX):
        return None
    if lowered.endswith(MACRO_SUFFIXES):
        return _macro_problem()
    if lowered.endswith(".xls"):
        return Problem(
            "",
            _("这是旧版Excel文件（.xls）；请在Excel中“另存为”Excel工作簿（.xlsx）后再导入。"),
        )
    return Problem("", _("只能导入Excel工作簿（.xlsx）；请使用本项目下载的报名表模板。"))


def _find_header(values: tuple, kind: str) -> tuple[dict[str, int], list[str], int]:
    """The columns of a candidate header row: {header: index}, the required headers it
    lacks, and how many known headers it has."""
    known = COLUMNS[kind] + tuple(_JOINT_EXTRA.get(kind, {}).values())
    found: dict[str, int] = {}
    for index, value in enumerate(values):
        key = _header_key(value)
        if key in known and key not in found:
            found[key] = index
    required = [h for h in COLUMNS[kind] if h not in OPTIONAL]
    missing = [h for h in required if h not in found]
    return found, missing, len(found)


def parse_workbook(event: Event, data) -> tuple[list[EntryForm], list[Problem]]:
    """Read an .xlsx form of ``event`` (bytes or a file): the entry forms it holds and every
    problem found while reading (rows as Excel numbers them). Teams and rows with a problem
    are left out of the forms. Never raises for a bad file, and never touches the database."""
    raw, problem = _read_bytes(data)
    if problem is None:
        problem = _not_xlsx(raw)
    if problem is not None:
        return [], [problem]
    try:
        book = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception:  # openpyxl raises many kinds on a damaged file
        return [], [Problem("", _("无法打开这个Excel文件，它可能已损坏；请另存为.xlsx后再试。"))]
    try:
        rows, problems = _read_rows(book, event)
    except Exception:
        return [], [Problem("", _("无法读取这个Excel文件的内容，它可能已损坏。"))]
    finally:
        book.close()
    if problems:
        return [], problems
    if not rows:
        return [], [
            Problem(
                "",
                _("表格中没有报名数据（没有数据行；以“示例”开头的示例行不会导入）。"),
            )
        ]
    problems = []
    if event.entry_kind == Event.EntryKind.TEAM:
        forms = _team_forms(event, rows, problems)
    else:
        forms = _row_forms(event, rows, problems)
    problems.sort(key=_row_key)
    return forms, problems


def _read_rows(book, event: Event) -> tuple[list[tuple[int, dict[str, str]]], list[Problem]]:
    """The data rows of the first sheet with the event's headers: (Excel row number,
    {header: text}), without blank and 示例 rows."""
    kind = event.entry_kind
    best: tuple[int, list[str]] | None = None
    for sheet in book.worksheets:
        if not hasattr(sheet, "iter_rows"):  # a chart sheet
            continue
        columns: dict[str, int] | None = None
        rows: list[tuple[int, dict[str, str]]] = []
        # max_col: a sheet that claims 16,384 columns must not make every row that wide.
        rows_iter = sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS + 1)
        for number, values in enumerate(rows_iter, start=1):
            if len(values) > MAX_COLUMNS and values[MAX_COLUMNS] not in (None, ""):
                return [], [
                    Problem(
                        _("第%(n)s行") % {"n": number},
                        _("表格超过%(n)s列，无法导入；请只保留报名表的各列。") % {"n": MAX_COLUMNS},
                    )
                ]
            if columns is None:
                if number > HEADER_SEARCH_ROWS:
                    break
                found, missing, score = _find_header(values, kind)
                if not missing:
                    if kind != Event.EntryKind.TEAM and any(
                        _header_key(v) == NUMBER for v in values
                    ):
                        return [], [
                            Problem(
                                _("第%(n)s行") % {"n": number},
                                _(
                                    "表头有“对序号”，这是团体赛的报名表；"
                                    "请使用%(event)s的报名表模板。"
                                )
                                % {"event": event.name},
                            )
                        ]
                    columns = found
                elif score and (best is None or score > best[0]):
                    best = (score, missing)
                continue
            row = {
                header: _text(values[index] if index < len(values) else None)
                for header, index in columns.items()
            }
            # Blank, or only a pre-typed 对序号 / 现场报名 with nobody in it.
            if not any(v for h, v in row.items() if h not in (NUMBER, ON_SITE)):
                if number > 4 * MAX_ROWS:
                    break  # blank formatted rows all the way down
                continue
            if number > MAX_ROWS:
                return [], [
                    Problem(
                        "",
                        _("表格超过%(n)s行，无法导入；请分成几个文件。") % {"n": MAX_ROWS},
                    )
                ]
            if row[UNIT].startswith(EXAMPLE_PREFIX):
                continue
            rows.append((number, row))
        if columns is not None:
            return rows, []
    expected = "、".join(f"“{h}”" for h in COLUMNS[kind] if h not in OPTIONAL)
    if best is not None:
        message = _("找不到完整的表头：缺少%(missing)s。本项目的报名表须有%(expected)s等列。") % {
            "missing": "、".join(f"“{h}”" for h in best[1]),
            "expected": expected,
        }
    else:
        message = _("找不到表头行（须有%(expected)s等列）；请使用本项目下载的报名表模板。") % {
            "expected": expected
        }
    return [], [Problem("", message)]


def _on_site(number: int, row: dict[str, str], problems: list[Problem]) -> bool | None:
    value = row.get(ON_SITE, "")
    if value in ("", NO):
        return False
    if value == YES:
        return True
    problems.append(
        Problem(
            _("第%(n)s行") % {"n": number},
            _("现场报名“%(value)s”无法识别，请填“是”或留空。") % {"value": value},
        )
    )
    return None


def _person(row: dict[str, str], prefix: str) -> PersonForm:
    return PersonForm(
        name=row.get(prefix + NAME, ""),
        gender=row.get(prefix + GENDER, ""),
        unit=row.get(prefix + PLAYER_UNIT, ""),
    )


def _row_forms(event, rows, problems: list[Problem]) -> list[EntryForm]:
    forms = []
    for number, row in rows:
        where = _("第%(n)s行") % {"n": number}
        if not row[UNIT]:
            problems.append(Problem(where, _("未填写单位。")))
            continue
        on_site = _on_site(number, row, problems)
        if on_site is None:
            continue
        if event.entry_kind == Event.EntryKind.SINGLE:
            form = EntryForm(unit=row[UNIT], player=_person(row, ""), on_site=on_site, where=where)
        else:
            pair = (_person(row, FIRST), _person(row, SECOND))
            form = EntryForm(unit=row[UNIT], pairs=[pair], on_site=on_site, where=where)
        forms.append(form)
    return forms


def _pair_number(text: str) -> int | None:
    match = re.fullmatch(r"(\d+)(?:\.0+)?", text)
    return int(match.group(1)) if match else None


def _team_forms(event, rows, problems: list[Problem]) -> list[EntryForm]:
    """Group the rows by 单位 (first-seen order); a row with a blank 单位 right after a team's
    rows belongs to it (a merged 单位 cell reads as blank below its first row)."""
    teams: dict[str, list[tuple[int, dict[str, str]]]] = {}
    previous = ""
    for number, row in rows:
        unit = row[UNIT] or previous
        if not unit:
            problems.append(Problem(_("第%(n)s行") % {"n": number}, _("未填写单位。")))
            continue
        teams.setdefault(unit, []).append((number, row))
        previous = unit

    wanted = event.pairs_per_team
    forms = []
    for unit, team_rows in teams.items():
        before = len(problems)
        all_blank = all(not row.get(NUMBER) for _n, row in team_rows)
        numbered: list[tuple[int, int, dict[str, str]]] = []
        seen: dict[int, int] = {}
        on_site = False
        for position, (number, row) in enumerate(team_rows, start=1):
            where = _("第%(n)s行") % {"n": number}
            flag = _on_site(number, row, problems)
            on_site = on_site or bool(flag)
            text = row.get(NUMBER, "")
            if all_blank:
                numbered.append((position, number, row))
                continue
            if not text:
                problems.append(Problem(where, _("未填写对序号。")))
                continue
            pair_number = _pair_number(text)
            if pair_number is None or not 1 <= pair_number <= wanted:
                problems.append(
                    Problem(
                        where,
                        _("对序号“%(value)s”有误，须是1到%(n)s的整数（每队%(n)s对）。")
                        % {"value": text, "n": wanted},
                    )
                )
                continue
            if pair_number in seen:
                problems.append(
                    Problem(
                        where,
                        _("%(unit)s的对序号%(value)s与第%(row)s行重复。")
                        % {"unit": unit, "value": pair_number, "row": seen[pair_number]},
                    )
                )
                continue
            seen[pair_number] = number
            numbered.append((pair_number, number, row))
        if len(problems) > before:
            continue
        numbered.sort(key=lambda item: item[0])
        forms.append(
            EntryForm(
                unit=unit,
                pairs=[(_person(row, FIRST), _person(row, SECOND)) for _p, _n, row in numbered],
                on_site=on_site,
                where=_rows_text([number for number, _row in team_rows]),
            )
        )
    return forms


# ---------------------------------------------------------------- importing


def _merge(*groups: list[Problem]) -> list[Problem]:
    seen: set[Problem] = set()
    merged = []
    for problem in (p for group in groups for p in group):
        if problem not in seen:
            seen.add(problem)
            merged.append(problem)
    return sorted(merged, key=_row_key)


def import_workbook(*, event: Event, data, user=None, dry_run: bool = False) -> ImportResult:
    """Import an .xlsx form as the organiser: every problem of the file, or (unless
    ``dry_run``) all its entries registered in one transaction. Nothing is saved unless the
    whole file is valid."""
    forms, problems = parse_workbook(event, data)
    if forms:
        problems = _merge(problems, check_entries(event, forms, organiser=True)[0])
    if problems or dry_run:
        return ImportResult(entries=[], forms=forms, problems=problems)
    try:
        entries = register_entries(event=event, forms=forms, user=user, organiser=True)
    except RegistrationError as exc:
        return ImportResult(entries=[], forms=forms, problems=_merge(exc.problems))
    return ImportResult(entries=entries, forms=forms, problems=[])
