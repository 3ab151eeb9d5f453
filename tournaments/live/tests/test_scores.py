"""A match's score as people read it, live: a team tie in play shows the tables won so far
(1–0, then 1–1) on its bracket card, its tie page and the projector at the next poll; a
guandan pairs match shows its games (2:0), not the table it won (1:0), on the bracket, the
projector, its tie page and in bracket.json."""

from __future__ import annotations

import re

from django.contrib.auth import get_user_model
from django.urls import reverse

from scoring.models import TableMatch
from scoring.services.tables import confirm_table, ensure_tables, record_event, submit_table
from tournaments.models import Match, Official

HTMX = {"HTTP_HX_REQUEST": "true"}
User = get_user_model()


def _officials(tournament):
    referee = User.objects.create_user(f"{tournament.slug}-ref")
    chief = User.objects.create_user(f"{tournament.slug}-chief")
    Official.objects.create(
        tournament=tournament, name="裁判", role=Official.Role.REFEREE, user=referee
    )
    Official.objects.create(
        tournament=tournament, name="裁判长", role=Official.Role.CHIEF_REFEREE, user=chief
    )
    return referee, chief


def _play(table: TableMatch, winner: str, referee, chief, *, confirm=True) -> TableMatch:
    """Deals until the table ends, ``winner`` ("A"/"B") always 上游 with its partner second."""
    loser = "B" if winner == "A" else "A"
    n = 0
    while not table.is_over:
        table, _text, _created = record_event(
            table=table,
            event={"order": [winner, winner, loser, loser]},
            user=referee,
            key=f"t{table.pk}-{n}",
        )
        n += 1
    submit_table(table=table, user=referee)
    if confirm:
        confirm_table(table=TableMatch.objects.get(pk=table.pk), user=chief)
    return TableMatch.objects.get(pk=table.pk)


def _card_scores(html: str, match: Match) -> list[str]:
    card = html[html.index(f'id="match-{match.pk}"') :]
    card = card[: card.index("</li>")]
    return re.findall(r'<span class="score">([^<]*)</span>', card)


def _first_match(event) -> Match:
    return (
        Match.objects.filter(round__stage__event=event, home__isnull=False, away__isnull=False)
        .exclude(status=Match.Status.BYE)
        .order_by("round__number", "index")
        .first()
    )


def test_a_team_tie_in_play_shows_its_running_score_at_the_next_poll(client, demo):
    tournament = demo["nantong-2014"]
    event = tournament.events.get()
    referee, chief = _officials(tournament)
    match = _first_match(event)
    bracket = reverse("live:bracket", args=[tournament.slug, event.slug])
    tie = reverse("live:match", args=[tournament.slug, event.slug, match.pk])
    screen = reverse("live:screen", args=[tournament.slug, event.slug])
    polled = {u: client.get(u, **HTMX) for u in (bracket, tie)}
    assert _card_scores(polled[bracket].content.decode(), match) == []

    tables = ensure_tables(match)
    _play(tables[0], "A", referee, chief)
    for u in (bracket, tie):
        # The poll with the last ETag: the page changed, a 200 with the running score.
        answer = client.get(u, HTTP_IF_NONE_MATCH=polled[u].headers["ETag"], **HTMX)
        assert answer.status_code == 200, u
        assert _card_scores(answer.content.decode(), match) == ["1", "0"], u
        polled[u] = answer
    assert Match.objects.get(pk=match.pk).status == Match.Status.IN_PROGRESS
    assert re.search(r'class="tie-score">\s*1 : 0\s*<', client.get(screen).content.decode())

    _play(tables[1], "B", referee, chief)
    for u in (bracket, tie):
        answer = client.get(u, HTTP_IF_NONE_MATCH=polled[u].headers["ETag"], **HTMX)
        assert answer.status_code == 200
        assert _card_scores(answer.content.decode(), match) == ["1", "1"], u
    full_page = client.get(tie).content.decode()
    assert _card_scores(full_page, match) == ["1", "1"]
    assert re.search(r'class="tie-score">\s*1 : 1\s*<', client.get(screen).content.decode())
    # A team tie keeps its tables won: no games of its own in bracket.json.
    data = client.get(reverse("live:bracket-json", args=[tournament.slug, event.slug])).json()
    shown = next(
        m for s in data["stages"] for r in s["rounds"] for m in r["matches"] if m["id"] == match.pk
    )
    assert shown["score"] == {"home": 1, "away": 1} and "games_won" not in shown


def test_a_guandan_pairs_match_reads_its_games_not_the_table_it_won(client, demo):
    tournament = demo["anhui-2021"]
    event = tournament.events.get(slug="guandan")
    assert event.tables_per_match == 1 and event.scorer().rules.games_to_win == 2
    referee, chief = _officials(tournament)
    match = _first_match(event)
    bracket = reverse("live:bracket", args=[tournament.slug, event.slug])
    tie = reverse("live:match", args=[tournament.slug, event.slug, match.pk])
    screen = reverse("live:screen", args=[tournament.slug, event.slug])

    # In play: the games so far, live.
    table = ensure_tables(match)[0]
    deals = 0
    while table.state["games_won"]["A"] < 1:
        table, _t, _c = record_event(
            table=table, event={"order": ["A", "A", "B", "B"]}, user=referee, key=f"g{deals}"
        )
        deals += 1
    assert _card_scores(client.get(bracket, **HTMX).content.decode(), match) == ["1", "0"]
    assert re.search(r'class="tie-score">\s*1 : 0\s*<', client.get(screen, **HTMX).content.decode())

    _play(table, "A", referee, chief)
    stored = Match.objects.get(pk=match.pk)
    assert stored.status == Match.Status.FINISHED and (stored.home_score, stored.away_score) == (
        1,
        0,
    )
    for u in (bracket, tie):
        assert _card_scores(client.get(u, **HTMX).content.decode(), match) == ["2", "0"], u
    html = client.get(screen).content.decode()
    # The round's slide and the latest results.
    assert len(re.findall(r'class="tie-score">\s*2 : 0\s*<', html)) == 2
    data = client.get(reverse("live:bracket-json", args=[tournament.slug, event.slug])).json()
    shown = next(
        m for s in data["stages"] for r in s["rounds"] for m in r["matches"] if m["id"] == match.pk
    )
    # score keeps its meaning (the table won); the games are added beside it.
    assert shown["score"] == {"home": 1, "away": 0}
    assert shown["games_won"] == {"home": 2, "away": 0}
    one = client.get(reverse("live:match-json", args=[tournament.slug, event.slug, match.pk]))
    assert one.json()["games_won"] == {"home": 2, "away": 0}
