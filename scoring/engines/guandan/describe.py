"""One-line descriptions of Guandan events for the referee's screen and the audit, as
:class:`~scoring.engines.board.Words` (Chinese messages worded in the reader's language when
shown; ``str()`` gives the Chinese).

Pure Python, no Django. Terms (上游, 打A, 双下, 突然死亡法 ...) are defined in
:mod:`scoring.engines.guandan.play`; this module builds on it, and play never imports this
one (the scorer calls :func:`describe_event` through :mod:`scoring.engines.guandan.engine`).
"""

from __future__ import annotations

from collections.abc import Mapping

from scoring.engines.board import THEN, Words, clauses, words
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

# The partner's place in a deal (对家二游 …): the same words as the deal pad's.
PLACES = {2: words("二游"), 3: words("三游"), 4: words("末游")}


def team_name(team: str, names: Mapping[str, str] | None = None) -> str | Words:
    """A team by its pair's name, else A队/B队 (Team A)."""
    return (names or {}).get(team) or words("%(team)s队", team=team)


def describe_event(
    before: MatchState,
    event: Deal | Penalty | TimeUp | Forfeit,
    after: MatchState,
    rs: RuleSet,
    names: Mapping[str, str] | None = None,
) -> Words:
    """What ``event`` did between ``before`` and ``after``; ``names`` by team letter."""

    def name(team: str) -> str | Words:
        return team_name(team, names)

    if isinstance(event, Deal):
        return _describe_deal(before, event, after, rs, name)
    if isinstance(event, Penalty):
        return _describe_penalty(before, event, after, rs, name)
    if isinstance(event, TimeUp):
        return _describe_time_up(after, name)
    return describe_forfeit(name(event.team), name(other(event.team)), event.reason)


def _with_match_end(text: Words, after: MatchState, rs: RuleSet, name) -> Words:
    """``text``, and who won the match when it ended with it."""
    if not after.match_over or after.winner is None:
        return text
    if rs.games_to_win == 1:
        return words("%(what)s，%(name)s获胜", what=text, name=name(after.winner))
    won, lost = after.games_won[after.winner], after.games_won[other(after.winner)]
    return words(
        "%(what)s，%(name)s%(won)s:%(lost)s获胜",
        what=text,
        name=name(after.winner),
        won=won,
        lost=lost,
    )


def _describe_deal(before: MatchState, deal: Deal, after: MatchState, rs: RuleSet, name) -> Words:
    out = deal_outcome(before, deal, rs)
    top, place = out.top, out.partner_place
    game_no = len(after.completed_games)
    if out.game_won == "sudden_death":
        text = words("突然死亡：%(name)s上游，赢得第%(n)s局", name=name(top), n=game_no)
        return _with_match_end(text, after, rs, name)
    if out.game_won == "passed_A":
        if out.declarer == top:
            head = words(
                "%(name)s打A成功（上游，对家%(place)s）", name=name(top), place=PLACES[place]
            )
        else:  # lenient rule: passed A in a deal played at the opponents' level
            head = words(
                "%(name)s在A级取得上游（对家%(place)s），过A", name=name(top), place=PLACES[place]
            )
        text = words("%(what)s，赢得第%(n)s局", what=head, n=game_no)
        return _with_match_end(text, after, rs, name)

    attempt_by = out.declarer if out.played_level == ACE else None  # 打A this deal
    counted = {team: (count, reset) for team, count, reset in out.failures}
    parts: list[Words] = []
    # What happened to the team that took 上游.
    if attempt_by == top:
        if top not in counted:  # no failure limit (nantong): simply not passed
            parts.append(
                words(
                    "%(name)s打A未过（对家%(place)s），仍打A", name=name(top), place=PLACES[place]
                )
            )
    else:
        if place == 2:
            shape = words("%(name)s双上（%(other)s双下）", name=name(top), other=name(other(top)))
        else:
            shape = words("%(name)s上游，对家%(place)s", name=name(top), place=PLACES[place])
        if out.top_before == ACE:
            if rs.a_win_requires_declarer and place in rs.a_win_partner_places:
                parts.append(
                    words(
                        "%(what)s，已在A级（本副打%(level)s，不算过A），下副打A",
                        what=shape,
                        level=level_label(out.played_level),
                    )
                )
            else:
                parts.append(words("%(what)s，已在A级，下副打A", what=shape))
        else:
            levels = {
                "what": shape,
                "n": out.gain,
                "old": level_label(out.top_before),
                "new": level_label(out.top_after),
            }
            if out.top_before + out.gain > ACE:
                parts.append(words("%(what)s，升%(n)s级（到A封顶）：%(old)s→%(new)s", **levels))
            else:
                parts.append(words("%(what)s，升%(n)s级：%(old)s→%(new)s", **levels))
    # A attempts that failed and, for some variants, deals lost while at A.
    if attempt_by is not None and attempt_by != top and attempt_by not in counted:
        parts.append(words("%(name)s打A未过", name=name(attempt_by)))
    for team, (count, reset) in counted.items():
        parts.append(_failure(team, count, reset, team == attempt_by, team == top, rs, name))
    return clauses(parts, THEN)


