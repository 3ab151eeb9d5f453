"""Writes of table results: the only code that changes TableMatch, TableEvent, Report and
CheckIn rows. Each function is one transaction; each leaves an audit entry.

Nothing is lost or counted twice: every submission carries the phone's idempotency key
(a resend finds the event already there), every write names the table version it was made
on (a second device writing on an old page is refused), and the table row is locked
(SELECT … FOR UPDATE on PostgreSQL) while it is written.
"""

from __future__ import annotations

from functools import wraps

from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from scoring.engines.common import EngineError
from scoring.engines.guandan.play import decide_tie
from scoring.engines.scorer import Scorer
from scoring.models import AuditEntry, CheckIn, Report, TableEvent, TableMatch
from scoring.selectors import pair_name
from tournaments.draw import plan as draw_plan
from tournaments.draw import results as draw_results
from tournaments.models import Entry, Event, Match, Pair

UPHELD_REPORTS_FOR_A_DEDUCTION = 3
# Ties still to be played: a walkover or a bye has nothing left to check in or call time on.
OPEN_MATCH = (
    Match.Status.PENDING,
    Match.Status.IN_PROGRESS,
)  # Anhui: 三次举报…属实，实施扣级 (rules §11 A12)


class TableError(Exception):
    """Something a referee can put right: the message says what."""

    def __init__(self, code: str, message: str, *, event_index: int | None = None):
        self.code, self.message, self.event_index = code, message, event_index
        super().__init__(message)


# --------------------------------------------------------------------------- tables


def scorer(table: TableMatch) -> Scorer:
    return table.match.round.stage.event.scorer()


def side_names(table: TableMatch) -> dict[str, str]:
    """{"A": home, "B": away}: the pairs of a guandan table, the entries (players) of a
    singles match."""
    names = {}
    for team, pair, entry_id, entry in (
        ("A", table.home_pair, table.match.home_id, "home"),
        ("B", table.away_pair, table.match.away_id, "away"),
    ):
        if pair is not None:
            names[team] = pair_name(pair)
        elif entry_id:
            names[team] = getattr(table.match, entry).name
        else:
            names[team] = "—"
    return names


def ensure_tables(match: Match) -> list[TableMatch]:
    """The table matches of one guandan tie (see :func:`ensure_tables_for`)."""
    ensure_tables_for([match])
    return list(match.tables.order_by("number"))


def on_pairing_changed(sender, *, matches, repaired=False, **kwargs) -> None:
    """The draw set or changed the entries of these ties (``tournaments.draw.signals``)."""
    if repaired:
        # Not started: the tables of the old pairing go, the new pairing's are made below.
        TableMatch.objects.filter(match__in=matches, events__isnull=True).delete()
    ensure_tables_for(matches)


def ensure_tables_for(matches) -> None:
    """Create the table matches of ties whose two entries are known: for a guandan team
    tie pair n of the home team against pair n of the away team, at table
    ``first_table + n - 1``; for pairs and singles (象棋, 羽毛球, 乒乓球) one table, where the
    referee records the deals or games. A fixed number of queries for any number of ties
    (a 4,096-team draw creates 6,000 tables)."""
    matches = [m for m in matches if m.home_id and m.away_id and m.status != Match.Status.BYE]
    if not matches:
        return
    have = set(TableMatch.objects.filter(match__in=matches).values_list("match_id", flat=True))
    matches = [m for m in matches if m.pk not in have]
    entry_ids = {m.home_id for m in matches} | {m.away_id for m in matches}
    pairs = {(p.entry_id, p.number): p for p in Pair.objects.filter(entry_id__in=entry_ids)}
    rows = []
    initial = {}
    for m in matches:
        event = m.round.stage.event
        if event.pk not in initial:
            engine = event.scorer()
            initial[event.pk] = engine.state_dict(engine.initial())
        count = event.pairs_per_team if event.entry_kind == Event.EntryKind.TEAM else 1
        rows += [
            TableMatch(
                match=m,
                number=n,
                home_pair=pairs.get((m.home_id, n)),
                away_pair=pairs.get((m.away_id, n)),
                table_number=(m.first_table + n - 1) if m.first_table else None,
                state=initial[event.pk],
            )
            for n in range(1, count + 1)
        ]
    TableMatch.objects.bulk_create(rows, batch_size=1000)


