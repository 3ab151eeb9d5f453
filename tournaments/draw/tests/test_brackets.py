"""The draw and the brackets (tournaments.draw.rules.brackets): pure, no database."""

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.draw.rules.common import FINAL_NAME, THIRD_PLACE_NAME, DrawError
from tournaments.draw.rules.groups import (
    group_label,
    round_robin,
    seed_from_groups,
    split_into_groups,
)
from tournaments.draw.rules.knockout import (
    Feeder,
    bracket_size,
    draw_knockout,
    knockout_rounds,
    next_match,
    physical_draw,
    plan_knockout,
    round_name,
    seed_order,
    third_place_feeders,
)
from tournaments.draw.rules.standings import MatchResult, standings

NANTONG_TEAMS = ["体育", "行政", "教务物理联队", "生物数学联队", "历史", "实验技术", "后勤", "政治"]


def meeting_round(slot_a: int, slot_b: int) -> int:
    """The round in which two first-round slots meet (1 = they play each other at once)."""
    return (slot_a ^ slot_b).bit_length()


def summary(plan):
    return [(m.round, m.index, m.name, m.home, m.away, m.bye) for m in plan.matches]


def W(r, i):
    return Feeder(r, i, "winner")


def L(r, i):
    return Feeder(r, i, "loser")


# --- sizes, seeding, names ---------------------------------------------------------------


@pytest.mark.parametrize(
    "n, size", [(2, 2), (3, 4), (4, 4), (5, 8), (8, 8), (9, 16), (20, 32), (300, 512)]
)
def test_bracket_size_is_the_next_power_of_two(n, size):
    assert bracket_size(n) == size


@pytest.mark.parametrize("n", [0, 1])
def test_bracket_size_needs_two_entries(n):
    with pytest.raises(DrawError) as error:
        bracket_size(n)
    assert error.value.code == "too_few_entries"


@pytest.mark.parametrize(
    "size, expected",
    [
        (2, [1, 2]),
        (4, [1, 4, 3, 2]),
        (8, [1, 8, 5, 4, 3, 6, 7, 2]),
        (16, [1, 16, 9, 8, 5, 12, 13, 4, 3, 14, 11, 6, 7, 10, 15, 2]),
    ],
)
def test_seed_order_is_the_standard_one(size, expected):
    assert seed_order(size) == expected


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64, 128, 256])
def test_every_block_of_seed_numbers_has_one_member_in_each_section(size):
    order = seed_order(size)
    sections = 1
    while sections <= size:
        width = size // sections
        for start in range(0, size, sections):
            block = range(start + 1, start + sections + 1)
            hit = sorted(order.index(seed) // width for seed in block)
            assert hit == list(range(sections))
        sections *= 2


@pytest.mark.parametrize(
    "total, names",
    [
        (1, ["决赛"]),
        (2, ["半决赛", "决赛"]),
        (3, ["1/4决赛", "半决赛", "决赛"]),
        (4, ["1/8决赛", "1/4决赛", "半决赛", "决赛"]),
        (5, ["1/16决赛", "1/8决赛", "1/4决赛", "半决赛", "决赛"]),
        (6, ["1/32决赛", "1/16决赛", "1/8决赛", "1/4决赛", "半决赛", "决赛"]),
    ],
)
def test_rounds_are_named_as_people_say_them(total, names):
    assert [round_name(r, total) for r in range(1, total + 1)] == names


@pytest.mark.parametrize(
    "round_number, index, expected",
    [
        (1, 0, (2, 0, "home")),
        (1, 1, (2, 0, "away")),
        (1, 6, (2, 3, "home")),
        (3, 5, (4, 2, "away")),
    ],
)
def test_next_match_moves_the_winner_on(round_number, index, expected):
    assert next_match(round_number, index) == expected


def test_the_semi_final_losers_meet_in_the_third_place_match():
    assert third_place_feeders(3) == ((2, 0), (2, 1))
    with pytest.raises(ValueError):
        third_place_feeders(1)


@pytest.mark.parametrize("size, rounds", [(2, 1), (4, 2), (8, 3), (4096, 12)])
def test_knockout_rounds(size, rounds):
    assert knockout_rounds(size) == rounds


# --- the random draw ---------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(2, 300),
    seed_count=st.integers(0, 16),
    rng_seed=st.integers(0, 2**32),
)
def test_a_random_draw_is_a_valid_seeded_bracket(n, seed_count, rng_seed):
    entries = [f"e{i}" for i in range(n)]
    seed_count = min(seed_count, n)
    seeds = {entries[i]: i + 1 for i in range(seed_count)}
    slots = draw_knockout(entries, seeds=seeds, rng=random.Random(rng_seed))

    size = bracket_size(n)
    assert len(slots) == size
    assert sorted(e for e in slots if e is not None) == sorted(entries)  # each exactly once
    # Byes only in round 1, never bye against bye, and opposite the top seed places.
    order = seed_order(size)
    assert [slot for slot, e in enumerate(slots) if e is None] == [
        slot for slot, seed in enumerate(order) if seed > n
    ]
    plan = plan_knockout(slots)
    assert plan.total_rounds == math.ceil(math.log2(n)) == knockout_rounds(size)
    for match in plan.matches:
        if match.round > 1:
            assert match.home is not None and match.away is not None
        else:
            assert (match.home, match.away) != (None, None)
    # Seeds in their standard places: 1 and 2 meet only in the final, 1–4 not before the semis.
    where = {e: slot for slot, e in enumerate(slots) if e is not None}
    for entry, seed in seeds.items():
        assert order[where[entry]] == seed
    if seed_count >= 2:
        assert meeting_round(where[entries[0]], where[entries[1]]) == plan.total_rounds
    if seed_count >= 4:
        top = [where[entries[i]] for i in range(4)]
        for a in range(4):
            for b in range(a + 1, 4):
                assert meeting_round(top[a], top[b]) >= plan.total_rounds - 1
    # Repeatable: the same seed gives the same draw.
    assert draw_knockout(entries, seeds=seeds, rng=random.Random(rng_seed)) == slots


