"""The day as one plan (全天赛程): every event's matches placed in the halls' courts and tables,
under the officials who are there, with no clash — pure Python, no Django.

Times are whole minutes from midnight of the tournament's day. What the organiser states once
is a :class:`Day` (start, end, breaks, the changeover between two matches on one court),
:class:`Hall` values (their numbered courts or tables), :class:`EventSpec` values (how long a
match lasts, the rest an entrant needs between two, how many side-by-side tables a match
takes, and which places of which halls it may use) and :class:`OfficialSpec` values (when
each is there). The matches (:class:`MatchSpec`) say whose results they wait for and who may
play them.

:func:`plan_day` is a list schedule (a serial schedule-generation scheme): it takes the
matches one at a time, the one with the longest remaining path first (its own length, the
gap after it and the longest chain of matches waiting for it — the chain that decides when
the day can end), and puts each at the earliest time at which

* all of its places are free (a place is busy for a match and the changeover after it),
* it lies within no break,
* its feeders have ended, plus the changeover and the event's rest,
* none of the people who may play it is in another match, or resting from one, and
* an official can be in its hall: an official is in one hall at a time and covers every
  match there while in it (a match with its own referee takes that one).

Matches of one round have the same remaining path, so they are placed one after the other
and, where courts allow, at the same time. Where several places are free the event's own
hall and the lowest numbers come first. A match that cannot end by the day's end is still
placed, and is listed in ``late``; one that no hall can hold is listed in ``unplaced``, and one for which no official is there at any time
is placed without one and listed in ``unrefereed``.
The officials' time in a hall becomes their duties (:class:`Duty`).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from dataclasses import dataclass, field

Interval = tuple[int, int]


@dataclass(frozen=True)
class Day:
    start: int
    end: int
    breaks: tuple[Interval, ...] = ()
    changeover: int = 5


@dataclass(frozen=True)
class Hall:
    id: int
    name: str
    places: tuple[int, ...]


@dataclass(frozen=True)
class EventSpec:
    id: int
    minutes: int
    rest: int = 0
    tables: int = 1  # side by side: a team tie of three pairs takes three tables
    halls: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (hall id, the places it may use)
    order: int = 0


@dataclass(frozen=True)
class MatchSpec:
    id: int
    event: int
    order: tuple = ()  # (stage, round, group, index): the bracket's own order
    after: tuple[int, ...] = ()  # the matches whose results it waits for
    people: frozenset = frozenset()  # who may play it (known entrants, or the feeders')
    referee: int | None = None  # its own official, if the organiser named one
    fixed: Booking | None = None  # started or finished: where and when it was


@dataclass(frozen=True)
class OfficialSpec:
    id: int
    windows: tuple[Interval, ...]  # when they are there (empty: not at all)


@dataclass(frozen=True)
class Booking:
    match: int
    start: int
    end: int
    hall: int
    places: tuple[int, ...]
    official: int | None = None


@dataclass(frozen=True)
class Duty:
    official: int
    hall: int
    start: int
    end: int


@dataclass
class Plan:
    bookings: dict[int, Booking] = field(default_factory=dict)
    duties: list[Duty] = field(default_factory=list)
    late: list[int] = field(default_factory=list)  # placed, ending after the day's end
    unplaced: list[int] = field(default_factory=list)  # no hall can hold it
    unrefereed: list[int] = field(default_factory=list)  # placed without an official

    @property
    def ends(self) -> int | None:
        return max((b.end for b in self.bookings.values()), default=None)


class _Timeline:
    """Busy intervals of one thing (a place, a person), sorted, with a free-check."""

    __slots__ = ("items",)

    def __init__(self):
        self.items: list[Interval] = []

    def add(self, start: int, end: int) -> None:
        insort(self.items, (start, end))

    def clash(self, start: int, end: int) -> int | None:
        """The latest end of the intervals overlapping [start, end), or None when free."""
        latest = None
        for s, e in self.items[: bisect_left(self.items, (end, end))]:
            if e > start and s < end and (latest is None or e > latest):
                latest = e
        return latest


class _Officials:
    """Where each official is when: one hall at a time, any number of matches in it."""

    def __init__(self, officials: list[OfficialSpec]):
        self.specs = {o.id: o for o in officials}
        self.where: dict[int, list[tuple[int, int, int]]] = {o.id: [] for o in officials}

    def free(self, official: int, hall: int, start: int, end: int) -> bool:
        spec = self.specs.get(official)
        if spec is None or not any(s <= start and end <= e for s, e in spec.windows):
            return False
        return all(h == hall or e <= start or s >= end for s, e, h in self.where[official])

    def in_hall(self, official: int, hall: int, start: int, end: int) -> bool:
        return any(h == hall and s <= end and e >= start for s, e, h in self.where[official])

    def choose(self, hall: int, start: int, end: int, own: int | None) -> int | None | bool:
        """The official for a match in ``hall`` over [start, end): its own referee, else one
        already in the hall then, else the least busy free one; False when none can be."""
        if own is not None:
            return own if self.free(own, hall, start, end) or own not in self.specs else False
        free = [o for o in self.specs if self.free(o, hall, start, end)]
        if not free:
            return False if self.specs else None
        staying = [o for o in free if self.in_hall(o, hall, start, end)]
        if staying:
            return staying[0]
        # Not in another hall at all today comes first, then the least time booked.
        return min(free, key=lambda o: (sum(e - s for s, e, _h in self.where[o]), o))

    def book(self, official: int | None, hall: int, start: int, end: int) -> None:
        if official in self.where:
            insort(self.where[official], (start, end, hall))

    def duties(self) -> list[Duty]:
        """Each official's time in a hall, joined while they are in no other hall between."""
        found = []
        for official, items in self.where.items():
            current = None
            for s, e, h in sorted(items):
                if current and current[0] == h:
                    current = (h, current[1], max(current[2], e))
                    continue
                if current:
                    found.append(Duty(official, *current))
                current = (h, s, e)
            if current:
                found.append(Duty(official, *current))
        return sorted(found, key=lambda d: (d.start, d.hall, d.official))


