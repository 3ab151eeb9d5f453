"""A property over a whole small knockout (issue 16): any sequence of entries, undos,
submissions, confirmations, corrections, forfeits and disqualifications, by several
officials, leaves the bracket right at every step.

After each step (the chief referee's 作废重赛 and 维持原结果 among them): an entry stands at
most once in a round; a decided match's entrants are
the winners (for the 季军争夺战: the losers) of the matches that feed it, or it is flagged
for review; the placings are distinct entries agreeing with the final; and no confirmed
result was confirmed by someone behind it (the second person, always). A refusal
(TableError, ResultError) is an allowed answer; anything else fails the test.
"""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from scoring.models import TableMatch
from scoring.services.common import TableError
from scoring.services.confirmation import authors
from scoring.services.corrections import correct_table
from scoring.services.desk import keep_with_ruling, void_and_replay
from scoring.services.tables import confirm_table, record_event, submit_table, undo_last
from scoring.tests.utils import assign_referee, guandan
from tournaments.draw.plan import ResultError
from tournaments.draw.selectors import placings_and_review, under_review
from tournaments.models import Match, Official

User = get_user_model()
_keys = itertools.count()

EVENTS = {
    "home_deal": {"order": list("AABB")},
    "away_deal": {"order": list("BBAA")},
    "time_up": {"time_up": True},
    "home_forfeit": {"forfeit": {"team": "A", "reason": "late_over_10_min"}},
    "away_forfeit": {"forfeit": {"team": "B", "reason": "late_over_10_min"}},
    "home_dq": {"penalty": {"team": "A", "kind": "disqualify"}},
}
RECORDS = [
    [{"order": list("AABB")}, {"time_up": True}],
    [{"order": list("BBAA")}, {"time_up": True}],
    [{"forfeit": {"team": "B", "reason": "withdrew"}}],
    [{"order": list("AABB")}],  # unfinished: the table plays on
]

action = st.one_of(
    # A whole table played, submitted and confirmed by another official: the bracket moves.
    st.tuples(st.just("play"), st.integers(0, 50), st.sampled_from(["A", "B"]), st.integers(0, 1)),
    st.tuples(st.just("play"), st.integers(0, 50), st.sampled_from(["A", "B"]), st.integers(0, 1)),
    st.tuples(
        st.just("record"), st.integers(0, 50), st.sampled_from(sorted(EVENTS)), st.integers(0, 1)
    ),
    st.tuples(st.just("undo"), st.integers(0, 50), st.just(""), st.integers(0, 1)),
    st.tuples(st.just("submit"), st.integers(0, 50), st.just(""), st.integers(0, 1)),
    st.tuples(st.just("confirm"), st.integers(0, 50), st.just(""), st.integers(0, 2)),
    st.tuples(
        st.just("correct"), st.integers(0, 50), st.integers(0, len(RECORDS) - 1), st.integers(0, 2)
    ),
    # The chief referee's choice on a flagged match: 作废重赛 or 维持原结果.
    st.tuples(st.sampled_from(["replay", "keep"]), st.integers(0, 50), st.just(""), st.just(2)),
)


@pytest.fixture
def officials(demo):
    tournament = demo["nantong-2014"]
    people = [User.objects.create_user(name) for name in ("ref-a", "ref-b", "chief-c")]
    for user, role, name in zip(
        people,
        (Official.Role.REFEREE, Official.Role.REFEREE, Official.Role.CHIEF_REFEREE),
        ("裁判甲", "裁判乙", "裁判长丙"),
        strict=True,
    ):
        Official.objects.create(tournament=tournament, name=name, role=role, user=user)
    assign_referee(Match.objects.filter(round__stage__event=guandan("nantong-2014")), people[0])
    return people


def _tables():
    return list(
        TableMatch.objects.filter(match__round__stage__event=guandan("nantong-2014"))
        .exclude(status=TableMatch.Status.NOT_PLAYED)
        .order_by("pk")
    )


