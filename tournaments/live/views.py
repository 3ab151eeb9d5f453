"""The live pages everyone may open: an event's bracket, a tie, and their JSON documents."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from scoring.selectors import pair_name, show_boards, show_points, tables_of_tie
from tournaments.access import is_chief, is_organiser, public_event
from tournaments.documents.share import share_tags
from tournaments.draw import selectors as draw_selectors
from tournaments.draw.read import bracket_json, load_bracket, match_json
from tournaments.draw.sheet import draw_sheet
from tournaments.live import http as live
from tournaments.live.anonymous import anonymous_page
from tournaments.live.http import POLL_SECONDS, live_response
from tournaments.models import Event, Match


def _bracket_body(request: HttpRequest, event: Event) -> str:
    """The bracket, standings and draw sheet: rendered once per version and language."""

    def render_body():
        bracket = load_bracket(event)
        show_points(event, [m for sv in bracket.stages for rv in sv.rounds for m in rv.matches])
        context = {
            "tournament": event.tournament,
            "event": event,
            "bracket": bracket,
            "sheet": draw_sheet(bracket),
            "poll_seconds": POLL_SECONDS,
        }
        return render_to_string("tournaments/bracket.html#bracket_body", context, request)

    return mark_safe(live.fragment(event, "bracket-body", render_body))


@require_safe
@live_response("bracket", htmx_only=True)
def bracket_page(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    if request.htmx:
        return HttpResponse(_bracket_body(request, public_event(request, slug, event_slug)))

    def page():
        event = public_event(request, slug, event_slug)
        context = {
            "tournament": event.tournament,
            "event": event,
            "body_html": _bracket_body(request, event),
            "poll_seconds": POLL_SECONDS,
            "can_manage": is_organiser(request.user, event.tournament),
            "can_referee": is_chief(request.user, event.tournament),
            "share": share_tags(request, event.tournament, "bracket", event),
        }
        return render(request, "tournaments/bracket.html", context)

    return anonymous_page(request, "bracket", page)


@require_safe
@live_response("bracket-json")
def bracket_json_view(request: HttpRequest, slug: str, event_slug: str) -> JsonResponse:
    event = public_event(request, slug, event_slug)
    bracket = load_bracket(event)
    show_points(event, [m for sv in bracket.stages for rv in sv.rounds for m in rv.matches])
    return JsonResponse(bracket_json(bracket), json_dumps_params={"ensure_ascii": False})


def _public_match(event: Event, match_id: int) -> Match:
    match = get_object_or_404(
        Match.objects.select_related("home", "away", "venue", "round__stage"),
        pk=match_id,
        round__stage__event=event,
        round__stage__draw__undone_at__isnull=True,
    )
    match.under_review = draw_selectors.is_under_review(match)
    return match


@require_safe
@live_response("tie", htmx_only=True, tie_of="match_id")
def match_page(request: HttpRequest, slug: str, event_slug: str, match_id: int) -> HttpResponse:
    """The tie (场): its tables side by side with their state, and the tie score."""
    event = public_event(request, slug, event_slug)
    match = _public_match(event, match_id)
    show_points(event, [match])
    context = {
        "tournament": event.tournament,
        "event": event,
        "match": match,
        "tables": show_boards(tables_of_tie(match), event.scorer(), match),
        "poll_seconds": POLL_SECONDS,
        # After a ruling (作废重赛 lands here) the chief goes back to the desk in one tap.
        "can_desk": not request.htmx and is_chief(request.user, event.tournament),
    }
    template = "tournaments/match.html#tie_body" if request.htmx else "tournaments/match.html"
    return render(request, template, context)


@require_safe
@live_response("match-json")
def match_json_view(
    request: HttpRequest, slug: str, event_slug: str, match_id: int
) -> JsonResponse:
    event = public_event(request, slug, event_slug)
    match = _public_match(event, match_id)
    show_points(event, [match])
    data = match_json(event, match)
    tables = [_table_json(event, t, match) for t in tables_of_tie(match)]
    data.update(
        event=event.slug,
        tournament=event.tournament.slug,
        stage=match.round.stage.label,
        round={"number": match.round.number, "name": match.round.label},
        tables=tables,
    )
    if event.scorer().records("game"):
        # Chess and the ball games: the games in play order (one table per match).
        data["games"] = tables[0]["games"] if tables else []
    return JsonResponse(data, json_dumps_params={"ensure_ascii": False})


def _table_json(event: Event, table, match: Match) -> dict:
    engine = event.scorer()
    events = [
        e.payload for e in sorted(table.events.all(), key=lambda e: e.seq) if e.undone_at is None
    ]
    # The engine's state after the recorded events: a replay, never a stored copy.
    state = engine.replay(events)
    data = {
        "id": table.pk,
        "url": reverse("scoring:table", args=[event.tournament.slug, event.slug, table.pk]),
        "number": table.number,
        "table_number": table.table_number,
        "home": _table_side(table.home_pair, match.home, pair_name),
        "away": _table_side(table.away_pair, match.away, pair_name),
        "ruleset": engine.id,
        "events": events,
        "state": engine.public_state(state),
        "winner": {"A": "home", "B": "away"}.get(table.winner),
        "status": table.status,
    }
    games = engine.games(state)
    if games is not None:
        data["games"] = games
    return data


def _table_side(pair, entry, pair_name) -> dict | None:
    if pair is not None:
        return {"pair_id": pair.pk, "name": pair_name(pair)}
    if entry is not None:
        return {"entry_id": entry.pk, "name": entry.name}
    return None
