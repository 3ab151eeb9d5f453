"""Accounts: login throttling (django-axes, plus a limit per address across usernames), the
client's address behind trusted proxies, the CSRF failure page and "log out everywhere".

Who may do what once logged in is in ``tournaments.access`` and docs/permissions.md.
"""

from __future__ import annotations

import logging

from axes.backends import AxesStandaloneBackend
from axes.exceptions import AxesBackendPermissionDenied
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe

from guandan_cup.passwords import end_sessions
from guandan_cup.proxies import address_of, is_trusted_proxy, warn_untrusted
from guandan_cup.throttle import address_locked, lockout_minutes
from tournaments.homes import home_for, homes_of

logger = logging.getLogger(__name__)


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' lockout check for logins through a web request.

    A login without a request (the test client's ``login()``, a shell) has no address to
    throttle by; axes would refuse it outright, so it is passed on to the next backend.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        if settings.AXES_ENABLED and address_locked(request):
            # As django-axes does for a locked username: the lockout page (429), and the
            # attempt is recorded as one more failure.
            request.axes_locked_out = True
            request.login_address_locked = True
            raise AxesBackendPermissionDenied("too many failed logins from this address")
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request: HttpRequest) -> str | None:
    """The visitor's address for login throttling.

    REMOTE_ADDR, unless it is a trusted proxy (settings.TRUSTED_PROXIES) and PROXY_COUNT
    proxies stand in front of the app: then X-Forwarded-For is read from the right, one
    entry per proxy, and each entry is believed only if the hop that added it is trusted
    itself. So a client that reaches the app directly, or sends the header itself, cannot
    choose the address it is counted under.
    """
    remote = request.META.get("REMOTE_ADDR")
    count = settings.PROXY_COUNT
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if count <= 0 or remote is None:
        return remote
    if not is_trusted_proxy(remote):
        if header:
            warn_untrusted(remote)
        return remote
    forwarded = [part for part in header.split(",") if part.strip()]
    address = remote
    for _hop in range(count):
        if not forwarded or not is_trusted_proxy(address):
            break
        entry = address_of(forwarded.pop())
        if entry is None:  # a proxy that forwards nonsense: count the proxy
            break
        address = str(entry)
    return address


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """The login page again, with a plain message instead of the form's error (HTTP 429)."""
    if getattr(request, "login_address_locked", False):
        message = _(
            "这台设备登录失败次数过多，已暂时锁定，请%(minutes)s分钟后再试。"
            "忘记密码请联系组织者重设。"
        ) % {"minutes": lockout_minutes()}
    else:
        message = _(
            "登录失败次数过多：该用户名在这台设备上已暂时锁定，请%(minutes)s分钟后再试。"
            "忘记密码请联系组织者重设。"
        ) % {"minutes": lockout_minutes()}
    context = {
        "form": AuthenticationForm(request),
        "locked_message": message,
        "next": request.POST.get("next", request.GET.get("next", "")),
    }
    return render(request, "registration/login.html", context, status=429)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A refused form (no or a stale CSRF token): say what to do, in the user's language."""
    return render(request, "csrf_failure.html", {"reason": reason}, status=403)


@login_required
@require_POST
def logout_everywhere(request: HttpRequest) -> HttpResponse:
    """退出所有设备: end every session of this user (a lost phone, a shared computer)."""
    user = request.user
    ended = end_sessions(user)
    logout(request)
    messages.success(
        request,
        _("已在所有设备上退出（%(n)s个登录）。请重新登录。") % {"n": ended},
    )
    return redirect(settings.LOGIN_URL)


class LoginView(auth_views.LoginView):
    """The login page: a safe ``next`` wins; otherwise each person lands where their work
    is (``tournaments.homes.home_for``)."""

    def get_default_redirect_url(self) -> str:
        return home_for(self.request.user)


@login_required
@require_safe
def account(request: HttpRequest) -> HttpResponse:
    """我的账号: who I am here (roles, units led) and where my work is in each tournament
    (the chooser a login with several tournaments lands on), change password, log out
    everywhere."""
    user = request.user
    roles = user.official_roles.select_related("tournament").order_by("tournament__name", "role")
    units = user.led_units.select_related("tournament").order_by("tournament__name", "name")
    return render(
        request,
        "registration/account.html",
        {
            "roles": roles,
            "units": units,
            "homes": homes_of(user),
            "can_change_password": user.has_usable_password(),
        },
    )
