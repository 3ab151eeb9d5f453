"""The read behind a table's page (the referee's entry page, the players' and spectators'
view): what it shows, gathered once so the referee views stay thin. Above the services and
selectors it reads (who may enter and confirm is theirs to say)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from guandan_cup.inputs import INT, whole_number
from scoring.models import TableMatch
from scoring.selectors import deadline, name_people
from scoring.services import common, confirmation, players, reports
from scoring.services.common import TableError
from tournaments.access import can_enter_table, is_chief
from tournaments.models import Entry, Pair, Tournament


def table_page_data(table: TableMatch, user, *, chief: bool | None = None) -> dict:
    """What a table's page shows (the referee's entry page, the players' and spectators'
    view): the board, the record in words, who may enter and confirm, the reports, the audit
    for the chief referee. ``table`` comes with its match, event and pairs loaded."""
    event = table.match.round.stage.event
    engine = event.scorer()
    if chief is None:
        chief = is_chief(user, event.tournament)
    _state, described = common.replay_table(table)
    names = common.side_names(table)
    filed = list(table.reports.all())
    audit = list(table.audit.all()[:50]) if chief else []
    # People by the names they are known by (钱立, not a login name): one or two queries,
    # only when the page shows someone.
    if table.submitted_by_id or table.confirmed_by_id or audit:
        name_people(event.tournament, [table], "submitted_by", "confirmed_by")
        name_people(event.tournament, audit, "actor")
    opponents = confirmation.opponents_may_confirm(user, table)
    calls = (
        list(confirmation.open_calls(table)) if table.status != TableMatch.Status.CONFIRMED else []
    )
    return {
        "calls": calls,
        "entry_words": players.entry_words(table),
        "players_entry": event.tournament.result_entry != Tournament.ResultEntry.REFEREES,
        "players": None,
        "tournament": event.tournament,
        "event": event,
        "table": table,
        "rules": engine.rules,
        "engine": engine,
        "board": engine.board(table.state, names),
        "title": engine.table_title(table.number, table.table_number),
        "history": list(reversed(described)),
        "home_name": names["A"],
        "away_name": names["B"],
        "can_enter": can_enter_table(user, table, chief=chief),
        "may_confirm": confirmation.may_confirm(user, table),
        "opponents_confirm": opponents,
        "who_confirms": confirmation.who_may_confirm(table),
        "opponents_name": names.get(opponents, ""),
        "chief": chief,
        "deadline": deadline(table, engine),
        # The referee's 开始, where the time counts from it and the table has not begun.
        "may_start": engine.time_from == "start"
        and bool(engine.time_limit_minutes)
        and table.start_called_at is None
        and table.started_at is None
        and table.status == TableMatch.Status.OPEN,
        "reports": filed,
        "proposals": [
            t
            for t in ("A", "B")
            if engine.records("penalty")
            and sum(1 for r in filed if r.team == t and r.upheld and r.penalty_id is None)
            >= reports.UPHELD_REPORTS_FOR_A_DEDUCTION
        ],
        "audit": audit,
    }


def load_table(manager, **filters) -> TableMatch:
    """The table of a current draw matching ``filters``, with its match, event, pairs and
    their players, and the match's entries (404 if none)."""
    table = get_object_or_404(
        manager.select_related("match__round__stage__event__tournament"),
        match__round__stage__draw__undone_at__isnull=True,
        **filters,
    )
    # The two pairs with their players and teams: one query with four joins is cheaper to
    # plan than one fourteen-table join.
    ids = [pk for pk in (table.home_pair_id, table.away_pair_id) if pk]
    pairs = {
        p.pk: p
        for p in Pair.objects.filter(pk__in=ids).select_related("first", "second", "entry__unit")
    }
    table.home_pair = pairs.get(table.home_pair_id)
    table.away_pair = pairs.get(table.away_pair_id)
    match = table.match
    for side, pair in (("home", table.home_pair), ("away", table.away_pair)):
        if pair is not None and pair.entry_id == getattr(match, f"{side}_id"):
            setattr(match, side, pair.entry)
    # A chess or rally match has no pairs: its two entries (players) with their units.
    missing = {
        getattr(match, f"{side}_id"): side
        for side in ("home", "away")
        if getattr(match, f"{side}_id") and not match._meta.get_field(side).is_cached(match)
    }
    if missing:
        for entry in Entry.objects.filter(pk__in=missing).select_related("unit"):
            setattr(match, missing[entry.pk], entry)
    return table


