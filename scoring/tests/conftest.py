"""Fixtures shared by the scoring tests: the cast of people around one table, the referee and
chief referee of the demo tournaments, and a guard that no recorded event is ever deleted."""

import pytest
from django.contrib.auth import get_user_model
from django.db.models.signals import pre_delete

from scoring.models import TableEvent
from scoring.tests.test_table_views import cast  # noqa: F401 (a fixture)
from tournaments.models import Official

User = get_user_model()


@pytest.fixture
def people(demo):
    """A referee who records and submits, and a chief referee (裁判长) who confirms."""
    referee = User.objects.create_user("referee")
    chief = User.objects.create_user("chief")
    for tournament in demo.values():
        Official.objects.create(
            tournament=tournament, name="裁判甲", role=Official.Role.REFEREE, user=referee
        )
        Official.objects.create(
            tournament=tournament, name="裁判长乙", role=Official.Role.CHIEF_REFEREE, user=chief
        )
    return referee, chief


@pytest.fixture
def no_event_is_ever_deleted():
    """Fails the test if any TableEvent row is deleted, by any code path."""
    deleted = []

    def receiver(sender, instance, **kwargs):
        deleted.append(instance.pk)

    pre_delete.connect(receiver, sender=TableEvent, weak=False)
    yield deleted
    pre_delete.disconnect(receiver, sender=TableEvent)
    assert deleted == []