def active_events(table: TableMatch) -> list[TableEvent]:
    return list(table.events.filter(undone_at__isnull=True).order_by("seq"))


def replay_table(table: TableMatch, events: list[dict] | None = None, *, describe_from: int = 0):
    """(state, [(event, description) …]) of a table, from its active events. Events before
    ``describe_from`` are replayed but not described (their description is "")."""
    engine = scorer(table)
    payloads = [e.payload for e in active_events(table)] if events is None else events
    names = side_names(table)
    state = engine.initial()
    described = []
    try:
        for index, (before, payload, after) in enumerate(engine.replay_steps(payloads)):
            text = engine.describe(before, payload, after, names) if index >= describe_from else ""
            described.append((payload, text))
            state = after
    except EngineError as err:
        raise TableError(err.code, err.message, event_index=err.event_index) from None
    return state, described


def _locked(table: TableMatch) -> TableMatch:
    """The table row, locked (SELECT … FOR UPDATE on PostgreSQL) until the transaction ends.

    Only the row itself is read again: its match, event and pairs do not change while a
    deal is recorded, so those the caller already loaded are kept (a referee's tap then
    costs one small query here instead of a fourteen-table join)."""
    locked = TableMatch.objects.select_for_update().get(pk=table.pk)
    kept = 0
    for name in ("match", "home_pair", "away_pair"):
        field = TableMatch._meta.get_field(name)
        if field.is_cached(table) and getattr(table, field.attname) == getattr(
            locked, field.attname
        ):
            field.set_cached_value(locked, field.get_cached_value(table))
            kept += 1
    if kept == 3 and _people_loaded(locked):
        return locked
    return TableMatch.objects.with_people(
        "match__round__stage__event__tournament",
        "match__home",
        "match__away",
        "home_pair__entry",
        "away_pair__entry",
    ).get(pk=table.pk)


def _people_loaded(table: TableMatch) -> bool:
    """Whether the match's event, its two entries and both pairs' players are in memory
    already (a chess or rally table names the entries)."""
    obj = table
    for name in ("match", "round", "stage", "event", "tournament"):
        field = type(obj)._meta.get_field(name)
        if not field.is_cached(obj):
            return False
        obj = field.get_cached_value(obj)
    match = table.match
    for name in ("home", "away"):
        if getattr(match, f"{name}_id") and not match._meta.get_field(name).is_cached(match):
            return False
    for pair in (table.home_pair, table.away_pair):
        if pair is None:
            continue
        if not all(Pair._meta.get_field(f).is_cached(pair) for f in ("first", "second")):
            return False
    return True


def _check_version(table: TableMatch, expected_version: int | None) -> None:
    if expected_version is not None and int(expected_version) != table.version:
        raise TableError(
            "stale",
            _("这一台刚被另一台设备更新过（第%(v)s版）；请刷新后再录入。") % {"v": table.version},
        )


def _audit(
    table: TableMatch | None,
    user,
    action: str,
    summary: str = "",
    *,
    before=None,
    after=None,
    reason: str = "",
    match: Match | None = None,
) -> None:
    match = match or (table.match if table else None)
    AuditEntry.objects.create(
        tournament=match.round.stage.event.tournament,
        table=table,
        match=match,
        actor=user if getattr(user, "is_authenticated", False) else None,
        action=action,
        summary=plain_text(summary, limit=300),
        before=before,
        after=after,
        reason=plain_text(reason, limit=300),
    )


def _save_state(table: TableMatch, state) -> None:
    engine = scorer(table)
    table.state = engine.state_dict(state)
    table.winner = engine.winner(table.state) or ""
    table.version += 1
    table.save(update_fields=["state", "winner", "version"])
    if table.match.status == Match.Status.PENDING:
        Match.objects.filter(pk=table.match_id, status=Match.Status.PENDING).update(
            status=Match.Status.IN_PROGRESS
        )


