"""Reads of table results the pages, documents and services share: names, the tables of
ties, a referee's tables, a table's state in words, the pairs not yet checked in, the upheld
reports awaiting a deduction."""

from __future__ import annotations

import datetime as dt
import json

from django.db import NotSupportedError
from django.db.models import (
    Aggregate,
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    Max,
    OuterRef,
    Q,
    Subquery,
    Sum,
    TextField,
)
from django.db.models.functions import Coalesce
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from scoring.models import (
    PEOPLE,
    AuditEntry,
    CheckIn,
    Report,
    TableCall,
    TableEvent,
    TableMatch,
)
from tournaments.access import CHIEF_ROLES, can_enter_table, is_chief
from tournaments.models import HallDuty, Match, Official, Pair


def pair_name(pair: Pair | None) -> str:
    """A pair's players (钱立、肖慧), or a dash where the table has no pair yet."""
    return pair.display_name if pair else "—"


def people_names(tournament, user_ids) -> dict[int, str]:
    """{user id: the name people know them by}: their name as an official of the tournament
    (钱立, not ``referee-1-1``), else their full name (a leader invited by name), else their
    login name. Two queries at most."""
    ids = {pk for pk in user_ids if pk}
    if not ids:
        return {}
    names: dict[int, str] = {}
    for user_id, name in (
        Official.objects.filter(tournament=tournament, user_id__in=ids)
        .order_by("role", "pk")
        .values_list("user_id", "name")
    ):
        names.setdefault(user_id, name)
    rest = ids - set(names)
    if rest:
        from django.contrib.auth import get_user_model

        for user in get_user_model().objects.filter(pk__in=rest):
            names[user.pk] = (user.get_full_name() or user.get_username()).strip()
    return names


def name_people(tournament, rows, *fields: str) -> None:
    """Set ``<field>_name`` on each row for each user field (``actor``, ``submitted_by`` …):
    the person's name as ``people_names`` gives it, or — when nobody is set."""
    rows = list(rows)
    names = people_names(tournament, {getattr(row, f"{f}_id") for row in rows for f in fields})
    for row in rows:
        for f in fields:
            setattr(row, f"{f}_name", names.get(getattr(row, f"{f}_id"), "—"))


def tie_name(match: Match) -> str:
    """A tie by its two entries (体育—行政); a side not yet known is 待定."""
    home = match.home.name if match.home_id else _("待定")
    away = match.away.name if match.away_id else _("待定")
    return f"{home}—{away}"


def ruled_tie_name(entry: AuditEntry) -> str:
    """The tie an audit entry of a match names: a ruling by the two entries it was made on
    (``AuditEntry.pairing``), not those the match has since; any other entry, and a ruling
    recorded before the pairing was kept, by the match's entries now."""
    pairing = entry.pairing
    if pairing is None:
        return tie_name(entry.match)
    home, away = (
        (side or {}).get("name") or _("待定") for side in (pairing.get("home"), pairing.get("away"))
    )
    return f"{home}—{away}"


def table_place(table: TableMatch) -> str:
    """Where a table is played: its hall table (7号桌), else its place in the tie (第1台)."""
    if table.table_number:
        return _("%(n)s号桌") % {"n": table.table_number}
    if table.home_pair_id or table.number > 1:
        return _("第%(n)s台") % {"n": table.number}
    return ""


def table_heading(table: TableMatch) -> str:
    """A table as lists name it: 1/4决赛 · 体育—行政 · 7号桌 (the round as people call it,
    the tie by both entries, the hall table)."""
    parts = [table.match.round_label, tie_name(table.match), table_place(table)]
    return " · ".join(p for p in parts if p)


def tables_by_match(matches) -> dict[int, list[TableMatch]]:
    """{match id: [its table matches with both pairs' players]} in one query."""
    by_match: dict[int, list[TableMatch]] = {m.pk: [] for m in matches}
    rows = (
        TableMatch.objects.filter(match__in=[m.pk for m in matches])
        .with_people()
        .order_by("match_id", "number")
    )
    for table in rows:
        by_match[table.match_id].append(table)
    return by_match


