"""Reads of the draw: the current draw and its active entries, group and Swiss tables, placings."""

from __future__ import annotations

from tournaments.draw.plan import AWAY, HOME
from tournaments.draw.rules import groups as group_rules
from tournaments.draw.rules import standings as ranking
from tournaments.models import Draw, Entry, Event, Match, Stage


def active_entries(event: Event) -> list[Entry]:
    return list(
        event.entries.filter(status=Entry.Status.REGISTERED).select_related("unit").order_by("pk")
    )


def current_draw(event: Event) -> Draw | None:
    return event.draws.filter(undone_at__isnull=True).first()


def _results_of(matches) -> list[ranking.MatchResult]:
    results = []
    for m in matches:
        if m.status == Match.Status.BYE:
            results.append(ranking.MatchResult(m.home_id, None, m.home_id))
        elif m.is_decided and m.home_id and m.away_id:
            winner = m.home_id if m.winner == HOME else m.away_id if m.winner == AWAY else None
            results.append(
                ranking.MatchResult(
                    m.home_id, m.away_id, winner, m.home_level_points, m.away_level_points
                )
            )
    return results


def group_tables(stage: Stage, matches: list[Match] | None = None):
    """[(group label, [StandingRow …]) …] for a round-robin stage."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    tables = []
    for g, members in enumerate(stage.settings.get("groups", [])):
        label = group_rules.group_label(g)
        results = _results_of(m for m in matches if m.group == label)
        tables.append((label, ranking.standings(members, results, points=points)))
    return tables


def swiss_table(stage: Stage, matches: list[Match] | None = None) -> dict[int, dict]:
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    points = stage.settings.get("points", (2, 1, 0))
    table: dict[int, dict] = {}

    def row(pk):
        return table.setdefault(
            pk, {"match_points": 0, "level_points": 0.0, "opponents": set(), "byes": 0}
        )

    for m in matches:
        if m.status == Match.Status.BYE:
            row(m.home_id)["match_points"] += points[0]
            row(m.home_id)["byes"] += 1
        elif m.is_decided and m.home_id and m.away_id:
            for pk, other, side in ((m.home_id, m.away_id, HOME), (m.away_id, m.home_id, AWAY)):
                r = row(pk)
                r["opponents"].add(other)
                r["match_points"] += (
                    points[1] if not m.winner else points[0] if m.winner == side else points[2]
                )
                r["level_points"] += m.home_level_points if side == HOME else m.away_level_points
        else:
            for pk, other in ((m.home_id, m.away_id), (m.away_id, m.home_id)):
                if pk:
                    row(pk)["opponents"].add(other)
    return table


def swiss_standings(stage: Stage, matches: list[Match] | None = None) -> list[dict]:
    """The Swiss table after the rounds played (section 10 tie-breaks)."""
    if matches is None:
        matches = list(Match.objects.filter(round__stage=stage))
    members = sorted({pk for m in matches for pk in (m.home_id, m.away_id) if pk})
    points = tuple(stage.settings.get("points", (2, 1, 0)))
    rows = ranking.standings(members, _results_of(matches), points=points)
    return [{"rank": r.rank, "entry": r.entry, "row": r} for r in rows]


def placings(
    event: Event, matches: list[Match] | None = None, *, all_places: bool = False
) -> list[tuple[int, Entry]]:
    """Final places 1–4 once known: from the final and the 季军争夺战 of the last knockout,
    or from the table of a groups/Swiss event without a knockout.

    ``all_places``: once the event is decided, every place its brackets give as well —
    the losers of one knockout round share a place (the four quarter-final losers are all
    5th, the losers of the 1/8 finals all 9th …), an earlier stage's too (a preliminary
    knockout's losers, a Swiss preliminary's entries that did not qualify by their Swiss
    rank). Groups that did not advance get no place."""
    draw = current_draw(event)
    if draw is None:
        return []
    stages = list(draw.stages.order_by("order"))
    if not stages:
        return []
    if all_places:
        matches = list(
            Match.objects.filter(round__stage__draw=draw).select_related("home", "away", "round")
        )
    elif matches is None:
        matches = list(
            Match.objects.filter(round__stage=stages[-1]).select_related("home", "away", "round")
        )
    # A knockout's places are its matches' entries; a table's come from the entries.
    needed = all_places or stages[-1].format != Stage.Format.KNOCKOUT
    entries = {e.pk: e for e in event.entries.all()} if needed else {}
    return places_of(stages, matches, entries, all_places=all_places)


def places_of(
    stages: list[Stage], matches: list[Match], entries: dict[int, Entry], *, all_places=False
) -> list[tuple[int, Entry]]:
    """:func:`placings` from rows already loaded (no query): the draw's stages in order,
    matches with their round (every stage's with ``all_places``, else at least the last
    stage's) and the event's entries by id."""
    if not stages:
        return []
    last = stages[-1]
    mine = [m for m in matches if m.round.stage_id == last.pk]
    out = _podium(last, mine, entries)
    if not all_places or not out or not all(m.is_decided for m in matches):
        return _without_disqualified(out)
    placed = {entry.pk for _rank, entry in out}
    more: list[tuple[int, int]] = []
    for stage in reversed(stages):
        stage_matches = [m for m in matches if m.round.stage_id == stage.pk]
        if stage.format == Stage.Format.KNOCKOUT:
            total = stage.settings.get("total_rounds") or max(
                (m.round.number for m in stage_matches), default=0
            )
            for m in stage_matches:
                loser = m.loser_entry
                if m.is_third_place or loser is None or m.status == Match.Status.BYE:
                    continue
                # Losing in round r of a bracket of 2^total: 2^(total - r) entries go on.
                # (A main knockout's semi-final losers are on the podium already.)
                semi = m.round.number == total - 1
                if m.round.number < total - 1 or (semi and stage.settings.get("stop_at")):
                    more.append((2 ** (total - m.round.number) + 1, loser.pk))
        elif stage.format == Stage.Format.SWISS:
            above = len(placed) + len({pk for _r, pk in more})
            for row in swiss_standings(stage, stage_matches):
                more.append((max(row["rank"], above + 1), row["entry"]))
    for rank, pk in sorted(more):
        if pk not in placed and pk in entries:
            placed.add(pk)
            out.append((rank, entries[pk]))
    return _without_disqualified(out)


def _without_disqualified(places: list[tuple[int, Entry]]) -> list[tuple[int, Entry]]:
    """A disqualified entry (取消资格) receives no place — and so no prize or 纪念奖; the
    others keep the places the bracket gives them (the disqualified one's stays empty)."""
    return [(rank, e) for rank, e in places if e.status != Entry.Status.DISQUALIFIED]


def _podium(last: Stage, matches: list[Match], entries: dict[int, Entry]):
    if last.format == Stage.Format.KNOCKOUT:
        if last.settings.get("stop_at"):
            return []
        final_round = max((m.round.number for m in matches), default=0)
        final = next(
            (m for m in matches if m.round.number == final_round and not m.is_third_place), None
        )
        third = next((m for m in matches if m.is_third_place), None)
        out = []
        if final and final.is_decided and final.winner_entry:
            out += [(1, final.winner_entry)]
            if final.loser_entry:
                out += [(2, final.loser_entry)]
        if third and third.is_decided and third.winner_entry:
            out += [(3, third.winner_entry)]
            if third.loser_entry:
                out += [(4, third.loser_entry)]
        elif final and final.is_decided and not third:
            semis = [m for m in matches if m.round.number == final_round - 1 and m.loser_entry]
            out += [(3, m.loser_entry) for m in semis]
        return out
    if not all(m.is_decided for m in matches):
        return []
    if last.format == Stage.Format.SWISS:
        if len({m.round.number for m in matches}) < last.settings.get("rounds", 0):
            return []
        return [(row["rank"], entries[row["entry"]]) for row in swiss_standings(last, matches)[:4]]
    return []
