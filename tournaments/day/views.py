"""The day as one plan: the organiser's 全天赛程 page, and the public timeline and its JSON."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_safe

from guandan_cup.inputs import whole_number
from tournaments.access import get_public_tournament, is_organiser, organiser_required
from tournaments.day import selectors, services
from tournaments.day.forms import DaySettings
from tournaments.live.http import POLL_SECONDS
from tournaments.models import Tournament


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