def _announce_after(write):
    """Run ``write`` in a transaction of its own, then grow the event's version in a
    statement of its own. Every table of an event shares the event row: were it updated
    inside the write, fifty referees recording at once would queue on its lock. The new
    version is never seen before the change it announces; a change seen a moment before
    its version is cached under the old one and replaced at the next poll."""

    atomic = transaction.atomic(write)

    @wraps(write)
    def wrapper(*args, **kwargs):
        result = atomic(*args, **kwargs)
        table, changed = (result[0], result[2]) if isinstance(result, tuple) else (result, True)
        if changed:
            table.match.round.stage.event.bump_version()
        return result

    return wrapper


@_announce_after
def record_event(
    *,
    table: TableMatch,
    event: dict,
    user=None,
    key: str,
    expected_version: int | None = None,
    reason: str = "",
    reported_by: str = "",
) -> tuple[TableMatch, str, bool]:
    """Record one event (a deal, a penalty, time up, a forfeit). Returns (table, the engine's
    description, created) — ``created`` is False when this key was already recorded."""
    # Room for the ":time" suffix of an automatic time_up within the 64-character column.
    key = plain_text(key, limit=58)
    reason, reported_by = plain_text(reason, limit=200), plain_text(reported_by, limit=100)
    if not key:
        raise TableError("no_key", _("缺少提交标识，请刷新页面后重试。"))
    table = _locked(table)
    # Every event of the table in one query: the resend check, the record and the next seq.
    recorded = list(table.events.order_by("seq"))
    payloads = [e.payload for e in recorded if e.undone_at is None]
    existing = next((e for e in recorded if e.key == key), None)
    if existing is not None:
        _state, described = replay_table(table, payloads)
        text = next((d for p, d in described if p == existing.payload), "")
        return table, text, False
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("这一台的结果已提交，不能再录入；更正请由裁判长办理。"))
    _check_version(table, expected_version)
    engine = scorer(table)
    try:
        payload = engine.normalise(event)
    except EngineError as err:
        raise TableError(err.code, err.message) from None
    # Nantong: after the whistle the deal in progress is played out and then time is up
    # (docs/rules.md, the time limit), so the deal recorded after the call brings the
    # time_up with it.
    follows = engine.after_whistle(payload) if table.time_called_at is not None else []
    if follows and engine.match_over(replay_table(table, payloads + [payload])[0]):
        follows = []  # a deal that passes A wins the match outright: no time_up after it
    new = [payload] + follows
    # The state before is the table's stored replay; only the new events are described.
    before = table.state
    state, described = replay_table(table, payloads + new, describe_from=len(payloads))
    seq = (recorded[-1].seq if recorded else 0) + 1
    for offset, item in enumerate(new):
        TableEvent.objects.create(
            table=table,
            seq=seq + offset,
            payload=item,
            key=key if offset == 0 else f"{key}:time",
            reason=reason[:200],
            reported_by=reported_by[:100],
            created_by=user if getattr(user, "is_authenticated", False) else None,
        )
    if table.started_at is None:
        table.started_at = timezone.now()
        table.save(update_fields=["started_at"])
    _save_state(table, state)
    text = "；".join(d for _p, d in described[len(payloads) :])
    _audit(
        table,
        user,
        "event",
        text,
        before=before,
        after=table.state,
        reason=reason,
    )
    return table, text, True


