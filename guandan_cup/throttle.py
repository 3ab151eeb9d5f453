"""Throttling by address, shared by the login (``guandan_cup.accounts``) and the players'
link of a table (``scoring.views.players``): django-axes counts failures per name and
address; here, the limit of one address across names, and a wrong table code counted as a
failed login."""

from __future__ import annotations

from axes.handlers.proxy import AxesProxyHandler
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.db.models import Sum
from django.http import HttpRequest
from django.utils import timezone


def _address(request: HttpRequest) -> str | None:
    """The client's address as django-axes reads it (``AXES_CLIENT_IP_CALLABLE``)."""
    AxesProxyHandler.update_request(request)
    return request.axes_ip_address


def address_locked(request: HttpRequest) -> bool:
    """Password spraying: LOGIN_ADDRESS_FAILURE_LIMIT failed logins from one address within
    the cool-off, whatever the usernames, refuse every login from it until they age out
    (django-axes itself counts one username on one address)."""
    address = _address(request)
    limit = settings.LOGIN_ADDRESS_FAILURE_LIMIT
    if not address or not limit:
        return False
    since = timezone.now() - settings.AXES_COOLOFF_TIME
    failures = AccessAttempt.objects.filter(ip_address=address, attempt_time__gt=since).aggregate(
        total=Sum("failures_since_start")
    )["total"]
    return (failures or 0) >= limit


def lockout_minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


# The players' link of a table is throttled as a login is: a wrong code counts as a failed
# login of this name from the address, and the address's limit across names counts it too.
PLAYERS_LINK = "(players' link)"


def link_locked(request: HttpRequest) -> bool:
    """Whether this address has tried too many wrong table codes (or logins) lately."""
    if not settings.AXES_ENABLED:
        return False
    return address_locked(request) or AxesProxyHandler.is_locked(
        request, {"username": PLAYERS_LINK}
    )


def link_failed(request: HttpRequest) -> None:
    """Count a wrong table code from this address, as django-axes counts a failed login;
    the answer stays the link's own page, not the login page's lockout."""
    user_login_failed.send(sender=__name__, credentials={"username": PLAYERS_LINK}, request=request)
    request.axes_locked_out = False
