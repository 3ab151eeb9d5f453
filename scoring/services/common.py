"""What every write of table results shares: the error a referee can put right, the
table's scorer, names and replay, the row lock, the version check, the audit entry, the
saved state, and the event's version announced after a write.

Nothing is lost or counted twice: every submission carries the phone's idempotency key
(a resend finds the event already there), every write names the table version it was made
on (a second device writing on an old page is refused), and the table row is locked
(SELECT … FOR UPDATE on PostgreSQL) while it is written — or, for a page's deal on the
version its request loaded, saved only if still at that version (``claimed``,
``save_version``). The writes call each other and these helpers through their modules
(``common.audit(…)``), so a test can patch one.
"""

from __future__ import annotations

import logging
from functools import wraps

from django.db import InterfaceError, OperationalError, connection, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from guandan_cup.errors import UserError
from guandan_cup.inputs import known_user, plain_text
from guandan_cup.prepared import insert, update_where
from scoring.engines.board import Words
from scoring.engines.common import EngineError
from scoring.engines.scorer import Scorer
from scoring.models import AuditEntry, TableEvent, TableMatch
from scoring.selectors import pair_name
from tournaments.draw import selectors as draw_selectors
from tournaments.draw import status as day_status
from tournaments.models import Match, Pair

logger = logging.getLogger(__name__)


class TableError(UserError):
    """Something a referee can put right: the message says what."""

    def __init__(self, code: str, message: str, *, event_index: int | None = None):
        super().__init__(code, message)
        self.event_index = event_index


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


def active_events(table: TableMatch) -> list[TableEvent]:
    return list(table.events.filter(undone_at__isnull=True).order_by("seq"))


class Replay:
    """A table's record replayed once through its engine: the state after it and each
    event's step, described when a page asks — the whole record for the table's page, only
    the events just recorded for a deal's answer (``described(start)``)."""

    def __init__(self, table: TableMatch, payloads: list[dict], *, added_from: int | None = None):
        self.engine = scorer(table)
        self.names = side_names(table)
        try:
            self.steps = list(self.engine.replay_steps(payloads))
        except EngineError as err:
            raise TableError(err.code, worded(err.words), event_index=err.event_index) from None
        self.state = self.steps[-1][2] if self.steps else self.engine.initial()
        # Where the events the write just recorded start (None: it recorded none), and
        # whether they are the table's first record (its start).
        self.added_from = added_from
        self.began = False

    def prefix(self, count: int) -> Replay:
        """The record's first ``count`` events, without replaying them again."""
        shorter = object.__new__(Replay)
        shorter.engine, shorter.names, shorter.steps = self.engine, self.names, self.steps[:count]
        shorter.state = shorter.steps[-1][2] if shorter.steps else self.engine.initial()
        shorter.added_from, shorter.began = None, False
        return shorter

    def added(self) -> list[Words | str]:
        """The descriptions of the events the write recorded, in their order."""
        if self.added_from is None:
            return []
        return [text for _p, text in self.described(self.added_from)[self.added_from :]]

    def described(self, start: int = 0) -> list[tuple[dict, Words | str]]:
        """[(event, description) …] of the record; those before ``start`` are not described
        (their description is "")."""
        return [
            (
                payload,
                self.engine.describe(before, payload, after, self.names) if i >= start else "",
            )
            for i, (before, payload, after) in enumerate(self.steps)
        ]


def replay_table(table: TableMatch, events: list[dict] | None = None, *, describe_from: int = 0):
    """(state, [(event, description) …]) of a table, from its active events. Events before
    ``describe_from`` are replayed but not described (their description is "")."""
    payloads = [e.payload for e in active_events(table)] if events is None else events
    replay = Replay(table, payloads)
    return replay.state, replay.described(describe_from)


def locked(table: TableMatch) -> TableMatch:
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


class Overtaken(TableError):
    """Another write saved the table first: a write on a claimed table saved nothing and
    starts again on the locked row (``claimed``). Caught where it is raised; were it ever to
    reach a page, it reads as the stale version does (refresh and try again)."""

    def __init__(self):
        super().__init__("stale", _("这一台刚被其他人更新，请刷新页面后重试。"))


