"""The chief referee's desk lists the rounds in play (进行中的轮次): not a round whose matches
still wait for the winners of the round before — a quarter-final of two byes' winners is
not in progress before the round of 16 is played — and the last round by the names of
what is left in it (决赛 · 季军争夺战, then 季军争夺战)."""

from __future__ import annotations

import random
import re

from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.models import TableMatch
from scoring.services.tables import confirm_table, record_event, submit_table
from tournaments.models import Match, Official
from tournaments.ops import synthetic

ANHUI, NANTONG = "anhui-2021", "nantong-2014"
User = get_user_model()


def _crew(tournament):
    referee = User.objects.create_user(f"{tournament.slug}-referee")
    chief = User.objects.create_user(f"{tournament.slug}-chief")
    Official.objects.create(
        tournament=tournament, name="裁判", role=Official.Role.REFEREE, user=referee
    )
    Official.objects.create(
        tournament=tournament, name="裁判长", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    return referee, chief


def _rounds_listed(client, slug) -> list[str]:
    html = client.get(reverse("scoring:desk", args=[slug])).content.decode()
    return re.findall(r'<div class="round-row" id="round-\d+">\s*<strong>([^<]+)</strong>', html)


def test_a_round_waiting_for_the_round_before_is_not_in_play(client, demo):
    tournament = demo[ANHUI]
    referee, chief = _crew(tournament)
    chess = tournament.events.get(slug="xiangqi")
    quarter = (
        Match.objects.filter(
            round__stage__event=chess, round__number=2, home__isnull=False, away__isnull=False
        )
        .order_by("index")
        .first()
    )
    # Both came through byes: the match is ready, its round is not (two of its four
    # matches wait for round-of-16 winners).
    assert quarter is not None and quarter.tables.filter(status="open").exists()
    client.force_login(chief)
    listed = _rounds_listed(client, ANHUI)
    assert listed == ["掼蛋 · 1/8决赛", "象棋 · 1/8决赛", "羽毛球 · 1/8决赛", "乒乓球 · 1/8决赛"]
    # Once play begins in it, it is in play.
    table = quarter.tables.get()
    record_event(
        table=table, event={"result": "home", "first_move": "home"}, user=referee, key="q1"
    )
    assert Match.objects.get(pk=quarter.pk).status == Match.Status.IN_PROGRESS
    assert "象棋 · 1/4决赛" in _rounds_listed(client, ANHUI)
    assert "乒乓球 · 1/4决赛" not in _rounds_listed(client, ANHUI)


def test_the_last_round_is_listed_by_what_is_left_in_it(client, demo):
    tournament = demo[NANTONG]
    referee, chief = _crew(tournament)
    event = tournament.events.get()
    rng = random.Random(1)
    for number in (1, 2):
        for match in Match.objects.filter(round__stage__event=event, round__number=number):
            synthetic.play_match(match, event, rng)
    client.force_login(chief)
    assert _rounds_listed(client, NANTONG) == ["掼蛋团体赛 · 决赛 · 季军争夺战"]
    final = Match.objects.get(round__stage__event=event, round__number=3, is_third_place=False)
    for table in final.tables.order_by("number")[:2]:
        n = 0
        while not table.is_over:
            table, _t, _c = record_event(
                table=table, event={"order": list("AABB")}, user=referee, key=f"f{table.pk}-{n}"
            )
            n += 1
        submit_table(table=table, user=referee)
        confirm_table(table=TableMatch.objects.get(pk=table.pk), user=chief)
    assert Match.objects.get(pk=final.pk).status == Match.Status.FINISHED
    assert _rounds_listed(client, NANTONG) == ["掼蛋团体赛 · 季军争夺战"]