@_announce_after
def undo_last(*, table: TableMatch, user=None, expected_version: int | None = None) -> TableMatch:
    """Undo the last recorded event while the result is not submitted (kept, marked undone)."""
    table = _locked(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("结果已提交，不能撤销；更正请由裁判长办理。"))
    _check_version(table, expected_version)
    events = active_events(table)
    if not events:
        raise TableError("nothing_to_undo", _("还没有可撤销的记录。"))
    last = events[-1]
    # A deal that brought an automatic time_up is undone together with it.
    undo = [last] + ([events[-2]] if last.key.endswith(":time") and len(events) > 1 else [])
    now = timezone.now()
    for item in undo:
        item.undone_at, item.undone_by = (
            now,
            user if getattr(user, "is_authenticated", False) else None,
        )
        item.save(update_fields=["undone_at", "undone_by"])
    before = table.state
    state, _described = replay_table(table)
    _save_state(table, state)
    _audit(
        table,
        user,
        "undo",
        _("撤销：%(what)s") % {"what": ", ".join(str(e.payload) for e in undo)},
        before=before,
        after=table.state,
    )
    return table


@_announce_after
def submit_table(
    *, table: TableMatch, user=None, expected_version: int | None = None
) -> TableMatch:
    table = _locked(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("这一台的结果已经提交。"))
    _check_version(table, expected_version)
    if not table.is_over:
        raise TableError("not_over", _("比赛还没有结束，不能提交结果。"))
    table.status, table.submitted_by, table.submitted_at = (
        TableMatch.Status.SUBMITTED,
        user,
        timezone.now(),
    )
    table.version += 1
    table.save(update_fields=["status", "submitted_by", "submitted_at", "version"])
    _audit(
        table,
        user,
        "submit",
        _("提交结果：%(w)s胜") % {"w": _winner_name(table)},
        after=table.state,
    )
    return table


def _winner_name(table: TableMatch) -> str:
    if table.winner in ("A", "B"):
        return side_names(table)[table.winner]
    return _("平局")


@transaction.atomic
def confirm_table(*, table: TableMatch, user) -> TableMatch:
    """The chief referee (or a second official) confirms; only then does the bracket move."""
    table = _locked(table)
    if table.status != TableMatch.Status.SUBMITTED:
        raise TableError("not_submitted", _("只有已提交的结果才能确认。"))
    if table.submitted_by_id and table.submitted_by_id == getattr(user, "pk", None):
        raise TableError("same_person", _("提交结果的人不能再确认；请由裁判长或另一位裁判确认。"))
    table.status, table.confirmed_by, table.confirmed_at = (
        TableMatch.Status.CONFIRMED,
        user,
        timezone.now(),
    )
    table.version += 1
    table.save(update_fields=["status", "confirmed_by", "confirmed_at", "version"])
    # The tie may not be decided yet, but its table is confirmed: the live pages show it.
    table.match.round.stage.event.bump_version()
    _audit(
        table,
        user,
        "confirm",
        _("确认结果：%(w)s胜") % {"w": _winner_name(table)},
        after=table.state,
    )
    try:
        _after_confirmation(table, user)
    except draw_plan.ResultError as err:
        # Rolls the confirmation back with the rest of the transaction.
        raise TableError(err.code, err.message) from None
    return table


def _after_confirmation(table: TableMatch, user) -> None:
    match = (
        Match.objects.select_for_update()
        .select_related("round__stage__event")
        .get(pk=table.match_id)
    )
    event = match.round.stage.event
    # A forfeit ends the entry's event where the rules say so (Anhui: 弃权 … 比赛资格就此终止;
    # for chess and the ball games always: 弃权者…后面的比赛资格就此终止).
    engine = event.scorer()
    if (
        engine.forfeit_ends_event
        and engine.decided_by(table.state) == "forfeit"
        and table.winner in ("A", "B")
        and event.entry_kind != Event.EntryKind.TEAM
    ):
        loser_id = match.away_id if table.winner == "A" else match.home_id
        if loser_id:
            entry = Entry.objects.get(pk=loser_id)
            if entry.status == Entry.Status.REGISTERED:
                entry.status, entry.status_reason = Entry.Status.ELIMINATED, _("弃权")
                entry.save(update_fields=["status", "status_reason"])
    _update_tie(match, user)


