"""Every place an event gives — the podium, and once every match is decided the losers of
each earlier round sharing a place (the quarter-final losers all 5th, the round of 16's
9th) — the same in bracket.json's ``placings``, on the bracket page, on the projector and in
the units' standings, for every event of the two played demos."""

from __future__ import annotations

import re

from django.urls import reverse

from tournaments.draw.selectors import placings


def _section(html: str, start: str, end: str) -> str:
    part = html[html.index(start) :]
    return part[: part.index(end)]


def test_the_bracket_the_projector_and_the_standings_give_the_same_places(client, demo):
    from tournaments.ops.demo import play_demo

    play_demo()
    beyond_fourth = 0
    for slug, tournament in demo.items():
        standings = client.get(reverse("standings:json", args=[slug])).json()
        for event in tournament.events.all():
            expected = {(entry.pk, rank) for rank, entry in placings(event, all_places=True)}
            counted = {
                (line["entry_id"], line["rank"])
                for unit in standings["units"]
                for line in unit["events"]
                if line["event"] == event.slug and line["rank"] is not None
            }
            assert counted == expected, (slug, event.slug)
            data = client.get(reverse("live:bracket-json", args=[slug, event.slug])).json()
            given = {(p["entry_id"], p["rank"]) for p in data["placings"]}
            assert given == expected, (slug, event.slug)
            ranks = [p["rank"] for p in data["placings"]]
            assert ranks == sorted(ranks) and ranks[:2] == [1, 2]
            beyond_fourth += sum(1 for rank in ranks if rank > 4)
            names = {p["name"]: p["rank"] for p in data["placings"]}

            page = client.get(reverse("live:bracket", args=[slug, event.slug])).content.decode()
            listed = _section(page, 'class="placing-list"', "</ol>")
            for line in re.findall(r"<li class=\"rank-(\d+)\">(.*?)</li>", listed):
                rank, body = int(line[0]), line[1]
                for name in re.findall(r'<span class="placed">([^<]+)</span>', body):
                    assert names.pop(name) == rank, (event.slug, name)
            assert names == {}, (event.slug, "not on the bracket page", names)

            screen = client.get(reverse("live:screen", args=[slug, event.slug])).content.decode()
            shown = re.findall(
                r'<span class="placed">([^<]+)</span>',
                "".join(re.findall(r"slide-placings.*?</section>", screen, re.S)),
            )
            assert sorted(shown) == sorted(p["name"] for p in data["placings"]), event.slug
    # The quarter-final and round-of-16 losers of both demos, who used to have a place in
    # the standings only.
    assert beyond_fourth == 32
