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

from guandan_cup.inputs import clean_name, name_key
from guandan_cup.words import listing
from tournaments.access import is_organiser
from tournaments.models import Entry, Event, Unit
from tournaments.registration.services import (
    EntryForm,
    Problem,
    RegistrationError,
    check_entries,
    register_entries,
)
from tournaments.registration.spreadsheets import reading
from tournaments.registration.spreadsheets.layout import (
    COLUMNS,
    EXAMPLE_PREFIX,
    JOINT_EXTRA,
    NO,
    NUMBER,
    ON_SITE,
    OPTIONAL,
    STATE_COLUMNS,
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
    ``forms`` read from the file (what would be registered), every ``problem``, and the
    entries ``left_out`` because the file's 状态 says they no longer play (an export's
    withdrawn or disqualified entries), each where it is and in what state."""

    entries: list[Entry] = field(default_factory=list)
    forms: list[EntryForm] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    left_out: list[Problem] = field(default_factory=list)

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


def _row_key(problem: Problem) -> int:
    match = re.search(r"\d+", problem.where)
    return int(match.group()) if match else 0


def _find_header(values: tuple, kind: str) -> tuple[dict[str, int], list[str], int]:
    """The columns of a candidate header row: {header: index}, the required headers it
    lacks, and how many known headers it has."""
    known = COLUMNS[kind] + tuple(JOINT_EXTRA.get(kind, {}).values()) + STATE_COLUMNS
    found: dict[str, int] = {}
    for index, value in enumerate(values):
        key = _header_key(value)
        if key in known and key not in found:
            found[key] = index
    required = [h for h in COLUMNS[kind] if h not in OPTIONAL]
    missing = [h for h in required if h not in found]
    return found, missing, len(found)


def parse_workbook(
    event: Event, data, left_out: list[Problem] | None = None
) -> tuple[list[EntryForm], list[Problem]]:
    """Read an .xlsx form of ``event`` (bytes or a file): the entry forms it holds and every
    problem found while reading (rows as Excel numbers them). Never raises for a bad file,
    and never touches the database. Entries whose 状态 is not 已报名 are not among the
    forms: each is added to ``left_out``, where it is and in what state."""
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
    rows = reading.registered(rows, columns, event, problems, [] if left_out is None else left_out)
    if event.entry_kind == Event.EntryKind.TEAM:
        forms = reading.team_forms(event, rows, columns, problems)
    else:
        forms = reading.row_forms(event, rows, columns, problems)
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
    expected = listing(f"“{h}”" for h in COLUMNS[kind] if h not in OPTIONAL)
    if best is not None:
        message = _("找不到完整的表头：缺少%(missing)s。本项目的报名表须有%(expected)s等列。") % {
            "missing": listing(f"“{h}”" for h in best[1]),
            "expected": expected,
        }
    else:
        message = _("找不到表头行（须有%(expected)s等列）；请使用本项目下载的报名表模板。") % {
            "expected": expected
        }
    return [], {}, [Problem("", message)]


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
    left_out: list[Problem] = []
    forms, problems = parse_workbook(event, data, left_out)
    if unit is not None:
        problems = _merge(problems, _other_units(forms, unit))
    leader_units = {unit.pk} if unit is not None else None
    if forms:
        problems = _merge(
            problems,
            check_entries(event, forms, organiser=organiser, leader_units=leader_units)[0],
        )
    if problems or dry_run:
        return ImportResult(entries=[], forms=forms, problems=problems, left_out=left_out)
    try:
        entries = register_entries(
            event=event, forms=forms, user=user, organiser=organiser, leader_units=leader_units
        )
    except RegistrationError as exc:
        return ImportResult(
            entries=[], forms=forms, problems=_merge(exc.problems), left_out=left_out
        )
    return ImportResult(entries=entries, forms=forms, problems=[], left_out=left_out)


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
