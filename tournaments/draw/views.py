"""The organiser's draw (抽签) and schedule (赛程与桌号) pages."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from guandan_cup.inputs import BIG_INT, whole_number
from scoring.selectors import tables_by_match
from tournaments.access import get_event, organiser_required
from tournaments.draw import forms as draw_forms
from tournaments.draw import make as draw_make
from tournaments.draw import plan as draw_plan
from tournaments.draw import schedule as draw_schedule
from tournaments.draw import selectors as draw_selectors
from tournaments.draw import status as day_status
from tournaments.draw.read import label_beside_third_place
from tournaments.draw.rules import knockout
from tournaments.draw.rules.common import DrawError
from tournaments.models import Draw, Event, Match, Round, Tournament

# What a real event needs: at most this many Swiss rounds, and points of a match up to this.
MAX_SWISS_ROUNDS = 15
MAX_MATCH_POINTS = 10


DEFAULT_PLAN = draw_plan.DrawPlan()


def _plan_from_post(post, *, entries: int) -> draw_plan.DrawPlan:
    """The organiser's choices, each a whole number within what an event of ``entries``
    entries can use; anything else is refused with the field's own message."""

    def number(name, default, low, high, label):
        raw = (post.get(name) or "").strip()
        if not raw:
            return default
        value = whole_number(raw, maximum=BIG_INT)
        if value is None or not low <= value <= high:
            raise DrawError(
                "out_of_range",
                _("%(label)s须是%(low)s到%(high)s之间的整数（填的是“%(value)s”）。")
                % {"label": label, "low": low, "high": high, "value": raw[:20]},
            )
        return value

    most = max(entries, 2)
    fmt = post.get("format", "knockout")
    qualifiers = (post.get("qualifiers") or "").strip()
    qualifiers = (
        None
        if qualifiers in ("", "0")
        else number("qualifiers", None, 2, max(most - 1, 2), _("晋级数（决出K强）"))
    )
    win = number("win_points", 2, 0, MAX_MATCH_POINTS, _("胜场得分"))
    draw = number("draw_points", 1, 0, win, _("平局得分"))
    loss = number("loss_points", 0, 0, draw, _("负场得分"))
    # The page always sends every format's fields with their defaults (2 groups, 5 Swiss
    # rounds); only the chosen format's are checked, so a knockout of four pairs is not
    # refused for a Swiss round count it does not use.
    groups, advance, rounds = DEFAULT_PLAN.groups, DEFAULT_PLAN.advance, DEFAULT_PLAN.swiss_rounds
    if fmt == "groups":
        groups = number("groups", groups, 1, max(most // 2, 1), _("分组数"))
        advance = number("advance", advance, 1, max(most // 2, 1), _("每组出线数"))
    if fmt == "swiss":
        highest = max(min(MAX_SWISS_ROUNDS, most - 1), 1)
        rounds = number("swiss_rounds", rounds, 1, highest, _("积分编排轮数"))
    return draw_plan.DrawPlan(
        format=fmt,
        third_place=post.get("third_place") == "on",
        qualifiers=qualifiers,
        groups=groups,
        advance=advance,
        swiss_rounds=rounds,
        points=(win, draw, loss),
    )


def _numbers(post, prefix: str, *, highest: int, label: str) -> dict[int, int]:
    """{entry id: number} from fields named ``<prefix><entry id>``; blanks are skipped;
    each number a whole number from 1 to ``highest``."""
    out = {}
    for key, value in post.items():
        if key.startswith(prefix) and value.strip():
            entry = whole_number(key[len(prefix) :], maximum=BIG_INT)
            number = whole_number(value, maximum=BIG_INT)
            if entry is None or number is None or not 1 <= number <= highest:
                raise DrawError(
                    "out_of_range",
                    _("%(label)s须是1到%(high)s之间的整数（填的是“%(value)s”）。")
                    % {"label": label, "high": highest, "value": value.strip()[:20]},
                )
            out[entry] = number
    return out


@organiser_required
@require_http_methods(["GET", "POST"])
def draw_page(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    event = get_event(tournament, event_slug)
    entries = draw_selectors.active_entries(event)
    current = draw_selectors.current_draw(event)
    problems = []
    refusal = None if current else day_status.draw_refusal(tournament)
    if request.method == "POST" and refusal:
        problems.append(refusal)  # the draw follows registration: nothing is drawn
    elif request.method == "POST":
        # A physical draw's lots number the bracket's slots (byes included).
        slots = knockout.bracket_size(max(len(entries), 2))
        try:
            method = request.POST.get("method", Draw.Method.RANDOM)
            seed_text = (request.POST.get("seed") or "").strip()
            seed = whole_number(seed_text, maximum=BIG_INT)
            if seed_text and seed is None:
                raise DrawError("invalid_seed", _("随机种子必须是非负整数。"))
            draw_make.draw_event(
                event=event,
                user=request.user,
                plan=_plan_from_post(request.POST, entries=len(entries)),
                method=method,
                seed=seed,
                lots=(
                    _numbers(request.POST, "lot-", highest=slots, label=_("签号"))
                    if method == Draw.Method.PHYSICAL
                    else None
                ),
                seeds=_numbers(
                    request.POST, "seed-", highest=max(len(entries), 1), label=_("种子号")
                ),
            )
        except DrawError as err:
            problems.append(err.message)
        else:
            messages.success(request, _("%(event)s已抽签。") % {"event": event.name})
            return redirect("live:bracket", slug=tournament.slug, event_slug=event.slug)
    return render(
        request,
        "tournaments/manage/draw.html",
        {
            "tournament": tournament,
            "event": event,
            "entries": entries,
            "current": current,
            "plan_summary": draw_plan.DrawPlan.from_dict(current.plan).summary() if current else "",
            "history": event.draws.all(),
            "problems": problems,
            "refusal": refusal,
            "post": request.POST,
        },
        status=422 if problems else 200,
    )


@organiser_required
@require_POST
def undo_draw(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    event = get_event(tournament, event_slug)
    if request.POST.get("confirm") != "1":
        # Undoing a draw throws away its bracket: only when the organiser says so.
        messages.error(request, _("撤销抽签须先勾选“确认撤销本项目的抽签”。"))
        return redirect("draw:draw", slug=tournament.slug, event_slug=event.slug)
    try:
        draw_make.undo_draw(event=event, user=request.user)
    except DrawError as err:
        messages.error(request, err.message)
    else:
        messages.success(request, _("已撤销抽签（记录保留）。"))
    return redirect("draw:draw", slug=tournament.slug, event_slug=event.slug)


@organiser_required
@require_http_methods(["GET", "POST"])
def schedule_page(request: HttpRequest, tournament: Tournament, event_slug: str) -> HttpResponse:
    """Each round's start time and each match's venue and first table, editable."""
    event = get_event(tournament, event_slug)
    current = draw_selectors.current_draw(event)
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
    label_beside_third_place(matches)  # 决赛 and 季军争夺战, not two rows of 待定——待定
    venues = list(tournament.venues.all())
    # Every official, with or without a login yet: the referees (裁判) first, in their order.
    referees = draw_schedule.assignable_officials(tournament)
    problems = []
    if request.method == "POST":
        if request.POST.get("auto"):
            # A round lasts at most a day: more is a slip that would run the dates off the calendar.
            minutes = whole_number(request.POST.get("minutes", ""), maximum=24 * 60)
            try:
                start = draw_schedule.parse_local(request.POST.get("start", ""))
            except ValueError:
                start = None
            if start is None or minutes is None or minutes < 10:
                problems.append(_("请填写第一轮开始时间，每轮时长至少10分钟。"))
            else:
                venue = next(
                    (v for v in venues if str(v.pk) == request.POST.get("venue")), event.venue
                )
                try:
                    draw_schedule.auto_schedule(
                        event=event, start=start, round_minutes=minutes, venue=venue
                    )
                except DrawError as err:
                    problems.append(err.message)
                else:
                    messages.success(request, _("已按场地桌数自动排定时间和桌号。"))
                    return redirect("draw:schedule", slug=tournament.slug, event_slug=event.slug)
        elif request.POST.get("assign"):
            try:
                count = draw_schedule.assign_referees_in_order(matches=matches, referees=referees)
            except DrawError as err:
                messages.error(request, err.message)
                return redirect("draw:schedule", slug=tournament.slug, event_slug=event.slug)
            if count:
                event.bump_version()
                messages.success(
                    request, _("已按顺序为%(count)d场对阵各指派一名裁判。") % {"count": count}
                )
            else:
                messages.error(request, _("没有可指派的裁判：请先在裁判与工作人员中添加裁判。"))
            return redirect("draw:schedule", slug=tournament.slug, event_slug=event.slug)
        else:
            tables = [t for ts in tables_by_match(matches).values() for t in ts]
            edit, problems = draw_forms.read_schedule_form(
                request.POST, rounds=rounds, matches=matches, tables=tables
            )
            if not problems:
                problems = draw_schedule.save_schedule(event=event, edit=edit)
            if not problems:
                messages.success(request, _("赛程已保存。"))
                return redirect("draw:schedule", slug=tournament.slug, event_slug=event.slug)
    # A team tie's tables, each of which may have its own referee.
    if event.entry_kind == Event.EntryKind.TEAM:
        by_match = tables_by_match(matches)
        for m in matches:
            m.table_list = by_match.get(m.pk, [])
    return render(
        request,
        "tournaments/manage/schedule.html",
        {
            "tournament": tournament,
            "event": event,
            "rounds": rounds,
            "matches": matches,
            "venues": venues,
            "referees": referees,
            "problems": problems,
            "default_minutes": _default_minutes(event),
        },
        status=422 if problems else 200,
    )


def _default_minutes(event: Event) -> int:
    rules = event.scorer().rules
    limit = rules.time_limit_minutes if rules and rules.time_limit_minutes else 45
    return limit + 15  # changeover, check-in and the deal played out after time
