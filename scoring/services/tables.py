"""A table match's life: its tables made once a tie's two entries are known, the events a
referee records and undoes, the result submitted, and the chief referee's confirmation
(which hands the tie to :mod:`scoring.services.ties`). Each of a referee's writes is one
transaction and leaves an audit entry."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import plain_text
from guandan_cup.prepared import Prepared, insert
from scoring.engines.board import NOTHING, THEN, Words, clauses, words
from scoring.engines.common import EngineError
from scoring.models import TableEvent, TableMatch
from scoring.selectors import record_read_with
from scoring.services import common, confirmation, ties
from scoring.services.common import TableError
from tournaments.draw import plan as draw_plan
from tournaments.models import Match, Pair


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
    pairs = {
        (entry, number): pk
        for pk, entry, number in Pair.objects.filter(entry_id__in=entry_ids).values_list(
            "pk", "entry_id", "number"
        )
    }
    rows = []
    initial = {}
    for m in matches:
        event = m.round.stage.event
        if event.pk not in initial:
            engine = event.scorer()
            initial[event.pk] = engine.state_dict(engine.initial())
        count = event.tables_per_match
        rows += [
            TableMatch(
                match=m,
                number=n,
                home_pair_id=pairs.get((m.home_id, n)),
                away_pair_id=pairs.get((m.away_id, n)),
                table_number=(m.first_table + n - 1) if m.first_table else None,
                state=initial[event.pk],
            )
            for n in range(1, count + 1)
        ]
    TableMatch.objects.bulk_create(rows, batch_size=1000)


@common.announce_after(one_table=True)
def record_event(
    *,
    table: TableMatch,
    event: dict,
    user=None,
    key: str,
    expected_version: int | None = None,
    reason: str = "",
    reported_by: str = "",
    by_players: bool = False,
) -> tuple[TableMatch, Words, bool]:
    """Record one event (a deal, a penalty, time up, a forfeit). Returns (table, the engine's
    description in words, created) — ``created`` is False when this key was already recorded.
    ``by_players``: entered by the players from the table's link (no user)."""
    key = common.phone_key(key)
    reason, reported_by = plain_text(reason, limit=200), plain_text(reported_by, limit=100)
    if not key:
        raise TableError("no_key", _("缺少提交标识，请刷新页面后重试。"))
    how = dict(
        event=event,
        user=user,
        key=key,
        expected_version=expected_version,
        reason=reason,
        reported_by=reported_by,
        by_players=by_players,
    )
    # A page's deal on the table its request loaded is saved if the table is still at that
    # version; a write that came first sends it to the locked row (common.claimed).
    claimed = common.claimed(table, expected_version)
    if claimed is not None:
        try:
            # Its record as the page's request read it with the row (selectors.with_record):
            # the row's version, compared when it is saved, vouches for both.
            return _record_on(claimed, **how, recorded=record_read_with(claimed))
        except common.Overtaken:
            pass
        finally:
            claimed._claimed = False
    return _record_on(common.locked(table), **how)


def _record_on(
    table: TableMatch,
    *,
    event: dict,
    user,
    key: str,
    expected_version: int | None,
    reason: str,
    reported_by: str,
    by_players: bool,
    recorded: list[tuple] | None = None,
) -> tuple[TableMatch, Words, bool]:
    # Every event of the table in one query (unless read with the row already): the resend
    # check, the record and the next seq.
    if recorded is None:
        recorded = RECORD(table_id=table.pk)
    payloads = [payload for _seq, _key, payload, undone in recorded if undone is None]
    existing = next((payload for _seq, k, payload, _undone in recorded if k == key), None)
    if existing is not None:
        table.replay = common.Replay(table, payloads)
        text = next((d for p, d in table.replay.described() if p == existing), NOTHING)
        return table, text, False
    _refuse_if_stopped(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("这一台的结果已提交，不能再录入；更正请由裁判长办理。"))
    common.check_version(table, expected_version)
    engine = common.scorer(table)
    try:
        payload = engine.normalise(event)
    except EngineError as err:
        raise TableError(err.code, common.worded(err.words)) from None
    # The record replayed once with the new event; the page that answers the write shows it.
    replay = common.Replay(table, [*payloads, payload], added_from=len(payloads))
    # Nantong: after the whistle the deal in progress is played out and then time is up
    # (docs/rules.md, the time limit), so the deal recorded after the call brings the
    # time_up with it — unless it passes A and wins the match outright.
    follows = engine.after_whistle(payload) if table.time_called_at is not None else []
    if follows and not engine.match_over(replay.state):
        replay = common.Replay(table, [*payloads, payload, *follows], added_from=len(payloads))
    else:
        follows = []
    new = [payload, *follows]
    before = table.state
    # The table's row first: a claimed table that another write overtook saves nothing.
    started = {} if table.started_at is not None else {"started_at": timezone.now()}
    common.save_state(table, replay.state, **started)
    seq = (recorded[-1][0] if recorded else 0) + 1
    for offset, item in enumerate(new):
        insert(  # TableEvent.objects.create, its SQL made once: every deal makes one
            TableEvent(
                table=table,
                seq=seq + offset,
                payload=item,
                key=key if offset == 0 else f"{key}:time",
                reason=reason[:200],
                reported_by=reported_by[:100],
                by_players=by_players,
                created_by=None if by_players else common.known_user(user),
            )
        )
    text = clauses(replay.added(), THEN)
    common.audit(
        table,
        user,
        "event",
        by_the_players(text) if by_players else text,
        before=before,
        after=table.state,
        reason=reason,
        by_players=by_players,
    )
    replay.began = bool(started)
    table.replay = replay
    return table, text, True


