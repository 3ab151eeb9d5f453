"""The organiser's dashboard walks the day: notice → registration → draw → schedule and
officials → play → results, each step with its state, what is missing and where to do it.

Reads only, in a fixed number of queries whatever the size of the tournament (a few per
event for the placings). What happens at the tables (results waiting for confirmation) is
scoring's: the dashboard's view counts it and passes it in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.urls import reverse
from django.utils.translation import gettext as _

from guandan_cup.words import listing
from tournaments.day.services import check_day
from tournaments.draw import status as day_status
from tournaments.models import Draw, Entry, Event, Match, Official, Tournament, Unit


@dataclass
class Step:
    key: str
    title: str
    state: str
    done: bool = False
    current: bool = False
    missing: list[str] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class EventRow:
    event: Event
    drawn: bool
    finished: bool
    unrefereed: int = 0
    links: list[tuple[str, str]] = field(default_factory=list)


def units_without_entries(tournament: Tournament, units: list[Unit]) -> list[Unit]:
    """Units (not joint teams) with no active entry in any event, directly or through a
    joint team (联队) they belong to."""
    active = set(
        Entry.objects.filter(event__tournament=tournament, status=Entry.Status.REGISTERED)
        .values_list("unit_id", flat=True)
        .distinct()
    )
    covered = set(active)
    for unit in units:
        if unit.kind == Unit.Kind.JOINT and unit.pk in active:
            covered |= {m.pk for m in unit.members.all()}
    return [u for u in units if u.kind != Unit.Kind.JOINT and u.pk not in covered]


def event_rows(tournament: Tournament, *, refereed_by_tables: set[int] = frozenset()):
    """Each event with its counts, whether it is drawn and finished, its ties without a
    referee, and the links to its pages."""
    events = list(
        tournament.events.annotate(
            active=Count("entries", filter=Q(entries__status=Entry.Status.REGISTERED)),
            withdrawn=Count("entries", filter=~Q(entries__status=Entry.Status.REGISTERED)),
            on_site=Count(
                "entries",
                filter=Q(entries__on_site=True, entries__status=Entry.Status.REGISTERED),
            ),
        )
    )
    drawn = set(
        Draw.objects.filter(event__tournament=tournament, undone_at__isnull=True).values_list(
            "event_id", flat=True
        )
    )
    matches = list(
        Match.objects.filter(
            round__stage__draw__event__tournament=tournament,
            round__stage__draw__undone_at__isnull=True,
        ).select_related("home", "away", "round__stage")
    )
    by_event: dict[int, list[Match]] = {}
    for match in matches:
        by_event.setdefault(match.round.stage.event_id, []).append(match)
    rows = []
    slug = tournament.slug
    for event in events:
        mine = by_event.get(event.pk, [])
        is_drawn = event.pk in drawn
        unrefereed = sum(
            1
            for m in mine
            if m.home_id
            and m.away_id
            and not m.is_decided
            and m.referee_id is None
            and m.pk not in refereed_by_tables
        )
        args = [slug, event.slug]
        links = [
            (_("设置"), reverse("manage:event-edit", args=args)),
            (_("导入Excel"), reverse("manage:entries-import", args=args)),
            (_("抽签"), reverse("draw:draw", args=args)),
        ]
        if is_drawn:
            links += [
                (_("赛程与桌号"), reverse("draw:schedule", args=args)),
                (_("对阵图"), reverse("live:bracket", args=args)),
                (_("各台状态"), reverse("scoring:board", args=args)),
                (_("大屏"), reverse("live:screen", args=args)),
                (_("分组结果PDF"), reverse("documents:draw-pdf", args=args)),
                (_("对阵图PDF"), reverse("documents:bracket-pdf", args=args)),
                (_("记分表PDF"), reverse("documents:scoresheets-pdf", args=args)),
            ]
        rows.append(
            EventRow(
                event=event,
                drawn=is_drawn,
                finished=is_drawn and day_status.event_finished(event, mine),
                unrefereed=unrefereed,
                links=links,
            )
        )
    return rows, matches


def day_steps(
    tournament: Tournament,
    rows: list[EventRow],
    matches: list[Match],
    *,
    waiting_confirmation: int = 0,
) -> list[Step]:
    """The six steps of the day, in order; the first one not done is the current one."""
    slug = tournament.slug
    S = Tournament.Status
    status = tournament.status
    venues = tournament.venues.count()
    units = list(tournament.units.prefetch_related("members"))
    referees = Official.objects.filter(tournament=tournament, role=Official.Role.REFEREE).count()
    steps = []

    notice = Step(
        "notice",
        _("通知"),
        _("草稿（未公开）") if status == S.DRAFT else _("已公开"),
        done=status != S.DRAFT,
        links=[
            (_("比赛信息与通知"), reverse("manage:settings", args=[slug])),
            (_("场地与桌数"), reverse("setup:venues", args=[slug])),
            (_("新增项目"), reverse("manage:event-new", args=[slug])),
            (_("单位与联队"), reverse("manage:units", args=[slug])),
        ],
    )
    if not venues:
        notice.missing.append(_("还没有场地"))
    if not rows:
        notice.missing.append(_("还没有项目"))
    if not units:
        notice.missing.append(_("还没有单位"))
    if status == S.DRAFT and not notice.missing:
        notice.missing.append(_("准备好后开放报名，通知即公开"))
    steps.append(notice)

    idle = units_without_entries(tournament, units)
    registration = Step(
        "registration",
        _("报名"),
        tournament.get_status_display() if status in day_status.BY_HAND else _("已截止"),
        done=status not in (S.DRAFT, S.REGISTRATION_OPEN),
        links=[
            (_("报名情况"), reverse("manage:entries", args=[slug])),
            (_("代单位报名"), reverse("registration:home", args=[slug])),
        ],
    )
    if idle:
        registration.missing.append(
            _("%(n)s个单位还没有报名：%(units)s")
            % {"n": len(idle), "units": listing(u.name for u in idle[:8])}
            + ("……" if len(idle) > 8 else "")
        )
    steps.append(registration)

    undrawn = [r.event for r in rows if not r.drawn]
    draw = Step(
        "draw",
        _("抽签"),
        _("%(drawn)s/%(all)s个项目已抽签") % {"drawn": len(rows) - len(undrawn), "all": len(rows)},
        done=bool(rows) and not undrawn,
        links=[
            (_("%(event)s抽签") % {"event": e.name}, reverse("draw:draw", args=[slug, e.slug]))
            for e in undrawn
        ],
    )
    if undrawn:
        draw.missing.append(_("未抽签：%(events)s") % {"events": listing(e.name for e in undrawn)})
        refusal = day_status.draw_refusal(tournament)
        if refusal:
            draw.missing.append(refusal)
    steps.append(draw)

    drawn_rows = [r for r in rows if r.drawn]
    schedule = Step(
        "schedule",
        _("赛程与裁判"),
        _("已排定") if drawn_rows else _("抽签后安排"),
        links=[
            (_("全天赛程"), reverse("day:plan", args=[slug])),
            *[
                (
                    _("%(event)s赛程与桌号") % {"event": r.event.name},
                    reverse("draw:schedule", args=[slug, r.event.slug]),
                )
                for r in drawn_rows
            ],
            (_("裁判与工作人员"), reverse("manage:officials", args=[slug])),
            (_("裁判登录二维码"), reverse("links:list", args=[slug])),
        ],
    )
    if not referees:
        schedule.missing.append(_("还没有裁判"))
    if drawn_rows:
        # The whole day at once (tournaments.day): clashes, and what has no place or official.
        day = check_day(tournament)
        if day.open_clashes:
            schedule.missing.append(_("%(n)s处赛程冲突") % {"n": len(day.open_clashes)})
        if day.unscheduled:
            schedule.missing.append(_("%(n)s场未排时间或场地") % {"n": len(day.unscheduled)})
        if day.uncovered:
            schedule.missing.append(_("%(n)s场没有裁判") % {"n": len(day.uncovered)})
    schedule.done = bool(drawn_rows) and not schedule.missing
    if drawn_rows and schedule.missing:
        schedule.state = _("待完善")
    steps.append(schedule)

    review = sum(1 for m in matches if m.needs_review)
    play = Step(
        "play",
        _("比赛"),
        {S.RUNNING: _("进行中"), S.FINISHED: _("已结束")}.get(status, _("未开始")),
        done=status == S.FINISHED,
        links=[
            (_("裁判长台"), reverse("scoring:desk", args=[slug])),
            (_("审计记录"), reverse("scoring:audit", args=[slug])),
        ],
    )
    if waiting_confirmation:
        play.missing.append(_("%(n)s张台的结果等待确认") % {"n": waiting_confirmation})
    if review:
        play.missing.append(_("%(n)s场对阵待裁判长复核") % {"n": review})
    steps.append(play)

    finished = [r for r in rows if r.finished]
    results = Step(
        "results",
        _("成绩"),
        _("%(done)s/%(all)s个项目已决出名次") % {"done": len(finished), "all": len(rows)},
        done=bool(rows) and len(finished) == len(rows),
        links=[(_("成绩与奖状PDF"), reverse("documents:results-pdf", args=[slug]))],
    )
    steps.append(results)

    for step in steps:
        if not step.done:
            step.current = True
            break
    return steps
