"""The final and the 季军争夺战 share the last round of a knockout: every list of that round
says which is which (Match.round_label) — the bracket page, the projector, the organiser's
schedule page, the chief referee's board and the score sheets — instead of two unnamed
待定——待定 rows under 决赛."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.urls import reverse

from tournaments.models import Match, Official

NANTONG = "nantong-2014"


def _last_round(event) -> list[Match]:
    last = Match.objects.filter(round__stage__event=event).order_by("-round__number")[0].round
    return list(last.matches.order_by("index"))


def _card(html: str, match: Match) -> str:
    card = html[html.index(f'id="match-{match.pk}"') :]
    return card[: card.index("</li>")]


def test_before_any_result_the_last_rounds_two_rows_are_named(client, demo):
    event = demo[NANTONG].events.get()
    final, third = _last_round(event)
    assert not final.is_third_place and third.is_third_place and final.home_id is None
    organiser = get_user_model().objects.create_superuser("boss")
    client.force_login(organiser)
    html = client.get(reverse("draw:schedule", args=[NANTONG, event.slug])).content.decode()
    section = html[html.index("淘汰赛 · 决赛") :]
    rows = re.findall(r'<span class="match-label">([^<]+)</span><br>待定——待定', section)
    assert rows == ["决赛", "季军争夺战"]
    client.logout()
    page = client.get(reverse("live:bracket", args=[NANTONG, event.slug])).content.decode()
    assert '<p class="match-label">决赛</p>' in _card(page, final)
    assert '<p class="match-label">季军争夺战</p>' in _card(page, third)
    # Another round's cards carry no label: their round's heading says it all.
    first = Match.objects.filter(round__stage__event=event, round__number=1).first()
    assert "match-label" not in _card(page, first)


def test_when_the_last_round_is_played_the_projector_names_both(client, demo):
    from tournaments.ops.demo import play_demo

    play_demo(only=NANTONG)
    tournament = demo[NANTONG]
    event = tournament.events.get()
    final, third = _last_round(event)
    html = client.get(reverse("live:screen", args=[NANTONG, event.slug])).content.decode()
    ties = html[html.index('class="slide slide-ties') : html.index('class="slide slide-tree')]
    assert re.search(r"<h2>决赛 · 季军争夺战", ties), ties[:300]
    labels = re.findall(r'<span class="screen-chips"><span class="table-no">([^<]+)</span>', ties)
    assert labels == ["决赛", "季军争夺战"]
    tree = html[html.index('class="slide slide-tree') :]
    assert '<p class="tree-label">决赛' in tree and '<p class="tree-label">季军争夺战' in tree
    chief = get_user_model().objects.create_user("chief")
    Official.objects.create(
        tournament=tournament, name="裁判长", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    client.force_login(chief)
    board = client.get(
        reverse("scoring:board", args=[NANTONG, event.slug]) + f"?round={final.round_id}"
    ).content.decode()
    assert board.count('<span class="match-label">决赛</span>') == 3  # its three tables
    assert board.count('<span class="match-label">季军争夺战</span>') == 3
