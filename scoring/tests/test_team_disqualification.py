"""取消比赛资格 of one pair in a Guandan team tie, through the table page: by default the pair
loses its table only and the team plays on; where the tournament says so
(Tournament.team_disqualification) the whole team loses the tie and leaves the event — its
later matches walkovers, no place on the bracket."""

from __future__ import annotations

import pytest
from django.urls import reverse

from scoring.models import AuditEntry, TableMatch
from scoring.tests.test_services import win_table, win_tie
from scoring.tests.test_table_views import HTMX, table_url
from scoring.tests.utils import assign_referee, fresh, guandan, page_data, tables
from tournaments.draw.selectors import placings
from tournaments.models import Entry, Match, Tournament

pytestmark = pytest.mark.django_db

NANTONG = "nantong-2014"


def _to_the_semi_finals(referee, chief) -> tuple[Match, Match, Match]:
    """The quarter-finals won by the home teams: the two semi-finals and the 季军争夺战."""
    event = guandan(NANTONG)
    for match in Match.objects.filter(round__stage__event=event, round__number=1):
        if not fresh(match).is_decided:
            win_tie(match, "A", referee, chief)
    semis = list(Match.objects.filter(round__stage__event=event, round__number=2).order_by("index"))
    third = Match.objects.get(round__stage__event=event, is_third_place=True)
    return semis[0], semis[1], third


def _disqualify_on_the_page(client, table, referee, chief, reason="与对方争吵，影响赛场秩序"):
    """The referee disqualifies the home pair on the table page (the box ticked), submits,
    and the chief referee confirms: every step as the pages post it."""
    assign_referee(TableMatch.objects.filter(pk=table.pk), referee)
    client.force_login(referee)
    url = table_url("scoring:penalty", table)
    data = {"team": "A", "kind": "disqualify", "reason": reason, "key": "dq-1", "confirm": "1"}
    response = client.post(url, page_data(url, data), **HTMX)
    assert response.status_code == 200, response.content.decode()[:300]
    url = table_url("scoring:submit", table)
    assert client.post(url, page_data(url), **HTMX).status_code == 200
    client.force_login(chief)
    url = table_url("scoring:confirm", table)
    response = client.post(url, page_data(url), **HTMX)
    assert response.status_code == 200, response.content.decode()[:300]
    assert "结果已确认" in response.content.decode()
    return fresh(table)


def _bracket(client) -> str:
    return client.get(reverse("live:bracket", args=[NANTONG, "guandan"])).content.decode()


def test_by_default_a_disqualified_pair_loses_its_table_only(client, people):  # noqa: F811
    referee, chief = people
    assert Tournament.objects.get(slug=NANTONG).team_disqualification == "table"
    semi1, semi2, third = _to_the_semi_finals(referee, chief)
    team = semi1.home
    t1, t2, t3 = tables(semi1)
    t1 = _disqualify_on_the_page(client, t1, referee, chief)
    assert (t1.status, t1.winner) == (TableMatch.Status.CONFIRMED, "B")
    # The team plays on: the tie is open, its other tables too, the team is still in.
    semi1 = fresh(semi1)
    assert not semi1.is_decided and (semi1.home_score, semi1.away_score) == (0, 1)
    assert {fresh(t).status for t in (t2, t3)} == {TableMatch.Status.OPEN}
    assert fresh(team).status == Entry.Status.REGISTERED
    # …and wins the tie on its other two tables.
    win_table(t2, "A", referee, chief)
    win_table(t3, "A", referee, chief)
    semi1 = fresh(semi1)
    assert semi1.winner == Match.Side.HOME and (semi1.home_score, semi1.away_score) == (2, 1)
    final = fresh(semi1.winner_to)
    assert team.pk in (final.home_id, final.away_id)
    win_tie(semi2, "A", referee, chief)
    win_tie(fresh(final), "A" if final.home_id == team.pk else "B", referee, chief)
    win_tie(fresh(third), "A", referee, chief)
    places = placings(guandan(NANTONG))
    assert places[0] == (1, fresh(team))
    html = _bracket(client)
    assert "冠军" in html and team.name in html


def test_where_the_tournament_says_so_the_whole_team_loses_the_tie_and_leaves_the_event(
    client,
    people,  # noqa: F811
):
    referee, chief = people
    Tournament.objects.filter(slug=NANTONG).update(team_disqualification="team")
    semi1, semi2, third = _to_the_semi_finals(referee, chief)
    team, opponents = semi1.home, semi1.away
    t1, t2, t3 = tables(semi1)
    # The team's second pair has already won its table: the team still loses the tie.
    win_table(t2, "A", referee, chief)
    t1 = _disqualify_on_the_page(client, t1, referee, chief)
    assert (t1.status, t1.winner) == (TableMatch.Status.CONFIRMED, "B")
    semi1 = fresh(semi1)
    assert semi1.is_decided and semi1.winner == Match.Side.AWAY
    assert "与对方争吵" in semi1.result_note
    # Its last table stops; the team is out of the event, disqualified, with the reason.
    assert fresh(t3).status == TableMatch.Status.NOT_PLAYED
    team = fresh(team)
    assert team.status == Entry.Status.DISQUALIFIED and "与对方争吵" in team.status_reason
    assert AuditEntry.objects.filter(
        match=semi1, action="tie_decided", summary__contains="全队取消比赛资格"
    ).exists()
    # The opponents go on to the final; the team's 季军争夺战 is a walkover.
    final = fresh(semi1.winner_to)
    assert opponents.pk in (final.home_id, final.away_id)
    win_tie(semi2, "A", referee, chief)
    third = fresh(third)
    assert third.status == Match.Status.WALKOVER
    assert third.entry(third.winner) == fresh(semi2).loser_entry
    win_tie(fresh(final), "A", referee, chief)
    # No place for the disqualified team, on the bracket page either.
    event = guandan(NANTONG)
    assert team.pk not in {e.pk for _r, e in placings(event, all_places=True)}
    assert [rank for rank, _e in placings(event)] == [1, 2, 3]
    html = _bracket(client)
    placing_list = html[html.index('class="placing-list"') :]
    placing_list = placing_list[: placing_list.index("</ol>")]
    assert "季军" in placing_list and team.name not in placing_list


def test_the_whole_team_rule_leaves_a_pairs_event_as_it_was(client, people):  # noqa: F811
    # Guandan pairs (安徽): a disqualified pair leaves its event whatever the team rule.
    from scoring.tests.test_services import _play_anhui_to_the_semi_finals

    referee, chief = people
    Tournament.objects.filter(slug="anhui-2021").update(team_disqualification="team")
    semi1, _semi2, _third = _play_anhui_to_the_semi_finals(referee, chief)
    table = tables(semi1)[0]
    assign_referee(TableMatch.objects.filter(pk=table.pk), referee)
    client.force_login(referee)
    url = reverse("scoring:penalty", args=["anhui-2021", "guandan", table.pk])
    data = {"team": "A", "kind": "disqualify", "reason": "争吵", "key": "dq", "confirm": "1"}
    assert client.post(url, page_data(url, data), **HTMX).status_code == 200
    url = reverse("scoring:submit", args=["anhui-2021", "guandan", table.pk])
    assert client.post(url, page_data(url), **HTMX).status_code == 200
    client.force_login(chief)
    url = reverse("scoring:confirm", args=["anhui-2021", "guandan", table.pk])
    assert client.post(url, page_data(url), **HTMX).status_code == 200
    assert fresh(semi1.home).status == Entry.Status.DISQUALIFIED
    assert fresh(semi1).winner == Match.Side.AWAY