def show_boards(tables, engine, match=None) -> list[TableMatch]:
    """Set ``board`` on each table: how it looks (``scoring.engines.board.Board``), what the
    pages render. The sides are named by their pairs, or by ``match``'s two entries (a
    singles match; loaded already), else 主方/客方. No query."""
    for table in tables:
        names = {}
        for team, pair, side in (("A", table.home_pair, "home"), ("B", table.away_pair, "away")):
            if pair is not None:
                names[team] = pair_name(pair)
            elif match is not None and getattr(match, f"{side}_id"):
                names[team] = getattr(match, side).name
        table.board = engine.board(table.state, names)
        table.title = engine.table_title(table.number, table.table_number)
    return tables


def tables_of_tie(match) -> list[TableMatch]:
    """One tie's tables with their players and recorded events, in table order."""
    return list(
        TableMatch.objects.filter(match=match)
        .with_people()
        .prefetch_related("events")
        .order_by("number")
    )


# Ties still to be played: a walkover or a bye has nothing left to check in or call time on.
OPEN_MATCH = (Match.Status.PENDING, Match.Status.IN_PROGRESS)


def rounds_in_play(tournament) -> list:
    """The rounds the chief referee's desk lists as in play (进行中的轮次), in the events'
    order, each with ``label``: its name, or the matches' names where the final and the
    季军争夺战 share it (决赛 · 季军争夺战; 季军争夺战 once the final is over).

    A round is in play when a match of it still to be played has a table to play, and
    either play has begun in it (a match in progress) or every such match has its two
    entrants: a match waiting for the winner of another is not in progress, so a
    quarter-final of two byes' winners does not put its round on the desk while the
    round before is still to be played. One query."""
    open_table = TableMatch.objects.filter(match=OuterRef("pk"), status=TableMatch.Status.OPEN)
    matches = list(
        Match.objects.filter(
            round__stage__event__tournament=tournament,
            round__stage__draw__undone_at__isnull=True,
            status__in=OPEN_MATCH,
        )
        .annotate(has_open_table=Exists(open_table))
        .select_related("round__stage__event")
        .order_by("round__stage__event__order", "round__stage__order", "round__number", "index")
    )
    by_round: dict[int, list] = {}
    for m in matches:
        by_round.setdefault(m.round_id, []).append(m)
    rounds = []
    for ms in by_round.values():
        begun = any(m.status == Match.Status.IN_PROGRESS for m in ms)
        known = all(m.home_id and m.away_id for m in ms)
        playable = [m for m in ms if m.has_open_table and m.home_id and m.away_id]
        if playable and (begun or known):
            round = ms[0].round
            round.desk_label = " · ".join(dict.fromkeys(m.round_label for m in playable))
            rounds.append(round)
    return rounds


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


def pending_upheld(table: TableMatch, team: str) -> int:
    return Report.objects.filter(table=table, team=team, upheld=True, penalty__isnull=True).count()


def refereed_by(user) -> Q:  # a user or their id
    """The tables a referee enters: those assigned to them, those of their ties that are
    not given to another referee (a table's own referee overrides the tie's), and those of
    the matches planned to start in a hall while they are on duty there (``HallDuty``)."""
    on_duty = HallDuty.objects.filter(
        official__user=user,
        venue=OuterRef("match__venue"),
        starts_at__lte=OuterRef("match__scheduled_at"),
        ends_at__gt=OuterRef("match__scheduled_at"),
    )
    return (
        Q(referee__user=user)
        | Q(referee__isnull=True, match__referee__user=user)
        | Q(Exists(on_duty))
    )


def with_roles(tables, user_id: int):
    """``tables`` with what the user (``user_id``) may do at each, read in the same query:
    ``user_chief`` (an official of its tournament in ``tournaments.access.CHIEF_ROLES``) and
    ``user_refs`` (``refereed_by``). A superuser is a chief without asking (``is_chief``);
    together they are ``tournaments.access.is_chief`` and ``can_enter_table``
    (``table_roles``)."""
    chief = Official.objects.filter(
        tournament=OuterRef("match__round__stage__event__tournament"),
        user_id=user_id,
        role__in=CHIEF_ROLES,
    )
    return tables.annotate(
        user_chief=Exists(chief),
        user_refs=ExpressionWrapper(refereed_by(user_id), output_field=BooleanField()),
    )


def table_roles(user, table: TableMatch) -> tuple[bool, bool]:
    """(chief, may enter) of ``user`` at ``table``: from ``with_roles`` when the table was
    read with it, else asked (``is_chief``, ``can_enter_table``)."""
    if not user.is_authenticated:
        return False, False
    if hasattr(table, "user_chief"):
        chief = user.is_superuser or table.user_chief
        return chief, chief or bool(table.user_refs)
    chief = is_chief(user, table.match.round.stage.event.tournament)
    return chief, can_enter_table(user, table, chief=chief)


