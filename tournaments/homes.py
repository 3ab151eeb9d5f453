"""Where each person's work is: the page a login lands on (password or one-time link).

One home per tournament a person belongs to, by the role that does the most there: an
organiser's dashboard, a chief referee's (or the arbitration panel's) desk, a referee's
我的台, a team leader's unit page. ``home_for`` chooses among the tournaments: the only one
still running (not finished) if there is exactly one, the account page (a chooser listing
them all) if there are several, else the most recent one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from tournaments.models import Official, Tournament

ROLE_RANK = {
    Official.Role.ORGANISER: 0,
    Official.Role.CHIEF_REFEREE: 1,
    Official.Role.ARBITRATION_LEADER: 1,
    Official.Role.ARBITRATION: 1,
    Official.Role.REFEREE: 2,
}
LEADER_RANK = 3

# What each home is called on the chooser.
HOME_LABELS = {
    0: _("组织者工作台"),
    1: _("裁判长工作台"),
    2: _("我的台"),
    3: _("本单位报名"),
}


@dataclass(frozen=True)
class Home:
    tournament: Tournament
    rank: int
    url: str

    @property
    def label(self) -> str:
        return str(HOME_LABELS[self.rank])


def _url(tournament: Tournament, rank: int, unit_ids: list[int]) -> str:
    slug = tournament.slug
    if rank == 0:
        return reverse("manage:dashboard", args=[slug])
    if rank == 1:
        return reverse("scoring:desk", args=[slug])
    if rank == 2:
        return reverse("scoring:my-tables", args=[slug])
    if len(unit_ids) == 1:
        return reverse("registration:unit", args=[slug, unit_ids[0]])
    return reverse("registration:home", args=[slug])


def homes_of(user) -> list[Home]:
    """One home per tournament of the user (a superuser: every tournament, as organiser),
    the tournaments still to finish first, then the most recent first. Two queries."""
    if not user.is_authenticated:
        return []
    best: dict[int, int] = {}
    tournaments: dict[int, Tournament] = {}
    units: dict[int, list[int]] = {}
    if user.is_superuser:
        for t in Tournament.objects.all():
            tournaments[t.pk], best[t.pk] = t, 0
    for official in user.official_roles.select_related("tournament"):
        t = official.tournament
        tournaments[t.pk] = t
        best[t.pk] = min(best.get(t.pk, LEADER_RANK), ROLE_RANK[official.role])
    for unit in user.led_units.select_related("tournament").order_by("pk"):
        t = unit.tournament
        tournaments[t.pk] = t
        best.setdefault(t.pk, LEADER_RANK)
        units.setdefault(t.pk, []).append(unit.pk)
    homes = [
        Home(tournaments[pk], rank, _url(tournaments[pk], rank, units.get(pk, [])))
        for pk, rank in best.items()
    ]
    homes.sort(key=lambda h: (h.tournament.starts_on, h.tournament.pk), reverse=True)
    homes.sort(key=lambda h: h.tournament.status == Tournament.Status.FINISHED)
    return homes


def home_for(user) -> str:
    """The URL a user lands on after logging in (when no safe ``next`` was given)."""
    homes = homes_of(user)
    if not homes:
        return reverse("tournaments:list")
    running = [h for h in homes if h.tournament.status != Tournament.Status.FINISHED]
    if len(running) > 1:
        return reverse("accounts-home")
    return homes[0].url
