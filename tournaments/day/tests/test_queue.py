"""A hall that calls by queue (按空场叫号): a free court gets the next ready match, a result
frees its court and calls the next, and the chief referee holds or moves the queue."""

from __future__ import annotations

import datetime as dt
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from tournaments.day import queue
from tournaments.draw.results import record_result
from tournaments.models import Match, Tournament

ANHUI = "anhui-2021"


@pytest.fixture
def hall(demo):
    call_command("schedule_day", ANHUI, stdout=StringIO())
    venue = Tournament.objects.get(slug=ANHUI).venues.get(name="轻纺楼一楼")
    venue.by_queue = True
    venue.save()
    return venue


def ready(venue):
    return Match.objects.filter(
        venue=venue, home__isnull=False, away__isnull=False, status=Match.Status.PENDING
    )


def test_free_courts_get_the_next_ready_matches_each_on_its_events_own_courts(hall):
    called = queue.call_free_courts(hall)
    assert called and all(m.called_at for m in called)
    for m in called:
        event = m.round.stage.event.slug
        assert (1 <= m.first_table <= 4) if event == "badminton" else (5 <= m.first_table <= 8)
    assert len({m.first_table for m in called}) == len(called)  # one match per court
    assert queue.call_free_courts(hall) == []  # every free court has its match, or none is ready


def test_a_result_frees_its_court_and_the_next_ready_match_is_called_to_it_after_the_rest(hall):
    called = queue.call_free_courts(hall)
    first = next(m for m in called if m.round.stage.event.slug == "badminton")
    record_result(match=first, winner="home", home_score=2, away_score=0)
    # Its winner goes on to a quarter-final against a bye's entrant: ready, once rested.
    waiting = Match.objects.get(pk=first.winner_to_id)
    assert waiting.called_at is None
    assert queue.not_ready_because(waiting, timezone.now()) == "resting"
    later = timezone.now() + dt.timedelta(minutes=11)
    again = queue.call_free_courts(hall, now=later)
    assert waiting.pk in {m.pk for m in again}
    waiting.refresh_from_db()
    assert waiting.first_table == first.first_table and waiting.scheduled_at == later


def test_an_entrant_rests_before_being_called_again_and_the_chief_holds_or_moves_the_queue(
    hall, client
):
    m = ready(hall).order_by("scheduled_at").first()
    now = timezone.now()
    Match.objects.filter(home=m.home).exclude(pk=m.pk).update(finished_at=None)
    other = (
        Match.objects.filter(round__stage__event=m.round.stage.event)
        .exclude(pk=m.pk)
        .filter(home__isnull=False, away__isnull=False)
        .first()
    )
    Match.objects.filter(pk=other.pk).update(home=m.home, finished_at=now - dt.timedelta(minutes=3))
    assert queue.not_ready_because(Match.objects.get(pk=m.pk), now) == "resting"
    queue.hold(m, held=True)
    assert queue.not_ready_because(Match.objects.get(pk=m.pk), now) == "held"
    last = queue.queue_of(hall)[-1]
    queue.move_to_front(last)
    assert queue.queue_of(hall)[0].pk == last.pk
    # The chief's page, and nobody else's.
    url = reverse("day:queue", args=[ANHUI, hall.pk])
    client.force_login(get_user_model().objects.create_user("someone"))
    assert client.get(url).status_code == 403
    client.force_login(get_user_model().objects.create_superuser("root"))
    html = client.get(url).content.decode()
    assert "轻纺楼一楼叫号" in html and "恢复" in html and "提到最前" in html
    response = client.post(url, {"action": "call"})
    assert response.status_code == 302
    screen = client.get(reverse("day:hall-screen", args=[ANHUI, hall.pk])).content.decode()
    assert "已叫号" in screen


def test_a_hall_on_the_clock_calls_nothing(demo):
    venue = Tournament.objects.get(slug=ANHUI).venues.get(name="轻纺楼一楼")
    assert queue.call_free_courts(venue) == []


def test_an_entrants_unit_page_says_their_match_is_called_and_where(hall, client):
    called = queue.call_free_courts(hall)
    m = called[0]
    html = client.get(reverse("registration:unit", args=[ANHUI, m.home.unit_id])).content.decode()
    import re

    lines = re.findall(r'<p class="next-match">(.*?)</p>', html, re.S)
    called_line = next(line for line in lines if "已叫号" in line)
    assert f"{m.first_table}号桌" in called_line and "轻纺楼一楼" in called_line
