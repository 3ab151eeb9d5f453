"""The export: every entry of an event as rows of its form, with its state
(:func:`export_workbook`); it imports again into an empty copy of the event, which takes the
entries still registered and says which it left out."""

from __future__ import annotations

from django.utils import translation

from tournaments.models import Event
from tournaments.registration.spreadsheets.layout import (
    FIRST,
    GENDER,
    GENDER_TEXT,
    NAME,
    NUMBER,
    ON_SITE,
    PLAYER_UNIT,
    SECOND,
    STATUS,
    STATUS_REASON,
    UNIT,
    YES,
)
from tournaments.registration.spreadsheets.template import write_workbook


def export_workbook(event: Event) -> bytes:
    """Every entry of the event — withdrawn, eliminated and disqualified ones too — in the
    layout of the template, each with its state and its reason (状态, 状态原因)."""
    return write_workbook(event, rows=_entry_rows(event), example=None, states=True)


def _entry_rows(event: Event) -> list[dict]:
    entries = (
        event.entries.select_related("unit", "player__unit")
        .prefetch_related("pairs__first__unit", "pairs__second__unit")
        .order_by("id")
    )
    rows = []
    for entry in entries:
        on_site = YES if entry.on_site else ""
        with translation.override("zh-hans"):  # the form's words are Chinese
            state = {STATUS: str(entry.get_status_display()), STATUS_REASON: entry.status_reason}

        def person(prefix, player, entry=entry):
            own_unit = "" if player.unit_id == entry.unit_id else player.unit.name
            return {
                prefix + NAME: player.name,
                prefix + GENDER: GENDER_TEXT.get(player.gender, ""),
                prefix + PLAYER_UNIT: own_unit,
            }

        if entry.player is not None:
            rows.append(
                {UNIT: entry.unit.name, **person("", entry.player), ON_SITE: on_site, **state}
            )
            continue
        for pair in entry.pairs.all():
            rows.append(
                {
                    UNIT: entry.unit.name,
                    NUMBER: pair.number,
                    **person(FIRST, pair.first),
                    **person(SECOND, pair.second),
                    ON_SITE: on_site,
                    **state,
                }
            )
    return rows
