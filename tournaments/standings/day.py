"""A unit's day (what its team leader lands on): every entry of the unit in every event with its next match, its results so far and its place, and the unit's line in the standings — from the one tournament-wide read, so the queries do not grow with the events."""

from __future__ import annotations

from dataclasses import dataclass, field

from tournaments.models import Entry, Match, Unit
from tournaments.standings.selectors import Standings, as_number


@dataclass
class Played:
    match: Match
    opponent: Entry | None
    outcome: str  # won | lost | drawn | bye
    ours: int
    theirs: int


@dataclass
class EntryDay:
    entry: Entry
    next_match: Match | None = None
    opponent: Entry | None = None
    played: list[Played] = field(default_factory=list)
    place: int | None = None
    points: int | float | None = None
    joint: bool = False  # a joint team's entry the unit is a member of


@dataclass
class UnitDay:
    unit: Unit
    rank: int | None
    points: int | float
    final: bool
    entries: dict[int, EntryDay]  # entry id -> its day


def _sort_key(m: Match):
    return (m.round.stage.order, m.round.number, m.is_third_place, m.group, m.index)


def unit_day(st: Standings, unit: Unit) -> UnitDay:
    """No query: everything comes from :func:`standings`."""
    joint_ids = {
        pk for pk, u in st.units.items() if u.kind == Unit.Kind.JOINT and unit.pk in u.member_ids
    }
    mine = [e for e in st.entries.values() if e.unit_id == unit.pk or e.unit_id in joint_ids]
    row = next((r for r in st.rows if r.unit == unit.pk), None)
    earned = {}
    if row is not None:
        for line in row.lines:
            earned[line.entry] = earned.get(line.entry, 0) + line.points
    days = {}
    for entry in mine:
        event_day = st.days[entry.event_id]
        day = EntryDay(
            entry=entry,
            place=event_day.places.get(entry.pk),
            points=as_number(earned[entry.pk]) if entry.pk in earned else None,
            joint=entry.unit_id in joint_ids,
        )
        matches = sorted(
            (m for m in event_day.matches if entry.pk in (m.home_id, m.away_id)), key=_sort_key
        )
        for m in matches:
            home = m.home_id == entry.pk
            opponent = m.away if home else m.home
            if m.is_decided:
                side = "home" if home else "away"
                if m.status == Match.Status.BYE:
                    outcome = "bye"
                elif not m.winner:
                    outcome = "drawn"
                else:
                    outcome = "won" if m.winner == side else "lost"
                ours, theirs = (
                    (m.home_score, m.away_score) if home else (m.away_score, m.home_score)
                )
                day.played.append(Played(m, opponent, outcome, ours, theirs))
            elif day.next_match is None:
                day.next_match, day.opponent = m, opponent
        days[entry.pk] = day
    return UnitDay(
        unit=unit,
        rank=row.rank if row else None,
        points=as_number(row.points) if row else 0,
        final=st.final,
        entries=days,
    )