def _tie_result(match: Match) -> tuple[str | None, dict, bool, float]:
    """(winner "A"/"B"/None, wins {"A", "B"}, decided, home margin) from the confirmed
    tables of a tie. A guandan team tie is won by a majority of tables and its margin is
    the 级差; a single table (guandan pairs, chess, badminton, table tennis) decides the
    match alone, its score is the games won and its margin the games (chess: points)."""
    tables = list(match.tables.order_by("number"))
    confirmed = [t for t in tables if t.status == TableMatch.Status.CONFIRMED]
    engine = match.round.stage.event.scorer()
    if len(tables) == 1:
        # The table's stored state is its replay, written with every event (_save_state).
        table = tables[0]
        winner = table.winner or None if confirmed else None
        home, away = engine.tie_score(table.state)
        margin = engine.margin(table.state) if confirmed else 0.0
        return winner, {"A": home, "B": away}, bool(confirmed), margin
    tie = decide_tie(
        [
            t.winner if t.status == TableMatch.Status.CONFIRMED and t.winner else None
            for t in tables
        ],
        tables=len(tables),
    )
    margin = float(sum(engine.margin(t.state) for t in confirmed))
    return tie.winner, tie.wins, tie.decided, margin


def _update_tie(match: Match, user) -> None:
    """Decide the tie from its confirmed tables: the team with a majority of tables wins,
    as soon as it has it; the score keeps counting the remaining tables."""
    winner, wins, decided, level_diff = _tie_result(match)
    if match.is_decided:
        if match.home_score != wins["A"] or match.away_score != wins["B"]:
            match.home_score, match.away_score = wins["A"], wins["B"]
            match.save(update_fields=["home_score", "away_score"])
            match.round.stage.event.bump_version()
        return
    if not decided:
        return
    side = {"A": Match.Side.HOME, "B": Match.Side.AWAY}.get(winner)
    draw_results.record_result(
        match=match,
        winner=side,
        home_score=wins["A"],
        away_score=wins["B"],
        home_level_points=level_diff,
        away_level_points=-level_diff,
        user=user,
    )
    _audit(
        None,
        user,
        "tie_decided",
        _("本场结果：%(h)s %(a)s") % {"h": wins["A"], "a": wins["B"]},
        match=match,
    )
    # A forfeit that ends an Anhui pair's event: its next opponents get walkovers.
    for entry_id in (match.home_id, match.away_id):
        entry = Entry.objects.get(pk=entry_id)
        if entry.status != Entry.Status.REGISTERED:
            draw_results.entry_out(entry=entry, status=entry.status, reason=entry.status_reason)


# --------------------------------------------------------------------------- corrections


@transaction.atomic
def correct_table(*, table: TableMatch, events: list[dict], reason: str, user) -> TableMatch:
    """The chief referee replaces a table's record (after submission or confirmation) with a
    reason. The old events stay, marked undone; the tie and the bracket are re-derived."""
    reason = plain_text(reason, limit=300)
    if not reason:
        raise TableError("no_reason", _("更正必须写明原因。"))
    table = _locked(table)
    state, _described = replay_table(table, events)  # validates the whole new record
    engine = scorer(table)
    before = table.state
    now = timezone.now()
    actor = user if getattr(user, "is_authenticated", False) else None
    table.events.filter(undone_at__isnull=True).update(undone_at=now, undone_by=actor)
    seq = (table.events.aggregate(m=Max("seq"))["m"] or 0) + 1
    stamp = now.strftime("%Y%m%d%H%M%S%f")
    TableEvent.objects.bulk_create(
        [
            TableEvent(
                table=table,
                seq=seq + i,
                payload=engine.normalise(e),
                key=f"correction-{stamp}-{i}",
                reason=reason[:200],
                created_by=actor,
            )
            for i, e in enumerate(events)
        ]
    )
    old_winner, old_status = table.winner, table.status
    _save_state(table, state)
    if not engine.match_over(state) and table.status != TableMatch.Status.OPEN:
        # The corrected record is unfinished: the table is played on and submitted again.
        table.status = TableMatch.Status.OPEN
        table.submitted_by = table.submitted_at = table.confirmed_by = table.confirmed_at = None
        table.save(
            update_fields=["status", "submitted_by", "submitted_at", "confirmed_by", "confirmed_at"]
        )
    _audit(table, user, "correct", _("更正记录"), before=before, after=table.state, reason=reason)
    table.match.round.stage.event.bump_version()
    if old_status == TableMatch.Status.CONFIRMED and (
        old_winner != table.winner or table.status != old_status
    ):
        _redecide_tie(table.match, user, reason)
    return table


