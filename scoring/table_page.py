"""The read behind a table's page (the referee's entry page, the players' and spectators'
view): what it shows, gathered once so the referee views stay thin, and the answer to a
write made on it — from what the write left, a deal's in part. Above the services and
selectors it reads (who may enter and confirm is theirs to say)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from django.contrib import messages
from django.db import connection
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from guandan_cup.inputs import INT, whole_number
from guandan_cup.prepared import Prepared
from scoring.models import TableMatch
from scoring.selectors import deadline, name_people, with_page_counts, with_record, with_roles
from scoring.services import common, confirmation, players, reports
from scoring.services.common import CONNECTION_LOST, TableError
from tournaments.access import can_enter_table, is_chief
from tournaments.models import Entry, Pair, Tournament

logger = logging.getLogger(__name__)


def record_of(table: TableMatch) -> common.Replay:
    """The table's record replayed: as the write that answers with the page replayed it
    (``table.replay``), else read and replayed now."""
    replay = getattr(table, "replay", None)
    if replay is None:
        replay = common.Replay(table, [e.payload for e in common.active_events(table)])
    return replay


def table_page_data(
    table: TableMatch, user, *, chief: bool | None = None, can_enter: bool | None = None
) -> dict:
    """What a table's page shows (the referee's entry page, the players' and spectators'
    view): the board, the record in words, who may enter and confirm, the reports, the audit
    for the chief referee. ``table`` comes with its match, event and pairs loaded (and, after
    a write, its record as the write replayed it); ``chief`` and ``can_enter`` when the
    caller knows them already."""
    event = table.match.round.stage.event
    engine = event.scorer()
    if chief is None:
        chief = is_chief(user, event.tournament)
    record = record_of(table)
    described = record.described()
    names = record.names
    counted = all(name in table.__dict__ for name in COUNTS)
    # Only the chief's panel lists the reports; the others show how many (read with the
    # table after a deal: with_page_counts).
    filed = list(table.reports.all()) if chief or not counted else []
    audit = list(table.audit.all()[:50]) if chief else []
    # People by the names they are known by (钱立, not a login name): one or two queries,
    # only when the page shows someone.
    if table.submitted_by_id or table.confirmed_by_id or audit:
        name_people(event.tournament, [table], "submitted_by", "confirmed_by")
        name_people(event.tournament, audit, "actor")
    opponents = confirmation.opponents_may_confirm(user, table)
    calls = (
        list(confirmation.open_calls(table))
        if table.status != TableMatch.Status.CONFIRMED and not (counted and not table.calls_open)
        else []
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
        "can_enter": can_enter_table(user, table, chief=chief) if can_enter is None else can_enter,
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
        "reports_filed": table.reports_filed if counted and not chief else len(filed),
        "proposals": [
            t
            for t in ("A", "B")
            if engine.records("penalty")
            and sum(1 for r in filed if r.team == t and r.upheld and r.penalty_id is None)
            >= reports.UPHELD_REPORTS_FOR_A_DEDUCTION
        ],
        "audit": audit,
    }


def load_table(manager, *, user=None, counts: bool = False, **filters) -> TableMatch:
    """The table of a current draw matching ``filters``, with its match, event, pairs and
    their players, and the match's entries (404 if none); with ``user``, what they may do
    at it (``with_roles``), and with ``counts`` — for a write — what its page shows beside
    the record (``with_page_counts``) and the record itself (``with_record``), in the same
    query. A referee's every tap reads it: each shape is compiled once
    (``guandan_cup.prepared``)."""
    signed_in = user is not None and user.is_authenticated
    shape = (manager.model, manager.name, tuple(sorted(filters)), signed_in, counts)
    load = _LOADS.get(shape)
    if load is None:
        load = _LOADS[shape] = Prepared(_table_query(manager, signed_in, counts))
    found = load(**filters, **({"user_id": user.pk} if signed_in else {}))
    if not found:
        raise Http404("No such table.")
    table = found[0]
    # The two pairs with their players and teams: one query with four joins is cheaper to
    # plan than one fourteen-table join.
    ids = [pk for pk in (table.home_pair_id, table.away_pair_id) if pk]
    pairs = {p.pk: p for p in _PAIRS(ids=ids)} if ids else {}
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


def _table_query(manager, signed_in: bool, counts: bool):
    def build(user_id=None, **filters):
        tables = manager.select_related("match__round__stage__event__tournament").defer(*LONG_TEXTS)
        if signed_in:
            tables = with_roles(tables, user_id)
        if counts:
            tables = with_record(with_page_counts(tables))
        return tables.filter(match__round__stage__draw__undone_at__isnull=True, **filters)

    return build


_LOADS: dict[tuple, Prepared] = {}
# The tournament's notice, rules and certificate, the event's rules summary: pages of text
# no table page shows, left in the database.
LONG_TEXTS = [
    "match__round__stage__event__tournament__notice_text",
    "match__round__stage__event__tournament__rules_text",
    "match__round__stage__event__tournament__certificate_text",
    "match__round__stage__event__rules_summary",
]
_PAIRS = Prepared(
    lambda ids: Pair.objects.filter(pk__in=ids).select_related("first", "second", "entry__unit")
)


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


@dataclass(frozen=True)
class Done:
    """What a write hands to its answer: the message, and the table as the write left it
    (its match, pairs and record kept for the page), or None when the write did not hand it
    back (the page reads it again). ``part``: the write changes only the parts of the page
    a deal changes (``in_part``); ``same_counts``: it leaves the calls and reports read
    with the table as they were (``with_page_counts``: a record's event)."""

    flash: str = ""
    table: TableMatch | None = None
    part: bool = False
    same_counts: bool = False


def answer(
    request,
    table: TableMatch,
    write,
    context,
    page_url: str,
    *,
    again_here: bool = True,
    in_part=None,
) -> HttpResponse:
    """Make the ``write`` (it returns the flash message or a ``Done``, or raises
    TableError) and answer it: the table's panel again for htmx, with the message or the
    problem (422), else a redirect to the page (``page_url``) with the message. A refused
    plain post (no JavaScript) is answered with the whole page and the problem (422) unless
    it came from another page (``again_here``): either way the refused form shows what was
    typed. ``context(table, **words)`` is the panel's context; with ``in_part`` (the page
    shows nothing a deal changes beyond its board and record: no chief's panel; it gives the
    page's action URLs) a deal is answered with the parts it changed (``answered_in_part``).
    The referees' actions and the players' link answer alike.

    A write that returned is saved: if the database connection is lost before its answer
    is read, the answer is read again on a new connection, and without one it says plainly
    that the write is saved and the page reloads (``saved_answer``) — never a server error
    for a saved write."""
    problem, code, done = "", "", Done()
    try:
        done = as_done(write())
    except TableError as err:
        problem, code = err.message, err.code
    args = (request, table, done, problem, code, context, page_url, again_here, in_part)
    try:
        return _answer(*args)
    except CONNECTION_LOST:
        if problem or connection.in_atomic_block:
            raise  # nothing was saved: the server's error stands and the phone sends it again
    logger.warning("The connection was lost after a table write; answering on a new one.")
    connection.close()
    try:
        return _answer(*args)
    except CONNECTION_LOST:
        logger.exception("A saved table write is answered without the page: no database.")
        return saved_answer(request, done.table or table, page_url)


def as_done(result) -> Done:
    return result if isinstance(result, Done) else Done(result or "")


def _answer(request, table, done, problem, code, context, page_url, again_here, in_part):
    shown = done.table
    if problem or shown is None:
        table.refresh_from_db(fields=TABLE_COLUMNS)  # as the database has it now
        shown = table
    words = {"flash": done.flash, "problem": problem}
    if problem:
        words["kept"] = kept_values(request)
    if not request.htmx:
        if problem and again_here:
            return render(request, "scoring/table.html", context(shown, **words), status=422)
        if problem:
            messages.error(request, problem)
        elif done.flash:
            messages.success(request, done.flash)
        return redirect(page_url)
    if not (done.part or done.same_counts):
        forget_counts(shown)  # the write may have changed them
    if done.part and in_part is not None and answered_in_part(shown):
        return render(request, "scoring/deal_answer.html", part_data(shown, done.flash, in_part))
    response = render(
        request,
        "scoring/table.html#table_panel",
        context(shown, **words),
        status=422 if problem else 200,
    )
    if code:
        # The page's tap queue (static/js/table.js) stops on a change made elsewhere
        # ("stale") and drops a tap refused for what it says.
        response["X-Table-Error"] = code
    return response


COUNTS = ("calls_open", "reports_filed")


def forget_counts(table: TableMatch) -> None:
    """Drop what ``with_page_counts`` read with the table: the page reads it again."""
    for name in COUNTS:
        table.__dict__.pop(name, None)


def answered_in_part(table: TableMatch) -> bool:
    """Whether a deal just recorded changed only the parts of the panel its answer carries
    (``part_data``): the message, the calls and the reports as they are now, the board, the
    record's new lines and the version — and, for the record's first lines, the start, the
    undo button and the record whole. Not the deal that ends the match (the entry forms go,
    the submit button comes), nor a table with a call for the referee open (the whole page
    shows it); ``calls_open`` is read with the table (``load_table(counts=True)``)."""
    replay = getattr(table, "replay", None)
    return bool(
        replay is not None
        and replay.added_from is not None
        and table.status == TableMatch.Status.OPEN
        and not table.is_over
        and getattr(table, "calls_open", True) is False
    )


def part_data(table: TableMatch, flash: str, urls) -> dict:
    """The context of a deal's answer in part (``scoring/deal_answer.html``): what the
    deal changed, from what the write loaded and replayed — nothing is read again.
    ``urls()``: the page's action URLs, for the forms of the record's first lines."""
    engine = table.match.round.stage.event.scorer()
    record = table.replay
    data = {
        "table": table,
        "engine": engine,
        "board": engine.board(table.state, record.names),
        "deadline": deadline(table, engine),
        "flash": flash,
        "calls": [],
        "reports_filed": table.reports_filed,
        "follows": table.version - 1,
        "opening": not record.added_from,
    }
    if data["opening"]:
        # The record's first lines: the start form goes, the undo button and the list come.
        data.update(history=list(reversed(record.described())), may_start=False, urls=urls())
    else:
        data["added"] = list(reversed(record.added()))
    return data


def saved_answer(request, table: TableMatch, page_url: str) -> HttpResponse:
    """The answer to a saved write when its page cannot be read (no database): it says
    plainly that the write is saved and that the page reloads; the panel reloads itself
    until it can be read (htmx), keeping the version the write left for the phone's taps
    still waiting. Without JavaScript, back to the page with the same words."""
    said = _("已记录。与服务器数据库的连接中断，页面正在重新载入……")
    if not request.htmx:
        messages.success(request, said)
        return redirect(page_url)
    return render(
        request,
        "scoring/saved_answer.html",
        {"table": table, "said": said, "reload_url": page_url},
    )


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
