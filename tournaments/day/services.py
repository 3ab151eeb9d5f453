"""Planning the whole day and saving it, and the check of the day as it stands.

:func:`propose` plans every drawn event at once (:func:`tournaments.day.planner.plan_day`)
without writing anything; :func:`save_plan` writes a proposal in one transaction — each
match's time, hall and first table, each round's start, and the officials' hall duties —
if the day has not changed since it was shown. :func:`check_day` lists every clash of the
schedule as it is saved (:mod:`tournaments.day.clashes`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.words import listing, versus
from tournaments.day import clashes, planner
from tournaments.day.read import DayRead, read_day
from tournaments.draw import signals
from tournaments.models import DayPlan, HallDuty, Match, Round, Tournament


class PlanError(UserError):
    """The day cannot be planned or saved as asked."""


@dataclass
class Proposal:
    read: DayRead
    plan: planner.Plan
    from_minute: int | None = None
    fingerprint: str = ""
    warnings: list[str] = field(default_factory=list)


def propose(tournament: Tournament, *, from_minute: int | None = None) -> Proposal:
    """The plan of the day, not saved. ``from_minute`` re-plans the rest of the day from
    then: what has started or finished stays where it was."""
    read = read_day(tournament)
    day = read.day
    matches = read.matches
    if from_minute is not None:
        day = planner.Day(max(day.start, from_minute), day.end, day.breaks, day.changeover)
    plan = planner.plan_day(day, read.halls, read.events, matches, read.officials)
    proposal = Proposal(read, plan, from_minute)
    proposal.fingerprint = _fingerprint(plan)
    proposal.warnings = list(read.problems) + _warnings(read, plan)
    return proposal


def minute_now(tournament: Tournament) -> int:
    """Now, in minutes from the midnight of the tournament's day (negative the day before)."""
    midnight = timezone.make_aware(dt.datetime.combine(tournament.starts_on, dt.time(0)))
    return int((timezone.now() - midnight).total_seconds() // 60)


def _fingerprint(plan: planner.Plan) -> str:
    text = repr(sorted(plan.bookings.items())) + repr(plan.duties)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _warnings(read: DayRead, plan: planner.Plan) -> list[str]:
    out = []
    names = {h.id: h.name for h in read.halls}
    unplaced: dict[str, int] = {}
    for mid in plan.unplaced:
        name = read.event_rows[read.rows[mid].round.stage.draw.event_id].name
        unplaced[name] = unplaced.get(name, 0) + 1
    for name, count in unplaced.items():
        out.append(
            _("%(event)s有%(n)d场未能排入：没有可用的场地，或场地的桌数不够一场所需。")
            % {"event": name, "n": count}
        )
    if plan.late:
        last = max(plan.bookings[m].end for m in plan.late)
        out.append(
            _(
                "有%(n)d场排到当天结束时间之后（最晚%(end)s结束）：可调整每场时长、增加场地或延长时间。"
            )
            % {"n": len(plan.late), "end": read.at(last).strftime("%H:%M")}
        )
    if plan.unrefereed:
        halls = sorted({names[plan.bookings[m].hall] for m in plan.unrefereed})
        out.append(
            _("有%(n)d场没有裁判在场（%(halls)s）：请添加执裁裁判或放宽他们的时间。")
            % {"n": len(plan.unrefereed), "halls": listing(halls)}
        )
    return out


@transaction.atomic
def save_plan(tournament: Tournament, *, fingerprint: str, from_minute: int | None = None):
    """Save the plan the organiser was shown (its ``fingerprint``); refused when the day
    changed in between, so what is saved is what was seen."""
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    proposal = propose(tournament, from_minute=from_minute)
    if proposal.fingerprint != fingerprint:
        raise PlanError("changed", _("赛程在您查看之后有了变动，请查看新的排法后再保存。"))
    read, plan = proposal.read, proposal.plan
    venues = {v.pk: v for v in tournament.venues.all()}
    placed = []
    for mid, booking in plan.bookings.items():
        m = read.rows[mid]
        if m.status in (Match.Status.IN_PROGRESS, Match.Status.FINISHED):
            continue
        m.scheduled_at = read.at(booking.start)
        m.venue = venues[booking.hall]
        m.first_table = booking.places[0]
        m.clash_accepted = False
        placed.append(m)
    Match.objects.bulk_update(placed, ["scheduled_at", "venue", "first_table", "clash_accepted"])
    _round_starts(read, plan)
    _replace_duties(tournament, read, plan, from_minute)
    DayPlan.objects.update_or_create(tournament=tournament, defaults={"planned_at": timezone.now()})
    signals.tables_placed.send(sender=None, matches=placed)
    tournament.bump_event_versions()
    return proposal


def _replace_duties(tournament, read: DayRead, plan: planner.Plan, from_minute) -> None:
    """The plan's duties replace the saved ones — from ``from_minute`` on, when re-planning
    the rest of the day: a duty under way then ends then, and the plan's begin no earlier."""
    old = HallDuty.objects.filter(official__tournament=tournament)
    cut = read.at(from_minute) if from_minute is not None else None
    if cut is None:
        old.delete()
    else:
        old.filter(starts_at__gte=cut).delete()
        old.filter(ends_at__gt=cut).update(ends_at=cut)
    new = []
    for d in plan.duties:
        start = d.start if from_minute is None else max(d.start, from_minute)
        if start < d.end:
            new.append(
                HallDuty(
                    official_id=d.official,
                    venue_id=d.hall,
                    starts_at=read.at(start),
                    ends_at=read.at(d.end),
                )
            )
    HallDuty.objects.bulk_create(new)


def _round_starts(read: DayRead, plan: planner.Plan) -> None:
    starts: dict[int, int] = {}
    for mid, booking in plan.bookings.items():
        rid = read.rows[mid].round_id
        starts[rid] = min(starts.get(rid, booking.start), booking.start)
    rounds = list(Round.objects.filter(pk__in=starts))
    for r in rounds:
        r.starts_at = read.at(starts[r.pk])
    Round.objects.bulk_update(rounds, ["starts_at"])


@dataclass
class DayCheck:
    read: DayRead
    clashes: list[clashes.Clash]
    unscheduled: list[int]  # playable, with no time or hall
    uncovered: list[int]  # no official answers for them

    @property
    def open_clashes(self) -> list[clashes.Clash]:
        """The clashes not accepted by the organiser on both matches."""
        rows = self.read.rows
        return [
            c
            for c in self.clashes
            if not (rows[c.first].clash_accepted and rows[c.second].clash_accepted)
        ]


def check_day(tournament: Tournament, read: DayRead | None = None) -> DayCheck:
    """The schedule as saved: its clashes, the playable matches without a time or a hall,
    and those no official answers for."""
    read = read or read_day(tournament)
    specs = {m.id: m for m in read.matches}
    booked = {mid: b for mid, b in read.booked.items() if mid in specs}
    found = clashes.find_clashes(
        booked,
        specs,
        {e.id: e for e in read.events},
        read.duties,
        changeover=read.day.changeover,
    )
    pending = [m for m in read.matches if m.fixed is None]
    unscheduled = [m.id for m in pending if m.id not in booked or not booked[m.id].places]
    uncovered = [
        m for m in clashes.uncovered(booked, specs, read.duties) if m in {p.id for p in pending}
    ]
    return DayCheck(read, found, unscheduled, uncovered)


def match_text(read: DayRead, mid: int) -> str:
    """羽毛球 · 半决赛 王芳—李娜"""
    m = read.rows[mid]
    event = read.event_rows[m.round.stage.draw.event_id]
    return f"{event.name} · {m.round_label} {sides_text(m)}"


def sides_text(m: Match) -> str:
    """王芳——李娜, or 待定 (in the reader's language) for a side not yet known."""
    unknown = _("待定")
    home = m.home.name if m.home_id else unknown
    away = m.away.name if m.away_id else unknown
    return f"{home}{versus()}{away}"


def place_text(read: DayRead, booking: planner.Booking) -> str:
    """一楼 3号 08:30 (or 1–3号 for a team tie)."""
    return f"{where_text(read, booking)} {read.at(booking.start):%H:%M}"


def where_text(read: DayRead, booking: planner.Booking) -> str:
    """一楼 3号 (or 1–3号 for a team tie)."""
    hall = next(h.name for h in read.halls if h.id == booking.hall)
    places = booking.places
    if not places:
        where = hall
    elif len(places) == 1:
        where = _("%(hall)s %(n)s号") % {"hall": hall, "n": places[0]}
    else:
        where = _("%(hall)s %(first)s–%(last)s号") % {
            "hall": hall,
            "first": places[0],
            "last": places[-1],
        }
    return where


def clash_text(read: DayRead, clash: clashes.Clash) -> str:
    """The clash in one sentence naming both matches."""
    first, second = read.booked[clash.first], read.booked[clash.second]
    a, b = match_text(read, clash.first), match_text(read, clash.second)
    if clash.kind == clashes.PLACE:
        return _("%(place)s 已安排 %(a)s，与 %(b)s（%(at)s）冲突") % {
            "place": place_text(read, first),
            "a": a,
            "b": b,
            "at": f"{read.at(second.start):%H:%M}",
        }
    if clash.kind == clashes.OFFICIAL:
        name = _official_name(read, clash.what)
        return _("裁判%(name)s同时在两处：%(a)s（%(p1)s）与 %(b)s（%(p2)s）") % {
            "name": name,
            "a": a,
            "p1": place_text(read, first),
            "b": b,
            "p2": place_text(read, second),
        }
    if clash.kind == clashes.ENTRANT:
        return _("同一选手的两场比赛时间冲突或休息不足：%(a)s（%(p1)s）与 %(b)s（%(p2)s）") % {
            "a": a,
            "p1": place_text(read, first),
            "b": b,
            "p2": place_text(read, second),
        }
    return _("%(b)s（%(p2)s）排在它要等待的 %(a)s 结束之前（%(end)s 结束）") % {
        "a": a,
        "b": b,
        "p2": place_text(read, second),
        "end": f"{read.at(first.end):%H:%M}",
    }


def _official_name(read: DayRead, pk) -> str:
    from tournaments.models import Official

    found = Official.objects.filter(pk=pk).values_list("name", flat=True).first()
    return found or "—"


def clash_keys(day: DayCheck) -> set[tuple]:
    return {(c.kind, c.first, c.second, str(c.what)) for c in day.clashes}


def refuse_new_clashes(
    tournament: Tournament, before: set[tuple], *, accept: bool, across_events: bool = False
) -> list[str]:
    """After a hand edit (inside its transaction): the clashes it made, each in a sentence
    naming the other match — or, when the organiser ``accept``s them, none, and both
    matches of each are marked (``Match.clash_accepted``) until it is resolved.
    ``across_events``: only those between two events (an event's own automatic schedule
    keeps the round length the organiser chose; its own clashes are counted, not refused)."""
    after = check_day(tournament)
    new = [c for c in after.clashes if (c.kind, c.first, c.second, str(c.what)) not in before]
    if across_events:
        event_of = {m.id: m.event for m in after.read.matches}
        new = [c for c in new if event_of.get(c.first) != event_of.get(c.second)]
    if not new:
        return []
    if accept:
        ids = {mid for c in new for mid in (c.first, c.second)}
        Match.objects.filter(pk__in=ids).update(clash_accepted=True)
        return []
    return [clash_text(after.read, c) for c in new]


@transaction.atomic
def add_duty(tournament: Tournament, *, official, venue, starts_at, ends_at) -> HallDuty:
    """Place an official on a hall for a time by hand; refused when they would be in two
    halls at once (naming the matches), or when the window is empty."""
    if not starts_at < ends_at:
        raise PlanError("empty_window", _("执裁的结束时间须晚于开始时间。"))
    overlapping = HallDuty.objects.filter(
        official=official, starts_at__lt=ends_at, ends_at__gt=starts_at
    ).exclude(venue=venue)
    if overlapping.exists():
        other = overlapping.select_related("venue").first()
        raise PlanError(
            "two_halls",
            _("%(name)s此时已在%(hall)s执裁（%(start)s–%(end)s）。")
            % {
                "name": official.name,
                "hall": other.venue.name,
                "start": f"{timezone.localtime(other.starts_at):%H:%M}",
                "end": f"{timezone.localtime(other.ends_at):%H:%M}",
            },
        )
    before = clash_keys(check_day(tournament))
    duty = HallDuty.objects.create(
        official=official, venue=venue, starts_at=starts_at, ends_at=ends_at
    )
    problems = refuse_new_clashes(tournament, before, accept=False)
    if problems:
        raise PlanError("clashes", "；".join(problems[:3]))
    tournament.bump_event_versions()
    return duty


@transaction.atomic
def remove_duty(tournament: Tournament, duty_id: int) -> None:
    HallDuty.objects.filter(pk=duty_id, official__tournament=tournament).delete()
    tournament.bump_event_versions()
