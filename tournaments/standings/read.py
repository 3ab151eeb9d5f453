"""The units' standings shaped for people and programs: the page's rows with their labels, and standings.json."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext_lazy as _

from tournaments.standings import rules
from tournaments.standings.selectors import Standings, as_number

# Why an entry earns nothing by rule, as people read it (the JSON gives the code).
REASON_LABELS = {
    rules.AWARD_ONLY: _("只获参与奖，不计团体分"),
    rules.DISQUALIFIED: _("取消资格，不计团体分"),
    rules.NOT_COUNTED: _("本项目不计团体分"),
}


@dataclass
class LineView:
    event: object
    entry: object
    rank: int | None
    share: object  # Fraction
    points: int | float
    reason: str

    @property
    def shared(self) -> bool:
        return self.share != 1

    @property
    def share_text(self) -> str:
        return f"{self.share.numerator}/{self.share.denominator}"


@dataclass
class RowView:
    unit: object
    rank: int
    points: int | float
    lines: list[LineView]
    # [(place, how many)] of the places that count (a joint team's share as a fraction):
    # what orders units with equal points, first places first.
    places: list[tuple[int, int | float]]
    # [points from each event] in the order of Standings' events (None: no entry there).
    by_event: list[int | float | None]
    # Equal points with the unit above or below it: the places decided its rank.
    tied: bool = False


def events_of(st: Standings) -> list:
    """The events that give points, in their order: the columns of the points table."""
    return sorted(st.events_by_slug.values(), key=lambda e: (e.order, e.pk))


def rows_of(st: Standings) -> list[RowView]:
    out = []
    columns = [e.slug for e in events_of(st)]
    points = [row.points for row in st.rows]
    for i, row in enumerate(st.rows):
        lines = []
        for line in row.lines:
            entry = st.entries[line.entry]
            lines.append(
                LineView(
                    event=st.events_by_slug[line.event],
                    entry=entry,
                    rank=line.rank,
                    share=line.share,
                    points=as_number(line.points),
                    reason=REASON_LABELS.get(line.reason, ""),
                )
            )
        lines.sort(key=lambda v: (v.event.order, v.event.pk, v.rank or 10**6, v.entry.pk))
        given: dict[str, object] = {}
        for line in row.lines:
            given[line.event] = given.get(line.event, 0) + line.points
        tied = row.rank is not None and (
            (i > 0 and points[i - 1] == row.points)
            or (i + 1 < len(points) and points[i + 1] == row.points)
        )
        out.append(
            RowView(
                st.units[row.unit],
                row.rank,
                as_number(row.points),
                lines,
                places=[(n, as_number(c)) for n, c in enumerate(row.places, start=1) if c],
                by_event=[as_number(given[slug]) if slug in given else None for slug in columns],
                tied=tied,
            )
        )
    return out


def standings_json(st: Standings) -> dict:
    """standings.json (docs/interfaces.md)."""
    units = []
    for row in st.rows:
        events = []
        for line in sorted(row.lines, key=lambda ln: (ln.event, ln.entry)):
            item = {
                "event": line.event,
                "entry_id": line.entry,
                "rank": line.rank,
                "share": as_number(line.share),
                "points": as_number(line.points),
            }
            if line.reason:
                item["reason"] = line.reason
            events.append(item)
        units.append(
            {
                "unit_id": row.unit,
                "name": st.units[row.unit].name,
                "rank": row.rank,
                "points": as_number(row.points),
                "events": events,
            }
        )
    return {
        "tournament": st.tournament.slug,
        "version": st.version,
        "final": st.final,
        "points": {str(i): p for i, p in enumerate(st.options.points, start=1)},
        "joint": st.options.joint,
        "units": units,
    }
