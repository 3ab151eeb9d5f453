"""A referee for a single table: a team tie's tables are covered by the tie's referee
(``Match.referee``) unless one of them is given its own (``TableMatch.referee``), which
then referees that table alone (``scoring.selectors.refereed_by``)."""

from __future__ import annotations

from scoring.models import TableMatch


def on_table_referees_set(sender, *, event, referees, **kwargs) -> None:
    """The schedule gave tables their own referee (``tournaments.draw.signals``), within its
    own transaction: ``referees`` maps a table's id to an official, or to None to hand the
    table back to its tie's referee. Tables not of ``event`` are left alone."""
    if not referees:
        return
    changed = []
    for table in TableMatch.objects.filter(pk__in=referees, match__round__stage__draw__event=event):
        official = referees[table.pk]
        if (official.pk if official else None) != table.referee_id:
            table.referee = official
            changed.append(table)
    TableMatch.objects.bulk_update(changed, ["referee"])
