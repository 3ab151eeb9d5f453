"""Reading a filled-in form and importing it: :func:`parse_workbook` and :func:`import_workbook`.

Reading never raises for a bad file: every problem (an unreadable file, missing headers, a bad
row) comes back as a :class:`~tournaments.registration.services.Problem` naming the row as Excel
shows it ("第7行", "第7–9行"), and the cell where one cell is at fault ("第12行 C列"). A team
whose rows have a problem is still read, so that its people are checked too: one file lists
every problem at once. All checks and all writes go through
:mod:`tournaments.registration.services`; nothing is saved unless the whole file is valid.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field

from django.utils.translation import gettext as _
from openpyxl import load_workbook
from openpyxl.utils import get_column_letter

from guandan_cup.inputs import clean_name, name_key
from tournaments.access import is_organiser
from tournaments.models import Entry, Event, Unit
from tournaments.registration.services import (
    EntryForm,
    PersonForm,
    Problem,
    RegistrationError,
    check_entries,
    register_entries,
)
from tournaments.registration.spreadsheets.layout import (
    COLUMNS,
    EXAMPLE_PREFIX,
    FIRST,
    GENDER,
    JOINT_EXTRA,
    NAME,
    NO,
    NUMBER,
    ON_SITE,
    OPTIONAL,
    PLAYER_UNIT,
    SECOND,
    UNIT,
    YES,
)
from tournaments.registration.spreadsheets.safety import (
    HEADER_SEARCH_ROWS,
    MAX_COLUMNS,
    MAX_ROWS,
    archive_problem,
    read_upload,
)


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


# ---------------------------------------------------------------- reading


def _text(value) -> str:
    """A cell value as openpyxl gives it (str, int, float, bool, date, None) as clean text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return YES if value else NO
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return clean_name(value)


def _header_key(value) -> str:
    """A header cell as a comparable key: full-width folded, spaces, '*' and notes in
    brackets dropped ("选手一 姓名（必填）" is 选手一姓名)."""
    text = name_key(_text(value))
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


def _at(rows: list[int], columns: dict[str, int], header: str) -> str:
    """Where a column's cells of these rows are: "第12行 C列", "第9–11行 A列"."""
    return _("%(rows)s %(column)s列") % {
        "rows": _rows_text(rows),
        "column": get_column_letter(columns[header] + 1),
    }


def _row_key(problem: Problem) -> int:
    match = re.search(r"\d+", problem.where)
    return int(match.group()) if match else 0


def _find_header(values: tuple, kind: str) -> tuple[dict[str, int], list[str], int]:
    """The columns of a candidate header row: {header: index}, the required headers it
    lacks, and how many known headers it has."""
    known = COLUMNS[kind] + tuple(JOINT_EXTRA.get(kind, {}).values())
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
    raw, problem = read_upload(data)
    if problem is None:
        problem = archive_problem(raw)
    if problem is not None:
        return [], [problem]
    try:
        book = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception:  # openpyxl raises many kinds on a damaged file
        return [], [Problem("", _("无法打开这个Excel文件，它可能已损坏；请另存为.xlsx后再试。"))]
    try:
        rows, columns, problems = _read_rows(book, event)
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
        forms = _team_forms(event, rows, columns, problems)
    else:
        forms = _row_forms(event, rows, columns, problems)
    problems.sort(key=_row_key)
    return forms, problems


_DAMAGED = object()


def _values(rows):
    """A sheet's rows as openpyxl reads them, lazily (a read-only book parses as it goes):
    where openpyxl fails on a damaged part of the file, one ``_DAMAGED`` and no more — so
    only the file's own damage becomes that message, never a fault of the code reading it."""
    while True:
        try:
            values = next(rows)
        except StopIteration:
            return
        except Exception:  # openpyxl raises many kinds on a damaged file
            yield _DAMAGED
            return
        yield values