# A table's own columns: what a write changes. Its match, event and pairs stay loaded.
TABLE_COLUMNS = [
    f.name
    for f in TableMatch._meta.concrete_fields
    if f.name not in ("id", "match", "home_pair", "away_pair", "number")
]


# The actions a table's page posts to, by the name the templates use ({{ urls.deal }}):
# those the players' link has too (scoring.views.players) and the officials' own.
ACTIONS = ("table", "deal", "game", "point", "first_server", "time_up", "undo", "submit")
STAFF_ACTIONS = (
    "penalty",
    "forfeit",
    "report",
    "confirm",
    "resolve_call",
    "reopen",
    "lock",
    "start",
)


def action_urls(prefix: str, args: list, names) -> dict[str, str]:
    return {name: reverse(prefix + name.replace("_", "-"), args=args) for name in names}


# The fields a page's form sends that are the page's own, not what a person typed or chose.
PAGE_FIELDS = ("csrfmiddlewaretoken", "key", "version", "back")
KEPT_LENGTH = 300  # longer than any field of the page takes (maxlength 200)


def kept_values(request) -> dict[str, dict[str, str]]:
    """What the refused form held, by the action it was sent to (``{"penalty": {"reason":
    …}}``), for the page to show it again as it was typed: a refusal empties no field."""
    action = request.resolver_match.url_name.removeprefix("play-").replace("-", "_")
    values = {
        name: request.POST.get(name, "")[:KEPT_LENGTH]
        for name in request.POST
        if name not in PAGE_FIELDS
    }
    return {action: values}


def answer(
    request, table: TableMatch, write, context, page_url: str, *, again_here: bool = True
) -> HttpResponse:
    """Make the ``write`` (it returns the flash message or raises TableError) and answer
    it: the table's panel again for htmx, with the message or the problem (422), else a
    redirect to the page (``page_url``) with the message. A refused plain post (no
    JavaScript) is answered with the whole page and the problem (422) unless it came from
    another page (``again_here``): either way the refused form shows what was typed. The
    referees' actions and the players' link answer alike."""
    problem, flash, code = "", "", ""
    try:
        flash = write() or ""
    except TableError as err:
        problem, code = err.message, err.code
    table.refresh_from_db(fields=TABLE_COLUMNS)  # as the write left it
    words = {"flash": flash, "problem": problem}
    if problem:
        words["kept"] = kept_values(request)
    if not request.htmx:
        if problem and again_here:
            return render(request, "scoring/table.html", context(**words), status=422)
        if problem:
            messages.error(request, problem)
        elif flash:
            messages.success(request, flash)
        return redirect(page_url)
    response = render(
        request,
        "scoring/table.html#table_panel",
        context(**words),
        status=422 if problem else 200,
    )
    if code:
        # The page's tap queue (static/js/table.js) stops on a change made elsewhere
        # ("stale") and drops a tap refused for what it says.
        response["X-Table-Error"] = code
    return response


def page_version(request) -> int:
    """The table version the page showed. Every write from a page sends it; a missing or
    unreadable one is refused, never taken as "no check" (a client that left it out would
    write over a change it never saw)."""
    version = whole_number(request.POST.get("version", ""), maximum=INT)
    if version is None:
        raise TableError(
            "no_version",
            _("请求缺少有效的版本号，无法核对你看到的是不是最新记录；请刷新页面后重试。"),
        )
    return version
