"""A Swiss round of any size is paired and saved in a fixed number of queries, each tie at
its venue's tables (the big day: 2,048 pairs, 1,024 tables a round)."""

import random

from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.models import TableMatch
from tournaments.draw import make as draw_make
from tournaments.models import EventHall, Match, Venue
from tournaments.ops import synthetic


def _swiss(entries: int, *, kind: str = "pairs", slug: str = "big"):
    event = synthetic.create_event(
        tournament_slug=f"{slug}-{entries}", event_slug="e", entries=entries, kind=kind, seed=4
    )
    return event


def _draw(event, entries: int):
    return draw_make.draw_event(
        event=event, plan=synthetic.plan_for("swiss", entries, rounds=3), seed=4
    )


def _open(event, number: int) -> list[Match]:
    return list(
        Match.objects.filter(round__stage__event=event, round__number=number)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
    )


def _next_round_queries(event, number: int) -> int:
    """Play round ``number`` but its last tie, then count the queries of that tie's result,
    which pairs and saves the next round."""
    rng = random.Random(number)
    *first, last = _open(event, number)
    for match in first:
        synthetic.play_match(match, event, rng)
    with CaptureQueriesContext(connection) as queries:
        synthetic.play_match(last, event, rng)
    assert Match.objects.filter(round__stage__event=event, round__number=number + 1).exists()
    return len(queries)


def test_the_queries_of_a_draw_and_a_next_round_do_not_grow_with_the_field(
    db, django_assert_max_num_queries
):
    small, large = _swiss(8), _swiss(48)
    with CaptureQueriesContext(connection) as queries:
        _draw(small, 8)
    draw_queries = len(queries)
    with django_assert_max_num_queries(draw_queries):
        _draw(large, 48)
    # Round 1's last result pairs round 2; round 2's pairs round 3 (more history to read).
    for number in (1, 2):
        assert _next_round_queries(large, number) <= _next_round_queries(small, number)
    assert len(_open(large, 3)) == 24


def test_each_tie_of_a_swiss_round_sits_at_its_venue_tables_in_pairing_order(db):
    event = _swiss(12)
    _draw(event, 12)
    _next_round_queries(event, 1)
    for number in (1, 2):
        ties = _open(event, number)
        assert [m.first_table for m in ties] == [1, 2, 3, 4, 5, 6]
        assert {m.venue_id for m in ties} == {event.venue_id}
        tables = TableMatch.objects.filter(match__in=ties).order_by("match__index")
        assert [t.table_number for t in tables] == [1, 2, 3, 4, 5, 6]


def test_a_team_tie_takes_its_pairs_tables_side_by_side(db):
    event = _swiss(8, kind="teams", slug="teams")
    _draw(event, 8)
    ties = _open(event, 1)
    assert [m.first_table for m in ties] == [1, 4, 7, 10]
    numbers = TableMatch.objects.filter(match=ties[1]).order_by("number")
    assert [t.table_number for t in numbers] == [4, 5, 6]


def test_a_round_the_venue_cannot_seat_is_left_for_the_schedule_and_a_bye_has_no_table(db):
    event = _swiss(9, slug="small-hall")
    Venue.objects.filter(pk=event.venue_id).update(tables=3)  # four ties need four tables
    event.refresh_from_db()
    _draw(event, 9)
    ties = Match.objects.filter(round__stage__event=event)
    assert ties.count() == 5
    assert all(m.first_table is None and m.venue_id is None for m in ties)
    Venue.objects.filter(pk=event.venue_id).update(tables=4)
    _next_round_queries(event, 1)
    second = Match.objects.filter(round__stage__event=event, round__number=2).order_by("index")
    bye = second.get(status=Match.Status.BYE)
    assert (bye.first_table, bye.venue_id) == (None, None)
    assert [m.first_table for m in second.exclude(pk=bye.pk)] == [1, 2, 3, 4]


def test_a_round_in_a_hall_shared_with_another_event_is_left_for_the_schedule(db):
    event = _swiss(8, slug="shared-hall")
    other = synthetic.create_event(
        tournament_slug="shared-hall-8", event_slug="other", entries=4, kind="pairs"
    )
    assert other.venue_id == event.venue_id  # the tournament's one hall
    _draw(event, 8)
    assert all(m.first_table is None for m in _open(event, 1))
    # Halls set for the day plan: the planner places the ties.
    other.delete()
    EventHall.objects.create(event=event, venue=event.venue, places="1-4")
    _next_round_queries(event, 1)
    assert all(m.first_table is None for m in _open(event, 2))