def _tails(matches: dict[int, MatchSpec], events: dict[int, EventSpec], gap: int) -> dict:
    """Each match's longest remaining path: its length and the longest chain after it."""
    waiting: dict[int, list[int]] = {m: [] for m in matches}
    for m in matches.values():
        for before in m.after:
            if before in waiting:
                waiting[before].append(m.id)
    tails: dict[int, int] = {}

    def tail(mid: int) -> int:
        if mid not in tails:
            m = matches[mid]
            spec = events[m.event]
            rest = max(gap, spec.rest)
            tails[mid] = spec.minutes + max((rest + tail(n) for n in waiting[mid]), default=0)
        return tails[mid]

    for mid in sorted(matches):
        tail(mid)
    return tails


def _windows(places: tuple[int, ...], width: int) -> list[tuple[int, ...]]:
    """Runs of ``width`` consecutive place numbers among ``places``."""
    ordered = sorted(set(places))
    taken = set(ordered)
    return [
        tuple(range(p, p + width)) for p in ordered if all(q in taken for q in range(p, p + width))
    ]


def _off_breaks(day: Day, start: int, minutes: int) -> int:
    """The earliest start ≥ ``start`` at which a match of ``minutes`` overlaps no break."""
    moved = True
    while moved:
        moved = False
        for s, e in day.breaks:
            if start < e and start + minutes > s:
                start, moved = e, True
    return start


def plan_day(
    day: Day,
    halls: list[Hall],
    events: list[EventSpec],
    matches: list[MatchSpec],
    officials: list[OfficialSpec],
) -> Plan:
    """Place every match (see the module's description); deterministic for equal inputs."""
    by_event = {e.id: e for e in events}
    by_match = {m.id: m for m in matches}
    places = {(h.id, p): _Timeline() for h in halls for p in h.places}
    people: dict[object, _Timeline] = {}
    staff = _Officials(officials)
    plan = Plan()
    gap = day.changeover

    def book(m: MatchSpec, b: Booking) -> None:
        plan.bookings[m.id] = b
        for p in b.places:
            places.setdefault((b.hall, p), _Timeline()).add(b.start, b.end + gap)
        rest = by_event[m.event].rest
        for person in m.people:
            people.setdefault(person, _Timeline()).add(b.start, b.end + rest)
        staff.book(b.official, b.hall, b.start, b.end)

    for m in matches:
        if m.fixed is not None:
            book(m, m.fixed)
    tails = _tails(by_match, by_event, gap)
    todo = [m for m in matches if m.fixed is None]
    priority = {m.id: (-tails[m.id], by_event[m.event].order, m.event, m.order, m.id) for m in todo}
    placed_or_out = set(plan.bookings)
    while todo:
        ready = [m for m in todo if all(a in placed_or_out or a not in by_match for a in m.after)]
        if not ready:  # a cycle of waits: place the rest in priority order regardless
            ready = todo
        m = min(ready, key=lambda m: priority[m.id])
        todo.remove(m)
        placed_or_out.add(m.id)
        booking = _place(m, by_event[m.event], day, plan, halls, places, people, staff, gap)
        if booking is None:
            plan.unplaced.append(m.id)
            continue
        book(m, booking)
        if booking.official is None:
            plan.unrefereed.append(m.id)
        if booking.end > day.end:
            plan.late.append(m.id)
    plan.duties = staff.duties()
    return plan


def _place(m, spec, day, plan, halls, places, people, staff, gap, with_staff=True):
    release = day.start
    for before in m.after:
        done = plan.bookings.get(before)
        if done is not None:
            release = max(release, done.end + max(gap, spec.rest))
    allowed = dict(spec.halls)
    options = []  # (hall, window), the event's first-named hall first
    for hall in halls:
        if hall.id in allowed:
            usable = tuple(p for p in hall.places if p in set(allowed[hall.id]))
            for window in _windows(usable, spec.tables):
                options.append((list(allowed).index(hall.id), hall.id, window))
    if not options:
        return None
    options.sort()
    # Candidate starts: the release, and every moment something frees up after it.
    candidates = {release}
    for b in plan.bookings.values():
        for t in (b.end + gap, b.end + max(gap, spec.rest), b.end):
            if t > release:
                candidates.add(t)
    for person in m.people:  # the end of an entrant's rest
        if person in people:
            candidates |= {e for _s, e in people[person].items if e > release}
    candidates |= {e for _s, e in day.breaks if e > release}
    for o in staff.specs.values():
        candidates |= {s for s, _e in o.windows if s > release}
    for t in sorted(candidates):
        start = _off_breaks(day, t, spec.minutes)
        if start != t:
            continue  # a later candidate (the break's end) covers it
        end = start + spec.minutes
        if any(
            (tl := people.get(p)) is not None and tl.clash(start, end + spec.rest) is not None
            for p in m.people
        ):
            continue
        for _rank, hall, window in options:
            if any(places[(hall, p)].clash(start, end + gap) is not None for p in window):
                continue
            official = staff.choose(hall, start, end, m.referee) if with_staff else None
            if official is False:
                continue
            return Booking(m.id, start, end, hall, window, official)
    if with_staff and staff.specs:
        # No official is there for it at any time: placed without one, and said so.
        return _place(m, spec, day, plan, halls, places, people, staff, gap, with_staff=False)
    return None
