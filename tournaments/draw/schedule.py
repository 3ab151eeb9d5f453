"""The schedule (赛程与桌号): each round's start, each match's venue, first table and referee."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from guandan_cup.inputs import SMALL_INT, sensible_year, whole_number
from tournaments.draw import signals
from tournaments.draw.rules.common import DrawError
from tournaments.draw.selectors import current_draw
from tournaments.models import Event, Match, Official, Round


@transaction.atomic
def auto_schedule(*, event: Event, start, round_minutes: int, venue=None) -> None:
    """Give each round a start time and each match a venue and its first table.

    A guandan team tie takes ``pairs_per_team`` tables side by side (three tables: 1–3,
    4–6 …). When the venue has fewer tables than a round needs, the round is played in
    waves, one match length apart; the next round starts after the last wave.
    """
    draw = current_draw(event)
    if draw is None:
        raise DrawError("not_drawn", _("本项目还没有抽签。"))
    per_match = event.tables_per_match
    capacity = (
        (venue.tables // per_match) if venue is not None and venue.tables >= per_match else None
    )
    at = start
    placed = []
    for rnd in Round.objects.filter(stage__draw=draw).order_by("stage__order", "number"):
        playable = [
            m for m in rnd.matches.order_by("group", "index") if m.status != Match.Status.BYE
        ]
        rnd.starts_at = at
        rnd.save(update_fields=["starts_at"])
        for i, match in enumerate(playable):
            wave, place = divmod(i, capacity) if capacity else (0, i)
            match.scheduled_at = at + dt.timedelta(minutes=wave * round_minutes)
            match.venue = venue
            match.first_table = place * per_match + 1
            match.save(update_fields=["scheduled_at", "venue", "first_table"])
            placed.append(match)
        waves = -(-len(playable) // capacity) if capacity and playable else 1
        at += dt.timedelta(minutes=waves * round_minutes)
    signals.tables_placed.send(sender=None, matches=placed)
    event.bump_version()


def parse_local(text: str) -> dt.datetime:
    value = dt.datetime.fromisoformat(text.strip())
    if not sensible_year(value):
        raise ValueError("year out of range")  # 0001-01-01 in Beijing is not storable in UTC
    return timezone.make_aware(value) if timezone.is_naive(value) else value


def assignable_officials(tournament) -> list:
    """Every official of the tournament, login or not: the referees (裁判) first, then the
    chief referee, the arbitration panel and the organisers, each in the order added."""
    rank = {Official.Role.REFEREE: 0, Official.Role.CHIEF_REFEREE: 1}
    officials = list(tournament.officials.all())
    return sorted(officials, key=lambda o: (rank.get(o.role, 2), o.pk))


@transaction.atomic
def assign_referees_in_order(*, matches, referees) -> int:
    """一场一名裁判，按顺序: in each round the ties still to be played (byes left out) get
    the referees (裁判) in order, starting again with the first in the next round. Only the
    referees are used — the chief referee and the panel stay free. Answers how many ties."""
    pool = [o for o in referees if o.role == Official.Role.REFEREE]
    if not pool:
        return 0
    count = 0
    by_round: dict[int, int] = {}
    for m in matches:
        if m.status == Match.Status.BYE:
            continue
        n = by_round.get(m.round_id, 0)
        by_round[m.round_id] = n + 1
        m.referee = pool[n % len(pool)]
        m.save(update_fields=["referee"])
        count += 1
    return count


@transaction.atomic
def save_schedule(*, post, rounds, matches, venues, referees, tables_per_match=1) -> list[str]:
    """The schedule page's form saved in one transaction: each round's start, each match's
    first table, venue and referee. Answers the problems found (nothing saved if any).
    A match's tables (``tables_per_match`` of them from its first) must exist in its venue,
    when the venue gives its table count."""
    problems = []
    venue_by_id = {str(v.pk): v for v in venues}
    referee_by_id = {str(o.pk): o for o in referees}
    for r in rounds:
        raw = post.get(f"round-{r.pk}", "").strip()
        try:
            r.starts_at = parse_local(raw) if raw else None
        except ValueError:
            problems.append(
                _("%(round)s的开始时间“%(value)s”无法识别。") % {"round": r.name, "value": raw}
            )
            continue
        r.save(update_fields=["starts_at"])
    for m in matches:
        raw = post.get(f"table-{m.pk}", "").strip()
        first_table = whole_number(raw, maximum=SMALL_INT)
        if raw and not first_table:
            problems.append(
                _("%(match)s的桌号“%(value)s”必须是正整数。") % {"match": str(m), "value": raw}
            )
            continue
        m.first_table = first_table
        m.venue = venue_by_id.get(post.get(f"venue-{m.pk}", ""), m.venue)
        if first_table and m.venue is not None and m.venue.tables:
            last = first_table + tables_per_match - 1
            if last > m.venue.tables:
                problems.append(
                    _("%(match)s的桌号%(first)d起需要%(count)d张桌，%(venue)s只有%(tables)d张桌。")
                    % {
                        "match": str(m),
                        "first": first_table,
                        "count": tables_per_match,
                        "venue": m.venue.name,
                        "tables": m.venue.tables,
                    }
                )
                continue
        if f"referee-{m.pk}" in post:
            m.referee = referee_by_id.get(post[f"referee-{m.pk}"])
        m.save(update_fields=["first_table", "venue", "referee"])
    if problems:
        transaction.set_rollback(True)
    else:
        signals.tables_placed.send(sender=None, matches=matches)
    return problems
