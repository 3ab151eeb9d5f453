"""The live bracket (public) and the draw and schedule pages (organisers)."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from guandan_cup.inputs import BIG_INT, SMALL_INT, whole_number
from tournaments.access import get_event, is_chief, is_organiser, organiser_required
from tournaments.draw import services as draws
from tournaments.draw.read import bracket_json, load_bracket, match_json
from tournaments.draw.rules.brackets import DrawError
from tournaments.draw.sheet import draw_sheet
from tournaments.forms import sensible_year
from tournaments.live import http as live
from tournaments.live.http import live_response
from tournaments.models import Draw, Event, Match, Round, Tournament

POLL_SECONDS = 5


def _public_event(request: HttpRequest, slug: str, event_slug: str) -> Event:
    """The event with its tournament in one query; drafts only for staff."""
    event = get_object_or_404(
        Event.objects.select_related("tournament"), tournament__slug=slug, slug=event_slug
    )
    if not event.tournament.is_public and not request.user.is_staff:
        raise Http404("No such tournament")
    return event


def _bracket_body(request: HttpRequest, event: Event) -> str:
    """The bracket, standings and draw sheet: rendered once per version and language."""

    def render_body():
        bracket = load_bracket(event)
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
        return HttpResponse(_bracket_body(request, _public_event(request, slug, event_slug)))

    def page():
        event = _public_event(request, slug, event_slug)
        context = {
            "tournament": event.tournament,
            "event": event,
            "body_html": _bracket_body(request, event),
            "poll_seconds": POLL_SECONDS,
            "can_manage": is_organiser(request.user, event.tournament),
            "can_referee": is_chief(request.user, event.tournament),
        }
        return render(request, "tournaments/bracket.html", context)

    return live.anonymous_page(request, "bracket", page)


@require_safe
@live_response("bracket-json")
def bracket_json_view(request: HttpRequest, slug: str, event_slug: str) -> JsonResponse:
    event = _public_event(request, slug, event_slug)
    return JsonResponse(
        bracket_json(load_bracket(event)), json_dumps_params={"ensure_ascii": False}
    )


def _public_match(event: Event, match_id: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("home", "away", "venue", "round__stage"),
        pk=match_id,
        round__stage__event=event,
        round__stage__draw__undone_at__isnull=True,
    )


def _tables(match: Match) -> list:
    from scoring.models import TableMatch  # scoring builds on tournaments

    return list(
        TableMatch.objects.filter(match=match)
        .select_related(
            "home_pair__first", "home_pair__second", "away_pair__first", "away_pair__second"
        )
        .prefetch_related("events")
        .order_by("number")
    )


@require_safe
@live_response("tie", htmx_only=True)
def match_page(request: HttpRequest, slug: str, event_slug: str, match_id: int) -> HttpResponse:
    """The tie (场): its tables side by side with their state, and the tie score."""
    event = _public_event(request, slug, event_slug)
    match = _public_match(event, match_id)
    context = {
        "tournament": event.tournament,
        "event": event,
        "match": match,
        "tables": _tables(match),
        "poll_seconds": POLL_SECONDS,
    }
    template = "tournaments/match.html#tie_body" if request.htmx else "tournaments/match.html"
    return render(request, template, context)


@require_safe
@live_response("match-json")
def match_json_view(
    request: HttpRequest, slug: str, event_slug: str, match_id: int
) -> JsonResponse:
    event = _public_event(request, slug, event_slug)
    match = _public_match(event, match_id)
    data = match_json(event, match)
    tables = [_table_json(event, t, match) for t in _tables(match)]
    data.update(
        event=event.slug,
        tournament=event.tournament.slug,
        stage=match.round.stage.name,
        round={"number": match.round.number, "name": match.round.name},
        tables=tables,
    )
    if not event.is_guandan:
        # Chess and the ball games: the games in play order (one table per match).
        data["games"] = tables[0]["games"] if tables else []
    return JsonResponse(data, json_dumps_params={"ensure_ascii": False})


def _table_json(event: Event, table, match: Match) -> dict:
    from scoring.services import pair_name

    engine = event.scorer()
    events = [
        e.payload for e in sorted(table.events.all(), key=lambda e: e.seq) if e.undone_at is None
    ]
    # The engine's state after the recorded events: a replay, never a stored copy.
    state = engine.replay(events)
    data = {
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


# --------------------------------------------------------------------------- organiser


def _plan_from_post(post) -> draws.DrawPlan:
    def number(name, default):
        raw = (post.get(name) or "").strip()
        if not raw:
            return default
        try:
            return int(raw)
        except ValueError:
            raise DrawError("invalid_number", _("“%(value)s”不是整数。") % {"value": raw}) from None

    qualifiers = number("qualifiers", None)
    points = (number("win_points", 2), number("draw_points", 1), number("loss_points", 0))
    return draws.DrawPlan(
        format=post.get("format", "knockout"),
        third_place=post.get("third_place") == "on",
        qualifiers=qualifiers or None,
        groups=number("groups", 2),
        advance=number("advance", 2),
        swiss_rounds=number("swiss_rounds", 5),
        points=points,
    )


def _numbers(post, prefix: str) -> dict[int, int]:
    """{entry id: number} from fields named ``<prefix><entry id>``; blanks are skipped."""
    out = {}
    for key, value in post.items():
        if key.startswith(prefix) and value.strip():
            try:
                out[int(key[len(prefix) :])] = int(value)
            except ValueError:
                raise DrawError(
                    "invalid_number", _("“%(value)s”不是整数。") % {"value": value}
                ) from None
    return out


@organiser_required
@require_http_methods(["GET", "POST"])
def draw_page(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    event = get_event(tournament, event_slug)
    entries = draws.active_entries(event)
    current = draws.current_draw(event)
    problems = []
    if request.method == "POST":
        try:
            method = request.POST.get("method", Draw.Method.RANDOM)
            seed_text = (request.POST.get("seed") or "").strip()
            seed = whole_number(seed_text, maximum=BIG_INT)
            if seed_text and seed is None:
                raise DrawError("invalid_seed", _("随机种子必须是非负整数。"))
            draws.draw_event(
                event=event,
                user=request.user,
                plan=_plan_from_post(request.POST),
                method=method,
                seed=seed,
                lots=_numbers(request.POST, "lot-") if method == Draw.Method.PHYSICAL else None,
                seeds=_numbers(request.POST, "seed-"),
            )
        except DrawError as err:
            problems.append(err.message if hasattr(err, "message") else str(err))
        else:
            messages.success(request, _("%(event)s已抽签。") % {"event": event.name})
            return redirect("tournaments-bracket", slug=tournament.slug, event_slug=event.slug)
    return render(
        request,
        "tournaments/manage/draw.html",
        {
            "tournament": tournament,
            "event": event,
            "entries": entries,
            "current": current,
            "history": event.draws.all(),
            "problems": problems,
            "post": request.POST,
        },
        status=422 if problems else 200,
    )


@organiser_required
@require_POST
def undo_draw(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    event = get_event(tournament, event_slug)
    try:
        draws.undo_draw(event=event, user=request.user)
    except DrawError as err:
        messages.error(request, err.message)
    else:
        messages.success(request, _("已撤销抽签（记录保留）。"))
    return redirect("tournaments-draw", slug=tournament.slug, event_slug=event.slug)


@organiser_required
@require_http_methods(["GET", "POST"])
def schedule_page(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    """Each round's start time and each match's venue and first table, editable."""
    event = get_event(tournament, event_slug)
    current = draws.current_draw(event)
    if current is None:
        raise Http404("Not drawn yet")
    rounds = list(
        Round.objects.filter(stage__draw=current)
        .select_related("stage")
        .order_by("stage__order", "number")
    )
    matches = list(
        Match.objects.filter(round__stage__draw=current)
        .select_related("home", "away", "round", "venue")
        .order_by("round__stage__order", "round__number", "group", "index")
    )
    venues = list(tournament.venues.all())
    referees = list(tournament.officials.filter(user__isnull=False).select_related("user"))
    problems = []
    if request.method == "POST":
        if request.POST.get("auto"):
            # A round lasts at most a day: more is a slip that would run the dates off the calendar.
            minutes = whole_number(request.POST.get("minutes", ""), maximum=24 * 60)
            try:
                start = _parse_local(request.POST.get("start", ""))
                if minutes is None or minutes < 10:
                    raise ValueError
                venue = next(
                    (v for v in venues if str(v.pk) == request.POST.get("venue")), event.venue
                )
                draws.auto_schedule(event=event, start=start, round_minutes=minutes, venue=venue)
            except ValueError:
                problems.append(_("请填写第一轮开始时间，每轮时长至少10分钟。"))
            except OverflowError:
                problems.append(_("排出的时间超出了日历范围，请检查第一轮开始时间。"))
            else:
                messages.success(request, _("已按场地桌数自动排定时间和桌号。"))
                return redirect("tournaments-schedule", slug=tournament.slug, event_slug=event.slug)
        else:
            problems = _save_schedule(request.POST, rounds, matches, venues, referees)
            if not problems:
                event.bump_version()
                messages.success(request, _("赛程已保存。"))
                return redirect("tournaments-schedule", slug=tournament.slug, event_slug=event.slug)
    return render(
        request,
        "tournaments/manage/schedule.html",
        {
            "tournament": tournament,
            "event": event,
            "rounds": rounds,
            "matches": matches,
            "venues": venues,
            "problems": problems,
            "default_minutes": _default_minutes(event),
        },
        status=422 if problems else 200,
    )


def _default_minutes(event: Event) -> int:
    rules = event.rules()
    limit = rules.time_limit_minutes if rules and rules.time_limit_minutes else 45
    return limit + 15  # changeover, check-in and the deal played out after time


def _parse_local(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.strip())
    if not sensible_year(value):
        raise ValueError("year out of range")  # 0001-01-01 in Beijing is not storable in UTC
    return timezone.make_aware(value) if timezone.is_naive(value) else value


@transaction.atomic
def _save_schedule(post, rounds, matches, venues, referees) -> list[str]:
    problems = []
    venue_by_id = {str(v.pk): v for v in venues}
    referee_by_id = {str(o.user_id): o.user for o in referees}
    for r in rounds:
        raw = post.get(f"round-{r.pk}", "").strip()
        try:
            r.starts_at = _parse_local(raw) if raw else None
        except ValueError:
            problems.append(
                _("%(round)s的开始时间“%(value)s”无法识别。") % {"round": r.name, "value": raw}
            )
            continue
        r.save(update_fields=["starts_at"])
    for m in matches:
        raw = post.get(f"table-{m.pk}", "").strip()
        first_table = whole_number(raw, maximum=SMALL_INT)
        if raw and not first_table:
            problems.append(
                _("%(match)s的桌号“%(value)s”必须是正整数。") % {"match": str(m), "value": raw}
            )
            continue
        m.first_table = first_table
        m.venue = venue_by_id.get(post.get(f"venue-{m.pk}", ""), m.venue)
        if f"referee-{m.pk}" in post:
            m.referee = referee_by_id.get(post[f"referee-{m.pk}"])
        m.save(update_fields=["first_table", "venue", "referee"])
    if problems:
        transaction.set_rollback(True)
    return problems
