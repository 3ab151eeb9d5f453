"""Chinese one-line descriptions of Guandan events for the referee's screen.

Pure Python, no Django. Terms (上游, 打A, 双下, 突然死亡法 ...) are defined in
:mod:`scoring.engines.guandan.play`; this module builds on it, and play never imports this
one (the scorer calls :func:`describe_event` through :mod:`scoring.engines.guandan.engine`).
"""

from __future__ import annotations

from collections.abc import Mapping

from scoring.engines.common import describe_forfeit
from scoring.engines.guandan.play import (
    ACE,
    Deal,
    Forfeit,
    MatchState,
    Penalty,
    RuleSet,
    TimeUp,
    deal_outcome,
    level_label,
    other,
)

_PLACES = {2: "二游", 3: "三游", 4: "末游"}


def describe_event(
    before: MatchState,
    event: Deal | Penalty | TimeUp | Forfeit,
    after: MatchState,
    rs: RuleSet,
    names: Mapping[str, str] | None = None,
) -> str:
    """What ``event`` did between ``before`` and ``after``; ``names`` by team letter."""

    def name(team: str) -> str:
        return (names or {}).get(team) or f"{team}队"

    if isinstance(event, Deal):
        return _describe_deal(before, event, after, rs, name)
    if isinstance(event, Penalty):
        return _describe_penalty(before, event, after, rs, name)
    if isinstance(event, TimeUp):
        return _describe_time_up(after, name)
    return describe_forfeit(name(event.team), name(other(event.team)), event.reason)


def _match_end(after: MatchState, rs: RuleSet, name) -> str:
    if not after.match_over or after.winner is None:
        return ""
    if rs.games_to_win == 1:
        return f"，{name(after.winner)}获胜"
    w, lose = after.games_won[after.winner], after.games_won[other(after.winner)]
    return f"，{name(after.winner)}{w}:{lose}获胜"


def _describe_deal(before: MatchState, deal: Deal, after: MatchState, rs: RuleSet, name) -> str:
    out = deal_outcome(before, deal, rs)
    top, place = out.top, out.partner_place
    game_no = len(after.completed_games)
    if out.game_won == "sudden_death":
        return f"突然死亡：{name(top)}上游，赢得第{game_no}局" + _match_end(after, rs, name)
    if out.game_won == "passed_A":
        if out.declarer == top:
            head = f"{name(top)}打A成功（上游，对家{_PLACES[place]}）"
        else:  # lenient rule: passed A in a deal played at the opponents' level
            head = f"{name(top)}在A级取得上游（对家{_PLACES[place]}），过A"
        return f"{head}，赢得第{game_no}局" + _match_end(after, rs, name)

    attempt_by = out.declarer if out.played_level == ACE else None  # 打A this deal
    counted = {team: (count, reset) for team, count, reset in out.failures}
    parts = []
    # What happened to the team that took 上游.
    if attempt_by == top:
        if top not in counted:  # no failure limit (nantong): simply not passed
            parts.append(f"{name(top)}打A未过（对家{_PLACES[place]}），仍打A")
    else:
        if place == 2:
            shape = f"{name(top)}双上（{name(other(top))}双下）"
        else:
            shape = f"{name(top)}上游，对家{_PLACES[place]}"
        if out.top_before == ACE:
            why = ""
            if rs.a_win_requires_declarer and place in rs.a_win_partner_places:
                why = f"（本副打{level_label(out.played_level)}，不算过A）"
            parts.append(f"{shape}，已在A级{why}，下副打A")
        else:
            capped = "（到A封顶）" if out.top_before + out.gain > ACE else ""
            parts.append(
                f"{shape}，升{out.gain}级{capped}："
                f"{level_label(out.top_before)}→{level_label(out.top_after)}"
            )
    # A attempts that failed and, for some variants, deals lost while at A.
    if attempt_by is not None and attempt_by != top and attempt_by not in counted:
        parts.append(f"{name(attempt_by)}打A未过")
    for team, (count, reset) in counted.items():
        what = "打A未过" if team == attempt_by else "在A级失利"
        if reset:
            parts.append(f"{name(team)}第{count}次{what}，退回{level_label(rs.a_fail_reset_to)}")
        else:
            still = "，仍打A" if team == top else ""
            parts.append(f"{name(team)}{what}（第{count}次）{still}")
    return "；".join(parts)


def _describe_penalty(before: MatchState, p: Penalty, after: MatchState, rs: RuleSet, name) -> str:
    team = name(p.team)
    reason = f"（{p.reason}）" if p.reason else ""
    if p.kind == "disqualify":
        return f"{team}取消比赛资格，{name(other(p.team))}获胜{reason}"
    n = p.levels
    what = "回到2" if p.kind == "back_to_2" else f"扣{n}级"
    if before.sudden_death:
        return f"突然死亡阶段级数固定为A，{team}{what}不生效{reason}"
    old, new = before.levels[p.team], after.levels[p.team]
    if p.kind == "back_to_2":
        text = f"{team}回到2"
    else:
        floor = "（最低为2）" if old - n < 2 else ""
        text = f"{team}扣{n}级：{level_label(old)}→{level_label(new)}{floor}"
    if before.a_failures[p.team] and not after.a_failures[p.team]:
        text += "，打A未过次数清零"
    return text + reason


def _describe_time_up(after: MatchState, name) -> str:
    if after.sudden_death:
        return "鸣哨，进入突然死亡法"
    a, b = after.levels["A"], after.levels["B"]
    if after.decided_by == "time_levels":
        w = after.winner
        hi, lo = after.levels[w], after.levels[other(w)]
        return f"时间到：{name(w)}级数高（{level_label(hi)}对{level_label(lo)}），{name(w)}获胜"
    if after.decided_by == "time_last_deal_top":
        return f"时间到：双方同为{level_label(a)}级，末副上游{name(after.winner)}获胜"
    return f"时间到：双方同为{level_label(b)}级，平局"
