"""What scoring does when the draw announces a change (``tournaments.draw.signals``)."""

from __future__ import annotations

from scoring.models import TableMatch


def on_tables_placed(sender, *, matches, **kwargs) -> None:
    """The schedule set the ties' first hall tables: each table of a tie takes its number
    (table n of a tie whose first table is t sits at t + n - 1), in every round, the first
    included, and whenever the schedule changes them."""
    first_of = {m.pk: m.first_table for m in matches}
    if not first_of:
        return
    changed = []
    for table in TableMatch.objects.filter(match_id__in=first_of).only(
        "pk", "match_id", "number", "table_number"
    ):
        first = first_of[table.match_id]
        number = first + table.number - 1 if first else None
        if table.table_number != number:
            table.table_number = number
            changed.append(table)
    TableMatch.objects.bulk_update(changed, ["table_number"], batch_size=500)
