"""A tie's result from its confirmed tables: a forfeit that ends an entry's event, the
tie decided (a majority of a team tie's tables, or the one table of a pairs or singles
match) and handed to the draw, and decided again after a correction."""

from __future__ import annotations

from django.utils.translation import gettext as _

from scoring.engines.board import Words, words
from scoring.engines.guandan.play import decide_tie
from scoring.models import AuditEntry, TableMatch
from scoring.services import common
from tournaments.draw import results as draw_results
from tournaments.models import Entry, Event, Match, Tournament


def after_confirmation(table: TableMatch, user) -> None:
    """What a confirmed table moves: the forfeiting entry out of its event where the rules
    say so, then the tie."""
    match = (
        Match.objects.select_for_update()
        .select_related("round__stage__event")
        .get(pk=table.match_id)
    )
    event = match.round.stage.event
    # A forfeit ends the entry's event where the rules say so (Anhui: 弃权 … 比赛资格就此终止;
    # for chess and the ball games always: 弃权者…后面的比赛资格就此终止).
    engine = event.scorer()
    # 取消资格 ends the pair's (or player's) event whatever the rule set says of forfeits:
    # its later matches are walkovers and it receives no place. In a team tie the
    # disqualified pair loses its table (as a forfeited table is a lost table) — or, where
    # the tournament says so (Tournament.team_disqualification), its whole team loses the
    # tie and leaves the event.
    team = event.entry_kind == Event.EntryKind.TEAM
    whole_team = event.tournament.team_disqualification == Tournament.TeamDisqualification.TEAM
    if (
        engine.decided_by(table.state) == "disqualification"
        and table.winner in ("A", "B")
        and (not team or whole_team)
    ):
        loser_id = match.away_id if table.winner == "A" else match.home_id
        if loser_id:
            entry = Entry.objects.get(pk=loser_id)
            if entry.status in (Entry.Status.REGISTERED, Entry.Status.ELIMINATED):
                entry.status = Entry.Status.DISQUALIFIED
                entry.status_reason = _disqualification_reason(table)
                entry.save(update_fields=["status", "status_reason"])
            if team:
                team_disqualified(match, table.winner, user, entry.status_reason)
                return
    elif (
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
    update_tie(match, user)


def team_disqualified(match: Match, winner: str, user, reason: str) -> None:
    """A pair of a team was disqualified and the tournament takes its whole team out: the
    tie goes to the other team (``winner``, "A" or "B") whatever its other tables say, its
    tables still in play stop, and the team's later matches are walkovers."""
    _winner, wins, _decided, level_diff = tie_result(match)
    side = {"A": Match.Side.HOME, "B": Match.Side.AWAY}[winner]
    if not match.is_decided:
        _record(match, side, wins, level_diff, user, note=reason)
    elif match.winner != side or (match.home_score, match.away_score) != (wins["A"], wins["B"]):
        # Decided already (every table played out): the disqualified team loses it.
        draw_results.correct_result(
            match=match,
            winner=side,
            home_score=wins["A"],
            away_score=wins["B"],
            note=reason,
            user=user,
        )
    common.audit(
        None,
        user,
        "tie_decided",
        words(
            "本场结果：%(score)s（%(reason)s，全队取消比赛资格）",
            score=score_words(match, wins),
            reason=reason,
        ),
        match=match,
    )
    stop_remaining_tables(match, user)
    for entry_id in (match.home_id, match.away_id):
        entry = Entry.objects.get(pk=entry_id)
        if entry.status != Entry.Status.REGISTERED:
            draw_results.entry_out(entry=entry, status=entry.status, reason=entry.status_reason)


def _disqualification_reason(table: TableMatch) -> str:
    """取消比赛资格, with the referee's reason for it."""
    penalty = (
        table.events.filter(undone_at__isnull=True, payload__penalty__kind="disqualify")
        .order_by("-seq")
        .first()
    )
    reason = penalty.reason if penalty is not None else ""
    return (_("取消比赛资格：%(reason)s") % {"reason": reason}) if reason else _("取消比赛资格")


def tie_result(match: Match) -> tuple[str | None, dict, bool, float]:
    """(winner "A"/"B"/None, wins {"A", "B"}, decided, home margin) from the confirmed
    tables of a tie. A guandan team tie is won by a majority of tables and its margin is
    the 级差; a single table (guandan pairs, chess, badminton, table tennis) decides the
    match alone, its score is the games won and its margin the games (chess: points)."""
    tables = list(match.tables.order_by("number"))
    confirmed = [t for t in tables if t.status == TableMatch.Status.CONFIRMED]
    engine = match.round.stage.event.scorer()
    if len(tables) == 1:
        # The table's stored state is its replay, written with every event (common.save_state).
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


def score_words(match: Match, wins: dict) -> Words:
    """A tie's score as the audit keeps it, with its two entries: 体育 2–1 行政 (a chess
    match's points with their halves: 张伟 1½–½ 李娜)."""
    home, away = shown_score(match, wins)
    return words(
        "%(home)s %(h)s–%(a)s %(away)s",
        home=match.home.name if match.home_id else "—",
        h=home,
        a=away,
        away=match.away.name if match.away_id else "—",
    )


def shown_score(match: Match, wins: dict) -> tuple:
    """A tie's score as the audit writes it: a chess match's points with their halves
    (1½:½), every other tie's tables or games won."""
    tables = list(match.tables.all())
    if len(tables) == 1:
        points = match.round.stage.event.scorer().points_shown(tables[0].state)
        if points is not None:
            return points
    return wins["A"], wins["B"]


def _record(match: Match, side, wins: dict, level_diff: float, user, *, note: str = "") -> None:
    """The tie's result into the bracket: its winner, tables won and 级差."""
    draw_results.record_result(
        match=match,
        winner=side,
        home_score=wins["A"],
        away_score=wins["B"],
        home_level_points=level_diff,
        away_level_points=-level_diff,
        note=note,
        user=user,
    )


def update_tie(match: Match, user) -> None:
    """Decide the tie from its confirmed tables: the team with a majority of tables wins,
    as soon as it has it; the score keeps counting the remaining tables."""
    winner, wins, decided, level_diff = tie_result(match)
    if match.is_decided:
        if match.home_score != wins["A"] or match.away_score != wins["B"]:
            match.home_score, match.away_score = wins["A"], wins["B"]
            match.save(update_fields=["home_score", "away_score"])
            match.round.stage.event.bump_version()
        return
    if not decided:
        if (match.home_score, match.away_score) != (wins["A"], wins["B"]):
            # The running score of a tie still in play (tables confirmed so far).
            match.home_score, match.away_score = wins["A"], wins["B"]
            match.save(update_fields=["home_score", "away_score"])
            match.round.stage.event.bump_version()
        return
    side = {"A": Match.Side.HOME, "B": Match.Side.AWAY}.get(winner)
    _record(match, side, wins, level_diff, user)
    common.audit(
        None,
        user,
        "tie_decided",
        words("本场结果：%(score)s", score=score_words(match, wins)),
        match=match,
    )
    stop_remaining_tables(match, user)
    # A forfeit that ends an Anhui pair's event: its next opponents get walkovers.
    for entry_id in (match.home_id, match.away_id):
        entry = Entry.objects.get(pk=entry_id)
        if entry.status != Entry.Status.REGISTERED:
            draw_results.entry_out(entry=entry, status=entry.status, reason=entry.status_reason)


def stop_remaining_tables(match: Match, user) -> None:
    """The tie is decided (2 of 3): a table still in play stops where it is (不再进行), unless
    the rule set wants every table played out. A table already submitted keeps its result."""
    if match.round.stage.event.scorer().play_out_decided_ties:
        return
    for table in match.tables.select_for_update().filter(status=TableMatch.Status.OPEN):
        table.status = TableMatch.Status.NOT_PLAYED
        # A referee's page opened before the tie was decided is stale now: its next deal is
        # refused, saying why.
        table.save_new_version("status")
        common.audit(
            table, user, AuditEntry.Action.NOT_PLAYED, words("本场胜负已定，这一台不再进行")
        )


def reopen_stopped_tables(match: Match, user, reason: str) -> None:
    """A correction left the tie undecided: the tables stopped when it was decided play on."""
    for table in match.tables.select_for_update().filter(status=TableMatch.Status.NOT_PLAYED):
        table.status = TableMatch.Status.OPEN
        table.save_new_version("status")
        common.audit(
            table,
            user,
            AuditEntry.Action.RESUMED,
            words("更正后本场胜负未定，这一台继续比赛"),
            reason=reason,
        )


def redecide_tie(match: Match, user, reason: str) -> None:
    """Work the tie out again from its confirmed tables after a correction: a new winner
    (the bracket is re-derived), the same winner with a new score, or — when the corrected
    tables no longer decide it — the tie reopened until they do."""
    match = Match.objects.select_for_update().select_related("round__stage__event").get(pk=match.pk)
    winner, wins, decided, _margin = tie_result(match)
    if winner is None and len(match.tables.all()) == 1:
        decided = False  # a corrected single table without a winner is played on
    if not decided:
        draw_results.reopen_result(
            match=match, home_score=wins["A"], away_score=wins["B"], note=reason
        )
        reopen_stopped_tables(match, user, reason)
        common.audit(
            None,
            user,
            "tie_reopened",
            words("更正后本场胜负未定，继续比赛"),
            match=match,
            reason=reason,
        )
        return
    side = {"A": Match.Side.HOME, "B": Match.Side.AWAY}.get(winner, "")
    draw_results.correct_result(
        match=match, winner=side, home_score=wins["A"], away_score=wins["B"], note=reason, user=user
    )
    common.audit(
        None,
        user,
        "tie_corrected",
        words("本场结果更正为：%(score)s", score=score_words(match, wins)),
        match=match,
        reason=reason,
    )
