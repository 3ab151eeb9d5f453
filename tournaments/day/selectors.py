"""The day's timeline as people read it — the public 赛程 page, its JSON, the organiser's plan —
from the schedule as it is saved: each match with its event, round, entrants, hall, courts
or tables, planned start and end, live status and the official who answers for it (its own
referee, or the one on duty in its hall then)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments.day import clashes as day_clashes
from tournaments.day import planner
from tournaments.day.read import DayRead, read_day
from tournaments.day.services import check_day
from tournaments.models import Match, Official, Tournament


@dataclass
class Slot:
    match: Match
    event: object
    booking: planner.Booking
    starts_at: object
    ends_at: object
    referee: Official | None
    after: tuple[int, ...]
    clashes: list[str] = field(default_factory=list)  # the kinds it is part of
    overrun: bool = False  # still going past its planned end
    pushes: list[Match] = field(default_factory=list)  # what it holds up, if it overruns

    @property
    def places(self) -> tuple[int, ...]:
        return self.booking.places


@dataclass
class HallDay:
    id: int
    name: str
    slots: list[Slot]
    duties: list = field(default_factory=list)  # (name, starts_at, ends_at) of its officials


@dataclass
class _Duty:
    name: str
    starts_at: object
    ends_at: object


@dataclass
class Timeline:
    read: DayRead
    halls: list[HallDay]
    unscheduled: list[Match]
    clash_count: int
    version: int


def _on_duty(read: DayRead, officials, booking: planner.Booking) -> Official | None:
    for duty in read.duties:
        if duty.hall == booking.hall and duty.start <= booking.start < duty.end:
            return officials.get(duty.official)
    return None


def timeline(tournament: Tournament, *, with_duties: bool = False) -> Timeline:
    read = read_day(tournament)
    check = check_day(tournament, read)
    officials = {o.pk: o for o in Official.objects.filter(tournament=tournament)}
    specs = {m.id: m for m in read.matches}
    marked: dict[int, set[str]] = {}
    for clash in check.clashes:
        for mid in (clash.first, clash.second):
            marked.setdefault(mid, set()).add(clash.kind)
    halls = {h.id: HallDay(h.id, h.name, []) for h in read.halls}
    for mid, booking in read.booked.items():
        if mid not in specs or booking.hall not in halls:
            continue
        m = read.rows[mid]
        own = officials.get(m.referee_id) if m.referee_id else None
        halls[booking.hall].slots.append(
            Slot(
                match=m,
                event=read.event_rows[m.round.stage.draw.event_id],
                booking=booking,
                starts_at=read.at(booking.start),
                ends_at=read.at(booking.end),
                referee=own or _on_duty(read, officials, booking),
                after=specs[mid].after,
                clashes=sorted(marked.get(mid, ())),
            )
        )
    for hall in halls.values():
        hall.slots.sort(key=lambda s: (s.booking.start, s.places, s.match.pk))
    _overruns([slot for hall in halls.values() for slot in hall.slots], timezone.now())
    if with_duties:
        for duty in read.duties:
            if duty.hall in halls and duty.official in officials:
                halls[duty.hall].duties.append(
                    _Duty(officials[duty.official].name, read.at(duty.start), read.at(duty.end))
                )
    unscheduled = [read.rows[mid] for mid in check.unscheduled]
    version = sum(e.version for e in read.event_rows.values()) + len(read.event_rows)
    return Timeline(
        read,
        [h for h in halls.values() if h.slots],
        unscheduled,
        len(check.open_clashes),
        version,
    )


def _overruns(slots: list[Slot], now) -> None:
    """A match still in progress after its planned end holds up the next match on each of
    its courts or tables and every match waiting for its result."""
    for slot in slots:
        if slot.match.status != Match.Status.IN_PROGRESS or now <= slot.ends_at:
            continue
        slot.overrun = True
        held = []
        for other in slots:
            if other is slot or other.match.is_decided or other.booking.start < slot.booking.start:
                continue
            waits = slot.match.pk in other.after
            same_court = other.booking.hall == slot.booking.hall and set(other.places) & set(
                slot.places
            )
            if waits or same_court:
                held.append(other)
        # The next on each court, and everything that waits for it.
        slot.pushes = [s.match for s in sorted(held, key=lambda s: s.booking.start)][:6]


def _side(entry) -> dict | None:
    return None if entry is None else {"entry_id": entry.pk, "name": entry.name}


def schedule_json(tournament: Tournament) -> dict:
    """``/t/<t>/schedule.json``: docs/interfaces.md."""
    line = timeline(tournament)
    matches = []
    for hall in line.halls:
        for slot in hall.slots:
            m = slot.match
            matches.append(
                {
                    "id": m.pk,
                    "event": slot.event.slug,
                    "round": m.round_label,
                    "status": m.status,
                    "starts_at": slot.starts_at.isoformat(),
                    "ends_at": slot.ends_at.isoformat(),
                    "venue": hall.name,
                    "tables": list(slot.places),
                    "referee": (
                        {"id": slot.referee.pk, "name": slot.referee.name} if slot.referee else None
                    ),
                    "after": list(slot.after),
                    "home": _side(m.home),
                    "away": _side(m.away),
                    "url": reverse(
                        "live:match-json", args=[tournament.slug, slot.event.slug, m.pk]
                    ),
                }
            )
    matches.sort(key=lambda row: (row["starts_at"], row["venue"], row["tables"], row["id"]))
    return {"tournament": tournament.slug, "version": line.version, "matches": matches}


KIND_LABELS = {
    day_clashes.PLACE: _("场地冲突"),
    day_clashes.OFFICIAL: _("裁判冲突"),
    day_clashes.ENTRANT: _("选手冲突"),
    day_clashes.ORDER: _("先后顺序"),
}


@dataclass
class Court:
    number: int
    now: Slot | None
    next: Slot | None


def hall_screen(tournament: Tournament, venue_id: int) -> tuple[HallDay | None, list[Court]]:
    """The hall projector's page: each court or table of one hall, across every event — the
    match on it now (in progress, or planned for now) and the next one."""
    line = timeline(tournament)
    hall = next((h for h in line.halls if h.id == venue_id), None)
    if hall is None:
        return None, []
    now = timezone.now()
    numbers = sorted({p for slot in hall.slots for p in slot.places})
    courts = []
    for number in numbers:
        on = [s for s in hall.slots if number in s.places and not s.match.is_decided]
        current = next(
            (s for s in on if s.match.status == Match.Status.IN_PROGRESS),
            next((s for s in on if s.starts_at <= now < s.ends_at), None),
        )
        later = [s for s in on if s is not current]
        courts.append(Court(number, current, later[0] if later else None))
    return hall, courts
