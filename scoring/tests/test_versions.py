"""A table bumps its own version in one place (``TableMatch.save_new_version``): each write
is exactly one version, so a device on the version before is refused."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from scoring.models import TableMatch
from scoring.services.common import TableError
from scoring.services.tables import confirm_table, record_event, submit_table
from tournaments.models import Match


def _table() -> TableMatch:
    match = (
        Match.objects.filter(
            round__stage__event__tournament__slug="anhui-2021",
            round__stage__event__slug="table-tennis",
            round__number=1,
            home__isnull=False,
            away__isnull=False,
        )
        .exclude(status=Match.Status.BYE)
        .order_by("index")
        .first()
    )
    return TableMatch.objects.get(match=match)


def _version(table: TableMatch) -> int:
    return TableMatch.objects.get(pk=table.pk).version


@pytest.mark.django_db
def test_every_write_is_one_version_and_an_old_version_is_refused(demo):
    users = get_user_model().objects
    staff = users.create_user("ref", is_staff=True, is_superuser=True)
    second = users.create_user("chief", is_staff=True, is_superuser=True)
    table = _table()
    start = _version(table)
    for n, game in enumerate([{"home": 11, "away": 3}] * 3, start=1):
        record_event(table=TableMatch.objects.get(pk=table.pk), event=game, key=f"g{n}")
        assert _version(table) == start + n
    submit_table(table=TableMatch.objects.get(pk=table.pk), user=staff)
    assert _version(table) == start + 4
    with pytest.raises(TableError) as refused:
        confirm_table(
            table=TableMatch.objects.get(pk=table.pk), user=second, expected_version=start + 3
        )
    assert refused.value.code == "stale" and _version(table) == start + 4
    confirm_table(
        table=TableMatch.objects.get(pk=table.pk), user=second, expected_version=start + 4
    )
    assert _version(table) == start + 5