def _read_rows(
    book, event: Event
) -> tuple[list[tuple[int, dict[str, str]]], dict[str, int], list[Problem]]:
    """The data rows of the first sheet with the event's headers: (Excel row number,
    {header: text}), without blank and 示例 rows; and the headers' columns (0 for A)."""
    kind = event.entry_kind
    best: tuple[int, list[str]] | None = None
    for sheet in book.worksheets:
        if not hasattr(sheet, "iter_rows"):  # a chart sheet
            continue
        columns: dict[str, int] | None = None
        rows: list[tuple[int, dict[str, str]]] = []
        # max_col: a sheet that claims 16,384 columns must not make every row that wide.
        rows_iter = _values(sheet.iter_rows(values_only=True, max_col=MAX_COLUMNS + 1))
        for number, values in enumerate(rows_iter, start=1):
            if values is _DAMAGED:
                return [], {}, [Problem("", _("无法读取这个Excel文件的内容，它可能已损坏。"))]
            if len(values) > MAX_COLUMNS and values[MAX_COLUMNS] not in (None, ""):
                return (
                    [],
                    {},
                    [
                        Problem(
                            _("第%(n)s行") % {"n": number},
                            _("表格超过%(n)s列，无法导入；请只保留报名表的各列。")
                            % {"n": MAX_COLUMNS},
                        )
                    ],
                )
            if columns is None:
                if number > HEADER_SEARCH_ROWS:
                    break
                found, missing, score = _find_header(values, kind)
                if not missing:
                    if kind != Event.EntryKind.TEAM and any(
                        _header_key(v) == NUMBER for v in values
                    ):
                        return (
                            [],
                            {},
                            [
                                Problem(
                                    _("第%(n)s行") % {"n": number},
                                    _(
                                        "表头有“对序号”，这是团体赛的报名表；"
                                        "请使用%(event)s的报名表模板。"
                                    )
                                    % {"event": event.name},
                                )
                            ],
                        )
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
                return (
                    [],
                    {},
                    [
                        Problem(
                            "",
                            _("表格超过%(n)s行，无法导入；请分成几个文件。") % {"n": MAX_ROWS},
                        )
                    ],
                )
            if row[UNIT].startswith(EXAMPLE_PREFIX):
                continue
            rows.append((number, row))
        if columns is not None:
            return rows, columns, []
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
    return [], {}, [Problem("", message)]


def _on_site(number: int, row: dict[str, str], columns, problems: list[Problem]) -> bool:
    """The row's 现场报名 (a value that is not 是/否/blank is a problem, and read as 否)."""
    value = row.get(ON_SITE, "")
    if value in ("", NO):
        return False
    if value == YES:
        return True
    problems.append(
        Problem(
            _at([number], columns, ON_SITE),
            _("现场报名“%(value)s”无法识别，请填“是”或留空。") % {"value": value},
        )
    )
    return False


def _person(row: dict[str, str], prefix: str, number: int, columns) -> PersonForm:
    headers = {"name": prefix + NAME, "gender": prefix + GENDER, "unit": prefix + PLAYER_UNIT}
    return PersonForm(
        name=row.get(prefix + NAME, ""),
        gender=row.get(prefix + GENDER, ""),
        unit=row.get(prefix + PLAYER_UNIT, ""),
        at={
            part: _at([number], columns, header)
            for part, header in headers.items()
            if header in columns
        },
    )


def _row_forms(event, rows, columns, problems: list[Problem]) -> list[EntryForm]:
    """One entry per row (a pair or a player); a row with a problem of its own is still
    read, so its people are checked too (nothing is imported while any problem stands)."""
    forms = []
    for number, row in rows:
        where = _("第%(n)s行") % {"n": number}
        if not row[UNIT]:
            problems.append(Problem(_at([number], columns, UNIT), _("未填写单位。")))
            continue
        on_site = _on_site(number, row, columns, problems)
        at = {"unit": _at([number], columns, UNIT)}
        if event.entry_kind == Event.EntryKind.SINGLE:
            player = _person(row, "", number, columns)
            form = EntryForm(unit=row[UNIT], player=player, on_site=on_site, where=where, at=at)
        else:
            pair = (_person(row, FIRST, number, columns), _person(row, SECOND, number, columns))
            form = EntryForm(unit=row[UNIT], pairs=[pair], on_site=on_site, where=where, at=at)
        forms.append(form)
    return forms