# A table's events as a write reads them, (seq, key, payload, undone) in order: compiled
# once (every deal reads them).
RECORD = Prepared(
    lambda table_id: (
        TableEvent.objects.filter(table_id=table_id)
        .order_by("seq")
        .values_list("seq", "key", "payload", "undone_at")
    )
)


def _refuse_if_stopped(table: TableMatch) -> None:
    if table.status == TableMatch.Status.NOT_PLAYED:
        raise TableError(
            "not_played", _("本场胜负已由其他两台决出，这一台不再进行，无需录入或提交。")
        )


@common.announce_after(one_table=True)
def start_table(*, table: TableMatch, user=None, expected_version: int | None = None) -> TableMatch:
    """开始: the referee starts the table's clock, where the rule set's time limit counts
    from it (``time_from`` "start"): once, before the first record (after it, the first
    record is where the time counts from)."""
    table = common.locked(table)
    _refuse_if_stopped(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("这一台的结果已提交，不能再录入；更正请由裁判长办理。"))
    common.check_version(table, expected_version)
    engine = common.scorer(table)
    if engine.time_from != "start" or not engine.time_limit_minutes:
        raise TableError("no_start", _("本项目的限时不从裁判宣布开始起计，无需宣布开始。"))
    if table.start_called_at is not None or table.started_at is not None:
        raise TableError("started", _("这一台已经开始计时。"))
    table.start_called_at = timezone.now()
    table.save_new_version("start_called_at")
    common.audit(
        table,
        user,
        "start",
        _("宣布开始：限时%(n)s分钟") % {"n": engine.time_limit_minutes},
    )
    return table


@common.announce_after(one_table=True)
def undo_last(
    *, table: TableMatch, user=None, expected_version: int | None = None, by_players: bool = False
) -> TableMatch:
    """Undo the last recorded event while the result is not submitted (kept, marked undone)."""
    table = common.locked(table)
    _refuse_if_stopped(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("结果已提交，不能撤销；更正请由裁判长办理。"))
    common.check_version(table, expected_version)
    events = common.active_events(table)
    if not events:
        raise TableError("nothing_to_undo", _("还没有可撤销的记录。"))
    last = events[-1]
    # A deal that brought an automatic time_up is undone together with it.
    undo = [last] + ([events[-2]] if last.key.endswith(":time") and len(events) > 1 else [])
    now = timezone.now()
    for item in undo:
        item.undone_at, item.undone_by = (
            now,
            None if by_players else common.known_user(user),
        )
        item.save(update_fields=["undone_at", "undone_by"])
    before = table.state
    # One replay of the record as it was: what the undone events did, in the words they
    # were recorded with, and the record without them (the page shows it).
    kept = len(events) - len(undo)
    record = common.Replay(table, [e.payload for e in events])
    done = record.described(kept)[kept:]
    table.replay = record.prefix(kept)
    common.save_state(table, table.replay.state)
    what = words("撤销：%(what)s", what=clauses([d for _p, d in done], THEN))
    common.audit(
        table,
        user,
        "undo",
        by_the_players(what) if by_players else what,
        before=before,
        after=table.state,
        by_players=by_players,
    )
    return table


