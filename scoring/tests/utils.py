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


def assign_referee(rows, user) -> None:
    """Make ``user`` the referee of these matches or tables: the referee is an Official of
    the tournament, so the user's official there is used (a referee first), or one made."""
    from tournaments.models import Official

    for row in rows:
        match = row if isinstance(row, Match) else row.match
        tournament = match.round.stage.event.tournament
        held = sorted(
            Official.objects.filter(tournament=tournament, user=user),
            key=lambda o: (o.role != Official.Role.REFEREE, o.pk),
        )
        official = held[0] if held else None
        if official is None:
            official, _ = Official.objects.get_or_create(
                tournament=tournament,
                name=user.username[:50],
                role=Official.Role.REFEREE,
                defaults={"user": user},
            )
        type(row).objects.filter(pk=row.pk).update(referee=official)


def page_data(url: str, data: dict | None = None) -> dict:
    """A table write's form as its page sends it: with the version the page shows (the
    table's current one, unless the test gives another)."""
    from django.urls import resolve

    data = dict(data or {})
    if "version" not in data:
        data["version"] = str(TableMatch.objects.get(pk=resolve(url).kwargs["table_id"]).version)
    return data
