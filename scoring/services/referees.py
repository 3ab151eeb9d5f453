"""A referee for a single table: a team tie's tables are covered by the tie's referee
(``Match.referee``) unless one of them is given its own (``TableMatch.referee``), which
then referees that table alone (``scoring.selectors.refereed_by``)."""

from __future__ import annotations

from django.db import transaction

from scoring.models import TableMatch


@transaction.atomic
def assign_table_referees(*, post, tables, officials) -> int:
    """The schedule page's ``table-referee-<table id>`` fields: an official's id gives the
    table its own referee, an empty value hands it back to the tie's referee. Fields of
    tables not listed, and officials not of the tournament, are ignored. Answers how many
    tables changed."""
    by_id = {str(o.pk): o for o in officials}
    changed = []
    for table in tables:
        field = f"table-referee-{table.pk}"
        if field not in post:
            continue
        official = by_id.get(post[field])
        if (official.pk if official else None) != table.referee_id:
            table.referee = official
            changed.append(table)
    TableMatch.objects.bulk_update(changed, ["referee"])
    return len(changed)
