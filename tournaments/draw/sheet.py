"""The draw as organisers publish it: 分组结果及赛程安排 in the shape of the Nantong notice.

    第一阶段：（8进4）   A组：体育——行政   B组：教务物理联队——生物数学联队 …
    第二阶段：（4进2）   A1——B1   C1——D1
    第三阶段：（决赛）   冠军争夺战：A1、B1胜出队——C1、D1胜出队
                         季军争夺战：A1、B1负队——C1、D1负队

First-round matches of a knockout are labelled A组, B组 … in bracket order; "A1" is the
winner of A组. Later sides name the groups they come from. Used by the bracket page and
the printed draw sheet.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from guandan_cup.words import listing
from tournaments.draw.rules import knockout
from tournaments.draw.rules.groups import group_label
from tournaments.models import Event, Match, Stage
from tournaments.models.bracket import worded

STAGE_NUMERALS = "一二三四五六七八九十"


@dataclass
class SheetLine:
    label: str  # "A组", "冠军争夺战", "" …
    home: str
    away: str
    match: Match


@dataclass
class SheetStage:
    title: str  # "第一阶段：（8进4）"
    lines: list[SheetLine]
    starts_at: object = None


def _letters(groups: list[str]) -> str:
    letters = [g.removesuffix("组") for g in groups]
    if len(letters) <= 2:
        return listing(f"{x}1" for x in letters)
    return _("%(first)s–%(last)s组") % {"first": letters[0], "last": letters[-1]}


def _stage_title(message: str, index: int, **args) -> str:
    """第二阶段：… / Stage 2: …: ``message`` names the stage by ``n`` (its Chinese numeral)
    and ``number`` (its digits), so each language takes the one it writes."""
    numeral = STAGE_NUMERALS[index - 1] if index <= len(STAGE_NUMERALS) else str(index)
    return message % {"n": numeral, "number": index, **args}


class _Sides:
    """How a sheet names the entries a match is waiting for, in the event's own words: a
    team or a pair is a 队, a player in singles a 者 (A1负者, the loser of A1)."""

    def __init__(self, individual: bool):
        self.individual = individual

    def losers(self, groups: str) -> str:
        if self.individual:
            return _("%(groups)s负者") % {"groups": groups}
        return _("%(groups)s负队") % {"groups": groups}

    def winners(self, groups: str) -> str:
        if self.individual:
            return _("%(groups)s胜者") % {"groups": groups}
        return _("%(groups)s胜出队") % {"groups": groups}

    def semi_final_loser(self) -> str:
        return _("半决赛负者") if self.individual else _("半决赛负队")


def knockout_sheet(
    stage_rounds, *, number_offset: int = 0, one_stage: bool = False, individual: bool = False
) -> list[SheetStage]:
    """``stage_rounds``: [(Round, [Match …]), …] of one knockout stage, in round order.

    Positions decide the labels: match i of round r is fed by matches 2i and 2i+1 of round
    r-1, and the 季军争夺战 by the two semi-finals' losers (see knockout.plan_knockout).
    ``one_stage``: the whole knockout is one 阶段 (after a Swiss preliminary, as the Nantong
    notice words it: 第一阶段（预赛）决出八强，第二阶段为淘汰赛), its rounds named within it."""
    sheet: list[SheetStage] = []
    sides = _Sides(individual)
    groups: dict[tuple[int, int], list[str]] = {}  # (round, index) -> first-round groups
    entries_left = None
    for number, (rnd, matches) in enumerate(stage_rounds, start=1):
        regular = sorted((m for m in matches if not m.is_third_place), key=lambda m: m.index)
        if entries_left is None:
            entries_left = 2 * len(regular)
        lines = []
        for m in regular:
            if number == 1:
                label = group_label(m.index)
                groups[(1, m.index)] = [label]
                home = m.home.name if m.home else _("轮空")
                away = m.away.name if m.away else _("轮空")
                lines.append(SheetLine(worded(label), home, away, m))
                continue
            home_groups = groups.get((number - 1, 2 * m.index), [])
            away_groups = groups.get((number - 1, 2 * m.index + 1), [])
            groups[(number, m.index)] = home_groups + away_groups
            label = _("冠军争夺战") if len(regular) == 1 else ""
            lines.append(
                SheetLine(
                    label, _side_label(home_groups, sides), _side_label(away_groups, sides), m
                )
            )
        for m in (m for m in matches if m.is_third_place):
            home_groups = groups.get((number - 1, 0), [])
            away_groups = groups.get((number - 1, 1), [])
            lines.append(
                SheetLine(
                    _("季军争夺战"),
                    sides.losers(_letters(home_groups)),
                    sides.losers(_letters(away_groups)),
                    m,
                )
            )
        total = number_offset + (1 if one_stage else number)
        if one_stage:
            if len(regular) == 1:
                what = _("决赛")
            else:
                what = _("%(a)s进%(b)s") % {"a": entries_left, "b": entries_left // 2}
            # xgettext: no-python-format
            title = _stage_title(_("第%(n)s阶段：淘汰赛（%(what)s）"), total, what=what)
        elif len(regular) == 1:
            # xgettext: no-python-format
            title = _stage_title(_("第%(n)s阶段：（决赛）"), total)
        else:
            # xgettext: no-python-format
            message = _("第%(n)s阶段：（%(a)s进%(b)s）")
            title = _stage_title(message, total, a=entries_left, b=entries_left // 2)
        sheet.append(SheetStage(title, lines, rnd.starts_at))
        entries_left //= 2
    return sheet


def _side_label(groups: list[str], sides: _Sides) -> str:
    if len(groups) == 1:
        return f"{groups[0].removesuffix('组')}1"
    return sides.winners(_letters(groups))


def draw_sheet(bracket) -> list[SheetStage]:
    """The whole event's sheet: knockout stages as above; group stages list their groups."""
    sheet: list[SheetStage] = []
    offset = 0
    after_swiss = False
    individual = bracket.event.entry_kind == Event.EntryKind.SINGLE
    for view in bracket.stages:
        if view.stage.format == Stage.Format.KNOCKOUT:
            rounds = [(rv.round, rv.matches) for rv in view.rounds]
            part = knockout_sheet(
                rounds, number_offset=offset, one_stage=after_swiss, individual=individual
            )
            sheet += part
            offset += 1 if after_swiss else len(part)
        elif view.stage.format == Stage.Format.GROUPS:
            offset += 1
            lines = [
                SheetLine(worded(label), listing(entry.name for _row, entry in rows), "", None)
                for label, rows in view.groups
            ]
            sheet.append(
                SheetStage(
                    # xgettext: no-python-format
                    _stage_title(_("第%(n)s阶段：（小组循环赛）"), offset),
                    lines,
                    view.rounds[0].round.starts_at if view.rounds else None,
                )
            )
        else:
            offset += 1
            rounds = view.rounds[:1]
            lines = [
                SheetLine(
                    _("第1轮"),
                    m.home.name if m.home else "",
                    m.away.name if m.away else _("轮空"),
                    m,
                )
                for rv in rounds
                for m in rv.matches
            ]
            qualifiers = swiss_qualifiers(view.stage)
            if qualifiers:
                # xgettext: no-python-format
                message = _("第%(n)s阶段：（预赛·积分编排，决出%(k)s强）")
                title = _stage_title(message, offset, k=qualifiers)
            else:
                # xgettext: no-python-format
                title = _stage_title(_("第%(n)s阶段：（积分编排）"), offset)
            sheet.append(SheetStage(title, lines, rounds[0].round.starts_at if rounds else None))
            after_swiss = bool(qualifiers)
            if qualifiers and view is bracket.stages[-1]:
                # The knockout to come, as planned: the Swiss ranks in their slots.
                offset += 1
                sheet.append(_planned_knockout(offset, qualifiers, _Sides(individual)))
    return sheet


