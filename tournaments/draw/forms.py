"""The schedule page's form read into typed values (:class:`~tournaments.draw.schedule.ScheduleEdit`):
no request's POST goes below the page."""

from __future__ import annotations

from django.utils.translation import gettext as _

from guandan_cup.inputs import BIG_INT, SMALL_INT, whole_number
from tournaments.draw.schedule import MatchPlace, ScheduleEdit, parse_local


def read_schedule_form(post, *, rounds, matches, tables) -> tuple[ScheduleEdit, list[str]]:
    """The schedule page's fields (``round-<id>``, ``at-<id>``, ``venue-<id>``, ``table-<id>``,
    ``referee-<id>``, ``table-referee-<id>``) for the rounds, matches and team tables shown,
    as typed values — a field not sent leaves its value as it is; a value that is not a time
    or a table number is a problem naming it."""
    edit, problems = ScheduleEdit(accept_clashes=post.get("accept-clashes") == "1"), []
    for r in rounds:
        if f"round-{r.pk}" not in post:
            continue  # not on the form: stays as it is
        raw = post[f"round-{r.pk}"].strip()
        try:
            edit.starts[r.pk] = parse_local(raw) if raw else None
        except ValueError:
            problems.append(
                _("%(round)s的开始时间“%(value)s”无法识别。") % {"round": r.name, "value": raw}
            )
    for m in matches:
        raw = post.get(f"table-{m.pk}", "").strip()
        first_table = whole_number(raw, maximum=SMALL_INT)
        if raw and not first_table:
            problems.append(
                _("%(match)s的桌号“%(value)s”必须是正整数。") % {"match": str(m), "value": raw}
            )
            continue
        at_field, starts_at = f"at-{m.pk}", None
        if post.get(at_field, "").strip():
            try:
                starts_at = parse_local(post[at_field])
            except ValueError:
                problems.append(
                    _("%(match)s的开始时间“%(value)s”无法识别。")
                    % {"match": str(m), "value": post[at_field]}
                )
                continue
        venue_field = f"venue-{m.pk}"
        edit.places[m.pk] = MatchPlace(
            venue_id=_id(post[venue_field]) if venue_field in post else m.venue_id,
            first_table=first_table if f"table-{m.pk}" in post else m.first_table,
            referee_id=_id(post.get(f"referee-{m.pk}", "")),
            set_referee=f"referee-{m.pk}" in post,
            starts_at=starts_at,
            set_start=at_field in post,
        )
    for table in tables:
        name = f"table-referee-{table.pk}"
        if name in post:
            edit.table_referees[table.pk] = _id(post[name])
    return edit, problems


def _id(raw: str) -> int | None:
    return whole_number(raw.strip(), maximum=BIG_INT) if raw else None
