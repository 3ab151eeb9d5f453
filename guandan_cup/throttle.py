"""Throttling by address, shared by the login (``guandan_cup.accounts``), the players' link
of a table (``scoring.views.players``) and the arbitration panel's co-signature
(``scoring.views.correction``): django-axes counts failures per name and address; here, the
limit of one address across names, and a wrong table code or co-signing password counted as
a failed login."""

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


# The arbitration panel's co-signature (a correction signed by two members, the second with
# their password on the first one's page) is throttled as a login is, under a name of its
# own: each wrong co-signing password counts as one failed login of "<username>
# (co-signing)" from the address, so reaching the login's limit locks the co-signing for the
# cool-off and not the co-signer's own login; the address's limit across names counts it
# too. (A username never holds a space or brackets, so no login shares the name.)
COSIGNING = "{} (co-signing)"


def cosigning_name(user) -> str:
    return COSIGNING.format(user.get_username())


def cosigning_locked(request: HttpRequest, user) -> bool:
    """Whether ``user`` may not co-sign from this address now: too many wrong co-signing
    passwords lately, or their own login locked here, or the address locked."""
    if not settings.AXES_ENABLED:
        return False
    return (
        address_locked(request)
        or AxesProxyHandler.is_locked(request, {"username": cosigning_name(user)})
        or AxesProxyHandler.is_locked(request, {"username": user.get_username()})
    )


def cosigning_failed(request: HttpRequest, user) -> bool:
    """Count a refused co-signature of ``user`` from this address as django-axes counts a
    failed login; True when it reaches the limit. The answer stays the correction page (with
    its draft), not the login page's lockout."""
    user_login_failed.send(
        sender=__name__, credentials={"username": cosigning_name(user)}, request=request
    )
    reached = bool(getattr(request, "axes_locked_out", False))
    request.axes_locked_out = False
    return reached


def cosigning_passed(request: HttpRequest, user) -> None:
    """A co-signature with the right password clears its failures from this address, as a
    login's success clears the login's (AXES_RESET_ON_SUCCESS)."""
    if settings.AXES_ENABLED and settings.AXES_RESET_ON_SUCCESS:
        AxesProxyHandler.reset_attempts(ip_address=_address(request), username=cosigning_name(user))
