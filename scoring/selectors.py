"""Reads of table results the pages, documents and services share: names, the tables of
ties, the pairs not yet checked in, the upheld reports awaiting a deduction."""

from __future__ import annotations

from scoring.models import CheckIn, Report, TableMatch
from tournaments.models import Match, Pair


def pair_name(pair: Pair | None) -> str:
    """A pair's players (钱立、肖慧), or a dash where the table has no pair yet."""
    return pair.display_name if pair else "—"


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
