"""The units' standings (团体总分) everyone may open: the phone page, its projector slide and standings.json."""

from __future__ import annotations

from django.db.models import Count, Max, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from tournaments.access import get_public_tournament
from tournaments.live.http import not_modified, set_validators
from tournaments.models import Tournament
from tournaments.standings.read import rows_of, standings_json
from tournaments.standings.selectors import standings

SCREEN_ROWS = 10


def _validators(tournament: Tournament, variant: str) -> tuple[str, int]:
    """An ETag that changes with every event's version, and the last change's time."""
    got = tournament.events.aggregate(v=Sum("version"), n=Count("id"), at=Max("changed_at"))
    at = got["at"].timestamp() if got["at"] else tournament.updated_at.timestamp()
    etag = f'"t{tournament.pk}.{got["v"] or 0}.{got["n"]}.{int(at * 1_000_000):x}-{variant}"'
    return etag, int(at)


def _conditional(request, tournament, variant, render_response):
    # The page, its slide and the JSON's reasons are in the reader's language: so is the
    # ETag, or a phone that switched languages would be told its old copy is current.
    etag, last_modified = _validators(tournament, f"{variant}-{request.LANGUAGE_CODE}")
    answer = not_modified(request, etag, last_modified)
    if answer is not None:
        return answer
    return set_validators(render_response(), etag, last_modified)


@require_safe
def standings_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Phone-first, its list polled every 30 s (htmx: the list only); ``?screen=1`` is the
    slide the hall projector loads into its rotation. Both answer 304 while no event changed."""
    tournament = get_public_tournament(request, slug)
    screen = request.GET.get("screen") == "1"

    def page():
        st = standings(tournament)
        rows = rows_of(st)
        context = {"tournament": tournament, "standings": st, "rows": rows}
        if screen:
            context["rows"] = rows[:SCREEN_ROWS]
            return render(request, "tournaments/standings.html#screen_slide", context)
        if request.htmx:
            return render(request, "tournaments/standings.html#standings_body", context)
        return render(request, "tournaments/standings.html", context)

    variant = "screen" if screen else "hx" if request.htmx else "page"
    if request.user.is_authenticated and variant == "page":
        return page()  # the page's header names the user: not shared
    return _conditional(request, tournament, variant, page)


@require_safe
def standings_json_view(request: HttpRequest, slug: str) -> JsonResponse:
    tournament = get_public_tournament(request, slug)
    return _conditional(
        request,
        tournament,
        "json",
        lambda: JsonResponse(
            standings_json(standings(tournament)), json_dumps_params={"ensure_ascii": False}
        ),
    )
