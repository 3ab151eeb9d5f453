"""The units' standings rules, without a database: sums, joint teams' shares, tie-breaks, the rules' exclusions — table-driven, and a property: the points handed out are the points the placings earn."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.standings import rules
from tournaments.standings.rules import Options, Placed, parse_points, unit_standings

DEFAULT = Options()


def table(rows):
    return [(r.unit, r.rank, r.points) for r in rows]


CASES = [
    (
        "one event, places 1-4 and four shared 5ths",
        [
            Placed("g", 1, "A", 1),
            Placed("g", 2, "B", 2),
            Placed("g", 3, "C", 3),
            Placed("g", 4, "D", 4),
            *[Placed("g", 5 + i, u, 5) for i, u in enumerate("EFGH")],
        ],
        DEFAULT,
        [("A", 1, 9), ("B", 2, 7), ("C", 3, 6), ("D", 4, 5)] + [(u, 5, 4) for u in "EFGH"],
    ),
    (
        "sums over events; a double event counts twice",
        [Placed("x", 1, "A", 1), Placed("y", 2, "A", 2, weight=2), Placed("x", 3, "B", 2)],
        DEFAULT,
        [("A", 1, 23), ("B", 2, 7)],
    ),
    (
        "a joint team's points are shared by its members",
        [Placed("g", 1, "J", 1, members=("A", "B")), Placed("g", 2, "C", 2)],
        DEFAULT,
        [("C", 1, 7), ("A", 2, Fraction(9, 2)), ("B", 2, Fraction(9, 2))],
    ),
    (
        "or credited to the joint team as its own line",
        [Placed("g", 1, "J", 1, members=("A", "B")), Placed("g", 2, "C", 2)],
        Options(joint=rules.OWN),
        [("J", 1, 9), ("C", 2, 7)],
    ),
    (
        "equal points: more firsts first",
        [
            Placed("x", 1, "A", 3),  # 6
            Placed("y", 2, "A", 3),  # 6 -> 12
            Placed("x", 3, "B", 1),  # 9
            Placed("y", 4, "B", 7),  # 2 -> 11 ... make it equal below
            Placed("z", 5, "B", 8),  # 1 -> 12
        ],
        DEFAULT,
        [("B", 1, 12), ("A", 2, 12)],
    ),
    (
        "equal points and firsts: more seconds",
        [
            Placed("x", 1, "A", 2),  # 7
            Placed("y", 2, "A", 8),  # 1 -> 8
            Placed("x", 3, "B", 3),  # 6
            Placed("y", 4, "B", 7),  # 2 -> 8
        ],
        DEFAULT,
        [("A", 1, 8), ("B", 2, 8)],
    ),
    (
        "equal in everything: one rank, listed in the units' order",
        [Placed("x", 1, "B", 1), Placed("y", 2, "A", 1)],
        DEFAULT,
        [("A", 1, 9), ("B", 1, 9)],
    ),
    (
        "participation award only and disqualified entries earn nothing by default",
        [
            Placed("x", 1, "A", 1, award_only=True),
            Placed("y", 2, "A", 2, disqualified=True),
            Placed("z", 3, "B", 9),
        ],
        DEFAULT,
        [("A", 1, 0), ("B", 1, 0)],
    ),
    (
        "unless the tournament says they count",
        [Placed("x", 1, "A", 1, award_only=True), Placed("y", 2, "B", 2, disqualified=True)],
        Options(award_only_scores=True, disqualified_scores=True),
        [("A", 1, 9), ("B", 2, 7)],
    ),
    (
        "a custom table; places beyond it earn nothing; unplaced entries neither",
        [Placed("x", 1, "A", 1), Placed("x", 2, "B", 3), Placed("x", 3, "C", None)],
        Options(points=(5, 3)),
        [("A", 1, 5), ("B", 2, 0), ("C", 2, 0)],
    ),
    (
        "an event that does not count",
        [Placed("x", 1, "A", 1, weight=0), Placed("y", 2, "B", 3)],
        DEFAULT,
        [("B", 1, 6), ("A", 2, 0)],
    ),
]


@pytest.mark.parametrize("name, placings, options, expected", CASES, ids=[c[0] for c in CASES])
def test_standings(name, placings, options, expected):
    rows = unit_standings(placings, options, units=sorted({p.unit for p in placings} - {"J"}))
    assert table(rows) == expected


def test_lines_say_what_each_entry_brought_and_why_not():
    rows = unit_standings(
        [
            Placed("g", 1, "J", 1, members=("A", "B")),
            Placed("x", 2, "A", 1, disqualified=True),
            Placed("y", 3, "A", 2, award_only=True),
        ],
        DEFAULT,
    )
    a = next(r for r in rows if r.unit == "A")
    lines = {line.entry: line for line in a.lines}
    assert (lines[1].share, lines[1].points, lines[1].reason) == (
        Fraction(1, 2),
        Fraction(9, 2),
        None,
    )
    assert (lines[2].share, lines[2].points, lines[2].reason) == (1, 0, rules.DISQUALIFIED)
    assert lines[3].reason == rules.AWARD_ONLY
    # A joint team's place is counted by the share in the tie-break.
    assert a.places[0] == Fraction(1, 2)


def test_a_joint_team_listing_a_member_twice_shares_once():
    rows = unit_standings([Placed("g", 1, "J", 1, members=("A", "A", "B"))], DEFAULT)
    assert table(rows) == [("A", 1, Fraction(9, 2)), ("B", 1, Fraction(9, 2))]


@pytest.mark.parametrize(
    "text, points",
    [("9/7/6/5/4/3/2/1", (9, 7, 6, 5, 4, 3, 2, 1)), ("7，5、3 1", (7, 5, 3, 1)), ("", ())],
)
def test_points_tables_as_organisers_write_them(text, points):
    assert parse_points(text) == points


@pytest.mark.parametrize("text", ["9/x", "1/2/3", "-1", "1000"])
def test_points_tables_refused(text):
    with pytest.raises(ValueError):
        parse_points(text)


def test_options_refuse_what_makes_no_sense():
    with pytest.raises(ValueError):
        Options(joint="half")
    with pytest.raises(ValueError):
        Options(points=(3, -1))


units = st.sampled_from(["A", "B", "C", "D", "E"])
placed = st.builds(
    Placed,
    event=st.sampled_from(["g", "x", "b", "t"]),
    entry=st.integers(),
    unit=st.sampled_from(["A", "B", "C", "J", "K"]),
    rank=st.one_of(st.none(), st.integers(1, 12)),
    members=st.lists(units, max_size=3).map(tuple),
    weight=st.integers(0, 2),
    award_only=st.booleans(),
    disqualified=st.booleans(),
)
options = st.builds(
    Options,
    points=st.lists(st.integers(0, 12), max_size=10).map(
        lambda xs: tuple(sorted(xs, reverse=True))
    ),
    joint=st.sampled_from([rules.SHARED, rules.OWN]),
    award_only_scores=st.booleans(),
    disqualified_scores=st.booleans(),
)


@given(st.lists(placed, max_size=30), options)
def test_the_points_handed_out_are_the_points_the_placings_earn(placings, opts):
    rows = unit_standings(placings, opts)
    assert sum((row.points for row in rows), Fraction(0)) == sum(
        (rules.earned(p, opts)[0] for p in placings), Fraction(0)
    )
    # No rank at all before any place is given.
    if all(p.rank is None for p in placings):
        assert all(row.rank is None for row in rows)
        return
    # Ranks: best first, never better than a unit with more points.
    for above, below in zip(rows, rows[1:], strict=False):
        assert above.points >= below.points
        assert above.rank <= below.rank
        assert (above.rank == below.rank) == (
            (above.points, above.places) == (below.points, below.places)
        )


def test_no_unit_has_a_rank_before_any_entry_has_a_place():
    rows = unit_standings([Placed("g", 1, "A", None), Placed("g", 2, "B", None)], DEFAULT)
    assert [(r.unit, r.rank, r.points) for r in rows] == [("A", None, 0), ("B", None, 0)]
    # With one place given, every unit is ranked, those without points sharing the last.
    rows = unit_standings([Placed("g", 1, "A", 1), Placed("g", 2, "B", None)], DEFAULT)
    assert table(rows) == [("A", 1, 9), ("B", 2, 0)]
