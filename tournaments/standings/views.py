"""The units' standings (团体总分) everyone may open: the phone page, its projector slide and standings.json."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from tournaments.access import get_public_tournament
from tournaments.documents.share import share_tags
from tournaments.live.http import tournament_conditional
from tournaments.standings.read import events_of, rows_of, standings_json
from tournaments.standings.selectors import standings

SCREEN_ROWS = 10


@require_safe
def standings_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Phone-first, its list polled every 30 s (htmx: the list only); ``?screen=1`` is the
    slide the hall projector loads into its rotation. Both answer 304 while no event changed."""
    tournament = get_public_tournament(request, slug)
    screen = request.GET.get("screen") == "1"

    def page():
        st = standings(tournament)
        rows = rows_of(st)
        context = {
            "tournament": tournament,
            "standings": st,
            "rows": rows,
            "events": events_of(st),
        }
        if screen:
            context["rows"] = rows[:SCREEN_ROWS]
            return render(request, "tournaments/standings.html#screen_slide", context)
        if request.htmx:
            return render(request, "tournaments/standings.html#standings_body", context)
        context["share"] = share_tags(request, tournament, "standings")
        return render(request, "tournaments/standings.html", context)

    variant = "screen" if screen else "hx" if request.htmx else "page"
    if request.user.is_authenticated and variant == "page":
        return page()  # the page's header names the user: not shared
    return tournament_conditional(request, tournament, variant, page)


@require_safe
def standings_json_view(request: HttpRequest, slug: str) -> JsonResponse:
    tournament = get_public_tournament(request, slug)
    return tournament_conditional(
        request,
        tournament,
        "json",
        lambda: JsonResponse(
            standings_json(standings(tournament)), json_dumps_params={"ensure_ascii": False}
        ),
    )