def test_a_different_seed_gives_a_different_draw():
    entries = list(range(32))
    draws = {tuple(draw_knockout(entries, rng=random.Random(s))) for s in range(5)}
    assert len(draws) == 5


def test_unseeded_entries_land_anywhere():
    # Every entry reaches every slot over enough draws: the fill is not biased by input order.
    entries = list(range(6))
    seen = {e: set() for e in entries}
    for s in range(300):
        for slot, e in enumerate(draw_knockout(entries, rng=random.Random(s))):
            if e is not None:
                seen[e].add(slot)
    free_slots = {slot for slot, seed in enumerate(seed_order(8)) if seed <= 6}
    assert all(slots == free_slots for slots in seen.values())


@settings(max_examples=120, deadline=None)
@given(
    unit_of=st.lists(st.integers(0, 12), min_size=2, max_size=200),
    rng_seed=st.integers(0, 2**32),
)
def test_without_seeds_each_unit_is_spread_evenly_over_the_bracket(unit_of, rng_seed):
    entries = list(range(len(unit_of)))
    units = dict(zip(entries, unit_of, strict=True))
    slots = draw_knockout(entries, units=units, rng=random.Random(rng_seed))
    size = len(slots)
    count = {u: unit_of.count(u) for u in set(unit_of)}
    sections = 2
    while sections <= size // 2:
        width = size // sections
        for start in range(0, size, width):
            here = [units[e] for e in slots[start : start + width] if e is not None]
            for unit in set(here):
                assert here.count(unit) <= math.ceil(count[unit] / sections)
        sections *= 2
    if max(count.values()) <= size // 2:
        for home in range(0, size, 2):
            pair = slots[home : home + 2]
            if None not in pair:
                assert units[pair[0]] != units[pair[1]]


def test_two_entries_of_one_unit_are_in_opposite_halves():
    entries = ["甲1", "甲2", "乙1", "乙2", "丙1"]
    units = {"甲1": "甲", "甲2": "甲", "乙1": "乙", "乙2": "乙", "丙1": "丙"}
    for s in range(50):
        slots = draw_knockout(entries, units=units, rng=random.Random(s))
        where = {e: slot for slot, e in enumerate(slots) if e is not None}
        assert meeting_round(where["甲1"], where["甲2"]) == 3
        assert meeting_round(where["乙1"], where["乙2"]) == 3


