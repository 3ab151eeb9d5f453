"""The day planner and the clash check, with no database: examples of each rule, and a
property over random days — halls, events, brackets, people in two events, officials and
breaks — that the plan has no clash, keeps the order and fits the day or says what does not."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments.day.clashes import ENTRANT, OFFICIAL, ORDER, PLACE, find_clashes, uncovered
from tournaments.day.planner import (
    Booking,
    Day,
    Duty,
    EventSpec,
    Hall,
    MatchSpec,
    OfficialSpec,
    plan_day,
)

H = 60
DAY = Day(start=8 * H + 30, end=17 * H + 30, breaks=((12 * H, 13 * H + 30),), changeover=5)


def knockout(event: int, first_id: int, entrants: list[str], *, third_place=False):
    """A single-elimination bracket's matches, each waiting for the two that feed it."""
    matches, layer, next_id, rnd = [], [], first_id, 1
    for i in range(0, len(entrants), 2):
        pair = frozenset(entrants[i : i + 2])
        matches.append(MatchSpec(next_id, event, (0, rnd, "", i // 2), (), pair))
        layer.append(next_id)
        next_id += 1
    people = {m.id: m.people for m in matches}
    while len(layer) > 1:
        rnd += 1
        new = []
        for i in range(0, len(layer), 2):
            a, b = layer[i], layer[i + 1]
            spec = MatchSpec(next_id, event, (0, rnd, "", i // 2), (a, b), people[a] | people[b])
            matches.append(spec)
            people[next_id] = spec.people
            new.append(next_id)
            next_id += 1
        if third_place and len(layer) == 2:
            spec = MatchSpec(
                next_id, event, (0, rnd, "", 1), tuple(layer), people[layer[0]] | people[layer[1]]
            )
            matches.append(spec)
            next_id += 1
        layer = new
    return matches


def check(plan, matches, events, day=DAY):
    specs = {m.id: m for m in matches}
    by_event = {e.id: e for e in events}
    assert (
        find_clashes(plan.bookings, specs, by_event, plan.duties, changeover=day.changeover) == []
    )
    for b in plan.bookings.values():
        for s, e in day.breaks:
            assert b.end <= s or b.start >= e, "a match in a break"
        assert b.start >= day.start
        assert (b.end > day.end) == (b.match in plan.late)
    assert sorted(uncovered(plan.bookings, specs, plan.duties)) == sorted(plan.unrefereed)


def test_a_round_is_played_together_where_courts_allow_and_the_next_waits_for_it():
    events = [EventSpec(1, minutes=30, rest=10, halls=((1, (1, 2, 3, 4)),))]
    matches = knockout(1, 1, [f"p{i}" for i in range(8)])
    plan = plan_day(
        DAY, [Hall(1, "一楼", (1, 2, 3, 4))], events, matches, [OfficialSpec(9, ((0, 24 * H),))]
    )
    starts = [plan.bookings[m.id].start for m in matches]
    assert starts[:4] == [510] * 4  # the four quarter-finals at 08:30 on courts 1–4
    assert starts[4:6] == [510 + 30 + 10] * 2  # the semis after the rest (10 > the changeover)
    assert starts[6] == 510 + 2 * 40
    assert sorted(plan.bookings[m.id].places for m in matches[:4]) == [(1,), (2,), (3,), (4,)]
    check(plan, matches, events)
    assert plan.duties == [Duty(9, 1, 510, 510 + 2 * 40 + 30)]


def test_two_events_in_one_hall_share_its_courts_never_the_same_one_at_once():
    # Badminton may use courts 1–2, table tennis 1–4 of the same hall.
    events = [
        EventSpec(1, minutes=30, rest=10, halls=((1, (1, 2)),)),
        EventSpec(2, minutes=20, rest=10, halls=((1, (1, 2, 3, 4)),)),
    ]
    matches = knockout(1, 1, list("abcd")) + knockout(2, 10, list("efghijkl"))
    plan = plan_day(
        DAY, [Hall(1, "一楼", (1, 2, 3, 4))], events, matches, [OfficialSpec(9, ((0, 24 * H),))]
    )
    check(plan, matches, events)
    at_start = [b for b in plan.bookings.values() if b.start == 510]
    assert sorted(p for b in at_start for p in b.places) == [1, 2, 3, 4]


def test_a_team_tie_takes_side_by_side_tables():
    events = [EventSpec(1, minutes=60, tables=3, halls=((1, tuple(range(1, 8))),))]
    matches = knockout(1, 1, list("abcd"))
    plan = plan_day(DAY, [Hall(1, "活动中心", tuple(range(1, 8)))], events, matches, [])
    assert plan.bookings[1].places == (1, 2, 3) and plan.bookings[2].places == (4, 5, 6)
    assert plan.bookings[1].start == plan.bookings[2].start
    assert plan.unrefereed == [1, 2, 3]  # nobody on duty: placed, and said
    check(plan, matches, events)


def test_a_person_in_two_events_plays_one_match_at_a_time_with_their_rest():
    events = [
        EventSpec(1, minutes=30, rest=15, halls=((1, (1, 2)),)),
        EventSpec(2, minutes=30, rest=15, halls=((2, (1, 2)),)),
    ]
    matches = [
        MatchSpec(1, 1, (0, 1, "", 0), (), frozenset({"王芳", "李娜"})),
        MatchSpec(2, 2, (0, 1, "", 0), (), frozenset({"王芳", "赵敏"})),
    ]
    halls = [Hall(1, "一楼", (1, 2)), Hall(2, "二楼", (1, 2))]
    plan = plan_day(DAY, halls, events, matches, [])
    first, second = sorted(plan.bookings.values(), key=lambda b: b.start)
    assert second.start >= first.end + 15
    check(plan, matches, events)


def test_an_official_is_in_one_hall_at_a_time_and_covers_every_match_there():
    events = [
        EventSpec(1, minutes=30, halls=((1, (1, 2, 3)),)),
        EventSpec(2, minutes=30, halls=((2, (1, 2, 3)),)),
    ]
    matches = knockout(1, 1, list("abcdef")[:4]) + knockout(2, 10, list("ghij"))
    halls = [Hall(1, "一楼", (1, 2, 3)), Hall(2, "二楼", (1, 2, 3))]
    one = [OfficialSpec(7, ((0, 24 * H),))]
    plan = plan_day(DAY, halls, events, matches, one)
    check(plan, matches, events)
    # One official for two halls: the halls take turns, and the duties say when.
    assert all(b.official == 7 for b in plan.bookings.values())
    duties = sorted(plan.duties, key=lambda d: d.start)
    assert len({d.hall for d in duties}) == 2
    assert all(a.end <= b.start for a, b in zip(duties, duties[1:], strict=False))
    alone = max(b.end for b in plan.bookings.values())
    two = one + [OfficialSpec(8, ((0, 24 * H),))]
    plan = plan_day(DAY, halls, events, matches, two)
    assert {b.official for b in plan.bookings.values() if b.hall == 1} != {
        b.official for b in plan.bookings.values() if b.hall == 2
    }
    assert max(b.end for b in plan.bookings.values()) < alone


def test_a_match_that_ends_after_the_day_is_placed_and_said_and_one_no_hall_takes_is_unplaced():
    events = [
        EventSpec(1, minutes=150, halls=((1, (1,)),)),
        EventSpec(2, minutes=30, tables=3, halls=((1, (1,)),)),
    ]
    matches = knockout(1, 1, list("abcd")) + [MatchSpec(20, 2, (), (), frozenset())]
    plan = plan_day(DAY, [Hall(1, "会议室", (1,))], events, matches, [])
    assert plan.late and plan.unplaced == [20]
    check(plan, matches, events)


def test_the_check_names_each_kind_of_clash():
    events = {1: EventSpec(1, minutes=30, rest=10)}
    specs = {
        1: MatchSpec(1, 1, people=frozenset({"a", "b"}), referee=7),
        2: MatchSpec(2, 1, people=frozenset({"a", "c"}), referee=7),
        3: MatchSpec(3, 1, after=(1,), people=frozenset({"a", "b"})),
    }
    bookings = {
        1: Booking(1, 510, 540, 1, (1,)),
        2: Booking(2, 520, 550, 2, (1,)),
        3: Booking(3, 545, 575, 1, (1,)),
    }
    kinds = {
        (c.kind, c.first, c.second) for c in find_clashes(bookings, specs, events, changeover=5)
    }
    assert kinds == {(OFFICIAL, 1, 2), (ENTRANT, 1, 2), (ORDER, 1, 3), (ENTRANT, 2, 3)}
    bookings[2] = Booking(2, 520, 550, 1, (1,))
    kinds = {c.kind for c in find_clashes(bookings, specs, events, changeover=5)}
    assert PLACE in kinds


# -------------------------------------------------------------------------- the property


@st.composite
def days(draw):
    n_halls = draw(st.integers(1, 3))
    halls = [
        Hall(h, f"H{h}", tuple(range(1, draw(st.integers(1, 6)) + 1)))
        for h in range(1, n_halls + 1)
    ]
    people = [f"p{i}" for i in range(draw(st.integers(8, 24)))]
    events, matches, next_id = [], [], 1
    for e in range(1, draw(st.integers(1, 4)) + 1):
        tables = draw(st.sampled_from([1, 1, 1, 2, 3]))
        allowed = []
        for hall in draw(
            st.lists(st.sampled_from(halls), min_size=1, max_size=n_halls, unique_by=lambda h: h.id)
        ):
            places = draw(st.lists(st.sampled_from(hall.places), min_size=1, unique=True))
            allowed.append((hall.id, tuple(sorted(places))))
        events.append(
            EventSpec(
                e,
                minutes=draw(st.integers(10, 90)),
                rest=draw(st.integers(0, 20)),
                tables=tables,
                halls=tuple(allowed),
                order=e,
            )
        )
        size = draw(st.sampled_from([2, 4, 8]))
        entrants = draw(
            st.lists(st.sampled_from(people), min_size=size, max_size=size, unique=True)
        )
        bracket = knockout(e, next_id, entrants, third_place=size >= 4 and draw(st.booleans()))
        matches += bracket
        next_id += len(bracket)
    officials = [
        OfficialSpec(
            100 + i, ((draw(st.integers(6 * H, 10 * H)), draw(st.integers(14 * H, 22 * H))),)
        )
        for i in range(draw(st.integers(0, 3)))
    ]
    lunch = draw(st.booleans())
    day = Day(8 * H, 18 * H, ((12 * H, 13 * H),) if lunch else (), draw(st.integers(0, 10)))
    return day, halls, events, matches, officials


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(days())
def test_the_plan_has_no_clash_keeps_the_order_and_says_what_does_not_fit(case):
    day, halls, events, matches, officials = case
    plan = plan_day(day, halls, events, matches, officials)
    check(plan, matches, events, day)
    unplaced = set(plan.unplaced)
    by_event = {e.id: e for e in events}
    for m in matches:
        spec = by_event[m.event]
        fits = any(
            any(all(q in places for q in range(p, p + spec.tables)) for p in places)
            for _hall, places in spec.halls
        )
        # Unplaced only when no hall of its event has the places it takes (or a match
        # it waits for was not placed), and nothing is left out silently.
        assert (m.id in plan.bookings) != (m.id in unplaced)
        if m.id in unplaced:
            assert not fits or any(a in unplaced for a in m.after)
        for before in m.after:
            if m.id in plan.bookings and before in plan.bookings:
                assert plan.bookings[m.id].start >= plan.bookings[before].end + max(
                    day.changeover, spec.rest
                )
    if officials:
        windows = {o.id: o.windows for o in officials}
        for b in plan.bookings.values():
            if b.official is not None:
                assert any(s <= b.start and b.end <= e for s, e in windows[b.official])