def claimed(table: TableMatch, expected_version: int | None) -> TableMatch | None:
    """The table as the caller loaded it, to be written without locking its row first: a
    page's write (``expected_version``) made on the version loaded, with its match, event
    and pairs in memory. Its save compares that version (``save_version``): if another
    write came first meanwhile nothing is saved and ``Overtaken`` sends the write back to
    the locked row, where the version check refuses it or a resend is found. One query
    fewer than ``locked``, and the row is locked only from its UPDATE to the commit."""
    if (
        isinstance(expected_version, bool)
        or expected_version != table.version
        or not _related_loaded(table)
    ):
        return None
    table._claimed = True
    return table


def save_version(table: TableMatch, **values) -> None:
    """Set ``values`` on the table and save them as its next version. A claimed table
    (``claimed``) is saved only if its row is still at the version read, neither whistled
    nor voided since (an UPDATE … WHERE version = …): else ``Overtaken``, nothing saved and
    the table left as it was."""
    if getattr(table, "_claimed", False):
        saved = update_where(
            TableMatch,
            pk=table.pk,
            where={
                "version": table.version,
                "time_called_at": table.time_called_at,
                "voided_at": table.voided_at,
            },
            values={"version": table.version + 1, **values},
        )
        if not saved:
            raise Overtaken
        for name, value in values.items():
            setattr(table, name, value)
        table.version += 1
        return
    for name, value in values.items():
        setattr(table, name, value)
    table.save_new_version(*values)


def _related_loaded(table: TableMatch) -> bool:
    """Whether the table's match and both pairs are in memory, with the event and the
    people ``_people_loaded`` asks for."""
    return all(
        TableMatch._meta.get_field(name).is_cached(table)
        for name in ("match", "home_pair", "away_pair")
    ) and _people_loaded(table)


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


# A phone's idempotency key is kept whole in TableEvent.key (64 characters), with room for
# the ":time" suffix of an automatic time_up: a longer key is refused, never cut (two long
# keys sharing a prefix would count as one submission).
KEY_LIMIT = 58


def phone_key(key, *, limit: int = KEY_LIMIT) -> str:
    """The phone's key as sent (trimmed, no NUL), or TableError when it is too long."""
    key = plain_text(key)
    if len(key) > limit:
        raise TableError(
            "key_too_long",
            _("提交标识太长（最多%(n)s个字符）；请刷新页面后重试。") % {"n": limit},
        )
    return key


def check_version(table: TableMatch, expected_version: int | None) -> None:
    """Refuse a write made on another version of the table than its current one, saying
    who changed the table last and when. ``None`` is the server's own write (the desk's
    whistle, the demo): the pages always send the version they show, and a page's missing
    or unreadable version is refused before it gets here (``scoring.views.table``)."""
    if expected_version is None:
        return
    if (
        isinstance(expected_version, bool)
        or not isinstance(expected_version, int)
        or expected_version < 0
    ):
        raise TableError("invalid_version", _("版本号无效；请刷新页面后重试。"))
    if expected_version != table.version:
        raise TableError("stale", stale_message(table))


def check_pairing_known(match: Match) -> None:
    """A ruling on a match (维持原结果, 作废重赛) or a correction of its tables needs both of
    its entries known: refused while a match that feeds it has no result (played on after a
    correction upstream, or voided and not yet replayed: 本场对阵待定) or a side is empty."""
    feeder = draw_selectors.undecided_feeder(match)
    if feeder is not None:
        raise TableError(
            "pairing_unknown",
            _("本场对阵待定：上一场（%(m)s）尚无结果。请待上一场赛完、本场对阵确定后再裁决或更正。")
            % {"m": f"{feeder.round_label} {feeder}"},
        )
    if not match.home_id or not match.away_id:
        raise TableError("pairing_unknown", _("本场对阵待定，暂不能裁决或更正。"))


def stale_message(table: TableMatch) -> str:
    """Who changed the table last and when, for a write made on an older page."""
    last = table.audit.select_related("actor").order_by("-created_at", "-pk").first()
    if last is None:
        return _("这一台已是第%(v)s版；你看到的是旧页面，请刷新后再操作。") % {"v": table.version}
    who = person_name(last.actor) if last.actor else _("系统")
    if last.by_players:
        who = _("本台选手")
    when = timezone.localtime(last.created_at).strftime("%H:%M:%S")
    what = worded(last.said) or last.action_label
    return _(
        "这一台已被%(who)s于%(when)s更新（%(what)s，第%(v)s版）；你看到的是旧页面，请刷新后再操作。"
    ) % {"who": who, "when": when, "what": what, "v": table.version}


