"""The rows of a filled-in form read as entries (:mod:`.imports` finds the rows): each row an
entry (a pair, a player) or a team's rows one entry, with where each part of it is
("第12行 C列") for the problems; the rows whose 状态 says the entry no longer plays are
left out. Never touches the database."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from openpyxl.utils import get_column_letter

from guandan_cup.words import listing
from tournaments.models import Entry, Event
from tournaments.registration.services import EntryForm, PersonForm, Problem
from tournaments.registration.spreadsheets.layout import (
    FIRST,
    GENDER,
    NAME,
    NO,
    NUMBER,
    ON_SITE,
    PLAYER_UNIT,
    SECOND,
    STATUS,
    STATUS_REASON,
    UNIT,
    YES,
    state_words,
)


def rows_text(rows: list[int]) -> str:
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
    return _("第%(rows)s行") % {"rows": listing(parts)}


def _at(rows: list[int], columns: dict[str, int], header: str) -> str:
    """Where a column's cells of these rows are: "第12行 C列", "第9–11行 A列"."""
    return _("%(rows)s %(column)s列") % {
        "rows": rows_text(rows),
        "column": get_column_letter(columns[header] + 1),
    }


def registered(rows, columns, event: Event, problems, left_out: list[Problem]):
    """The rows of the entries still registered: a blank 状态 or 已报名. A team's rows go
    together (the rows of one 单位 and one 状态 in a row; a blank 单位 or 状态 is the row
    above's). The others are left out, said in ``left_out``; a 状态 the form does not
    write is a problem."""
    if STATUS not in columns:
        return rows
    words = state_words()
    registered = next(word for word, value in words.items() if value == Entry.Status.REGISTERED)
    team = event.entry_kind == Event.EntryKind.TEAM
    groups: list[list[tuple[int, dict[str, str]]]] = []
    previous = ("", "")
    for number, row in rows:
        key = (row[UNIT] or previous[0], row.get(STATUS) or previous[1])
        if team and groups and key == previous:
            groups[-1].append((number, row))
        else:
            groups.append([(number, row)])
        previous = key
    kept = []
    for group in groups:
        given = [(number, row[STATUS]) for number, row in group if row.get(STATUS)]
        unknown = [(number, word) for number, word in given if word not in words]
        for number, word in unknown:
            problems.append(
                Problem(
                    _at([number], columns, STATUS),
                    _("状态“%(value)s”无法识别，请填“%(registered)s”或留空。")
                    % {"value": word, "registered": registered},
                )
            )
        state = given[0][1] if given and not unknown else registered
        if words.get(state, Entry.Status.REGISTERED) == Entry.Status.REGISTERED:
            kept += group
            continue
        reason = next((row[STATUS_REASON] for _n, row in group if row.get(STATUS_REASON)), "")
        said = {
            "unit": group[0][1][UNIT],
            "state": Entry.Status(words[state]).label,  # in the reader's language
            "reason": reason,
        }
        if reason:
            message = _("%(unit)s的报名为“%(state)s”（%(reason)s），不导入。") % said
        else:
            message = _("%(unit)s的报名为“%(state)s”，不导入。") % said
        left_out.append(Problem(rows_text([number for number, _row in group]), message))
    return kept


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


def row_forms(event, rows, columns, problems: list[Problem]) -> list[EntryForm]:
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


def team_forms(event, rows, columns, problems: list[Problem]) -> list[EntryForm]:
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
                where=rows_text(numbers),
                at={"unit": _at(numbers, columns, UNIT)},
            )
        )
    return forms
