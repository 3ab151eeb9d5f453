"""Reads of table results the pages and documents share: names and the tables of ties."""

from __future__ import annotations

from scoring.models import TableMatch
from tournaments.models import Pair


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
