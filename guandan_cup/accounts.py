"""Accounts: login throttling (django-axes), the CSRF failure page and "log out everywhere".

Who may do what once logged in is in ``tournaments.access`` and docs/permissions.md.
"""

from __future__ import annotations

from axes.backends import AxesStandaloneBackend
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.sessions.models import Session
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe


class LoginThrottleBackend(AxesStandaloneBackend):
    """django-axes' lockout check for logins through a web request.

    A login without a request (the test client's ``login()``, a shell) has no address to
    throttle by; axes would refuse it outright, so it is passed on to the next backend.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def client_ip(request: HttpRequest) -> str | None:
    """The visitor's address for login throttling.

    Without a proxy it is REMOTE_ADDR. Behind PROXY_COUNT trusted proxies it is the entry
    the first of them appended to X-Forwarded-For: counted from the right, so a client
    cannot choose its own address by sending the header itself.
    """
    count = settings.PROXY_COUNT
    if count > 0:
        forwarded = [
            part.strip()
            for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
            if part.strip()
        ]
        if len(forwarded) >= count:
            return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_minutes() -> int:
    return int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)


def lockout_response(request, original_response=None, credentials=None) -> HttpResponse:
    """The login page again, with a plain message instead of the form's error (HTTP 429)."""
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


def end_sessions(user) -> int:
    """Delete every unexpired session of ``user`` (database sessions); returns how many."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if session.get_decoded().get("_auth_user_id") == str(user.pk):
            session.delete()
            ended += 1
    return ended


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


@login_required
@require_safe
def account(request: HttpRequest) -> HttpResponse:
    """我的账号: who I am here (roles, units led), change password, log out everywhere."""
    user = request.user
    roles = user.official_roles.select_related("tournament").order_by("tournament__name", "role")
    units = user.led_units.select_related("tournament").order_by("tournament__name", "name")
    return render(
        request,
        "registration/account.html",
        {
            "roles": roles,
            "units": units,
            "can_change_password": user.has_usable_password(),
        },
    )