def _redecide_tie(match: Match, user, reason: str) -> None:
    """Work the tie out again from its confirmed tables after a correction: a new winner
    (the bracket is re-derived), the same winner with a new score, or — when the corrected
    tables no longer decide it — the tie reopened until they do."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    winner, wins, decided, _margin = _tie_result(match)
    if winner is None and len(match.tables.all()) == 1:
        decided = False  # a corrected single table without a winner is played on
    if not decided:
        draw_results.reopen_result(
            match=match, home_score=wins["A"], away_score=wins["B"], note=reason
        )
        _audit(
            None,
            user,
            "tie_reopened",
            _("更正后本场胜负未定，继续比赛"),
            match=match,
            reason=reason,
        )
        return
    side = {"A": Match.Side.HOME, "B": Match.Side.AWAY}.get(winner, "")
    draw_results.correct_result(
        match=match, winner=side, home_score=wins["A"], away_score=wins["B"], note=reason, user=user
    )
    _audit(
        None,
        user,
        "tie_corrected",
        _("本场结果更正为 %(h)s:%(a)s") % {"h": wins["A"], "a": wins["B"]},
        match=match,
        reason=reason,
    )


# --------------------------------------------------------------------------- the whistle


@transaction.atomic
def call_time(*, round, user) -> list[TableMatch]:
    """鸣哨: time for every unfinished table of a round at the same moment. Under sudden
    death (Anhui) time_up is recorded at once; otherwise (Nantong) the deal in progress is
    played out and the deal recorded next brings time_up with it."""
    now = timezone.now()
    called = []
    tables = (
        TableMatch.objects.select_for_update()
        .filter(
            match__round=round,
            status=TableMatch.Status.OPEN,
            time_called_at__isnull=True,
            match__status__in=OPEN_MATCH,
        )
        .select_related("match__round__stage__event")
    )
    for table in tables:
        engine = table.match.round.stage.event.scorer()
        if table.is_over or not engine.records("time_up"):
            continue  # chess and the ball games are not played to a clock here
        table.time_called_at = now
        table.save(update_fields=["time_called_at"])
        at_whistle = engine.after_whistle()  # sudden death: time is up at once
        if at_whistle:
            record_event(
                table=table,
                event=at_whistle[0],
                user=user,
                key=f"whistle-{round.pk}-{table.pk}",
            )
        _audit(table, user, "whistle", _("裁判长鸣哨"))
        called.append(table)
    if called:
        round.stage.event.bump_version()  # the tables show that time was called
    return called


# --------------------------------------------------------------------------- check-in


@transaction.atomic
def check_in(*, match: Match, pair: Pair, user=None) -> CheckIn:
    if pair.entry_id not in (match.home_id, match.away_id):
        raise TableError("not_in_match", _("这一对不在这场比赛中。"))
    checkin, created = CheckIn.objects.get_or_create(
        match=match, pair=pair, defaults={"checked_in_by": user}
    )
    if created:
        _audit(None, user, "check_in", _("签到：%(p)s") % {"p": pair_name(pair)}, match=match)
        match.round.stage.event.bump_version()
    return checkin


def missing_pairs(round) -> list[tuple[TableMatch, str, Pair]]:
    """Pairs of unfinished tables in the round that have not checked in."""
    tables = TableMatch.objects.filter(
        match__round=round, status=TableMatch.Status.OPEN, match__status__in=OPEN_MATCH
    ).with_people("match")
    present = set(CheckIn.objects.filter(match__round=round).values_list("match_id", "pair_id"))
    missing = []
    for table in tables:
        if table.is_over:
            continue
        for team, pair in (("A", table.home_pair), ("B", table.away_pair)):
            if pair is not None and (table.match_id, pair.pk) not in present:
                missing.append((table, team, pair))
    return missing


@transaction.atomic
def forfeit_missing(*, round, user) -> int:
    """迟到十分钟以上者判负: the chief referee records the forfeit of every missing pair."""
    count = 0
    by_table: dict[int, list] = {}
    for table, team, _pair in missing_pairs(round):
        by_table.setdefault(table.pk, []).append((table, team))
    for items in by_table.values():
        if len(items) != 1:
            continue  # both pairs absent: the chief referee decides that table by hand
        table, team = items[0]
        record_event(
            table=table,
            event={"forfeit": {"team": team, "reason": "late_over_10_min"}},
            user=user,
            key=f"late-{round.pk}-{table.pk}",
            reason=_("迟到十分钟以上"),
        )
        count += 1
    return count


# --------------------------------------------------------------------------- reports


@transaction.atomic
def add_report(
    *,
    table: TableMatch,
    team: str,
    description: str,
    reported_by: str = "",
    user=None,
    key: str = "",
) -> Report:
    """Record a report (举报). With the phone's ``key``, a resend after a dropped connection
    finds the report already there and records nothing twice."""
    key = plain_text(key, limit=64)
    table = _locked(table)
    if key:
        existing = Report.objects.filter(table=table, key=key).first()
        if existing is not None:
            return existing
    if team not in ("A", "B"):
        raise TableError("invalid_team", _("请选择被举报的一方。"))
    description = " ".join(plain_text(description).split())
    reported_by = plain_text(reported_by, limit=100)
    if not description:
        raise TableError("no_description", _("请写明举报内容。"))
    report = Report.objects.create(
        table=table,
        team=team,
        description=description[:200],
        reported_by=reported_by[:100],
        created_by=user if getattr(user, "is_authenticated", False) else None,
        key=key,
    )
    _audit(table, user, "report", _("举报%(t)s：%(d)s") % {"t": team, "d": description})
    table.match.round.stage.event.bump_version()
    return report


@transaction.atomic
def rule_report(*, report: Report, upheld: bool, user) -> int:
    """The arbitration panel rules; returns how many upheld reports against that pair have
    not yet led to a deduction (the page proposes the deduction at three)."""
    report.upheld, report.ruled_by, report.ruled_at = bool(upheld), user, timezone.now()
    report.save(update_fields=["upheld", "ruled_by", "ruled_at"])
    _audit(
        report.table,
        user,
        "report_ruling",
        _("举报%(r)s") % {"r": _("属实") if upheld else _("不属实")},
    )
    report.table.match.round.stage.event.bump_version()
    return pending_upheld(report.table, report.team)


def pending_upheld(table: TableMatch, team: str) -> int:
    return Report.objects.filter(table=table, team=team, upheld=True, penalty__isnull=True).count()


@transaction.atomic
def apply_report_deduction(*, table: TableMatch, team: str, user, key: str) -> TableMatch:
    key = plain_text(key, limit=58)
    if key and table.events.filter(key=key).exists():
        return table  # a resend of a deduction already recorded
    reports = list(
        Report.objects.select_for_update()
        .filter(table=table, team=team, upheld=True, penalty__isnull=True)
        .order_by("created_at")
    )
    if len(reports) < UPHELD_REPORTS_FOR_A_DEDUCTION:
        raise TableError("not_enough_reports", _("属实的举报不足三次。"))
    deduction = scorer(table).deduction(team)
    if deduction is None:
        raise TableError("no_levels", _("这个项目没有级数，不能扣级。"))
    table, _text, _created = record_event(
        table=table,
        event=deduction,
        user=user,
        key=key,
        reason=_("三次举报属实，扣级"),
    )
    penalty = table.events.get(key=key)
    Report.objects.filter(pk__in=[r.pk for r in reports[:UPHELD_REPORTS_FOR_A_DEDUCTION]]).update(
        penalty=penalty
    )
    return table
