"""The chief referee's correction page (更正): the table's record as a list, edited with the
same controls as entry — pick the wrong entry and change it, insert one before it, remove
it, or add one at the end; or turn the whole record round (主客双方对调) when it was kept
for the wrong side throughout — with the engine's replay shown before and after, then saved
with a reason. Nothing is written until 保存更正; the draft travels with the page.

A correction is checked against the version the chief was looking at when they began, like
every other write: one made on a stale view is refused and says who changed the table.
"""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from guandan_cup import throttle
from guandan_cup.inputs import INT, whole_number
from scoring import entries
from scoring.engines.common import FORFEIT_REASONS, sides_swapped
from scoring.models import TableMatch
from scoring.selectors import table_heading
from scoring.services import common, confirmation, corrections
from scoring.services.common import TableError
from tournaments.access import check_not_hidden, is_chief

# The largest record a correction may hold: far more than a real match (a Guandan game of
# 60 deals, a rally match point by point), small enough that a page cannot post a flood.
MAX_EVENTS = 600


def _load(slug: str, event_slug: str, table_id: int) -> TableMatch:
    return get_object_or_404(
        TableMatch.objects.with_people(
            "match__round__stage__event__tournament", "match__home", "match__away"
        ),
        pk=table_id,
        match__round__stage__event__tournament__slug=slug,
        match__round__stage__event__slug=event_slug,
        match__round__stage__draw__undone_at__isnull=True,
    )


def _draft(request, table: TableMatch) -> list[dict]:
    """The draft the page posted back, else the table's current record."""
    raw = request.POST.get("events")
    if raw is None:
        return [e.payload for e in common.active_events(table)]
    try:
        draft = json.loads(raw)
    except (ValueError, RecursionError):
        draft = None
    if not isinstance(draft, list) or len(draft) > MAX_EVENTS:
        raise TableError("invalid_draft", _("更正草稿无法读取，请重新开始更正。"))
    return draft


def _outcome(engine, table: TableMatch, payloads: list[dict], names: dict) -> dict:
    """What a record comes to: the score (levels, games or points), the winner and how."""
    state, described = common.replay_table(table, payloads)
    stored = engine.state_dict(state)
    winner = engine.winner(stored)
    home, away = engine.score(stored)
    return {
        "score": f"{home} : {away}",
        "over": engine.match_over(stored),
        "winner": names.get(winner, "") if winner else "",
        "described": described,
    }


def _edited(draft: list[dict], post, engine) -> list[dict]:
    """The draft after one change from the page: ``mode`` replace / insert (before
    ``index``) / append with the control ``entry``'s fields, or delete ``index``."""
    mode = post.get("mode", "")
    index = whole_number(post.get("index", ""), maximum=INT)
    if mode != "append" and (index is None or not 0 <= index < len(draft)):
        raise TableError("invalid_index", _("请选择要更正的那一条记录。"))
    if mode == "delete":
        return draft[:index] + draft[index + 1 :]
    control = entries.CONTROLS.get(post.get("entry", ""))
    if control is None or mode not in ("replace", "insert", "append"):
        raise TableError("invalid_change", _("请选择一项记录内容。"))
    payload = engine.normalise(control(post, engine).payload)
    if mode == "append":
        return [*draft, payload]
    if mode == "insert":
        return [*draft[:index], payload, *draft[index:]]
    return [*draft[:index], payload, *draft[index + 1 :]]


def _locked(cosigner) -> TableError:
    """Too many wrong co-signing passwords for this person from here: refused for the
    cool-off, on this page with the draft kept (their own login is not locked)."""
    return TableError(
        "cosigner_locked",
        _("%(name)s的密码输错次数过多，共同署名已暂时锁定，请%(minutes)s分钟后再试；更正尚未保存。")
        % {"name": common.person_name(cosigner), "minutes": throttle.lockout_minutes()},
    )


