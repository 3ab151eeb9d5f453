"""A Guandan table as people see it (:class:`scoring.engines.board.Board`) and its record on
the score sheet (:class:`scoring.engines.board.Sheet`). Pure Python, no Django.

Terms (级, 打几, 上游, 对家名次, 突然死亡法) are defined in :mod:`scoring.engines.guandan.play`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from scoring.engines.board import (
    Board,
    BoardSide,
    RecordItem,
    Sheet,
    Words,
    joined,
    side_label,
    words,
)
from scoring.engines.common import forfeit_words
from scoring.engines.guandan import play
from scoring.engines.guandan.describe import PLACES
from scoring.engines.guandan.play import RuleSet

# The score sheet's grid holds a one-hour match on one A4 page.
SHEET_ROWS = 20


def board(stored: dict, rules: RuleSet, names: Mapping[str, str]) -> Board:
    levels = stored.get("levels") or {}
    won = stored.get("games_won") or {}
    failures = stored.get("a_failures") or {}
    over = bool(stored.get("match_over"))
    started = bool(stored.get("deals_total")) or over
    declarer = stored.get("declarer")
    playing = stored.get("playing_level")
    winner = stored.get("winner") if over else None

    def caption(team: str):
        line = words("局 %(n)s", n=won.get(team, 0))
        if rules.a_fail_limit:
            tries = words(
                "打A未过 %(n)s/%(limit)s", n=failures.get(team, 0), limit=rules.a_fail_limit
            )
            line = joined([line, tries])
        return line

    sides = tuple(
        BoardSide(
            team,
            side_label(team, names),
            str(levels.get(team, "2")),
            caption(team),
            marked=declarer == team,
        )
        for team in ("A", "B")
    )
    if over:
        status = words("比赛结束")
    elif stored.get("sudden_death"):
        status = words("突然死亡：打A，上游即胜一局")
    elif declarer:
        status = words(
            "打 %(playing_level)s（%(name)s的级）",
            strong=("playing_level",),
            playing_level=playing,
            name=side_label(declarer, names),
        )
    else:
        status = words(
            "打 %(playing_level)s（本局第一副）", strong=("playing_level",), playing_level=playing
        )
    score = words("%(a)s–%(b)s", a=sides[0].score, b=sides[1].score)
    if over:
        line = words("已结束")
        note = {"A": words("主方胜"), "B": words("客方胜")}.get(winner, words("已结束"))
        brief = score
    elif started:
        line = words("打 %(level)s", level=playing)
        which = {"A": words("（主方）"), "B": words("（客方）")}.get(declarer)
        note = words("打%(level)s%(side)s", level=playing, side=which or "")
        brief = words("%(score)s · 打%(level)s", score=score, level=playing)
    else:
        line = note = brief = words("未开始")
    whistle = None
    if not over and not stored.get("sudden_death"):
        whistle = words("已鸣哨：打完手中这一副后比级数")
    return Board(
        sides=sides,
        status=status,
        brief=brief,
        heading=words("级数"),
        started=started,
        over=over,
        winner=winner,
        note=note,
        line=line,
        after_whistle=whistle,
        entry={"deals": True},
    )


def _penalty_text(body: dict) -> Words:
    kind = body.get("kind", "levels")
    if kind == "back_to_2":
        return words("回到2")
    if kind == "disqualify":
        return words("取消比赛资格")
    return words("扣%(n)s级", n=body.get("levels"))


def _with_reason(text: Words, reason) -> Words:
    return words("%(what)s（%(reason)s）", what=text, reason=reason) if reason else text


def sheet(items: Iterable[RecordItem], rules: RuleSet, names: Mapping[str, str]) -> Sheet:
    """One row per deal (上游方, 对家名次, the levels after it), a level penalty and the
    whistle where they happened; penalties and forfeits in the box under the grid."""
    rows, notes = [], []
    state = play.initial_state(rules)
    deal = 0
    for item in items:
        payload = item.payload
        state = play.apply_event(state, play.parse_event(payload), rules)
        after = play.state_to_full_dict(state, rules)
        levels = " / ".join(str(after["levels"][t]) for t in ("A", "B"))
        if "order" in payload:
            deal += 1
            order = payload["order"]
            partner = order[1:].index(order[0]) + 2
            rows.append((str(deal), side_label(order[0], names), PLACES[partner], levels, ""))
        elif "penalty" in payload:
            penalty = payload["penalty"]
            text = words(
                "%(name)s：%(what)s",
                name=side_label(penalty["team"], names),
                what=_penalty_text(penalty),
            )
            notes.append(_with_reason(text, item.reason))
            if penalty.get("kind", "levels") != "disqualify":
                # A level penalty moves the levels: the track shows it where it happened.
                rows.append(("", "", "", levels, text))
        elif "forfeit" in payload:
            reason = forfeit_words(payload["forfeit"].get("reason", ""), unknown="")
            lost = words("%(name)s：判负", name=side_label(payload["forfeit"]["team"], names))
            notes.append(_with_reason(lost, reason))
        elif "time_up" in payload:
            rows.append(("", "", "", levels, words("时间到")))
    return Sheet(
        columns=(
            words("副"),
            words("上游方"),
            words("对家名次"),
            words("打完后级数（A / B）"),
            words("备注"),
        ),
        rows=tuple(rows),
        notes_title=words("处罚、判负记录"),
        notes=tuple(notes),
        blank_rows=max(0, SHEET_ROWS - len(rows)),
        blank_from=deal + 1,
        numbered_blanks=False,
        widths=("n", "top", "place", "levels", ""),
        ended=state.match_over,
    )