def _clash_is_unavoidable(slots, seeded, units, unit):
    """With these seeds (and so these byes) fixed, does every draw pit two of ``unit`` together?

    Only matches with an unseeded place can take the unit's unseeded entries; they must all
    go to different such matches, alongside any seeded entry of the unit already there.
    """
    size = len(slots)
    open_matches = [
        home
        for home in range(0, size, 2)
        if any(e is not None and e not in seeded for e in slots[home : home + 2])
    ]
    need = sum(
        1
        for home in open_matches
        for e in slots[home : home + 2]
        if e is not None and units.get(e) == unit
    )
    seeded_clash = any(
        slots[h] in seeded
        and slots[h + 1] in seeded
        and units.get(slots[h]) == units.get(slots[h + 1]) == unit
        for h in range(0, size, 2)
    )
    return need > len(open_matches) or seeded_clash


def _assert_no_avoidable_clash(slots, seeds, units):
    for home in range(0, len(slots), 2):
        a, b = slots[home], slots[home + 1]
        same_unit = a is not None and b is not None and units.get(a) == units.get(b)
        if same_unit and units.get(a) is not None:
            assert _clash_is_unavoidable(slots, seeds, units, units[a])


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(2, 64),
    unit_count=st.integers(1, 5),
    seed_count=st.integers(0, 12),
    rng_seed=st.integers(0, 2**32),
)
def test_same_unit_entries_never_meet_in_round_one_when_avoidable(
    n, unit_count, seed_count, rng_seed
):
    rng = random.Random(rng_seed)
    entries = list(range(n))
    units = {e: u for e in entries if (u := rng.choice([None, *range(unit_count)])) is not None}
    seeds = {e: e + 1 for e in entries[: min(seed_count, n)]}
    slots = draw_knockout(entries, seeds=seeds, units=units, rng=rng)
    _assert_no_avoidable_clash(slots, seeds, units)


def test_the_last_pass_moves_a_team_mate_the_seeds_left_facing_each_other():
    # Found by search: the seeds leave the halves unequal, and balancing alone left 6 and 9
    # (both of unit 0) together in round 1.
    unit_of = [None] * 6 + [0, None, None, 0, 0, 0, 0, 0, 0]
    units = {e: u for e, u in enumerate(unit_of) if u is not None}
    seeds = {e: e + 1 for e in range(5)}
    for s in range(40):
        slots = draw_knockout(list(range(15)), seeds=seeds, units=units, rng=random.Random(s))
        _assert_no_avoidable_clash(slots, seeds, units)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 300), rng_seed=st.integers(0, 2**32))
