"""The draw service and moving the bracket on, against the database."""

import pytest

from tournaments.draw.make import draw_event, undo_draw
from tournaments.draw.plan import DrawPlan, ResultError
from tournaments.draw.results import entry_out, record_result
from tournaments.draw.rules.common import DrawError
from tournaments.draw.selectors import group_tables, placings, swiss_standings
from tournaments.models import Draw, Entry, Event, Match, Stage, Unit


@pytest.fixture
def make_event(make_tournament):
    def make(n: int, *, discipline=Event.Discipline.GUANDAN_TEAM, slug="guandan", units=None):
        t = make_tournament()
        event = Event.objects.create(
            tournament=t, slug=slug, name="掼蛋", discipline=discipline, ruleset="nantong2014"
        )
        unit_names = units or [f"队{i + 1}" for i in range(n)]
        made = {}
        for i in range(n):
            name = unit_names[i]
            if name not in made:
                made[name] = Unit.objects.create(
                    tournament=t, name=name, kind=Unit.Kind.UNION_GROUP
                )
            Entry.objects.create(event=event, unit=made[name], name=f"{name}-{i + 1}")
        return event

    return make


def matches(event, **filters):
    return list(
        Match.objects.filter(round__stage__event=event, **filters)
        .select_related("round", "home", "away")
        .order_by("round__stage__order", "round__number", "group", "index")
    )


def play_all(event, pick=lambda m: Match.Side.HOME):
    """Confirm every playable match until the event stands still."""
    while True:
        ready = [m for m in matches(event) if not m.is_decided and m.home_id and m.away_id]
        if not ready:
            return
        for m in ready:
            winner = pick(m)
            record_result(
                match=m,
                winner=winner,
                home_score=2 if winner == "home" else 1,
                away_score=1 if winner == "home" else 2,
            )


def test_a_random_draw_records_its_seed_and_can_be_rerun_identically(make_event):
    event = make_event(11)
    draw = draw_event(event=event, seed=20140516)
    assert draw.method == Draw.Method.RANDOM and draw.seed == 20140516
    first = draw.slots
    undo_draw(event=event)
    again = draw_event(event=event, seed=20140516)
    assert again.slots == first
    assert Draw.objects.filter(event=event).count() == 2  # the undone draw is kept on record
    assert Draw.objects.get(pk=draw.pk).undone_at is not None


