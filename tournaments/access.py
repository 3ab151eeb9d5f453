"""Who may do what: small helpers the views call (no mixins).

- organiser (组织者): a superuser, or a user named as the tournament's organiser official;
- team leader (领队): a user listed as a leader of a unit; registers for that unit only;
- everyone else reads public pages without logging in.
"""

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404

from tournaments.models import Entry, Event, HallDuty, Official, Tournament, Unit


def is_organiser(user, tournament: Tournament) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return Official.objects.filter(
        tournament=tournament, user=user, role=Official.Role.ORGANISER
    ).exists()


def leader_unit_ids(user, tournament: Tournament) -> set[int]:
    if not user.is_authenticated:
        return set()
    return set(tournament.units.filter(leaders=user).values_list("pk", flat=True))


def organiser_required(view):
    """Login, then 404 for an unknown tournament and 403 for anyone but its organisers."""

    @login_required
    @wraps(view)
    def wrapper(request, slug, *args, **kwargs):
        tournament = get_object_or_404(Tournament, slug=slug)
        if not is_organiser(request.user, tournament):
            raise PermissionDenied("Only the tournament's organisers may do this.")
        return view(request, tournament, *args, **kwargs)

    return wrapper


def get_event(tournament: Tournament, event_slug: str) -> Event:
    return get_object_or_404(
        Event.objects.select_related("tournament"), tournament=tournament, slug=event_slug
    )


def get_unit_for_registrant(request, tournament: Tournament, unit_id: int) -> tuple[Unit, bool]:
    """The unit a team leader (or organiser) registers for; 404 if not in the tournament,
    403 if the user leads another unit. Returns (unit, is_organiser)."""
    unit = get_object_or_404(Unit, tournament=tournament, pk=unit_id)
    organiser = is_organiser(request.user, tournament)
    if not organiser and unit.pk not in leader_unit_ids(request.user, tournament):
        raise PermissionDenied("You register for your own unit only.")
    return unit, organiser


def get_entry_for_registrant(request, tournament: Tournament, entry_id: int) -> tuple[Entry, bool]:
    entry = get_object_or_404(
        Entry.objects.select_related("event__tournament", "unit"),
        event__tournament=tournament,
        pk=entry_id,
    )
    organiser = is_organiser(request.user, tournament)
    if not organiser and entry.unit_id not in leader_unit_ids(request.user, tournament):
        raise PermissionDenied("You change your own unit's entries only.")
    return entry, organiser


CHIEF_ROLES = (
    Official.Role.ORGANISER,
    Official.Role.CHIEF_REFEREE,
    Official.Role.ARBITRATION_LEADER,
    Official.Role.ARBITRATION,
)


def is_chief(user, tournament: Tournament) -> bool:
    """Organisers, the chief referee (裁判长) and the arbitration panel (仲裁组): they confirm
    and correct results, call time and rule on reports."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return Official.objects.filter(tournament=tournament, user=user, role__in=CHIEF_ROLES).exists()


def can_enter_table(user, table, *, chief: bool | None = None) -> bool:
    """A referee enters only the tables and ties assigned to them; chiefs enter any."""
    if not user.is_authenticated:
        return False
    if chief is None:
        chief = is_chief(user, table.match.round.stage.event.tournament)
    return chief or user.pk in referee_user_ids(table)


def referee_user_ids(table) -> set[int]:
    """The login of the official assigned to this table, else of its tie's official: a
    tie's referee covers its tables, a table's own referee overrides the tie's for that
    table (Official.user; an official without a login yet enters nothing until their
    one-time link is used) — and the officials on duty in its hall then.
    ``scoring.selectors.refereed_by`` is the same rule as a query."""
    official_id = table.referee_id or table.match.referee_id
    ids = set()
    if official_id is not None:
        ids |= set(
            Official.objects.filter(pk=official_id, user__isnull=False).values_list(
                "user_id", flat=True
            )
        )
    return ids | hall_official_user_ids(table.match)


def hall_official_user_ids(match) -> set[int]:
    """The logins of the officials on duty in the match's hall when it is planned to start
    (``HallDuty``): in their window they enter and confirm any match there."""
    if not match.venue_id or not match.scheduled_at:
        return set()
    return set(
        HallDuty.objects.filter(
            venue_id=match.venue_id,
            starts_at__lte=match.scheduled_at,
            ends_at__gt=match.scheduled_at,
            official__user__isnull=False,
        ).values_list("official__user_id", flat=True)
    )


def can_issue_login_links(user, tournament: Tournament) -> bool:
    """The organisers and the chief referee (裁判长) hand referees one-time login links."""
    if not user.is_authenticated:
        return False
    if user.is_superuser:
        return True
    return Official.objects.filter(
        tournament=tournament,
        user=user,
        role__in=(Official.Role.ORGANISER, Official.Role.CHIEF_REFEREE),
    ).exists()


def may_see_draft(user, tournament: Tournament, *, leader: bool = False) -> bool:
    """A draft (草稿) is hidden from the public; its organisers (and staff) read its pages
    while they set it up, marked 草稿（未公开）, and a unit's leader reads the unit's own page
    (``leader``: the page is that leader's unit's)."""
    return user.is_staff or leader or is_organiser(user, tournament)


def check_not_hidden(user, tournament: Tournament, *, leader: bool = False) -> None:
    """``Http404`` where ``tournament`` is a draft ``user`` may not see: for everyone else a
    draft does not exist. The one rule every page of a tournament asks."""
    if not tournament.is_public and not may_see_draft(user, tournament, leader=leader):
        raise Http404("No such tournament")


def public_event(request: HttpRequest, slug: str, event_slug: str) -> Event:
    """The event with its tournament in one query; a draft's only for :func:`may_see_draft`."""
    event = get_object_or_404(
        Event.objects.select_related("tournament"), tournament__slug=slug, slug=event_slug
    )
    check_not_hidden(request.user, event.tournament)
    return event


def get_public_tournament(request: HttpRequest, slug: str) -> Tournament:
    """A tournament anyone may read; a draft only for :func:`may_see_draft`."""
    tournament = get_object_or_404(Tournament, slug=slug)
    check_not_hidden(request.user, tournament)
    return tournament
