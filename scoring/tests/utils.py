"""Helpers shared by the scoring tests (the fixtures are in the root conftest.py)."""

from scoring.models import TableMatch
from tournaments.models import Event, Match


def guandan(slug: str) -> Event:
    return Event.objects.get(tournament__slug=slug, slug="guandan")


def first_round(slug: str) -> list[Match]:
    """The playable ties of the first round, in bracket order."""
    return list(
        Match.objects.filter(round__stage__event=guandan(slug), round__number=1)
        .exclude(status=Match.Status.BYE)
        .order_by("index")
    )


def tables(match: Match) -> list[TableMatch]:
    return list(TableMatch.objects.filter(match=match).order_by("number"))


def fresh(obj):
    """The row as the database has it now."""
    return type(obj).objects.get(pk=obj.pk)


def page_data(url: str, data: dict | None = None) -> dict:
    """A table write's form as its page sends it: with the version the page shows (the
    table's current one, unless the test gives another)."""
    from django.urls import resolve

    data = dict(data or {})
    if "version" not in data:
        data["version"] = str(TableMatch.objects.get(pk=resolve(url).kwargs["table_id"]).version)
    return data
