"""The export: an event's registered entries as rows of its form (:func:`export_workbook`),
which imports again into an empty copy of the event."""

from __future__ import annotations

from tournaments.models import Entry, Event
from tournaments.registration.spreadsheets.layout import (
    FIRST,
    GENDER,
    GENDER_TEXT,
    NAME,
    NUMBER,
    ON_SITE,
    PLAYER_UNIT,
    SECOND,
    UNIT,
    YES,
)
from tournaments.registration.spreadsheets.template import write_workbook


def export_workbook(event: Event) -> bytes:
    """All registered entries of the event, in the layout of the template."""
    return write_workbook(event, rows=_entry_rows(event), example=None)


def _entry_rows(event: Event) -> list[dict]:
    entries = (
        event.entries.filter(status=Entry.Status.REGISTERED)
        .select_related("unit", "player__unit")
        .prefetch_related("pairs__first__unit", "pairs__second__unit")
        .order_by("id")
    )
    rows = []
    for entry in entries:
        on_site = YES if entry.on_site else ""

        def person(prefix, player, entry=entry):
            own_unit = "" if player.unit_id == entry.unit_id else player.unit.name
            return {
                prefix + NAME: player.name,
                prefix + GENDER: GENDER_TEXT.get(player.gender, ""),
                prefix + PLAYER_UNIT: own_unit,
            }

        if entry.player is not None:
            rows.append({UNIT: entry.unit.name, **person("", entry.player), ON_SITE: on_site})
            continue
        for pair in entry.pairs.all():
            rows.append(
                {
                    UNIT: entry.unit.name,
                    NUMBER: pair.number,
                    **person(FIRST, pair.first),
                    **person(SECOND, pair.second),
                    ON_SITE: on_site,
                }
            )
    return rows