def swiss_qualifiers(stage: Stage) -> int | None:
    """K of a Swiss preliminary (its top K go on to a knockout), or None."""
    if stage.format != Stage.Format.SWISS:
        return None
    if "qualifiers" in (stage.settings or {}):
        return stage.settings["qualifiers"]
    return (stage.draw.plan or {}).get("qualifiers")  # drawn before the stage recorded it


def _planned_knockout(index: int, qualifiers: int, sides: _Sides) -> SheetStage:
    """积分第1名——积分第8名, 积分第4名——积分第5名 …: the seeded knockout before the Swiss
    stage has ranked anyone."""
    order = knockout.ranked_order(knockout.bracket_size(max(qualifiers, 2)))

    def rank(r: int) -> str:
        return _("积分编排第%(r)s名") % {"r": r} if r <= qualifiers else _("轮空")

    lines = [
        SheetLine(worded(group_label(i // 2)), rank(order[i]), rank(order[i + 1]), None)
        for i in range(0, len(order), 2)
    ]
    if qualifiers >= 4:
        loser = sides.semi_final_loser()
        lines.append(SheetLine(_("季军争夺战"), loser, loser, None))
    # xgettext: no-python-format
    message = _("第%(n)s阶段：淘汰赛（积分前%(k)s名）")
    return SheetStage(_stage_title(message, index, k=qualifiers), lines)
