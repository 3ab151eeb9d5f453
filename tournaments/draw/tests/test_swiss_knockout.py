"""A Swiss preliminary (积分编排) whose top K go on to a knockout seeded by Swiss rank: drawn and played, against the database."""

import io
import random

import pytest
from django.core.management import call_command

from tournaments.draw.make import draw_event
from tournaments.draw.plan import DrawPlan
from tournaments.draw.read import load_bracket
from tournaments.draw.results import record_result
from tournaments.draw.rules.knockout import ranked_order, slots_by_rank
from tournaments.draw.selectors import placings, swiss_standings
from tournaments.draw.sheet import draw_sheet
from tournaments.models import Entry, Match, Stage
from tournaments.ops import synthetic


def test_ranked_order_lists_the_pairs_as_a_draw_sheet_does():
    assert ranked_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert ranked_order(4) == [1, 4, 2, 3]
    assert ranked_order(2) == [1, 2]
    order = ranked_order(16)
    # Each first-round pair adds up to 17; 1 and 2 in opposite halves, 1–4 in four quarters.
    assert {order[i] + order[i + 1] for i in range(0, 16, 2)} == {17}
    assert 1 in order[:8] and 2 in order[8:]
    assert sorted(order.index(s) // 4 for s in (1, 2, 3, 4)) == [0, 1, 2, 3]


def test_slots_by_rank_give_the_best_ranks_the_byes():
    assert slots_by_rank(list("abcdef")) == ["a", None, "d", "e", "b", None, "c", "f"]


def _play(event, rng):
    """Every ready match decided at random (a draw now and then in the Swiss stage)."""
    while True:
        ready = list(
            Match.objects.filter(
                round__stage__event=event,
                status=Match.Status.PENDING,
                home__isnull=False,
                away__isnull=False,
            ).select_related("round__stage")
        )
        if not ready:
            return
        for match in ready:
            knockout = match.round.stage.format == Stage.Format.KNOCKOUT
            winner = rng.choice(["home", "away"] if knockout else ["home", "away", "home", None])
            diff = rng.randint(1, 9) * (1 if winner == "home" else -1 if winner else 0)
            record_result(
                match=match,
                winner=winner,
                home_score=2 if winner == "home" else 1,
                away_score=2 if winner == "away" else 1,
                home_level_points=diff,
                away_level_points=-diff,
            )


@pytest.mark.parametrize("entries", [20, 33, 64])
def test_the_knockout_holds_exactly_the_swiss_top_k_seeded_by_rank(db, entries):
    event = synthetic.create_event(
        tournament_slug=f"swiss-{entries}", event_slug="guandan", entries=entries, seed=entries
    )
    # A pair of entries withdrawn after the draw: the next in the Swiss table go on instead.
    plan = synthetic.plan_for("swiss", entries, qualifiers=8)
    draw_event(event=event, plan=plan, seed=entries)
    _play(event, random.Random(entries))
    swiss, knockout = list(event.stages.order_by("order"))
    assert (swiss.format, knockout.format) == (Stage.Format.SWISS, Stage.Format.KNOCKOUT)
    rounds = swiss.rounds.count()
    assert rounds == plan.swiss_rounds
    swiss_matches = list(Match.objects.filter(round__stage=swiss))
    met = [frozenset((m.home_id, m.away_id)) for m in swiss_matches if m.away_id]
    assert len(met) == len(set(met)), "a rematch in the Swiss stage"
    top = [row["entry"] for row in swiss_standings(swiss)][:8]
    first = sorted(
        Match.objects.filter(round__stage=knockout, round__number=1), key=lambda m: m.index
    )
    slots = [pk for m in first for pk in (m.home_id, m.away_id)]
    assert slots == [top[rank - 1] for rank in [1, 8, 4, 5, 2, 7, 3, 6]]
    assert Match.objects.filter(round__stage=knockout, is_third_place=True).count() == 1
    places = placings(event)
    assert [rank for rank, _e in places] == [1, 2, 3, 4]
    assert {e.pk for _r, e in places} <= set(top)
    every = placings(event, all_places=True)
    assert [r for r, _e in every][:8] == [1, 2, 3, 4, 5, 5, 5, 5]
    assert len(every) == entries and min(r for r, _e in every[8:]) >= 9
    assert {e.pk for _r, e in every} == set(
        Entry.objects.filter(event=event).values_list("pk", flat=True)
    )


def test_a_withdrawn_entry_gives_its_knockout_place_to_the_next_in_the_table(db):
    event = synthetic.create_event(tournament_slug="swiss-w", event_slug="g", entries=12, seed=3)
    draw_event(event=event, plan=synthetic.plan_for("swiss", 12, qualifiers=4), seed=3)
    rng = random.Random(3)
    swiss = event.stages.get()
    while (
        swiss.rounds.count() < swiss.settings["rounds"]
        or Match.objects.filter(round__stage=swiss, status=Match.Status.PENDING).exists()
    ):
        pending = Match.objects.filter(
            round__stage=swiss, status=Match.Status.PENDING, away__isnull=False
        )
        if swiss.rounds.count() == swiss.settings["rounds"] and pending.count() == 1:
            # Before the last result: the table's leader withdraws.
            leader = swiss_standings(swiss)[0]["entry"]
            Entry.objects.filter(pk=leader).update(status=Entry.Status.WITHDRAWN)
        match = pending.first()
        record_result(match=match, winner=rng.choice(["home", "away"]), home_level_points=1)
    knockout = event.stages.get(format=Stage.Format.KNOCKOUT)
    ranking = [row["entry"] for row in swiss_standings(swiss)]
    active = [pk for pk in ranking if Entry.objects.get(pk=pk).status == Entry.Status.REGISTERED]
    first = sorted(
        Match.objects.filter(round__stage=knockout, round__number=1), key=lambda m: m.index
    )
    assert [pk for m in first for pk in (m.home_id, m.away_id)] == [
        active[r - 1] for r in (1, 4, 2, 3)
    ]


def test_the_draw_sheet_shows_both_stages_as_one_plan(db):
    event = synthetic.create_event(tournament_slug="swiss-s", event_slug="g", entries=10, seed=5)
    draw_event(event=event, plan=synthetic.plan_for("swiss", 10, qualifiers=8), seed=5)
    sheet = draw_sheet(load_bracket(event))
    assert sheet[0].title.startswith("第一阶段")
    assert "决出8强" in sheet[0].title
    assert sheet[1].title.startswith("第二阶段")
    assert [(line.home, line.away) for line in sheet[1].lines[:4]] == [
        ("积分编排第1名", "积分编排第8名"),
        ("积分编排第4名", "积分编排第5名"),
        ("积分编排第2名", "积分编排第7名"),
        ("积分编排第3名", "积分编排第6名"),
    ]
    _play(event, random.Random(5))
    titles = [part.title for part in draw_sheet(load_bracket(event))]
    assert titles[0].startswith("第一阶段") and all(t.startswith("第二阶段") for t in titles[1:])


def test_generate_event_makes_and_plays_a_swiss_to_knockout(db):
    out = io.StringIO()
    call_command(
        "generate_event",
        "gen-sk",
        "g",
        "--entries",
        "10",
        "--format",
        "swiss",
        "--qualifiers",
        "4",
        "--play",
        stdout=out,
    )
    assert "placings: 1." in out.getvalue()
    formats = list(
        Stage.objects.filter(event__slug="g", event__tournament__slug="gen-sk")
        .order_by("order")
        .values_list("format", flat=True)
    )
    assert formats == ["swiss", "knockout"]


def test_entries_of_one_unit_are_kept_apart_in_a_swiss_stage(db, make_tournament):
    from tournaments.models import Event, Unit

    tournament = make_tournament(slug="swiss-units")
    event = Event.objects.create(
        tournament=tournament,
        slug="pairs",
        name="掼蛋双人",
        discipline=Event.Discipline.GUANDAN_PAIRS,
        ruleset="nantong2014",
    )
    units = [
        Unit.objects.create(tournament=tournament, name=f"系{i}", kind=Unit.Kind.DEPARTMENT)
        for i in range(4)
    ]
    for i in range(12):
        Entry.objects.create(event=event, unit=units[i % 4], name=f"对{i}")
    for seed in range(5):
        event.stages.all().delete()
        event.draws.all().delete()
        Event.objects.filter(pk=event.pk).update(drawn_at=None)
        draw_event(event=event, plan=DrawPlan(format="swiss", swiss_rounds=3), seed=seed)
        for rnd in range(3):
            pending = Match.objects.filter(
                round__stage__event=event, status=Match.Status.PENDING
            ).select_related("home", "away")
            assert pending, (seed, rnd)
            for m in pending:
                assert m.home.unit_id != m.away.unit_id, (seed, rnd, m)
            for m in list(pending):
                record_result(match=m, winner="home", home_level_points=1, away_level_points=-1)


def test_the_draw_page_states_the_whole_plan_in_one_line():
    plan = DrawPlan(format="swiss", swiss_rounds=5, qualifiers=8)
    assert plan.summary() == (
        "第一阶段：积分编排5轮；第二阶段：积分前8名淘汰赛，按积分名次1—8、4—5、2—7、3—6对阵，"
        "设季军争夺战"
    )
    assert "第1、2名首轮轮空" in DrawPlan(format="swiss", qualifiers=6).summary()
    assert DrawPlan(format="swiss").summary() == "第一阶段：积分编排5轮，按积分排名次"


def test_a_swiss_event_without_a_knockout_places_everyone_by_its_table(db):
    event = synthetic.create_event(tournament_slug="swiss-only", event_slug="g", entries=9, seed=2)
    draw_event(event=event, plan=synthetic.plan_for("swiss", 9), seed=2)
    assert placings(event, all_places=True) == []
    _play(event, random.Random(2))
    table = [(row["rank"], row["entry"]) for row in swiss_standings(event.stages.get())]
    every = [(rank, entry.pk) for rank, entry in placings(event, all_places=True)]
    assert every == table and len(every) == 9
