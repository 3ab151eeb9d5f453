"""What is wrong with a day's schedule as it stands — pure Python, no Django.

The same check serves the day plan's preview, a hand edit on any schedule page, the
dashboard's count and ``manage.py schedule_day --check``. It reads the planner's shapes
(:mod:`tournaments.day.planner`): each scheduled match as a :class:`Booking` with its
:class:`MatchSpec` (people, feeders, own referee), the events' rests and the officials'
duties. Every clash names both matches.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from tournaments.day.planner import Booking, Duty, EventSpec, MatchSpec

PLACE, OFFICIAL, ENTRANT, ORDER = "place", "official", "entrant", "order"
KINDS = (PLACE, OFFICIAL, ENTRANT, ORDER)


@dataclass(frozen=True)
class Clash:
    """``kind`` (one of :data:`KINDS`) between ``first`` and ``second`` (match ids, ``first``
    the earlier); ``what`` is the place number, the official's id or the person's key."""

    kind: str
    first: int
    second: int
    what: object = None


def _overlap(a: Booking, b: Booking, pad_a: int = 0, pad_b: int = 0) -> bool:
    return a.start < b.end + pad_b and b.start < a.end + pad_a


def find_clashes(
    bookings: dict[int, Booking],
    specs: dict[int, MatchSpec],
    events: dict[int, EventSpec],
    duties: list[Duty] = (),
    *,
    changeover: int = 0,
) -> list[Clash]:
    """Every clash of the schedule: a court or table holding two matches at once (with the
    changeover between them), an official in two halls at once, an entrant in two matches at
    once or without their rest, a match starting before a match it waits for has ended."""
    found: list[Clash] = []
    ordered = sorted(bookings.values(), key=lambda b: (b.start, b.match))
    by_place: dict[tuple[int, int], list[Booking]] = {}
    for b in ordered:
        for p in b.places:
            by_place.setdefault((b.hall, p), []).append(b)
    for (_hall, place), items in sorted(by_place.items()):
        for a, b in combinations(items, 2):
            if a.start < b.end and b.start < a.end + changeover:
                found.append(Clash(PLACE, a.match, b.match, place))
    found += _official_clashes(ordered, specs, duties)
    by_person: dict[object, list[Booking]] = {}
    for b in ordered:
        for person in specs[b.match].people:
            by_person.setdefault(person, []).append(b)
    for person, items in sorted(by_person.items(), key=lambda kv: str(kv[0])):
        for a, b in combinations(items, 2):
            ra, rb = events[specs[a.match].event].rest, events[specs[b.match].event].rest
            if _overlap(a, b, ra, rb) and not _feeds(specs, a.match, b.match):
                found.append(Clash(ENTRANT, a.match, b.match, person))
    for b in ordered:
        spec = specs[b.match]
        gap = max(changeover, events[spec.event].rest)
        for before in spec.after:
            a = bookings.get(before)
            if a is not None and b.start < a.end + gap:
                found.append(Clash(ORDER, a.match, b.match))
    return _unique(found)


def _feeds(specs, first: int, second: int) -> bool:
    """One waits for the other: their order is checked as ``order``, not twice."""
    return first in specs[second].after or second in specs[first].after


def _official_clashes(ordered, specs, duties) -> list[Clash]:
    """An official is in one hall at a time: their own matches and their hall duties."""
    found = []
    own: dict[int, list[Booking]] = {}
    for b in ordered:
        if specs[b.match].referee is not None:
            own.setdefault(specs[b.match].referee, []).append(b)
    for official, items in own.items():
        for a, b in combinations(items, 2):
            if a.hall != b.hall and _overlap(a, b):
                found.append(Clash(OFFICIAL, a.match, b.match, official))
    for duty in duties:
        # A duty in one hall against the official's own matches or other duties elsewhere.
        for b in own.get(duty.official, []):
            if b.hall != duty.hall and b.start < duty.end and duty.start < b.end:
                start, end = max(duty.start, b.start), min(duty.end, b.end)
                inside = _match_in(ordered, duty.hall, start, end)
                if inside is not None:
                    found.append(Clash(OFFICIAL, *sorted((inside, b.match)), duty.official))
    for d1, d2 in combinations(duties, 2):
        if d1.official == d2.official and d1.hall != d2.hall:
            start, end = max(d1.start, d2.start), min(d1.end, d2.end)
            if start < end:
                m1, m2 = (
                    _match_in(ordered, d1.hall, start, end),
                    _match_in(ordered, d2.hall, start, end),
                )
                if m1 is not None and m2 is not None:
                    found.append(Clash(OFFICIAL, *sorted((m1, m2)), d1.official))
    return found


def _match_in(ordered, hall: int, start: int, end: int) -> int | None:
    return next(
        (b.match for b in ordered if b.hall == hall and b.start < end and start < b.end), None
    )


def _unique(found: list[Clash]) -> list[Clash]:
    seen, out = set(), []
    for c in found:
        key = (c.kind, c.first, c.second, str(c.what))
        if key not in seen:
            seen.add(key)
            out.append(c)
    return out


def uncovered(bookings: dict[int, Booking], specs: dict[int, MatchSpec], duties) -> list[int]:
    """The matches no official answers for: no referee of their own and no duty in their
    hall for the whole of their time."""
    out = []
    for b in sorted(bookings.values(), key=lambda b: (b.start, b.match)):
        if specs[b.match].referee is not None:
            continue
        if not any(d.hall == b.hall and d.start <= b.start and b.end <= d.end for d in duties):
            out.append(b.match)
    return out
