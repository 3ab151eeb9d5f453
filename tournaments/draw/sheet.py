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
from django.utils.translation import pgettext_lazy

from guandan_cup.templatetags.punctuation import listing
from tournaments.draw.rules import knockout
from tournaments.draw.rules.groups import group_label
from tournaments.models import Match, Stage
from tournaments.models.bracket import worded

# 第一阶段, Stage 1: each numeral a message of its own.
STAGE_NUMERALS = (
    pgettext_lazy("stage number", "一"),
    pgettext_lazy("stage number", "二"),
    pgettext_lazy("stage number", "三"),
    pgettext_lazy("stage number", "四"),
    pgettext_lazy("stage number", "五"),
    pgettext_lazy("stage number", "六"),
    pgettext_lazy("stage number", "七"),
    pgettext_lazy("stage number", "八"),
    pgettext_lazy("stage number", "九"),
    pgettext_lazy("stage number", "十"),
)


def _numeral(number: int) -> str:
    """The ``number``-th stage as the sheet counts it (一, 二 …; 1, 2 … in English)."""
    return str(STAGE_NUMERALS[number - 1]) if number <= len(STAGE_NUMERALS) else str(number)


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
    """The groups a side comes from (A1、B1; A–D组), ``groups`` as stored (A组 …)."""
    letters = [g.removesuffix("组") for g in groups]
    if len(letters) <= 2:
        return listing(f"{x}1" for x in letters)
    return _("%(first)s–%(last)s组") % {"first": letters[0], "last": letters[-1]}


def knockout_sheet(
    stage_rounds, *, number_offset: int = 0, one_stage: bool = False
) -> list[SheetStage]:
    """``stage_rounds``: [(Round, [Match …]), …] of one knockout stage, in round order.

    Positions decide the labels: match i of round r is fed by matches 2i and 2i+1 of round
    r-1, and the 季军争夺战 by the two semi-finals' losers (see knockout.plan_knockout).
    ``one_stage``: the whole knockout is one 阶段 (after a Swiss preliminary, as the Nantong
    notice words it: 第一阶段（预赛）决出八强，第二阶段为淘汰赛), its rounds named within it."""
    sheet: list[SheetStage] = []
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
            lines.append(SheetLine(label, _side_label(home_groups), _side_label(away_groups), m))
        for m in (m for m in matches if m.is_third_place):
            home_groups = groups.get((number - 1, 0), [])
            away_groups = groups.get((number - 1, 1), [])
            lines.append(
                SheetLine(
                    _("季军争夺战"),
                    _("%(groups)s负队") % {"groups": _letters(home_groups)},
                    _("%(groups)s负队") % {"groups": _letters(away_groups)},
                    m,
                )
            )
        numeral = _numeral(number_offset + (1 if one_stage else number))
        if one_stage:
            what = (
                _("决赛")
                if len(regular) == 1
                else _("%(a)s进%(b)s") % {"a": entries_left, "b": entries_left // 2}
            )
            title = _("第%(n)s阶段：淘汰赛（%(what)s）") % {"n": numeral, "what": what}
        elif len(regular) == 1:
            title = _("第%(n)s阶段：（决赛）") % {"n": numeral}
        else:
            title = _("第%(n)s阶段：（%(a)s进%(b)s）") % {
                "n": numeral,
                "a": entries_left,
                "b": entries_left // 2,
            }
        sheet.append(SheetStage(title, lines, rnd.starts_at))
        entries_left //= 2
    return sheet


def _side_label(groups: list[str]) -> str:
    if len(groups) == 1:
        return f"{groups[0].removesuffix('组')}1"
    return _("%(groups)s胜出队") % {"groups": _letters(groups)}


def draw_sheet(bracket) -> list[SheetStage]:
    """The whole event's sheet: knockout stages as above; group stages list their groups."""
    sheet: list[SheetStage] = []
    offset = 0
    after_swiss = False
    for view in bracket.stages:
        if view.stage.format == Stage.Format.KNOCKOUT:
            rounds = [(rv.round, rv.matches) for rv in view.rounds]
            part = knockout_sheet(rounds, number_offset=offset, one_stage=after_swiss)
            sheet += part
            offset += 1 if after_swiss else len(part)
        elif view.stage.format == Stage.Format.GROUPS:
            offset += 1
            numeral = _numeral(offset)
            lines = [
                SheetLine(worded(label), listing(entry.name for _row, entry in rows), "", None)
                for label, rows in view.groups
            ]
            sheet.append(
                SheetStage(
                    _("第%(n)s阶段：（小组循环赛）") % {"n": numeral},
                    lines,
                    view.rounds[0].round.starts_at if view.rounds else None,
                )
            )
        else:
            offset += 1
            numeral = _numeral(offset)
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
                title = _("第%(n)s阶段：（预赛·积分编排，决出%(k)s强）") % {
                    "n": numeral,
                    "k": qualifiers,
                }
            else:
                title = _("第%(n)s阶段：（积分编排）") % {"n": numeral}
            sheet.append(SheetStage(title, lines, rounds[0].round.starts_at if rounds else None))
            after_swiss = bool(qualifiers)
            if qualifiers and view is bracket.stages[-1]:
                # The knockout to come, as planned: the Swiss ranks in their slots.
                offset += 1
                sheet.append(_planned_knockout(_numeral(offset), qualifiers))
    return sheet


def swiss_qualifiers(stage: Stage) -> int | None:
    """K of a Swiss preliminary (its top K go on to a knockout), or None."""
    if stage.format != Stage.Format.SWISS:
        return None
    if "qualifiers" in (stage.settings or {}):
        return stage.settings["qualifiers"]
    return (stage.draw.plan or {}).get("qualifiers")  # drawn before the stage recorded it


def _planned_knockout(numeral: str, qualifiers: int) -> SheetStage:
    """积分第1名——积分第8名, 积分第4名——积分第5名 …: the seeded knockout before the Swiss
    stage has ranked anyone."""
    order = knockout.ranked_order(knockout.bracket_size(max(qualifiers, 2)))

    def rank(r: int) -> str:
        return _("积分第%(r)s名") % {"r": r} if r <= qualifiers else _("轮空")

    lines = [
        SheetLine(worded(group_label(i // 2)), rank(order[i]), rank(order[i + 1]), None)
        for i in range(0, len(order), 2)
    ]
    if qualifiers >= 4:
        lines.append(SheetLine(_("季军争夺战"), _("半决赛负队"), _("半决赛负队"), None))
    return SheetStage(
        _("第%(n)s阶段：淘汰赛（积分前%(k)s名）") % {"n": numeral, "k": qualifiers}, lines
    )
