"""The chief referee's pages (裁判长): the desk, the board of every table of a round, the
whistle, check-in, and the audit trail."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from guandan_cup.inputs import INT, whole_number
from scoring.models import AuditEntry, CheckIn, TableMatch
from scoring.selectors import (
    TABLE_STATE_LABELS,
    TABLE_STATES,
    missing_pairs,
    name_people,
    open_calls,
    pair_name,
    refereed_by,
    rounds_in_play,
    ruled_tie_name,
    show_boards,
    table_heading,
    table_state,
    tables_by_match,
)
from scoring.services import common
from scoring.services.common import TableError
from scoring.services.desk import (
    call_time,
    check_in,
    forfeit_missing,
    keep_with_ruling,
    minutes_left,
    void_and_replay,
)
from tournaments.access import can_enter_table, can_issue_login_links, get_event, is_chief
from tournaments.draw import selectors as draw_selectors
from tournaments.draw.read import current_round, load_bracket, round_by_id
from tournaments.live import http as live
from tournaments.live import stamps
from tournaments.live.http import POLL_SECONDS
from tournaments.models import Match, Round, Tournament


def _chief_tournament(request, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not is_chief(request.user, tournament):
        raise PermissionDenied("Chief referees only.")
    return tournament


@login_required
@require_safe
def desk(request: HttpRequest, slug: str) -> HttpResponse:
    """裁判长: tables waiting for confirmation (oldest first), flagged matches, rounds in play."""
    tournament = _chief_tournament(request, slug)
    waiting = list(
        TableMatch.objects.filter(
            match__round__stage__event__tournament=tournament,
            status=TableMatch.Status.SUBMITTED,
            match__round__stage__draw__undone_at__isnull=True,
        )
        .with_people("match__round__stage__event", "match__home", "match__away")
        .order_by("submitted_at")
    )
    for table in waiting:
        table.names = common.side_names(table)
        table.heading = table_heading(table)
    name_people(tournament, waiting, "submitted_by")
    calls = open_calls(tournament)
    for call in calls:
        call.table.names = common.side_names(call.table)
    flagged = list(
        Match.objects.filter(
            round__stage__event__tournament=tournament,
            needs_review=True,
            round__stage__draw__undone_at__isnull=True,
        ).select_related("home", "away", "round__stage__event")
    )
    if flagged:
        # What rests on each flagged match: the matches played since with its entries.
        stage_matches = Match.objects.filter(
            round__stage__in={m.round.stage_id for m in flagged}
        ).select_related("home", "away", "round")
        by_id = {m.pk: m for m in stage_matches}
        for m in flagged:
            m.dependents = draw_selectors.depending_on(m, by_id)
    rounds = rounds_in_play(tournament)
    early = whole_number(request.GET.get("early", ""), maximum=INT)
    for r in rounds:
        # The whistle asked again before the limit: this round's form says so.
        r.minutes_left = minutes_left(r) if r.pk == early else None
    return render(
        request,
        "scoring/desk.html",
        {
            "tournament": tournament,
            "waiting": waiting,
            "calls": calls,
            "players_entry": tournament.result_entry != Tournament.ResultEntry.REFEREES,
            "flagged": flagged,
            "rounds": rounds,
            "pair_name": pair_name,
            "can_issue_links": can_issue_login_links(request.user, tournament),
        },
    )


# The board's order: results waiting for confirmation first (the oldest first), then tables
# in play (the earliest started first), tables not started, confirmed ones, and last the
# tables stopped because their tie was decided on the others.
BOARD_ORDER = {state: n for n, state in enumerate(TABLE_STATES)}


def _board_key(table: TableMatch):
    state = table.board_state
    if state == "submitted":
        return (0, table.submitted_at.timestamp() if table.submitted_at else 0, table.pk)
    if state == "playing":
        return (1, table.started_at.timestamp() if table.started_at else 0, table.pk)
    return (BOARD_ORDER[state], table.table_number or 0, table.match.index, table.number)


@login_required
@require_safe
def board(request: HttpRequest, slug: str, event_slug: str) -> HttpResponse:
    """各台状态: every table of a round for the chief referee — not started, in play (levels,
    打几), submitted, confirmed — the oldest unconfirmed result first. Polls like the bracket
    and is answered 304 while the event has not changed."""
    tournament = _chief_tournament(request, slug)
    event = get_event(tournament, event_slug)
    stamp = stamps.stamp_of(event)
    chosen = request.GET.get("round", "")
    # Only the polled fragment carries validators: a full page has its own CSP nonce.
    etag = live.etag_for(stamp, f"board-{chosen}-hx-{request.LANGUAGE_CODE}")
    if request.htmx:
        answer = live.not_modified(request, etag, stamp.last_modified)
        if answer is not None:
            return answer
    bracket = load_bracket(event)
    rounds = [rv for sv in bracket.stages for rv in sv.rounds]
    shown = round_by_id(bracket, int(chosen)) if chosen.isdigit() else None
    shown = shown or current_round(bracket)

    def render_body():
        engine = event.scorer()
        tables = []
        if shown is not None:
            by_match = tables_by_match(shown.matches)
            for m in shown.matches:
                for t in by_match.get(m.pk, []):
                    t.match = m
                    t.board_state = table_state(t, engine)
                    t.board_label = TABLE_STATE_LABELS[t.board_state]
                    show_boards([t], engine, m)
                    tables.append(t)
        tables.sort(key=_board_key)
        counts = {key: 0 for key in BOARD_ORDER}
        for t in tables:
            counts[t.board_state] += 1
        return render_to_string(
            "scoring/board.html#board_body",
            {
                "tournament": tournament,
                "event": event,
                "shown": shown,
                "heading": engine.heading,
                "tables": tables,
                "counts": counts,
                "chosen": chosen,
                "poll_seconds": POLL_SECONDS,
            },
            request,
        )

    body = mark_safe(
        live.fragment(event, f"board-{shown.round.pk if shown else 0}-{chosen}", render_body)
    )
    if request.htmx:
        return live.set_validators(HttpResponse(body), etag, stamp.last_modified)
    return render(
        request,
        "scoring/board.html",
        {
            "tournament": tournament,
            "event": event,
            "rounds": rounds,
            "shown": shown,
            "body_html": body,
        },
    )


@login_required
@require_POST
def whistle(request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
    """鸣哨, after a question: the box ticked (the desk's form asks for it); before the rule
    set's limit, once more, saying how many minutes are left."""
    tournament = _chief_tournament(request, slug)
    rnd = get_object_or_404(
        Round.objects.select_related("stage__event"),
        pk=round_id,
        stage__event__tournament=tournament,
    )
    if request.POST.get("confirm") != "1":
        messages.error(request, _("鸣哨不可撤回：请先勾选“确认为本轮鸣哨”。"))
        return redirect("scoring:desk", slug=slug)
    left = minutes_left(rnd)
    if left is not None and left > 0 and request.POST.get("early") != "1":
        messages.warning(
            request,
            _("%(round)s距规定的比赛时间还有%(n)s分钟。确定要提前鸣哨吗？")
            % {"round": f"{rnd.stage.event.name} · {rnd.label}", "n": left},
        )
        return redirect(f"{reverse('scoring:desk', args=[slug])}?early={rnd.pk}#round-{rnd.pk}")
    called = call_time(round=rnd, user=request.user)
    messages.success(request, _("已鸣哨：%(n)s台时间到。") % {"n": len(called)})
    return redirect("scoring:desk", slug=slug)


@login_required
@require_POST
def ruling(request: HttpRequest, slug: str, match_id: int) -> HttpResponse:
    """维持原结果 for a match flagged after a correction, with the ruling's reason."""
    tournament = _chief_tournament(request, slug)
    match = get_object_or_404(
        Match, pk=match_id, round__stage__event__tournament=tournament, needs_review=True
    )
    try:
        keep_with_ruling(match=match, reason=request.POST.get("reason", ""), user=request.user)
    except TableError as err:
        messages.error(request, err.message)
    else:
        messages.success(request, _("已维持原结果，裁决已记录。"))
    return redirect("scoring:desk", slug=slug)


@login_required
@require_POST
def replay(request: HttpRequest, slug: str, match_id: int) -> HttpResponse:
    """作废重赛 for a match flagged after a correction: voided (its record kept) and played
    again by the right entries, with the ruling's reason."""
    tournament = _chief_tournament(request, slug)
    match = get_object_or_404(
        Match, pk=match_id, round__stage__event__tournament=tournament, needs_review=True
    )
    if request.POST.get("confirm") != "1":
        messages.error(request, _("作废重赛不可撤回：请先勾选“确认作废本场记录并重赛”。"))
        return redirect("scoring:desk", slug=slug)
    try:
        match = void_and_replay(
            match=match, reason=request.POST.get("reason", ""), user=request.user
        )
    except TableError as err:
        messages.error(request, err.message)
        return redirect("scoring:desk", slug=slug)
    messages.success(
        request, _("已作废原记录，本场改由%(tie)s重赛；裁决已记录。") % {"tie": str(match)}
    )
    return redirect("live:match", slug, match.round.stage.event.slug, match.pk)


@login_required
def checkin_page(request: HttpRequest, slug: str, round_id: int) -> HttpResponse:
    """签到: referees mark their tables' pairs present; chiefs see every table and, ten
    minutes after the start, record the forfeit of whoever is still missing."""
    tournament = get_object_or_404(Tournament, slug=slug)
    rnd = get_object_or_404(
        Round.objects.select_related("stage__event"),
        pk=round_id,
        stage__event__tournament=tournament,
    )
    chief = is_chief(request.user, tournament)
    mine = TableMatch.objects.filter(match__round=rnd)
    if not chief:
        mine = mine.filter(refereed_by(request.user))
        if not mine.exists():
            raise PermissionDenied("Not a referee of this round.")
    if request.method == "POST":
        if request.POST.get("forfeit_missing"):
            if not chief:
                raise PermissionDenied("Chief referees record forfeits.")
            if request.POST.get("confirm") != "1":
                messages.error(request, _("判负不可撤回：请先勾选“确认对未签到者判负”。"))
                return redirect("scoring:checkin", slug=slug, round_id=rnd.pk)
            count = forfeit_missing(round=rnd, user=request.user)
            messages.success(request, _("已判%(n)s对迟到判负。") % {"n": count})
        else:
            table_id = whole_number(request.POST.get("table", ""), maximum=INT)
            table = get_object_or_404(TableMatch, pk=table_id or 0, match__round=rnd)
            if not can_enter_table(request.user, table, chief=chief):
                raise PermissionDenied("Not your table.")
            pair = table.home_pair if request.POST.get("team") == "A" else table.away_pair
            if pair is not None:
                check_in(match=table.match, pair=pair, user=request.user)
        return redirect("scoring:checkin", slug=slug, round_id=rnd.pk)
    missing = [item for item in missing_pairs(rnd) if chief or item[0] in set(mine)]
    late = rnd.starts_at is not None and timezone.now() >= rnd.starts_at + timezone.timedelta(
        minutes=10
    )
    tables = list(mine.with_people("match"))
    present = set(CheckIn.objects.filter(match__round=rnd).values_list("match_id", "pair_id"))
    for t in tables:
        # Shown on each pair's button, so a referee sees at once who is already marked.
        t.home_present = (t.match_id, t.home_pair_id) in present
        t.away_present = (t.match_id, t.away_pair_id) in present
    return render(
        request,
        "scoring/checkin.html",
        {
            "tournament": tournament,
            "round": rnd,
            "tables": tables,
            "missing": missing,
            "late": late,
            "chief": chief,
            "pair_name": pair_name,
        },
    )


@login_required
@require_safe
def audit_page(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _chief_tournament(request, slug)
    entries = list(
        AuditEntry.objects.filter(tournament=tournament).select_related(
            "table", "match__round", "match__home", "match__away"
        )[:500]
    )
    name_people(tournament, entries, "actor")
    for entry in entries:
        if entry.table_id:
            # The table's tie is the entry's own (loaded once, with its entries).
            entry.table.match = entry.match if entry.match_id == entry.table.match_id else None
            entry.subject = table_heading(entry.table) if entry.table.match else ""
        elif entry.match_id:
            entry.subject = f"{entry.match.round_label} · {ruled_tie_name(entry)}"
        else:
            entry.subject = ""
    return render(request, "scoring/audit.html", {"tournament": tournament, "entries": entries})
