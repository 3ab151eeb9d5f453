"""The units' standings (团体总分) in results.pdf: the table of every unit's points by event, and a certificate (奖状) for each of the top units."""

from __future__ import annotations

from django.utils.translation import gettext, gettext_noop

from tournaments.models import Tournament
from tournaments.standings.read import rows_of
from tournaments.standings.selectors import as_number, standings

# In Chinese, as the results keep the prizes; shown in the reader's language.
UNIT_PRIZES = {
    1: gettext_noop("团体第一名"),
    2: gettext_noop("团体第二名"),
    3: gettext_noop("团体第三名"),
}


def standings_context(tournament: Tournament) -> dict:
    """standings.pdf: the table alone, dated as the results are."""
    return {
        "tournament": tournament,
        "date": tournament.starts_on,
        **unit_results_context(tournament),
    }


def unit_results_context(tournament: Tournament) -> dict:
    """``unit_standings``: the table (rows with per-event points), ``unit_certificates``."""
    st = standings(tournament)
    rows = rows_of(st)
    events = [d.event for d in sorted(st.days.values(), key=lambda d: (d.event.order, d.event.pk))]
    table = []
    for row in rows:
        by_event = {}
        for line in row.lines:
            by_event[line.event.pk] = by_event.get(line.event.pk, 0) + line.points
        table.append(
            {
                "row": row,
                "cells": [_cell(by_event.get(e.pk)) for e in events],
            }
        )
    certificates = []
    for row in st.top:
        prize = UNIT_PRIZES[row.rank]
        won = gettext("%(unit)s在%(tournament)s中荣获团体总分%(prize)s（%(points)s分）。") % {
            "unit": st.units[row.unit].name,
            "tournament": tournament.name,
            "prize": gettext(prize),
            "points": as_number(row.points),
        }
        text = [won, gettext("特发此证，以资鼓励。")]
        certificates.append({"unit": st.units[row.unit], "prize": prize, "text": text})
    return {
        "unit_standings": {
            "final": st.final,
            "events": events,
            "rows": table,
            "points": st.options.points,
            "joint": st.options.joint,
        },
        "unit_certificates": certificates if st.final else [],
    }


def _cell(points) -> str:
    if points is None:
        return ""
    return str(round(points, 2)) if isinstance(points, float) else str(points)
