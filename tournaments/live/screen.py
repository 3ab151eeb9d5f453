"""The hall projector (大屏): one event full screen, in type large enough to read from ten
metres, cycling by itself through the round in play (its ties and their tables), the end
of the bracket (or the standings) and the latest results. Nobody touches it: it polls for
changes like the phones do and is answered 304 while nothing changed."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from scoring.selectors import show_boards, show_points, tables_by_match
from tournaments.access import public_event
from tournaments.draw.read import current_round, group_places, load_bracket
from tournaments.live import http as live
from tournaments.live.anonymous import anonymous_page
from tournaments.live.http import POLL_SECONDS, live_response
from tournaments.models import Event, Match, Stage

TIES_PER_SLIDE = 6  # two lines each: six fill a 16:9 screen at this type size
RESULTS_SHOWN = 6
GROUPS_PER_SLIDE = 2
STANDINGS_SHOWN = 10
PODIUM = 4  # places 1–4 on the first placings slide, in large type
PLACES_PER_SLIDE = 16  # entries on each further placings slide
# The tree slide starts at the first round of the last knockout with at most this many ties.
TREE_WIDTH = 4
SLIDE_SECONDS = 12


def _chunks(items: list, size: int) -> list[list]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def screen_slides(event: Event) -> tuple[list[dict], object]:
    """The slides in the order shown, and the round in play. A fixed number of queries:
    the bracket's, and one for the tables of the round in play."""
    bracket = load_bracket(event)
    show_points(event, [m for sv in bracket.stages for rv in sv.rounds for m in rv.matches])
    now = current_round(bracket)
    slides: list[dict] = []
    if now is not None:
        engine = event.scorer()
        playable = [m for m in now.matches if m.status != Match.Status.BYE]
        tables = tables_by_match(playable)
        for m in playable:
            m.table_list = show_boards(tables.get(m.pk, []), engine, m)
            if m.is_decided or hasattr(m, "home_shown"):
                # Decided, or played at one table: its games (chess: points) as shown.
                m.live_home = getattr(m, "home_shown", m.home_score)
                m.live_away = getattr(m, "away_shown", m.away_score)
            else:
                # A team tie as it stands: the tables confirmed so far.
                m.live_home, m.live_away = engine.live_score(
                    (t.state, t.status == "confirmed") for t in m.table_list
                )
            m.tables_started = any(engine.started(t.state) for t in m.table_list)
        pages = _chunks(playable, TIES_PER_SLIDE)
        for number, page in enumerate(pages, start=1):
            slides.append(
                {
                    "kind": "ties",
                    "levels": "deal" in engine.recorded,  # the chips show levels, not scores
                    "round": now.round,
                    # The final's round holds the 季军争夺战 too: both are named.
                    "title": " · ".join(dict.fromkeys(m.round_label for m in page)),
                    "matches": page,
                    "page": number,
                    "pages": len(pages),
                }
            )
    for sv in bracket.stages:
        if now is not None and sv.stage.pk != now.round.stage_id:
            continue
        for number, groups in enumerate(_chunks(sv.groups, GROUPS_PER_SLIDE), start=1):
            slides.append({"kind": "groups", "stage": sv.stage, "groups": groups, "page": number})
        if sv.swiss:
            slides.append({"kind": "swiss", "stage": sv.stage, "rows": sv.swiss[:STANDINGS_SHOWN]})
    knockouts = [sv for sv in bracket.stages if sv.stage.format == Stage.Format.KNOCKOUT]
    if knockouts:
        rounds = knockouts[-1].rounds
        start = next(
            (
                i
                for i, rv in enumerate(rounds)
                if len([m for m in rv.matches if not m.is_third_place]) <= TREE_WIDTH
            ),
            0,
        )
        slides.append({"kind": "tree", "stage": knockouts[-1].stage, "rounds": rounds[start:]})
    decided = sorted(
        (
            m
            for sv in bracket.stages
            for rv in sv.rounds
            for m in rv.matches
            if m.status in (Match.Status.FINISHED, Match.Status.WALKOVER) and m.finished_at
        ),
        key=lambda m: m.finished_at,
        reverse=True,
    )[:RESULTS_SHOWN]
    if decided:
        slides.append({"kind": "results", "matches": decided})
    if bracket.placing_rows:
        # The podium on a slide of its own; every further place the event gives (5th, 9th …)
        # after it, a few entries a slide, those sharing a place on one line.
        rows = bracket.placing_rows
        podium = [row for row in rows if row[0] <= PODIUM]
        pages = [podium] if podium else []
        pages += _chunks([row for row in rows if row[0] > PODIUM], PLACES_PER_SLIDE)
        for number, page in enumerate(pages, start=1):
            slides.append(
                {
                    "kind": "placings",
                    "placings": group_places(page),
                    "page": number,
                    "pages": len(pages),
                }
            )
    if slides:
        # The units' standings across every event: loaded (and refreshed) by the slide itself
        # from the standings page, which changes with any event, not with this one only.
        slides.append({"kind": "units"})
    return slides, now


def _screen_body(request: HttpRequest, event: Event) -> str:
    def render_body():
        slides, now = screen_slides(event)
        context = {
            "tournament": event.tournament,
            "event": event,
            "slides": slides,
            "now": now,
            "poll_seconds": POLL_SECONDS,
        }
        return render_to_string("tournaments/screen.html#screen_body", context, request)

    return mark_safe(live.fragment(event, "screen-body", render_body))


@require_safe
@live_response("screen", htmx_only=True)
def screen_page(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    if request.htmx:
        return HttpResponse(_screen_body(request, public_event(request, slug, event_slug)))

    def page():
        event = public_event(request, slug, event_slug)
        context = {
            "tournament": event.tournament,
            "event": event,
            "body_html": _screen_body(request, event),
            "slide_seconds": SLIDE_SECONDS,
        }
        return render(request, "tournaments/screen.html", context)

    return anonymous_page(request, "screen", page)