def _pair_number(text: str) -> int | None:
    match = re.fullmatch(r"(\d+)(?:\.0+)?", text)
    return int(match.group(1)) if match else None


def _team_forms(event, rows, columns, problems: list[Problem]) -> list[EntryForm]:
    """Group the rows by 单位 (first-seen order); a row with a blank 单位 right after a team's
    rows belongs to it (a merged 单位 cell reads as blank below its first row). A team whose
    对序号 have a problem is still read, its pairs in row order, so that its people are
    checked too."""
    teams: dict[str, list[tuple[int, dict[str, str]]]] = {}
    previous = ""
    for number, row in rows:
        unit = row[UNIT] or previous
        if not unit:
            problems.append(Problem(_at([number], columns, UNIT), _("未填写单位。")))
            continue
        teams.setdefault(unit, []).append((number, row))
        previous = unit

    wanted = event.pairs_per_team
    forms = []
    for unit, team_rows in teams.items():
        all_blank = all(not row.get(NUMBER) for _n, row in team_rows)
        numbered: list[tuple[int, int, dict[str, str]]] = []
        seen: dict[int, int] = {}
        on_site = False
        for position, (number, row) in enumerate(team_rows, start=1):
            where = _at([number], columns, NUMBER)
            on_site = _on_site(number, row, columns, problems) or on_site
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
        if len(numbered) < len(team_rows):
            # Numbered wrongly: its pairs as the rows come, to check the people in them.
            numbered = [(p, number, row) for p, (number, row) in enumerate(team_rows, start=1)]
        numbered.sort(key=lambda item: item[0])
        numbers = [number for number, _row in team_rows]
        forms.append(
            EntryForm(
                unit=unit,
                pairs=[
                    (_person(row, FIRST, n, columns), _person(row, SECOND, n, columns))
                    for _p, n, row in numbered
                ],
                on_site=on_site,
                where=_rows_text(numbers),
                at={"unit": _at(numbers, columns, UNIT)},
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


def import_workbook(
    *, event: Event, data, user=None, dry_run: bool = False, unit: Unit | None = None
) -> ImportResult:
    """Import an .xlsx form: every problem of the file, or (unless ``dry_run``) all its
    entries registered in one transaction. Nothing is saved unless the whole file is valid.

    Without ``unit``: the organiser's import, any unit, the organiser's rules. With ``unit``:
    that unit's own form, from its page — every row must be the unit's, and a team leader
    (not an organiser) is held to the leader's rules (registration open, the deadline, no
    on-site entries), as on the web form."""
    organiser = unit is None or is_organiser(user, event.tournament)
    forms, problems = parse_workbook(event, data)
    if unit is not None:
        problems = _merge(problems, _other_units(forms, unit))
    leader_units = {unit.pk} if unit is not None else None
    if forms:
        problems = _merge(
            problems,
            check_entries(event, forms, organiser=organiser, leader_units=leader_units)[0],
        )
    if problems or dry_run:
        return ImportResult(entries=[], forms=forms, problems=problems)
    try:
        entries = register_entries(
            event=event, forms=forms, user=user, organiser=organiser, leader_units=leader_units
        )
    except RegistrationError as exc:
        return ImportResult(entries=[], forms=forms, problems=_merge(exc.problems))
    return ImportResult(entries=entries, forms=forms, problems=[])


def _other_units(forms: list[EntryForm], unit: Unit) -> list[Problem]:
    """A unit's own form names only that unit (an example row is skipped when read)."""
    return [
        Problem(
            form.at.get("unit") or form.where,
            _("这份报名表只能填写%(unit)s的报名（这里是“%(other)s”）。")
            % {"unit": unit.name, "other": form.unit},
        )
        for form in forms
        if name_key(form.unit) != name_key(unit.name)
    ]