def worded(value: Words | str) -> str:
    """Words as plain text in the reader's language (a message, a refusal); text as it is."""
    return value.worded(_) if isinstance(value, Words) else str(value or "")


def label_words(label) -> Words:
    """A choice's label (``TableCall.Kind(kind).label``, a lazy Chinese message) as words:
    kept as its message and worded for each reader, where ``get_kind_display()`` would be
    worded once, in the writer's language."""
    with translation.override(None):
        return Words(str(label))


def person_name(user) -> str:
    """A person as others read them: their full name, else their login name."""
    if user is None:
        return "—"
    return (user.get_full_name() or user.get_username()).strip()


def audit(
    table: TableMatch | None,
    user,
    action: str,
    summary: Words | str = "",
    *,
    before=None,
    after=None,
    reason: str = "",
    match: Match | None = None,
    by_players: bool = False,
) -> None:
    """An audit entry: who did what to which table or match. ``summary`` is words (kept as
    its message and arguments, worded for each reader, and in Chinese for search and
    export), or a text kept as it is."""
    match = match or (table.match if table else None)
    kept = summary.to_json() if isinstance(summary, Words) else None
    entry = AuditEntry(
        tournament=match.round.stage.event.tournament,
        table=table,
        match=match,
        actor=None if by_players else known_user(user),
        by_players=by_players,
        action=action,
        summary=plain_text(str(summary), limit=300),
        words=kept,
        before=before,
        after=after,
        reason=plain_text(reason, limit=300),
    )
    insert(entry)  # AuditEntry.objects.create, its SQL made once: every write leaves one


def save_state(table: TableMatch, state, **also) -> None:
    """The replayed ``state`` saved on the table as its next version (with the other
    fields in ``also``); the tie in progress from its first record."""
    engine = scorer(table)
    stored = engine.state_dict(state)
    save_version(table, state=stored, winner=engine.winner(stored) or "", **also)
    first = table.match.status == Match.Status.PENDING
    if first and Match.objects.filter(pk=table.match_id, status=Match.Status.PENDING).update(
        status=Match.Status.IN_PROGRESS
    ):
        day_status.started(table.match.round.stage.event.tournament)  # 比赛中


def announce_after(write=None, *, one_table: bool = False):
    """Run ``write`` in a transaction of its own, then grow the event's version in a
    statement of its own. Every table of an event shares the event row: were it updated
    inside the write, fifty referees recording at once would queue on its lock. The new
    version is never seen before the change it announces; a change seen a moment before
    its version is cached under the old one and replaced at the next poll.

    ``one_table=True`` (``@announce_after(one_table=True)``): the write changes its table's
    own row and record and nothing else of the event (``Event.bump_version``) — a deal,
    its undo, the start; the tie's status going 进行中 with its first record is the table's
    row changing too, and the tournament's status a change of its own."""
    if write is None:
        return lambda write: announce_after(write, one_table=one_table)
    atomic = transaction.atomic(write)

    @wraps(write)
    def wrapper(*args, **kwargs):
        result = atomic(*args, **kwargs)
        table, changed = (result[0], result[2]) if isinstance(result, tuple) else (result, True)
        if changed:
            announce(table.match.round.stage.event, one_table=one_table)
        return result

    return wrapper


CONNECTION_LOST = (OperationalError, InterfaceError)


def announce(event, *, one_table: bool = False) -> None:
    """Grow the event's version for a write that has committed (``Event.bump_version``).
    The write is saved whatever happens here: a database connection lost since the commit
    is replaced once, and where the database cannot be reached at all the announcement is
    left to the next change (logged) — a saved write is never answered as a failure.
    Inside a caller's transaction nothing is committed yet, and an error stands."""
    try:
        event.bump_version(one_table=one_table)
        return
    except CONNECTION_LOST:
        if connection.in_atomic_block:
            raise
        logger.warning("The connection was lost after a write; announcing on a new one.")
        connection.close()
    try:
        event.bump_version(one_table=one_table)
    except CONNECTION_LOST:
        logger.exception("A saved write could not be announced: the database is unreachable.")