def _step(people, kind, index, what, who):
    tables = _tables()
    if not tables:
        return
    table = tables[index % len(tables)]
    recorder = (people[0], people[2])[who % 2]
    if kind == "play":
        open_tables = [t for t in tables if t.status == TableMatch.Status.OPEN] or tables
        table = open_tables[index % len(open_tables)]
        deal = EVENTS["home_deal" if what == "A" else "away_deal"]
        for event in (deal, EVENTS["time_up"]):
            record_event(table=table, event=event, user=recorder, key=f"p{next(_keys)}")
        submit_table(table=table, user=recorder)
        confirm_table(table=table, user=people[1])
    elif kind == "record":
        reason = "争吵" if what == "home_dq" else ""
        record_event(
            table=table, event=EVENTS[what], user=recorder, key=f"p{next(_keys)}", reason=reason
        )
    elif kind == "undo":
        undo_last(table=table, user=recorder)
    elif kind == "submit":
        submit_table(table=table, user=recorder)
    elif kind == "confirm":
        confirm_table(table=table, user=people[who])
    elif kind == "correct":
        correct_table(table=table, events=RECORDS[what], reason="核对记分表", user=people[2])
    elif kind in ("replay", "keep"):
        flagged = list(
            Match.objects.filter(
                round__stage__event=guandan("nantong-2014"), needs_review=True
            ).order_by("pk")
        )
        if flagged:
            choice = void_and_replay if kind == "replay" else keep_with_ruling
            choice(match=flagged[index % len(flagged)], reason="裁判长裁决", user=people[2])


def _check_the_bracket():
    event = guandan("nantong-2014")
    matches = list(
        Match.objects.filter(
            round__stage__event=event, round__stage__draw__undone_at__isnull=True
        ).select_related("home", "away", "round")
    )
    by_id = {m.pk: m for m in matches}
    for round_id in {m.round_id for m in matches}:
        seated = [e for m in matches if m.round_id == round_id for e in (m.home_id, m.away_id) if e]
        assert len(seated) == len(set(seated)), "an entry stands twice in one round"
    for m in matches:
        if not m.is_decided or m.needs_review:
            continue
        for feeder in matches:
            for to_id, side, entry in (
                (feeder.winner_to_id, feeder.winner_to_side, feeder.winner_entry),
                (feeder.loser_to_id, feeder.loser_to_side, feeder.loser_entry),
            ):
                if to_id == m.pk and feeder.is_decided:
                    assert getattr(m, f"{side}_id") == (entry.pk if entry else None), (
                        f"{m} was played by someone its feeder {feeder} does not send"
                    )
    places, held = placings_and_review(event)
    entries = [e.pk for _rank, e in places]
    assert len(entries) == len(set(entries)), "an entry stands twice in the placings"
    assert not {rank for rank, _e in places} & set(held), "a place under review is given"
    review = under_review(matches)
    final = next(
        (
            m
            for m in matches
            if not m.is_third_place and not m.winner_to_id and m.round.stage.format == "knockout"
        ),
        None,
    )
    if final is not None and final.is_decided and places and final.pk not in review:
        assert places[0][1].pk == final.winner_entry.pk
    if final is not None and final.pk in review and final.is_decided:
        assert 1 in held and 1 not in {rank for rank, _e in places}
    for table in TableMatch.objects.filter(match__in=by_id, status=TableMatch.Status.CONFIRMED):
        assert table.confirmed_by_id not in authors(table), "confirmed by its own author"


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(action, min_size=10, max_size=60))
def test_any_sequence_of_results_and_corrections_leaves_the_bracket_right(officials, steps):
    with transaction.atomic():
        for kind, index, what, who in steps:
            try:
                with transaction.atomic():
                    _step(officials, kind, index, what, who)
                event(f"{kind}: done")
            except (TableError, ResultError):
                event(f"{kind}: refused")  # a refusal, said plainly to whoever tapped
            _check_the_bracket()
        decided = Match.objects.filter(
            round__stage__event=guandan("nantong-2014"), status=Match.Status.FINISHED
        ).count()
        event(f"ties decided: {min(decided, 4)}{'+' if decided >= 4 else ''}")
        transaction.set_rollback(True)
