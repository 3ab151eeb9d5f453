"""Ranking tables and their tie-breaks (场分, 级分, 胜负关系, 对手分, 抽签) for groups and Swiss stages.

Pure rules, no Django."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from guandan_cup.errors import N_
from tournaments.draw.rules.common import DrawError, entry_list


@dataclass(frozen=True)
class MatchResult:
    """One finished match. ``winner`` None = a draw; ``away`` None = a bye (a win)."""

    home: Hashable
    away: Hashable | None
    winner: Hashable | None
    home_level_points: float = 0
    away_level_points: float = 0


@dataclass(frozen=True)
class StandingRow:
    rank: int
    entry: Hashable
    played: int
    won: int
    drawn: int
    lost: int
    match_points: float
    level_points: float
    opponents_points: float
    decided_by: str | None  # the tie-break that put this row below the one above


# Section 10 of the rules: total 场分 → total 级分 (or raw 级差) → head-to-head → 对手分 → lot.
TIEBREAKS = ("match_points", "level_points", "head_to_head", "opponents_points", "lot")


def standings(
    entries: Sequence,
    results: Sequence[MatchResult],
    *,
    points: tuple[float, float, float] = (2, 1, 0),
    tiebreaks: Sequence[str] = TIEBREAKS,
    lots: Mapping | None = None,
) -> list[StandingRow]:
    """The ranking table of a group or a Swiss stage.

    ``points`` = (win, draw, loss) 场分. Tie-breaks apply in the given order; ``lot`` is
    always last, even when not listed, so no two rows share a rank. ``head_to_head`` compares
    the match points of the games among exactly the entries still tied (a mini-table); when it
    separates some of them it is applied again among those still tied, as UEFA does, before
    the next tie-break. ``lot`` orders by ``lots`` (entry → lot number, lower first; entries
    without one after those with one) and then by the order of ``entries``. A bye
    (``away=None``) counts as a win played, against nobody: it adds no 对手分 and no
    head-to-head game.
    """
    entries = entry_list(entries, minimum=1)
    order_of = {entry: i for i, entry in enumerate(entries)}
    criteria = list(dict.fromkeys(tiebreaks))
    unknown = [name for name in criteria if name not in TIEBREAKS]
    if unknown:
        raise DrawError(
            "unknown_tiebreak", N_("未知的排名规则：%(unknown)s。"), unknown=repr(unknown[0])
        )
    if "lot" not in criteria:
        criteria.append("lot")
    win, draw, loss = points

    played = Counter()
    won = Counter()
    drawn = Counter()
    lost = Counter()
    match_points: dict = dict.fromkeys(entries, 0)
    level_points: dict = dict.fromkeys(entries, 0)
    games: dict = {entry: [] for entry in entries}  # entry → [(opponent, match points)]
    for result in results:
        for side in (result.home, result.away):
            if side is not None and side not in order_of:
                raise DrawError(
                    "unknown_entry", N_("成绩中的%(side)s不在本组名单中。"), side=repr(side)
                )
        if result.home == result.away or result.home is None:
            raise DrawError("invalid_result", N_("成绩%(result)s的双方不对。"), result=repr(result))
        if result.winner not in (result.home, result.away, None) or (
            result.away is None and result.winner != result.home
        ):
            raise DrawError(
                "invalid_result", N_("成绩%(result)s的胜方不是参赛双方之一。"), result=repr(result)
            )
        sides = [(result.home, result.away, result.home_level_points)]
        if result.away is not None:
            sides.append((result.away, result.home, result.away_level_points))
        for entry, opponent, levels in sides:
            if result.winner is None:
                gained, tally = draw, drawn
            elif result.winner == entry:
                gained, tally = win, won
            else:
                gained, tally = loss, lost
            played[entry] += 1
            tally[entry] += 1
            match_points[entry] += gained
            level_points[entry] += levels
            if opponent is not None:
                games[entry].append((opponent, gained))
    opponents_points = {
        entry: sum(match_points[opponent] for opponent, _ in games[entry]) for entry in entries
    }

    def keys(name: str, block: list) -> dict:
        """Sort keys, higher is better. Sums of floats are rounded so 0.1 + 0.2 ties 0.3."""
        if name == "match_points":
            return {e: round(match_points[e], 9) for e in block}
        if name == "level_points":
            return {e: round(level_points[e], 9) for e in block}
        if name == "opponents_points":
            return {e: round(opponents_points[e], 9) for e in block}
        if name == "head_to_head":
            tied = set(block)
            return {e: round(sum(p for o, p in games[e] if o in tied), 9) for e in block}
        lot_of = lots or {}
        return {
            e: (1, -lot_of[e], -order_of[e]) if e in lot_of else (0, 0, -order_of[e]) for e in block
        }

    decided_by: dict = {}

    def rank(block: list, at: int) -> list:
        if len(block) == 1:
            return block
        name = criteria[at]
        key = keys(name, block)
        ordered = sorted(block, key=key.__getitem__, reverse=True)
        tied_groups: list[list] = []
        for entry in ordered:
            if tied_groups and key[tied_groups[-1][0]] == key[entry]:
                tied_groups[-1].append(entry)
            else:
                tied_groups.append([entry])
        if len(tied_groups) == 1:
            return rank(block, at + 1)  # the lot, last, always separates: at stays in range
        ranked: list = []
        for group in tied_groups:
            again = name == "head_to_head" and len(group) > 1
            part = rank(group, at if again else at + 1)
            if ranked:
                decided_by[part[0]] = name
            ranked += part
        return ranked

    table = rank(list(entries), 0)
    return [
        StandingRow(
            rank=i + 1,
            entry=entry,
            played=played[entry],
            won=won[entry],
            drawn=drawn[entry],
            lost=lost[entry],
            match_points=match_points[entry],
            level_points=level_points[entry],
            opponents_points=opponents_points[entry],
            decided_by=decided_by.get(entry),
        )
        for i, entry in enumerate(table)
    ]