def test_a_knockout_of_11_has_byes_only_in_round_1_and_they_move_on_at_once(make_event):
    event = make_event(11)
    draw_event(event=event, seed=1)
    first = matches(event, round__number=1)
    assert len(first) == 8
    byes = [m for m in first if m.status == Match.Status.BYE]
    assert len(byes) == 5
    second = {m.index: m for m in matches(event, round__number=2)}
    for m in byes:  # the entry drawn against a bye is already in round 2
        assert second[m.index // 2].entry("home" if m.index % 2 == 0 else "away") == m.winner_entry
    assert all(m.home_id and m.away_id for m in first if m.status == Match.Status.PENDING)
    names = [r.name for r in event.stages.get().rounds.all()]
    assert names == ["1/8决赛", "1/4决赛", "半决赛", "决赛"]
    event.refresh_from_db()
    assert event.entries_locked


def test_winners_and_losers_move_on_and_placings_come_from_the_final_and_third_place(make_event):
    event = make_event(8)
    draw_event(event=event, seed=7)
    play_all(event)
    final = next(m for m in matches(event) if m.round.name == "决赛" and not m.is_third_place)
    third = next(m for m in matches(event) if m.is_third_place)
    assert third.round.name == "决赛" and third.is_decided
    places = placings(event)
    assert [p for p, _ in places] == [1, 2, 3, 4]
    assert places[0][1] == final.home and places[1][1] == final.away
    assert places[2][1] == third.home


def test_the_nantong_physical_draw_is_entered_as_lots(make_event):
    names = ["体育", "行政", "教务物理联队", "生物数学联队", "历史", "实验技术", "后勤", "政治"]
    event = make_event(8, units=names)
    entries = list(event.entries.order_by("pk"))
    draw = draw_event(
        event=event, method=Draw.Method.PHYSICAL, lots={e.pk: i + 1 for i, e in enumerate(entries)}
    )
    assert draw.seed is None
    pairings = [(m.home.unit.name, m.away.unit.name) for m in matches(event, round__number=1)]
    assert pairings == [
        ("体育", "行政"),
        ("教务物理联队", "生物数学联队"),
        ("历史", "实验技术"),
        ("后勤", "政治"),
    ]


def test_a_physical_draw_needs_a_lot_for_every_entry_and_saves_nothing_otherwise(make_event):
    event = make_event(4)
    entries = list(event.entries.order_by("pk"))
    with pytest.raises(DrawError) as excinfo:
        draw_event(
            event=event, method=Draw.Method.PHYSICAL, lots={entries[0].pk: 1, entries[1].pk: 2}
        )
    assert excinfo.value.code == "missing_lots"
    with pytest.raises(DrawError):
        draw_event(event=event, method=Draw.Method.PHYSICAL, lots={e.pk: 1 for e in entries})
    assert not Draw.objects.exists() and not Match.objects.exists()
    event.refresh_from_db()
    assert event.drawn_at is None


def test_a_draw_cannot_be_made_twice_or_undone_after_a_result(make_event):
    event = make_event(4)
    draw_event(event=event, seed=3)
    with pytest.raises(DrawError, match="已经抽签"):
        draw_event(event=event, seed=4)
    m = matches(event, round__number=1)[0]
    record_result(match=m, winner="away", home_score=1, away_score=2)
    with pytest.raises(DrawError, match="已有比赛结果"):
        undo_draw(event=event)


def test_a_knockout_result_cannot_be_a_draw_nor_entered_twice(make_event):
    event = make_event(4)
    draw_event(event=event, seed=3)
    m = matches(event, round__number=1)[0]
    with pytest.raises(ResultError) as excinfo:
        record_result(match=m, winner=None)
    assert excinfo.value.code == "no_draw_in_knockout"
    record_result(match=m, winner="home", home_score=2, away_score=0)
    with pytest.raises(ResultError):
        record_result(match=m, winner="away")
    final = matches(event, round__number=2)[0]
    with pytest.raises(ResultError) as excinfo:
        record_result(match=final, winner="home")
    assert excinfo.value.code == "not_ready"


def test_a_withdrawn_entry_gives_walkovers_and_is_not_paired_again(make_event):
    event = make_event(8)
    draw_event(event=event, seed=5)
    first = matches(event, round__number=1)[0]
    leaving = first.home
    entry_out(entry=leaving, reason="弃权")
    first.refresh_from_db()
    assert first.status == Match.Status.WALKOVER and first.winner == "away"
    assert first.winner_to.entry(first.winner_to_side) == first.away
    play_all(event)
    assert all(
        leaving.pk not in (m.home_id, m.away_id) for m in matches(event) if m.round.number > 1
    )


def test_a_preliminary_knockout_brings_the_field_to_the_last_8(make_event):
    event = make_event(20)
    draw_event(event=event, seed=11, plan=DrawPlan(qualifiers=8))
    prelim = event.stages.get()
    assert prelim.name == "预赛"
    play_all(event)
    main = event.stages.get(order=2)
    assert main.name == "决赛阶段"
    assert main.rounds.first().name == "1/4决赛"
    assert len(placings(event)) == 4


def test_groups_then_a_knockout_seeded_so_group_winners_do_not_meet_early(make_event):
    event = make_event(12)
    draw_event(event=event, seed=2, plan=DrawPlan(format="groups", groups=4, advance=2))
    stage = event.stages.get()
    assert stage.format == Stage.Format.GROUPS
    assert all(len(m) == 3 for m in stage.settings["groups"])
    play_all(event, pick=lambda m: "home" if m.home_id < m.away_id else "away")
    winners = [table[0].entry for _label, table in group_tables(stage)]
    knockout = event.stages.get(order=2)
    first = list(Match.objects.filter(round__stage=knockout, round__number=1))
    for m in first:
        assert not (m.home_id in winners and m.away_id in winners)
    assert len(placings(event)) == 4


def test_swiss_rounds_are_paired_as_results_come_in_with_no_rematch(make_event):
    event = make_event(9)
    draw_event(event=event, seed=9, plan=DrawPlan(format="swiss", swiss_rounds=4))
    stage = event.stages.get()
    play_all(event, pick=lambda m: "home" if (m.home_id + m.away_id) % 2 else "away")
    assert stage.rounds.count() == 4
    seen = set()
    for m in matches(event):
        if m.away_id:
            pair = frozenset((m.home_id, m.away_id))
            assert pair not in seen
            seen.add(pair)
    byes = [m.home_id for m in matches(event) if m.status == Match.Status.BYE]
    assert len(byes) == 4 and len(set(byes)) == 4
    table = swiss_standings(stage)
    assert [row["rank"] for row in table] == list(range(1, 10))
    assert len(placings(event)) == 4


def test_two_entries_of_one_unit_are_kept_apart_in_round_1_of_a_pairs_event(make_event):
    units = ["农学系", "农学系", "园艺系", "园艺系", "林学系", "林学系", "茶学系", "茶学系"]
    event = make_event(8, discipline=Event.Discipline.GUANDAN_PAIRS, units=units)
    draw_event(event=event, seed=123)
    for m in matches(event, round__number=1):
        assert m.home.unit_id != m.away.unit_id
