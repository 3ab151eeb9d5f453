"""Two writes of one table at the same moment, on PostgreSQL (row locks, SELECT … FOR
UPDATE): two chief referees correcting it, a correction against a confirmation, two panel
corrections, a correction of one table against the confirmation of another of the same tie,
an undo against a deal. Each resolves to exactly one winner; the other is refused as stale,
naming who changed the table; and what is left is one of them whole — never a result
confirmed by one person showing another's correction."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from scoring.models import AuditEntry, TableEvent, TableMatch
from scoring.services import ties
from scoring.services.common import TableError, active_events, person_name
from scoring.services.corrections import correct_table
from scoring.services.tables import confirm_table, record_event, submit_table, undo_last
from scoring.tests.test_services import _run_together, deal, needs_postgresql, play_out
from scoring.tests.utils import first_round, fresh, tables
from tournaments.models import Match, Official, Tournament

User = get_user_model()
pytestmark = [needs_postgresql, pytest.mark.django_db(transaction=True)]
ROUNDS = 3  # each race run on three tables (of three ties): either side may win any of them


def _race(*writes) -> tuple[list[str], list[BaseException]]:
    """Run the writes at the same moment; (names of those that succeeded, their refusals)."""
    won: list[str] = []

    def attempt(name, write):
        def work():
            write()
            won.append(name)

        return work

    errors = _run_together([attempt(name, write) for name, write in writes])
    return won, errors


def _named(user, name: str):
    User.objects.filter(pk=user.pk).update(first_name=name)
    return User.objects.get(pk=user.pk)


def _official(name: str, role: str, login: str):
    user = User.objects.create_user(login, first_name=name)
    Official.objects.create(
        tournament=Tournament.objects.get(slug="nantong-2014"), name=name, role=role, user=user
    )
    return user


def _refused_naming(errors, winner) -> None:
    """One refusal: stale, in Chinese, naming who changed the table."""
    assert len(errors) == 1, errors
    error = errors[0]
    assert isinstance(error, TableError) and error.code == "stale", error
    assert "你看到的是旧页面" in error.message and person_name(winner) in error.message


def _since(table, pk: int) -> list[tuple[str, int | None]]:
    return list(
        AuditEntry.objects.filter(table=table, pk__gt=pk)
        .order_by("pk")
        .values_list("action", "actor_id")
    )


def _last_audit() -> int:
    last = AuditEntry.objects.order_by("-pk").first()
    return last.pk if last else 0


def _submitted(table, referee) -> TableMatch:
    play_out(table, "A", referee)
    return submit_table(table=fresh(table), user=referee)


def test_two_chief_referees_correcting_one_table_at_once(people):  # noqa: F811
    referee, chief = people
    chief = _named(chief, "肖慧")
    chief2 = _official("梁勇", Official.Role.ARBITRATION, "chief-2")
    orders = {chief.pk: list("BBAA"), chief2.pk: list("ABAB")}
    outcomes = set()
    for match in first_round("nantong-2014")[:ROUNDS]:
        table = _submitted(tables(match)[0], referee)
        version, mark = fresh(table).version, _last_audit()

        def correction(user, table=table, version=version):
            return lambda: correct_table(
                table=TableMatch.objects.get(pk=table.pk),
                events=[{"order": orders[user.pk]}, {"time_up": True}],
                reason="核对记分表",
                user=user,
                expected_version=version,
            )

        won, errors = _race((chief.pk, correction(chief)), (chief2.pk, correction(chief2)))
        assert len(won) == 1
        winner = User.objects.get(pk=won[0])
        outcomes.add(winner.pk)
        _refused_naming(errors, winner)
        table = fresh(table)
        # The winner's correction, whole: its events, its result, submitted in its name.
        active = active_events(table)
        assert [e.payload for e in active] == [{"order": orders[winner.pk]}, {"time_up": True}]
        assert {e.created_by_id for e in active} == {winner.pk}
        assert (table.status, table.submitted_by, table.confirmed_by) == (
            TableMatch.Status.SUBMITTED,
            winner,
            None,
        )
        assert table.winner == ("B" if winner == chief else "A")
        assert _since(table, mark) == [("correct", winner.pk)]
        assert table.version == version + 1
    assert outcomes  # (which of them won is the scheduler's choice)


def test_a_correction_against_a_confirmation_of_the_same_table(people):  # noqa: F811
    referee, chief = people
    chief = _named(chief, "肖慧")
    chief2 = _official("梁勇", Official.Role.ARBITRATION, "chief-2")
    for match in first_round("nantong-2014")[:ROUNDS]:
        table = _submitted(tables(match)[0], referee)
        version, mark = fresh(table).version, _last_audit()
        won, errors = _race(
            (
                "correct",
                lambda table=table, version=version: correct_table(
                    table=TableMatch.objects.get(pk=table.pk),
                    events=[{"order": list("BBAA")}, {"time_up": True}],
                    reason="核对记分表",
                    user=chief,
                    expected_version=version,
                ),
            ),
            (
                "confirm",
                lambda table=table, version=version: confirm_table(
                    table=TableMatch.objects.get(pk=table.pk),
                    user=chief2,
                    expected_version=version,
                ),
            ),
        )
        assert len(won) == 1
        _refused_naming(errors, chief if won == ["correct"] else chief2)
        table, match = fresh(table), fresh(match)
        recorded_by = {e.created_by_id for e in active_events(table)}
        if won == ["confirm"]:
            # Confirmed as chief 2 saw it: the referee's record, the referee's submission.
            assert (table.status, table.winner) == (TableMatch.Status.CONFIRMED, "A")
            assert (table.submitted_by, table.confirmed_by) == (referee, chief2)
            assert recorded_by == {referee.pk}
            assert _since(table, mark) == [("confirm", chief2.pk)]
            assert (match.home_score, match.away_score) == (1, 0)
        else:
            # Corrected: nobody has confirmed the corrected result; the tie does not count it.
            assert (table.status, table.winner) == (TableMatch.Status.SUBMITTED, "B")
            assert (table.submitted_by, table.confirmed_by) == (chief, None)
            assert recorded_by == {chief.pk}
            assert _since(table, mark) == [("correct", chief.pk)]
            assert (match.home_score, match.away_score) == (0, 0)


def test_two_panel_corrections_of_a_confirmed_table_at_once(people):  # noqa: F811
    # The tournament has the arbitration panel sign corrections: each member corrects with
    # the other as co-signer. The result left is confirmed by the winner's co-signer, with
    # the winner's record — never one member's signature on the other's correction.
    referee, chief = people
    Tournament.objects.filter(slug="nantong-2014").update(correction_signoff="panel")
    zhao = _official("赵组长", Official.Role.ARBITRATION_LEADER, "zhao")
    qian = _official("钱委员", Official.Role.ARBITRATION, "qian")
    plan = {zhao.pk: (qian, list("BBAA")), qian.pk: (zhao, list("ABAB"))}
    for match in first_round("nantong-2014")[:ROUNDS]:
        table = _submitted(tables(match)[0], referee)
        table = confirm_table(table=table, user=chief)
        version, mark = fresh(table).version, _last_audit()

        def correction(user, table=table, version=version):
            cosigner, order = plan[user.pk]
            return lambda: correct_table(
                table=TableMatch.objects.get(pk=table.pk),
                events=[{"order": order}, {"time_up": True}],
                reason="核对记分表",
                user=user,
                expected_version=version,
                cosigner=cosigner,
            )

        won, errors = _race((zhao.pk, correction(zhao)), (qian.pk, correction(qian)))
        assert len(won) == 1
        winner = User.objects.get(pk=won[0])
        cosigner, order = plan[winner.pk]
        _refused_naming(errors, winner)
        table, match = fresh(table), fresh(match)
        assert [e.payload for e in active_events(table)] == [{"order": order}, {"time_up": True}]
        assert (table.status, table.submitted_by, table.confirmed_by) == (
            TableMatch.Status.CONFIRMED,
            winner,
            cosigner,
        )
        entries = AuditEntry.objects.filter(table=table, pk__gt=mark)
        assert [(e.action, e.actor_id) for e in entries] == [("correct", winner.pk)]
        summary = entries[0].summary
        assert summary.index(person_name(winner)) < summary.index(person_name(cosigner))
        # The tie counts the corrected table as the panel signed it.
        winner_side = table.winner
        assert (match.home_score, match.away_score) == ((1, 0) if winner_side == "A" else (0, 1))


def test_a_correction_of_one_table_against_the_confirmation_of_another_of_the_tie(
    people,  # noqa: F811
):
    # Two tables, two row locks, one tie: whatever the order, the tie is what its confirmed
    # tables say once both are done.
    referee, chief = people
    chief2 = _official("梁勇", Official.Role.ARBITRATION, "chief-2")
    for match in first_round("nantong-2014")[:ROUNDS]:
        t1, t2, t3 = tables(match)
        confirm_table(table=_submitted(t1, referee), user=chief)
        t2 = _submitted(t2, referee)
        v1 = fresh(t1).version
        won, errors = _race(
            (
                "correct",
                lambda t1=t1, v1=v1: correct_table(
                    table=TableMatch.objects.get(pk=t1.pk),
                    events=[{"order": list("BBAA")}, {"time_up": True}],
                    reason="核对记分表",
                    user=chief,
                    expected_version=v1,
                ),
            ),
            (
                "confirm",
                lambda t2=t2: confirm_table(
                    table=TableMatch.objects.get(pk=t2.pk),
                    user=chief2,
                    expected_version=t2.version,
                ),
            ),
        )
        assert errors == [] and sorted(won) == ["confirm", "correct"]
        match = fresh(match)
        winner, wins, decided, _margin = ties.tie_result(match)
        # Table 1 waits for its corrected result's confirmation; table 2 counts: 1:0, open.
        assert (fresh(t1).status, fresh(t2).status) == ("submitted", "confirmed")
        assert (wins, decided) == ({"A": 1, "B": 0}, False)
        assert not match.is_decided and (match.home_score, match.away_score) == (1, 0)
        assert fresh(t3).status == TableMatch.Status.OPEN  # still to play


def test_an_undo_against_a_deal_on_the_same_version(people):  # noqa: F811
    referee, chief = people
    referee, chief = _named(referee, "周铃"), _named(chief, "肖慧")
    for match in first_round("nantong-2014")[:ROUNDS]:
        table = tables(match)[0]
        deal(table, "AABB", referee)
        version, mark = fresh(table).version, _last_audit()
        won, errors = _race(
            (
                "undo",
                lambda table=table, version=version: undo_last(
                    table=TableMatch.objects.get(pk=table.pk),
                    user=referee,
                    expected_version=version,
                ),
            ),
            (
                "deal",
                lambda table=table, version=version: record_event(
                    table=TableMatch.objects.get(pk=table.pk),
                    event={"order": list("BBAA")},
                    user=chief,
                    key=f"race-deal-{table.pk}",
                    expected_version=version,
                ),
            ),
        )
        assert len(won) == 1
        _refused_naming(errors, referee if won == ["undo"] else chief)
        table = fresh(table)
        assert table.version == version + 1
        active = [e.payload for e in active_events(table)]
        if won == ["undo"]:
            assert active == [] and table.state["levels"] == {"A": "2", "B": "2"}
            assert _since(table, mark) == [("undo", referee.pk)]
            assert not TableEvent.objects.filter(key=f"race-deal-{table.pk}").exists()
        else:
            assert active == [{"order": list("AABB")}, {"order": list("BBAA")}]
            assert table.state["levels"] == {"A": "5", "B": "5"}
            assert _since(table, mark) == [("event", chief.pk)]
        assert fresh(match).status != Match.Status.FINISHED
