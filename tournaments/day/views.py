"""The day as one plan: the organiser's 全天赛程 page, and the public timeline and its JSON."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods, require_safe

from guandan_cup.inputs import whole_number
from tournaments.access import get_public_tournament, is_chief, is_organiser, organiser_required
from tournaments.day import queue as day_queue
from tournaments.day import selectors, services
from tournaments.day.forms import DaySettings
from tournaments.day.read import ON_DUTY_ROLES
from tournaments.documents.share import share_tags
from tournaments.live.http import POLL_SECONDS
from tournaments.models import HallDuty, Match, Tournament


def _rows(proposal: services.Proposal) -> list[dict]:
    """The proposal as the page lists it: by hall, then time."""
    read, plan = proposal.read, proposal.plan
    names = {o.id: o for o in read.officials}
    from tournaments.models import Official

    people = {o.pk: o.name for o in Official.objects.filter(pk__in=names)}
    rows = []
    for booking in sorted(plan.bookings.values(), key=lambda b: (b.hall, b.start, b.places)):
        rows.append(
            {
                "hall": next(h.name for h in read.halls if h.id == booking.hall),
                "place": services.where_text(read, booking),
                "starts": read.at(booking.start),
                "ends": read.at(booking.end),
                "match": services.match_text(read, booking.match),
                "official": people.get(booking.official, ""),
                "late": booking.match in plan.late,
            }
        )
    return rows


def _add_duty(request: HttpRequest, tournament: Tournament) -> str:
    """The 场地执裁 form: an official, a hall, from and until (on the tournament's day)."""
    from tournaments.day.read import parse_breaks

    official = tournament.officials.filter(
        pk=whole_number(request.POST.get("official", ""), maximum=2**31) or 0
    ).first()
    venue = tournament.venues.filter(
        pk=whole_number(request.POST.get("venue", ""), maximum=2**31) or 0
    ).first()
    if official is None or venue is None:
        return _("请选择裁判和场地。")
    window = f"{request.POST.get('from', '')}-{request.POST.get('until', '')}"
    try:
        ((start, end),) = parse_breaks(window)
    except ValueError:
        return _("请填写执裁的开始和结束时间（如 08:30 和 12:00，结束晚于开始）。")
    day = tournament.starts_on
    try:
        services.add_duty(
            tournament,
            official=official,
            venue=venue,
            starts_at=timezone.make_aware(dt.datetime.combine(day, start)),
            ends_at=timezone.make_aware(dt.datetime.combine(day, end)),
        )
    except services.PlanError as err:
        return err.message
    return ""


def _from_now(tournament: Tournament) -> int:
    return min(max(services.minute_now(tournament), 0), 48 * 60)


@organiser_required
@require_http_methods(["GET", "POST"])
def plan_page(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    """全天赛程: what the organiser states once, the plan it gives, saved in one tap."""
    action = request.POST.get("action", "") if request.method == "POST" else ""
    settings = DaySettings(tournament, request.POST if action == "preview" else None)
    proposal, status, problems = None, 200, []
    if action == "preview":
        if settings.is_valid():
            settings.save()
            proposal = services.propose(tournament)
            settings = DaySettings(tournament)
        else:
            status = 422
    elif action == "add-duty":
        problem = _add_duty(request, tournament)
        if problem:
            problems.append(problem)
            status = 422
        else:
            messages.success(request, _("已安排场地执裁。"))
            return redirect("day:plan", slug=tournament.slug)
    elif action == "remove-duty":
        duty_id = whole_number(request.POST.get("duty", ""), maximum=2**31)
        services.remove_duty(tournament, duty_id or 0)
        messages.success(request, _("已取消这段场地执裁。"))
        return redirect("day:plan", slug=tournament.slug)
    elif action == "replan":
        # The day runs late (or early): the rest of it from now; what has started stays.
        proposal = services.propose(tournament, from_minute=_from_now(tournament))
    elif action == "save":
        from_minute = whole_number(request.POST.get("from_minute", ""), maximum=48 * 60)
        try:
            services.save_plan(
                tournament,
                fingerprint=request.POST.get("fingerprint", ""),
                from_minute=from_minute,
            )
        except services.PlanError as err:
            problems.append(err.message)
            proposal = services.propose(tournament, from_minute=from_minute)
            status = 409
        else:
            messages.success(request, _("全天赛程已保存。"))
            return redirect("day:plan", slug=tournament.slug)
    check = services.check_day(tournament)
    return render(
        request,
        "tournaments/day/plan.html",
        {
            "tournament": tournament,
            "settings": settings,
            "proposal": proposal,
            "rows": _rows(proposal) if proposal else [],
            "replan_from": (
                proposal.read.at(proposal.from_minute)
                if proposal and proposal.from_minute is not None
                else None
            ),
            "ends_at": (
                proposal.read.at(proposal.plan.ends)
                if proposal and proposal.plan.ends is not None
                else None
            ),
            "problems": problems,
            "check": check,
            "duties": HallDuty.objects.filter(official__tournament=tournament).select_related(
                "official", "venue"
            ),
            "duty_officials": tournament.officials.filter(role__in=ON_DUTY_ROLES),
            "venues": tournament.venues.all(),
            "clash_lines": [
                (selectors.KIND_LABELS[c.kind], services.clash_text(check.read, c))
                for c in check.clashes
            ],
        },
        status=status,
    )


@require_safe
def timeline_page(request: HttpRequest, slug: str) -> HttpResponse:
    """赛程: the day by hall and time, refreshing as the bracket pages do."""
    tournament = get_public_tournament(request, slug)
    context = {
        "tournament": tournament,
        "line": selectors.timeline(tournament),
        "poll_seconds": POLL_SECONDS,
        "can_manage": is_organiser(request.user, tournament),
    }
    if request.htmx:
        return render(request, "tournaments/day/timeline.html#timeline_body", context)
    context["share"] = share_tags(request, tournament, "timeline")
    return render(request, "tournaments/day/timeline.html", context)


@require_safe
def timeline_json(request: HttpRequest, slug: str) -> JsonResponse:
    tournament = get_public_tournament(request, slug)
    return JsonResponse(
        selectors.schedule_json(tournament), json_dumps_params={"ensure_ascii": False}
    )


@require_safe
def hall_screen_page(request: HttpRequest, slug: str, venue_id: int) -> HttpResponse:
    """The hall projector: one hall across every event, each court now and next."""
    tournament = get_public_tournament(request, slug)
    hall, courts = selectors.hall_screen(tournament, venue_id)
    if hall is None:
        raise Http404("No such hall on the plan")
    context = {
        "tournament": tournament,
        "hall": hall,
        "courts": courts,
        "poll_seconds": POLL_SECONDS,
    }
    if request.htmx:
        return render(request, "tournaments/day/hall_screen.html#hall_body", context)
    return render(request, "tournaments/day/hall_screen.html", context)


_QUEUE_REASONS = {
    "held": gettext_lazy("暂缓"),
    "entrants": gettext_lazy("对阵未定"),
    "feeders": gettext_lazy("等待前一场结果"),
    "resting": gettext_lazy("选手休息中"),
}


@login_required
@require_http_methods(["GET", "POST"])
def queue_page(request: HttpRequest, slug: str, venue_id: int) -> HttpResponse:
    """叫号: the chief referee's view of a queue hall — what is called to which court, the
    queue with why a match is not ready yet, and their hands on it (call now, hold, first)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_chief(request.user, tournament):
        raise PermissionDenied("Chief referees call the queue.")
    venue = get_object_or_404(tournament.venues, pk=venue_id)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action == "call":
            called = day_queue.call_free_courts(venue)
            messages.success(request, _("已叫号%(n)d场。") % {"n": len(called)})
        elif action in ("hold", "release", "front"):
            match_id = whole_number(request.POST.get("match", ""), maximum=2**31)
            match = get_object_or_404(
                Match.objects.select_related("round__stage__event"), pk=match_id or 0, venue=venue
            )
            if action == "front":
                day_queue.move_to_front(match)
            else:
                day_queue.hold(match, held=action == "hold")
        return redirect("day:queue", slug=slug, venue_id=venue.pk)
    now = timezone.now()
    queue = day_queue.queue_of(venue)
    for m in queue:
        reason = day_queue.not_ready_because(m, now)
        m.queue_reason = _QUEUE_REASONS.get(reason, "")
    called = list(
        Match.objects.filter(venue=venue, called_at__isnull=False)
        .exclude(status__in=[Match.Status.FINISHED, Match.Status.WALKOVER, Match.Status.BYE])
        .select_related("round__stage__event", "home", "away")
        .order_by("first_table")
    )
    return render(
        request,
        "tournaments/day/queue.html",
        {"tournament": tournament, "venue": venue, "queue": queue, "called": called},
    )