@common.announce_after
def submit_table(
    *, table: TableMatch, user=None, expected_version: int | None = None, side: str = ""
) -> TableMatch:
    """Submit the finished table for confirmation: by an official (``user``), or by the
    players of ``side`` ("A"/"B") from the table's link."""
    if side not in ("", "A", "B"):
        raise TableError("invalid_side", _("请选择是哪一方提交结果。"))
    table = common.locked(table)
    _refuse_if_stopped(table)
    if table.status != TableMatch.Status.OPEN:
        raise TableError("closed", _("这一台的结果已经提交。"))
    common.check_version(table, expected_version)
    if not table.is_over:
        raise TableError("not_over", _("比赛还没有结束，不能提交结果。"))
    table.status, table.submitted_by, table.submitted_at, table.submitted_side = (
        TableMatch.Status.SUBMITTED,
        None if side else user,
        timezone.now(),
        side,
    )
    table.save_new_version("status", "submitted_by", "submitted_at", "submitted_side")
    won = _winner_name(table)
    summary = words("提交结果：%(w)s胜", w=won) if won else words("提交结果：平局")
    if side:
        summary = words("%(what)s（%(side)s方选手扫码录入）", what=summary, side=side)
    common.audit(table, user, "submit", summary, after=table.state, by_players=bool(side))
    return table


def by_the_players(what: Words) -> Words:
    """An audit summary of what the players entered from the table's link."""
    return words("%(what)s（选手扫码录入）", what=what)


def _winner_name(table: TableMatch) -> str | None:
    """The name of the table's winner; None for a draw."""
    if table.winner in ("A", "B"):
        return common.side_names(table)[table.winner]
    return None


@transaction.atomic
def confirm_table(
    *,
    table: TableMatch,
    user,
    expected_version: int | None = None,
    opponents: str = "",
    side: str = "",
) -> TableMatch:
    """A second official confirms (:mod:`scoring.services.confirmation` says who), or — where
    the tournament allows it — the pair the result goes against (``opponents``, "A" or
    "B"), on the referee's phone, named in the audit; or, from the table's link, the
    players of ``side``, the side that did not submit it. Only then does the bracket move;
    the table's open calls for the referee are resolved with it."""
    table = common.locked(table)
    common.check_version(table, expected_version)
    if table.status != TableMatch.Status.SUBMITTED:
        raise TableError("not_submitted", _("只有已提交的结果才能确认。"))
    names = common.side_names(table)
    by = None
    resolving = not side and confirmation.open_calls(table).exists()
    if side or user is None:  # the players' link names its side
        confirmation.check_players_confirm(table, side)
        by = words("（%(side)s方选手确认）", side=side)
    elif opponents:
        # On the referee's phone, the pair the result goes against confirms it.
        if opponents != confirmation.opponents_may_confirm(user, table):
            raise TableError("not_opponents", confirmation.who_may_confirm(table))
        by = words("（由对方%(pair)s在裁判手机上确认）", pair=names[opponents])
    elif not confirmation.may_confirm(user, table):
        if getattr(user, "pk", None) in confirmation.authors(table):
            raise TableError(
                "same_person",
                _("录入、提交或更正这一结果的人不能再确认；%(who)s")
                % {"who": confirmation.who_may_confirm(table)},
            )
        raise TableError("not_allowed", confirmation.who_may_confirm(table))
    elif resolving:
        by = words("（裁判处理呼叫后确认）")
    now = timezone.now()
    table.status, table.confirmed_by, table.confirmed_at, table.confirmed_side = (
        TableMatch.Status.CONFIRMED,
        None if side else user,
        now,
        side,
    )
    table.save_new_version("status", "confirmed_by", "confirmed_at", "confirmed_side")
    # The tie may not be decided yet, but its table is confirmed: the live pages show it.
    table.match.round.stage.event.bump_version()
    won = _winner_name(table)
    summary = words("确认结果：%(w)s胜", w=won) if won else words("确认结果：平局")
    if by is not None:
        summary = words("%(what)s%(by)s", what=summary, by=by)
    common.audit(
        table,
        user,
        "confirm",
        summary,
        after=table.state,
        by_players=bool(side),
    )
    if not side:
        confirmation.open_calls(table).update(resolved_at=now, resolved_by=common.known_user(user))
    try:
        ties.after_confirmation(table, user)
    except draw_plan.ResultError as err:
        # Rolls the confirmation back with the rest of the transaction.
        raise TableError(err.code, err.message) from None
    return table