def _failure(team: str, count: int, reset: bool, own_a: bool, top: bool, rs: RuleSet, name):
    """A counted failure at A: an own 打A not passed, or a deal lost while at A."""
    if reset:
        back = {"name": name(team), "n": count, "level": level_label(rs.a_fail_reset_to)}
        if own_a:
            return words("%(name)s第%(n)s次打A未过，退回%(level)s", **back)
        return words("%(name)s第%(n)s次在A级失利，退回%(level)s", **back)
    if own_a:
        failed = words("%(name)s打A未过（第%(n)s次）", name=name(team), n=count)
    else:
        failed = words("%(name)s在A级失利（第%(n)s次）", name=name(team), n=count)
    return words("%(what)s，仍打A", what=failed) if top else failed


def _describe_penalty(
    before: MatchState, p: Penalty, after: MatchState, rs: RuleSet, name
) -> Words:
    team = name(p.team)
    if p.kind == "disqualify":
        text = words("%(name)s取消比赛资格，%(other)s获胜", name=team, other=name(other(p.team)))
    elif before.sudden_death:
        if p.kind == "back_to_2":
            text = words("突然死亡阶段级数固定为A，%(name)s回到2不生效", name=team)
        else:
            text = words("突然死亡阶段级数固定为A，%(name)s扣%(n)s级不生效", name=team, n=p.levels)
    else:
        old, new = before.levels[p.team], after.levels[p.team]
        if p.kind == "back_to_2":
            text = words("%(name)s回到2", name=team)
        else:
            levels = {"name": team, "n": p.levels, "old": level_label(old), "new": level_label(new)}
            if old - p.levels < 2:
                text = words("%(name)s扣%(n)s级：%(old)s→%(new)s（最低为2）", **levels)
            else:
                text = words("%(name)s扣%(n)s级：%(old)s→%(new)s", **levels)
        if before.a_failures[p.team] and not after.a_failures[p.team]:
            text = words("%(what)s，打A未过次数清零", what=text)
    if p.reason:
        return words("%(what)s（%(reason)s）", what=text, reason=p.reason)
    return text


def _describe_time_up(after: MatchState, name) -> Words:
    if after.sudden_death:
        return words("鸣哨，进入突然死亡法")
    a, b = after.levels["A"], after.levels["B"]
    if after.decided_by == "time_levels":
        w = after.winner
        hi, lo = after.levels[w], after.levels[other(w)]
        return words(
            "时间到：%(name)s级数高（%(high)s对%(low)s），%(name)s获胜",
            name=name(w),
            high=level_label(hi),
            low=level_label(lo),
        )
    if after.decided_by == "time_last_deal_top":
        return words(
            "时间到：双方同为%(level)s级，末副上游%(name)s获胜",
            level=level_label(a),
            name=name(after.winner),
        )
    return words("时间到：双方同为%(level)s级，平局", level=level_label(b))
