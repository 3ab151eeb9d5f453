"""Unit standings (团体总分): points per place summed per unit over every event, joint teams' shares, ties broken by places.

Pure rules, no Django: plain values in, frozen dataclasses out. Units and entries are opaque
hashable ids; events are their slugs.

- 名次分 (points table): points for places 1, 2, 3 …; a place beyond the table earns nothing.
  Equal places share one place's points in full: four quarter-final losers, all 5th, each
  earn the points of 5th (what a staff sports meet does), not the average of 5th–8th.
- 倍数 (weight): an event may count double (2) or not at all (0).
- A joint team (联队) entry's points go to its member units in equal shares (``shared``),
  or to the joint team as a line of its own (``own``).
- By rule an entry may earn nothing whatever its place: an entry that only gets the
  participation award (参与奖, entered on site where advance registration is required) or a
  disqualified one (取消资格), unless the tournament says they count.
- Ranking: more points first; equal points are broken by more firsts, then more seconds and
  so on (a joint team's place counted by each member's share); units still equal share a rank.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

SHARED, OWN = "shared", "own"
# Why an entry earns nothing by rule (the ``reason`` of standings.json).
AWARD_ONLY = "participation_award_only"
DISQUALIFIED = "disqualified"
NOT_COUNTED = "event_not_counted"
REASONS = (AWARD_ONLY, DISQUALIFIED, NOT_COUNTED)


@dataclass(frozen=True)
class Options:
    points: tuple[int | float, ...] = (9, 7, 6, 5, 4, 3, 2, 1)
    joint: str = SHARED  # SHARED | OWN
    award_only_scores: bool = False
    disqualified_scores: bool = False

    def __post_init__(self):
        if self.joint not in (SHARED, OWN):
            raise ValueError(f"joint must be {SHARED!r} or {OWN!r}, not {self.joint!r}")
        if any(p < 0 for p in self.points):
            raise ValueError("points must not be negative")

    def for_place(self, rank: int | None) -> Fraction:
        if rank is None or not 1 <= rank <= len(self.points):
            return Fraction(0)
        return Fraction(self.points[rank - 1])


@dataclass(frozen=True)
class Placed:
    """One entry of one event as the standings see it."""

    event: str
    entry: Hashable
    unit: Hashable  # the entry's unit (a joint team for a 联队's entry)
    rank: int | None  # its place in the event, None while not placed
    members: tuple = ()  # a joint team's member units; () for a unit's own entry
    weight: int = 1  # the event's weight (倍数)
    award_only: bool = False  # 只获参与奖
    disqualified: bool = False  # 取消资格


@dataclass(frozen=True)
class Line:
    """What one entry brings one unit."""

    event: str
    entry: Hashable
    rank: int | None
    share: Fraction  # the unit's share of the entry: 1 for its own entries
    points: Fraction
    reason: str | None = None  # why it earns nothing by rule, else None


@dataclass(frozen=True)
class UnitRow:
    unit: Hashable
    rank: int | None  # None before any entry of any event has a place: no ranking yet
    points: Fraction
    places: tuple[Fraction, ...]  # how many 1sts, 2nds … (shares counted), up to the table's end
    lines: tuple[Line, ...]


def earned(placed: Placed, options: Options) -> tuple[Fraction, str | None]:
    """The points an entry earns in all (before shares) and why it earns none by rule."""
    if placed.weight == 0:
        return Fraction(0), NOT_COUNTED
    if placed.disqualified and not options.disqualified_scores:
        return Fraction(0), DISQUALIFIED
    if placed.award_only and not options.award_only_scores:
        return Fraction(0), AWARD_ONLY
    return options.for_place(placed.rank) * placed.weight, None


def _receivers(placed: Placed, options: Options) -> list[tuple[Hashable, Fraction]]:
    if placed.members and options.joint == SHARED:
        members = list(dict.fromkeys(placed.members))
        return [(unit, Fraction(1, len(members))) for unit in members]
    return [(placed.unit, Fraction(1))]


def unit_standings(
    placings: Iterable[Placed], options: Options, *, units: Sequence[Hashable] = ()
) -> list[UnitRow]:
    """Every unit that receives a line (and every unit of ``units``, with no points if it
    has none), best first. ``units`` also orders units that share a rank."""
    placings = list(placings)
    order = {unit: i for i, unit in enumerate(units)}
    lines: dict[Hashable, list[Line]] = {unit: [] for unit in units}
    for p in placings:
        total, reason = earned(p, options)
        for unit, share in _receivers(p, options):
            lines.setdefault(unit, []).append(
                Line(p.event, p.entry, p.rank, share, total * share, reason)
            )
            order.setdefault(unit, len(order))
    depth = len(options.points)
    rows = []
    for unit, got in lines.items():
        places = [Fraction(0)] * depth
        for line in got:
            if line.reason is None and line.rank is not None and 1 <= line.rank <= depth:
                places[line.rank - 1] += line.share
        rows.append((unit, sum((line.points for line in got), Fraction(0)), tuple(places), got))

    def key(row):
        return (-row[1], tuple(-n for n in row[2]))

    rows.sort(key=lambda row: (key(row), order[row[0]]))
    ranked = any(p.rank is not None for p in placings)
    out: list[UnitRow] = []
    for i, (unit, points, places, got) in enumerate(rows):
        rank = out[-1].rank if out and key(rows[i - 1]) == key(rows[i]) else i + 1
        if not ranked:
            rank = None
        out.append(UnitRow(unit, rank, points, places, tuple(got)))
    return out


def parse_points(text: str) -> tuple[int, ...]:
    """``9/7/6/5/4/3/2/1`` (or separated by commas, spaces or 、) → (9, 7, …); ValueError if
    a part is not a whole number from 0 to 999 or the points grow from one place to the next."""
    parts = [
        p
        for p in text.replace("，", ",")
        .replace("、", ",")
        .replace("/", ",")
        .replace(" ", ",")
        .split(",")
        if p.strip()
    ]
    if not parts:
        return ()
    values = []
    for part in parts:
        part = part.strip()
        if not part.isdigit() or not 0 <= int(part) <= 999:
            raise ValueError(part)
        values.append(int(part))
    if any(b > a for a, b in zip(values, values[1:], strict=False)):
        raise ValueError("increasing")
    return tuple(values)