def _cosigner(request, table: TableMatch):
    """The second panel member who co-signs the correction, their password checked here
    (each wrong one counted as a failed login, to the login's limit, but locking only the
    co-signing); the service checks that both sit on the panel."""
    tournament = table.match.round.stage.event.tournament
    if not confirmation.is_panel(request.user, tournament):
        return None  # refused by the service, saying why; no password is tried
    chosen = whole_number(request.POST.get("cosigner", ""), maximum=INT)
    cosigner = next(
        (u for u in confirmation.panel_cosigners(tournament, request.user) if u.pk == chosen),
        None,
    )
    if cosigner is None:
        return None  # refused by the service: no co-signer
    password = request.POST.get("cosigner_password", "")
    if not password:
        raise TableError(
            "no_password",
            _("请由%(name)s输入本人的登录密码共同署名。") % {"name": common.person_name(cosigner)},
        )
    # Not authenticate(): django-axes would count a wrong password as a failed login of the
    # co-signer's own name, and the lockout would keep them from logging in here. The
    # co-signing is counted under a name of its own, to the same limit (guandan_cup.throttle).
    if throttle.cosigning_locked(request, cosigner):
        throttle.cosigning_failed(request, cosigner)  # counted, as a login during a lockout is
        raise _locked(cosigner)
    if not cosigner.check_password(password):
        if throttle.cosigning_failed(request, cosigner):
            raise _locked(cosigner)
        raise TableError(
            "wrong_password",
            _("%(name)s的密码不对，未能共同署名；更正尚未保存。")
            % {"name": common.person_name(cosigner)},
        )
    throttle.cosigning_passed(request, cosigner)
    return cosigner


@login_required
@require_http_methods(["GET", "POST"])
def correction_page(
    request: HttpRequest, slug: str, event_slug: str, table_id: int
) -> HttpResponse:
    table = _load(slug, event_slug, table_id)
    event = table.match.round.stage.event
    check_not_hidden(request.user, event.tournament)
    if not is_chief(request.user, event.tournament):
        raise PermissionDenied("Chief referees correct results.")
    engine = event.scorer()
    names = common.side_names(table)
    problem = ""
    # The version the chief began from: carried by the page through every step.
    version = whole_number(request.POST.get("version", ""), maximum=INT)
    if version is None and request.method == "POST":
        # As every table write: a page that sent no readable version is never taken as "no
        # check" (it would save over a change it never saw).
        problem = _("请求缺少有效的版本号，无法核对你看到的是不是最新记录；请刷新页面后重试。")
    if version is None:
        version = table.version
    try:
        draft = _draft(request, table)
    except TableError as err:
        problem, draft = problem or err.message, [e.payload for e in common.active_events(table)]
    action = request.POST.get("action", "")
    editing = None
    if request.method == "POST" and not problem:
        try:
            if action == "change":
                changed = _edited(draft, request.POST, engine)
                _outcome(engine, table, changed, names)  # refused if the record cannot be
                draft = changed
            elif action == "swap":
                # A record kept for the wrong side throughout (a score written the wrong way
                # round): one tap turns every entry round.
                changed = [sides_swapped(e) for e in draft]
                _outcome(engine, table, changed, names)
                draft = changed
            elif action == "pick":
                editing = whole_number(request.POST.get("index", ""), maximum=INT)
            elif action == "save":
                panel = confirmation.needs_panel(table)
                corrections.correct_table(
                    table=table,
                    events=draft,
                    reason=request.POST.get("reason", ""),
                    user=request.user,
                    expected_version=version,
                    cosigner=_cosigner(request, table) if panel else None,
                )
                messages.success(
                    request,
                    _("记录已更正，由两名仲裁组成员署名，立即生效。")
                    if panel
                    else _("记录已更正。"),
                )
                return redirect(
                    "scoring:table", slug=slug, event_slug=event_slug, table_id=table.pk
                )
        except TableError as err:
            problem = err.message
    before = _outcome(engine, table, [e.payload for e in common.active_events(table)], names)
    try:
        after = _outcome(engine, table, draft, names)
    except TableError as err:
        problem, after = problem or err.message, None
    context = {
        "tournament": event.tournament,
        "event": event,
        "table": table,
        "heading": table_heading(table),
        "engine": engine,
        "rules": engine.rules,
        "home_name": names["A"],
        "away_name": names["B"],
        "rows": after["described"] if after else [(p, "") for p in draft],
        "before": before,
        "after": after,
        "changed": after is not None and draft != [e for e, _t in before["described"]],
        "draft_json": json.dumps(draft, ensure_ascii=False),
        "version": version,
        "editing": editing,
        "problem": problem,
        "reason": request.POST.get("reason", ""),
        "way": confirmation.correction_way(table),
        "panel": confirmation.needs_panel(table),
        "on_panel": confirmation.is_panel(request.user, event.tournament),
        "cosigners": confirmation.panel_cosigners(event.tournament, request.user),
        "cosigner": whole_number(request.POST.get("cosigner", ""), maximum=INT),
        "places": entries.PLACES,
        "forfeit_reasons": {code: _(label) for code, label in FORFEIT_REASONS.items()},
    }
    return render(request, "scoring/correction.html", context, status=422 if problem else 200)
