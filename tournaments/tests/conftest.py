import datetime as dt

import pytest

from tournaments.demo import load_demo
from tournaments.models import Tournament


@pytest.fixture
def demo(db):
    """Both seed tournaments, keyed by slug."""
    return {t.slug: t for t in load_demo()}


@pytest.fixture
def make_tournament(db):
    def make(slug="test-cup", **fields) -> Tournament:
        defaults = dict(
            name="测试杯",
            organiser_name="测试工会",
            notice_title="关于举行测试杯的通知",
            notice_text="一、比赛时间\n时间：某日",
            starts_on=dt.date(2026, 12, 1),
            status=Tournament.Status.REGISTRATION_OPEN,
        )
        defaults.update(fields)
        return Tournament.objects.create(slug=slug, **defaults)

    return make