def with_page_counts(tables):
    """``tables`` with what their page shows beside their record, read in the same query:
    ``calls_open`` (a call for the referee not resolved yet) and ``reports_filed`` (how
    many reports). Neither changes the table's version: a write that answers with part of
    the page (a deal's) answers with them as they are now."""
    filed = (
        Report.objects.filter(table=OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return tables.annotate(
        calls_open=Exists(TableCall.objects.filter(table=OuterRef("pk"), resolved_at__isnull=True)),
        reports_filed=Coalesce(Subquery(filed), 0),
    )


class _EventRows(Aggregate):
    """A table's events as one JSON text, ``[[seq, key, payload, undone], …]`` in no
    particular order: PostgreSQL's ``json_agg``, SQLite's ``json_group_array``."""

    output_field = TextField()

    def __init__(self):
        undone = ExpressionWrapper(Q(undone_at__isnull=False), output_field=BooleanField())
        super().__init__(F("seq"), F("key"), F("payload"), undone)

    def as_sql(self, compiler, connection, **extra_context):
        raise NotSupportedError(f"A table's record in one query: not on {connection.vendor}.")

    def as_postgresql(self, compiler, connection, **extra_context):
        return super().as_sql(
            compiler,
            connection,
            template="JSON_AGG(JSON_BUILD_ARRAY(%(expressions)s))::text",
            **extra_context,
        )

    def as_sqlite(self, compiler, connection, **extra_context):
        seq, key, payload, undone = (compiler.compile(e) for e in self.source_expressions)
        sql = f"JSON_GROUP_ARRAY(JSON_ARRAY({seq[0]}, {key[0]}, JSON({payload[0]}), {undone[0]}))"
        return sql, (*seq[1], *key[1], *payload[1], *undone[1])


def with_record(tables):
    """``tables`` with each one's record (``record_rows``, see ``read_with``) read in the
    same query, in the same snapshot as the row and its version: a deal made on that
    version (``services.common.claimed``) needs no read of its own."""
    rows = (
        TableEvent.objects.filter(table=OuterRef("pk"))
        .order_by()
        .values("table")
        .annotate(rows=_EventRows())
        .values("rows")
    )
    return tables.annotate(record_rows=Subquery(rows, output_field=TextField()))


def record_read_with(table: TableMatch) -> list[tuple] | None:
    """The record ``with_record`` read with the table, as the write reads it itself:
    ``(seq, key, payload, undone)`` in order (``undone`` None or True); None if it was not."""
    if "record_rows" not in table.__dict__:
        return None
    rows = json.loads(table.record_rows) if table.record_rows else []
    return [
        (seq, key, payload, True if undone else None)
        for seq, key, payload, undone in sorted(rows, key=lambda row: row[0])
    ]


def tie_state(*, table_id: int | None = None, match_id: int | None = None) -> str | None:
    """What a tie's tables are now — how many, the last, the sum of their versions — for
    the tie of ``match_id`` or of the table ``table_id``: every write to one of them grows
    its version, so while this is the same (and the event's ``wide_version``) the tie's and
    its tables' live pages are too. None for no tie in play. One query."""
    tables = TableMatch.objects.all()
    if table_id is not None:
        tables = tables.filter(
            match_id=Subquery(TableMatch.objects.filter(pk=table_id).values("match_id")[:1])
        )
    else:
        tables = tables.filter(match_id=match_id)
    got = tables.aggregate(n=Count("pk"), top=Max("pk"), versions=Sum("version"))
    if not got["n"]:
        return None
    return f"{got['n']}.{got['top']}.{got['versions']}"


def referee_tables(tournament, user) -> list[TableMatch]:
    """我的台: a referee's tables of the tournament's current draws, in time order (the
    match's planned start, else its round's, then the hall table), with their players, tie
    and event.
    One query."""
    return list(
        TableMatch.objects.filter(
            refereed_by(user),
            match__round__stage__event__tournament=tournament,
            match__round__stage__draw__undone_at__isnull=True,
        )
        .with_people("match__round__stage__event", "match__home", "match__away")
        .order_by(
            # The match's own planned start (the day plan's), else its round's.
            Coalesce("match__scheduled_at", "match__round__starts_at").asc(nulls_last=True),
            "match__round__stage__event__order",
            "match__round__stage__order",
            "match__round__number",
            F("table_number").asc(nulls_last=True),
            "match__index",
            "number",
        )
    )


# A table's state as its lists show it: waiting for confirmation, in play, not started,
# confirmed (the board's order).
# The last: a table stopped because its tie was decided on the others (2 of 3).
TABLE_STATES = ("submitted", "playing", "waiting", "confirmed", "not_played", "walkover")
TABLE_STATE_LABELS = {
    "submitted": gettext_lazy("待确认"),
    "playing": gettext_lazy("进行中"),
    "waiting": gettext_lazy("未开始"),
    "confirmed": gettext_lazy("已确认"),
    "not_played": gettext_lazy("不再进行"),
    # The other side withdrew or was disqualified: the match is decided, nothing to play.
    "walkover": gettext_lazy("不战而胜"),
}


def deadline(table: TableMatch, engine):
    """When the table's time is up, as its rule set counts it (``time_from``: the match's
    scheduled start, else its round's; the referee's 开始; the first deal), or None: no
    clock, or nothing to count from yet. ``table`` with its match and round loaded."""
    if not engine.time_limit_minutes:
        return None
    match = table.match
    began = engine.clock_start(
        scheduled=match.scheduled_at or match.round.starts_at,
        start=table.start_called_at,
        first_deal=table.started_at,
    )
    return None if began is None else began + dt.timedelta(minutes=engine.time_limit_minutes)


def table_state(table: TableMatch, engine) -> str:
    """One of TABLE_STATES (the board's and 我的台's)."""
    if table.status == TableMatch.Status.CONFIRMED:
        return "confirmed"
    if table.status == TableMatch.Status.NOT_PLAYED:
        return "not_played"
    if table.status == TableMatch.Status.SUBMITTED:
        return "submitted"
    if table.match.status == Match.Status.WALKOVER:
        return "walkover"
    if table.started_at or engine.started(table.state) or engine.match_over(table.state):
        return "playing"
    return "waiting"


def show_points(event, matches) -> None:
    """A match's score as people read it, wherever it is shown, from its table: on each
    match of an event scored in points (象棋) ``points`` ({"home": 1.5, "away": 0.5}) and
    ``home_shown``/``away_shown`` ("1½", "½"); on each match of another event played at one
    table ``games_won`` ({"home": 2, "away": 0}: a guandan pairs match's games, so far while
    it is played — see ``Scorer.games_shown``) and ``home_shown``/``away_shown`` as text. Nothing for a team
    tie, whose score is its tables won. One query, none for team ties."""
    engine = event.scorer()
    points = engine.tie_points({}) is not None
    if not points and event.tables_per_match != 1:
        return
    matches = [m for m in matches if m.home_id and m.away_id]
    states = dict(
        TableMatch.objects.filter(match__in=[m.pk for m in matches], number=1).values_list(
            "match_id", "state"
        )
    )
    for m in matches:
        state = states.get(m.pk)
        if state is None:
            continue
        if points:
            m.points = engine.tie_points(state)
            m.home_shown, m.away_shown = engine.points_shown(state)
            continue
        games = engine.games_shown(state)
        if games is not None and m.status != Match.Status.WALKOVER:
            m.games_won = {"home": games[0], "away": games[1]}
            m.home_shown, m.away_shown = str(games[0]), str(games[1])


def open_calls(tournament, *tables_filter: Q) -> list:
    """The calls for the referee (呼叫裁判) not yet dealt with, oldest first, each with its
    table's heading and the pairs' names; only those of tables matching ``tables_filter``
    (a referee's own) when given. One query."""
    rows = TableCall.objects.filter(
        table__match__round__stage__event__tournament=tournament,
        table__match__round__stage__draw__undone_at__isnull=True,
        table__voided_at__isnull=True,
        resolved_at__isnull=True,
    )
    for condition in tables_filter:
        rows = rows.filter(table__in=TableMatch.objects.filter(condition).values("pk"))
    calls = list(
        rows.select_related(
            "table__match__round__stage__event",
            "table__match__home",
            "table__match__away",
            *(f"table__{p}" for p in PEOPLE),
        ).order_by("created_at", "pk")
    )
    for call in calls:
        call.table.heading = table_heading(call.table)
    return calls