def test_with_few_units_of_at_most_half_the_field_nobody_meets_a_team_mate_first(n, rng_seed):
    rng = random.Random(rng_seed)
    entries = list(range(n))
    units = {e: rng.randrange(max(2, n // 5)) for e in entries}
    largest = max(list(units.values()).count(u) for u in set(units.values()))
    slots = draw_knockout(entries, units=units, seeds={0: 1, 1: 2}, rng=rng)
    if largest <= n // 2 and units[0] != units[1]:
        for home in range(0, len(slots), 2):
            a, b = slots[home], slots[home + 1]
            assert a is None or b is None or units[a] != units[b]


@pytest.mark.parametrize(
    "seeds, code",
    [
        ({"x": 1}, "unknown_entry"),
        ({"a": 1, "b": 1}, "duplicate_seed"),
        ({"a": 1, "b": 3}, "seed_gap"),
        ({"a": 0}, "invalid_seed"),
        ({"a": "1"}, "invalid_seed"),
    ],
)
def test_bad_seeds_are_refused(seeds, code):
    with pytest.raises(DrawError) as error:
        draw_knockout(["a", "b", "c"], seeds=seeds, rng=random.Random(1))
    assert error.value.code == code


@pytest.mark.parametrize(
    "entries, code", [(["a"], "too_few_entries"), (["a", "b", "a"], "duplicate_entry")]
)
def test_a_bad_field_is_refused(entries, code):
    with pytest.raises(DrawError) as error:
        draw_knockout(entries, rng=random.Random(1))
    assert error.value.code == code


# --- the physical draw -------------------------------------------------------------------


def test_the_nantong_draw_as_the_notice_shows_it():
    lots = {team: i + 1 for i, team in enumerate(NANTONG_TEAMS)}
    slots = physical_draw(lots)
    assert slots == NANTONG_TEAMS
    plan = plan_knockout(slots)
    first = plan.round_matches(1)
    sheet = [f"{group_label(m.index)}：{m.home}——{m.away}" for m in first]
    assert sheet == [
        "A组：体育——行政",
        "B组：教务物理联队——生物数学联队",
        "C组：历史——实验技术",
        "D组：后勤——政治",
    ]
    # 第二阶段 A1——B1, C1——D1; then the final and the third-place match.
    assert [(m.home, m.away) for m in plan.round_matches(2)] == [
        (W(1, 0), W(1, 1)),
        (W(1, 2), W(1, 3)),
    ]
    final, third = plan.round_matches(3)
    assert (final.name, final.home, final.away) == (FINAL_NAME, W(2, 0), W(2, 1))
    assert (third.name, third.home, third.away) == (THIRD_PLACE_NAME, L(2, 0), L(2, 1))


def test_a_physical_draw_accepts_lots_as_typed_and_leaves_byes_empty():
    slots = physical_draw({"a": "1", "b": 2.0, "c": "３", "d": 5, "e": 7})
    assert slots == ["a", "b", "c", None, "d", None, "e", None]


def test_a_physical_draw_can_use_a_larger_bracket():
    slots = physical_draw({"a": 1, "b": 3, "c": 5, "d": 7}, size=8)
    assert slots == ["a", None, "b", None, "c", None, "d", None]


@pytest.mark.parametrize(
    "lots, size, code, words",
    [
        ({"a": 1}, None, "too_few_entries", "至少需要2个"),
        ({"a": 1, "b": 2}, 6, "invalid_size", "2、4、8"),
        ({"a": 1, "b": 2, "c": 3}, 2, "size_too_small", "放不进"),
        ({"a": 1, "b": "二"}, None, "invalid_lot", "不是整数"),
        ({"a": 1, "b": 2.5}, None, "invalid_lot", "不是整数"),
        ({"a": 1, "b": True}, None, "invalid_lot", "不是整数"),
        ({"a": 1, "b": None}, None, "invalid_lot", "不是整数"),
        ({"a": 0, "b": 1}, None, "lot_out_of_range", "不在1到2之间"),
        ({"a": 1, "b": 2, "c": 5}, None, "lot_out_of_range", "不在1到4之间"),
        ({"a": 1, "b": 1}, None, "duplicate_lot", "1号签"),
        ({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}, None, "bye_against_bye", "7号和8号"),
    ],
)
def test_a_wrong_physical_draw_is_refused_with_the_reason(lots, size, code, words):
    with pytest.raises(DrawError) as error:
        physical_draw(lots, size)
    assert error.value.code == code
    assert words in error.value.message


def test_bye_against_bye_names_every_empty_match():
    with pytest.raises(DrawError) as error:
        physical_draw({"a": 1, "b": 3, "c": 5}, size=8)
    assert error.value.code == "bye_against_bye"
    assert "7号和8号" in error.value.message


# --- the knockout plan -------------------------------------------------------------------


def test_the_plan_for_five_entries():
    plan = plan_knockout([1, None, 5, 4, 3, None, None, 2])
    assert summary(plan) == [
        (1, 0, "1/4决赛", 1, None, True),
        (1, 1, "1/4决赛", 5, 4, False),
        (1, 2, "1/4决赛", 3, None, True),
        (1, 3, "1/4决赛", None, 2, True),
        (2, 0, "半决赛", 1, W(1, 1), False),
        (2, 1, "半决赛", 3, 2, False),
        (3, 0, "决赛", W(2, 0), W(2, 1), False),
        (3, 1, "季军争夺战", L(2, 0), L(2, 1), False),
    ]
    assert plan.match(3, 1).third_place
    assert plan.placings == ((1, W(3, 0)), (2, L(3, 0)), (3, W(3, 1)), (4, L(3, 1)))


def test_the_plan_for_six_entries_without_third_place():
    plan = plan_knockout([1, None, 5, 4, 3, 6, None, 2], third_place=False)
    assert summary(plan) == [
        (1, 0, "1/4决赛", 1, None, True),
        (1, 1, "1/4决赛", 5, 4, False),
        (1, 2, "1/4决赛", 3, 6, False),
        (1, 3, "1/4决赛", None, 2, True),
        (2, 0, "半决赛", 1, W(1, 1), False),
        (2, 1, "半决赛", W(1, 2), 2, False),
        (3, 0, "决赛", W(2, 0), W(2, 1), False),
    ]
    # Without a third-place match both losing semi-finalists are third (并列第三).
    assert plan.placings == ((1, W(3, 0)), (2, L(3, 0)), (3, L(2, 0)), (3, L(2, 1)))


@pytest.mark.parametrize("third_place, matches", [(True, 8), (False, 7)])
def test_the_plan_for_eight_entries(third_place, matches):
    plan = plan_knockout(list("ABCDEFGH"), third_place=third_place)
    assert len(plan.matches) == matches
    assert [m.name for m in plan.matches][:7] == ["1/4决赛"] * 4 + ["半决赛"] * 2 + ["决赛"]
    assert not any(m.bye for m in plan.matches)
    assert [(m.home, m.away) for m in plan.round_matches(1)] == [
        ("A", "B"),
        ("C", "D"),
        ("E", "F"),
        ("G", "H"),
    ]
    assert any(m.third_place for m in plan.matches) == third_place


def test_three_entries_have_no_third_place_match():
    plan = plan_knockout([1, None, 3, 2])
    assert summary(plan) == [
        (1, 0, "半决赛", 1, None, True),
        (1, 1, "半决赛", 3, 2, False),
        (2, 0, "决赛", 1, W(1, 1), False),
    ]
    assert plan.placings == ((1, W(2, 0)), (2, L(2, 0)), (3, L(1, 1)))


def test_two_entries_play_only_the_final():
    plan = plan_knockout(["a", "b"])
    assert summary(plan) == [(1, 0, "决赛", "a", "b", False)]
    assert plan.placings == ((1, W(1, 0)), (2, L(1, 0)))


def test_a_preliminary_knockout_stops_at_the_last_eight():
    slots = draw_knockout(list(range(20)), rng=random.Random(5))
    plan = plan_knockout(slots, stop_at=8)
    assert (plan.size, plan.total_rounds, plan.rounds) == (32, 5, 2)
    assert [len(plan.round_matches(r)) for r in (1, 2, 3)] == [16, 8, 0]
    assert {m.name for m in plan.round_matches(1)} == {"1/16决赛"}
    assert {m.name for m in plan.round_matches(2)} == {"1/8决赛"}
    assert sum(m.bye for m in plan.matches) == 12
    assert not any(m.third_place for m in plan.matches)
    assert plan.advancing == tuple(W(2, i) for i in range(8))
    assert plan.placings == ()


def test_a_one_round_preliminary_sends_bye_entries_straight_on():
    plan = plan_knockout([1, None, 5, 4, 3, 6, None, 2], stop_at=4)
    assert plan.advancing == (1, W(1, 1), W(1, 2), 2)


@pytest.mark.parametrize("stop_at", [1, 3, 6, 8, 16])
def test_stop_at_must_be_a_smaller_power_of_two(stop_at):
    with pytest.raises(DrawError) as error:
        plan_knockout(list(range(8)), stop_at=stop_at)
    assert error.value.code == "invalid_stop_at"


@pytest.mark.parametrize(
    "slots, code",
    [
        ([1, 2, 3], "invalid_size"),
        ([1, None, None, None], "too_few_entries"),
        ([1, 2, None, None], "bye_against_bye"),
        ([1, 2, 1, 3], "duplicate_entry"),
    ],
)
def test_a_bad_bracket_is_refused(slots, code):
    with pytest.raises(DrawError) as error:
        plan_knockout(slots)
    assert error.value.code == code


# --- groups ------------------------------------------------------------------------------


@pytest.mark.parametrize("index, label", [(0, "A组"), (1, "B组"), (25, "Z组"), (26, "AA组")])
def test_group_labels(index, label):
    assert group_label(index) == label


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_pairs_everyone_once(n):
    entries = [f"t{i}" for i in range(n)]
    rounds = round_robin(entries)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    met, home, away, byes = set(), dict.fromkeys(entries, 0), dict.fromkeys(entries, 0), []
    for matches in rounds:
        playing = [e for pair in matches for e in pair if e is not None]
        assert sorted(playing) == sorted(entries)  # each entry once per round
        for a, b in matches:
            if b is None:
                byes.append(a)
                continue
            assert frozenset((a, b)) not in met
            met.add(frozenset((a, b)))
            home[a] += 1
            away[b] += 1
    assert len(met) == n * (n - 1) // 2
    assert sorted(byes) == (sorted(entries) if n % 2 else [])
    assert all(abs(home[e] - away[e]) <= 1 for e in entries)


@pytest.mark.parametrize(
    "n, groups, sizes", [(8, 2, [4, 4]), (10, 3, [4, 3, 3]), (11, 4, [3, 3, 3, 2]), (4, 2, [2, 2])]
)
def test_groups_differ_in_size_by_at_most_one(n, groups, sizes):
    split = split_into_groups(list(range(n)), groups, rng=random.Random(1))
    assert [len(g) for g in split] == sizes
    assert sorted(e for g in split for e in g) == list(range(n))


def test_seeds_are_dealt_in_a_snake():
    entries = [f"s{i}" for i in range(1, 9)] + ["x", "y", "z", "w"]
    seeds = {f"s{i}": i for i in range(1, 9)}
    split = split_into_groups(entries, 4, seeds=seeds, rng=random.Random(3))
    assert [g[:2] for g in split] == [["s1", "s8"], ["s2", "s7"], ["s3", "s6"], ["s4", "s5"]]
    assert all(len(g) == 3 for g in split)


def test_the_snake_skips_a_full_group():
    split = split_into_groups(
        [1, 2, 3, 4, 5], 2, seeds={i: i for i in range(1, 6)}, rng=random.Random(1)
    )
    assert split == [[1, 4, 5], [2, 3]]
    split = split_into_groups(
        list(range(1, 8)), 3, seeds={i: i for i in range(1, 8)}, rng=random.Random(1)
    )
    assert split == [[1, 6, 7], [2, 5], [3, 4]]


@settings(max_examples=100, deadline=None)
@given(
    unit_of=st.lists(st.integers(0, 8), min_size=4, max_size=80),
    groups=st.integers(1, 8),
    rng_seed=st.integers(0, 2**32),
)
def test_groups_spread_each_unit(unit_of, groups, rng_seed):
    groups = min(groups, len(unit_of) // 2)
    entries = list(range(len(unit_of)))
    units = dict(zip(entries, unit_of, strict=True))
    split = split_into_groups(entries, groups, units=units, rng=random.Random(rng_seed))
    assert max(map(len, split)) - min(map(len, split)) <= 1
    for unit in set(unit_of):
        count = unit_of.count(unit)
        for group in split:
            here = sum(1 for e in group if units[e] == unit)
            assert count // groups <= here <= math.ceil(count / groups)
    assert split == split_into_groups(entries, groups, units=units, rng=random.Random(rng_seed))


@pytest.mark.parametrize(
    "n, groups, code", [(5, 3, "too_many_groups"), (5, 0, "invalid_group_count")]
)
def test_impossible_groups_are_refused(n, groups, code):
    with pytest.raises(DrawError) as error:
        split_into_groups(list(range(n)), groups, rng=random.Random(1))
    assert error.value.code == code


# --- standings ---------------------------------------------------------------------------


def R(home, away, winner, home_levels=0, away_levels=0):
    return MatchResult(home, away, winner, home_levels, away_levels)


def table(rows):
    return [(row.entry, row.match_points, row.decided_by) for row in rows]


def test_match_points_decide_first():
    rows = standings("ABC", [R("A", "B", "A"), R("B", "C", "B"), R("A", "C", "A")])
    assert table(rows) == [("A", 4, None), ("B", 2, "match_points"), ("C", 0, "match_points")]
    a = rows[0]
    assert (a.rank, a.played, a.won, a.drawn, a.lost) == (1, 2, 2, 0, 0)


def test_a_draw_counts_the_middle_value():
    rows = standings("AB", [R("A", "B", None)])
    assert [(r.entry, r.match_points, r.drawn) for r in rows] == [("A", 1, 1), ("B", 1, 1)]
    rows = standings("AB", [R("A", "B", None)], points=(3, 1, 0))
    assert [r.match_points for r in rows] == [1, 1]


def test_level_points_decide_a_tie_on_match_points():
    results = [R("A", "B", "A", 20, 6), R("B", "C", "B", 14, 12), R("C", "A", "C", 18, 8)]
    rows = standings("ABC", results)
    assert [(r.entry, r.match_points, r.level_points, r.decided_by) for r in rows] == [
        ("C", 2, 30, None),
        ("A", 2, 28, "level_points"),
        ("B", 2, 20, "level_points"),
    ]


def test_head_to_head_decides_between_two():
    results = [
        R("A", "B", "A"),
        R("C", "A", "C"),
        R("B", "C", "B"),
        R("A", "D", "A"),
        R("B", "D", "B"),
        R("C", "D", "C", 5, 0),
    ]
    rows = standings("ABCD", results)
    assert table(rows) == [
        ("C", 4, None),
        ("A", 4, "level_points"),
        ("B", 4, "head_to_head"),
        ("D", 0, "match_points"),
    ]


def test_head_to_head_uses_only_the_games_among_the_tied():
    # A, B and C are tied; E (ahead on level points) beat A, which must not count.
    results = [
        R("A", "B", "A"),
        R("A", "C", "A"),
        R("B", "C", "B"),
        R("D", "A", "D"),
        R("E", "A", "E", 10, 0),
        R("B", "D", "B"),
        R("E", "B", "E"),
        R("C", "D", "C"),
        R("C", "E", "C"),
    ]
    rows = standings("ABCDE", results)
    assert table(rows) == [
        ("E", 4, None),
        ("A", 4, "level_points"),
        ("B", 4, "head_to_head"),
        ("C", 4, "head_to_head"),
        ("D", 2, "match_points"),
    ]


def test_head_to_head_is_applied_again_among_those_still_tied():
    # Among A, B, C, D: A 4, B 4, C 2, D 2; then A beat B and D beat C.
    results = [
        R("A", "B", "A"),
        R("A", "D", "A"),
        R("C", "A", "C"),
        R("B", "C", "B"),
        R("B", "D", "B"),
        R("D", "C", "D"),
        R("C", "E", "C"),
        R("D", "E", "D"),
    ]
    rows = standings("CDBAE", results)
    assert table(rows) == [
        ("A", 4, None),
        ("B", 4, "head_to_head"),
        ("D", 4, "head_to_head"),
        ("C", 4, "head_to_head"),
        ("E", 0, "match_points"),
    ]


def test_opponents_points_decide_when_head_to_head_is_level():
    results = [R("A", "B", None), R("A", "C", "A"), R("B", "D", "B"), R("C", "D", "C")]
    rows = standings("BADC", results)
    assert [(r.entry, r.match_points, r.opponents_points, r.decided_by) for r in rows] == [
        ("A", 3, 5, None),
        ("B", 3, 3, "opponents_points"),
        ("C", 2, 3, "match_points"),
        ("D", 0, 5, "match_points"),
    ]


def test_the_lot_separates_entries_equal_in_everything():
    results = [R("A", "C", "A"), R("B", "D", "B")]
    rows = standings("ABCD", results)
    assert table(rows) == [
        ("A", 2, None),
        ("B", 2, "lot"),
        ("C", 0, "match_points"),
        ("D", 0, "lot"),
    ]
    rows = standings("ABCD", results, lots={"B": 1, "A": 2, "D": 3, "C": 4})
    assert [r.entry for r in rows] == ["B", "A", "D", "C"]
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_a_three_one_nil_scheme_changes_the_order():
    results = [R("A", "C", "A"), R("D", "A", "D"), R("B", "C", None), R("B", "D", None)]
    two = standings("ABCD", results)
    three = standings("ABCD", results, points=(3, 1, 0))
    assert [(r.entry, r.match_points) for r in two] == [("D", 3), ("A", 2), ("B", 2), ("C", 1)]
    assert [(r.entry, r.match_points) for r in three] == [("D", 4), ("A", 3), ("B", 2), ("C", 1)]
    assert two[2].decided_by != "match_points"
    assert three[2].decided_by == "match_points"


def test_tiebreaks_follow_the_order_given():
    results = [R("A", "B", "B", 0, 0), R("A", "C", "A", 10, 0), R("B", "C", "C", 0, 0)]
    default = standings("ABC", results)
    assert [r.entry for r in default][0] == "A"  # level points first
    h2h_first = standings("ABC", results, tiebreaks=("match_points", "head_to_head"))
    assert [r.decided_by for r in h2h_first] == [None, "lot", "lot"]


def test_a_bye_counts_as_a_win_against_nobody():
    rows = standings("AB", [R("A", None, "A", 13), R("A", "B", None)])
    a = rows[0]
    assert (a.entry, a.played, a.won, a.match_points, a.level_points) == ("A", 2, 1, 3, 13)
    assert a.opponents_points == 1  # only B's points


@pytest.mark.parametrize(
    "results, kwargs, code",
    [
        ([R("A", "X", "A")], {}, "unknown_entry"),
        ([R("A", "B", "C")], {}, "invalid_result"),
        ([R("A", "A", "A")], {}, "invalid_result"),
        ([R("A", None, None)], {}, "invalid_result"),
        ([], {"tiebreaks": ("goal_difference",)}, "unknown_tiebreak"),
    ],
)
def test_bad_results_are_refused(results, kwargs, code):
    with pytest.raises(DrawError) as error:
        standings("ABC", results, **kwargs)
    assert error.value.code == code


# --- from groups to the knockout ---------------------------------------------------------


def test_group_qualifiers_cross_over():
    groups = [[f"{g}{r}" for r in range(1, 5)] for g in "ABCD"]
    qualifiers = seed_from_groups(groups, 2)
    assert qualifiers == ["A1", "B1", "C1", "D1", "B2", "A2", "D2", "C2"]
    seeds = {q: i + 1 for i, q in enumerate(qualifiers)}
    slots = draw_knockout(qualifiers, seeds=seeds, rng=random.Random(0))
    pairs = [tuple(slots[i : i + 2]) for i in range(0, 8, 2)]
    assert pairs == [("A1", "C2"), ("B2", "D1"), ("C1", "A2"), ("D2", "B1")]


@settings(max_examples=100, deadline=None)
@given(group_count=st.integers(1, 16), advance=st.integers(1, 4))
def test_group_winners_meet_late_and_runners_up_are_in_the_other_half(group_count, advance):
    if group_count * advance < 2:
        return
    groups = [[(g, r) for r in range(advance + 1)] for g in range(group_count)]
    qualifiers = seed_from_groups(groups, advance)
    assert [q[1] for q in qualifiers] == sorted(q[1] for q in qualifiers)
    assert qualifiers[:group_count] == [(g, 0) for g in range(group_count)]
    slots = draw_knockout(
        qualifiers, seeds={q: i + 1 for i, q in enumerate(qualifiers)}, rng=random.Random(0)
    )
    where = {e: slot for slot, e in enumerate(slots) if e is not None}
    total = knockout_rounds(len(slots))
    winners_left = bracket_size(group_count) if group_count > 1 else 1
    for a in range(group_count):
        for b in range(a + 1, group_count):
            # they can meet only once no more than bracket_size(g) entries are left
            assert meeting_round(where[(a, 0)], where[(b, 0)]) > total - knockout_rounds(
                winners_left
            )
        if advance >= 2:
            assert meeting_round(where[(a, 0)], where[(a, 1)]) == total


@pytest.mark.parametrize(
    "groups, advance, code",
    [([["a", "b"]], 3, "group_too_small"), ([], 1, "no_groups"), ([["a"]], 0, "invalid_advance")],
)
def test_bad_group_rankings_are_refused(groups, advance, code):
    with pytest.raises(DrawError) as error:
        seed_from_groups(groups, advance)
    assert error.value.code == code
